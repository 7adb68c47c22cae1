package defense

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
)

// TestVerdictCorpus measures pi_detector's verdict parser on labelled
// corpora of classifier answers (testdata/verdicts.tsv, on which the parser
// was tuned, and verdicts_heldout.tsv, written afterwards): pass is an
// unambiguous SAFE, block everything else. Fail closed means no answer
// labelled block may pass (block recall 1); the test also states how many
// clean SAFE answers the parser blocks (pass recall), the cost of failing
// closed.
func TestVerdictCorpus(t *testing.T) {
	for _, tc := range []struct {
		name, file    string
		minBlock, min int
	}{
		{"tuning", "testdata/verdicts.tsv", 60, 40},
		{"held out", "testdata/verdicts_heldout.tsv", 20, 15},
	} {
		t.Run(tc.name, func(t *testing.T) { corpus(t, tc.file, tc.minBlock, tc.min) })
	}
}

// corpus judges every answer of a verdict file.
func corpus(t *testing.T, file string, minBlock, minPass int) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tp, fp, fn, tn int // positive: the detector blocks
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		label, answer, ok := strings.Cut(text, "\t")
		if !ok || (label != "pass" && label != "block") {
			t.Fatalf("%s:%d: want label<TAB>answer with label pass or block", file, line)
		}
		answer = strings.ReplaceAll(answer, `\n`, "\n")
		v := judge(agent.Reply{Narration: answer})
		switch {
		case v.Block && label == "block":
			tp++
		case v.Block:
			fp++
			t.Logf("%s:%d: a clean SAFE blocked: %q (%s)", file, line, answer, v.Reason)
		case label == "block":
			fn++
			t.Errorf("%s:%d: passed an answer that must block: %q", file, line, answer)
		default:
			tn++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	precision := float64(tp) / float64(tp+fp)
	recall := float64(tp) / float64(tp+fn)
	passRecall := float64(tn) / float64(tn+fp)
	t.Logf("%s: %d answers; block precision %.3f (%d/%d), block recall %.3f (%d/%d), clean SAFE passed %.3f (%d/%d)",
		file, tp+fp+fn+tn, precision, tp, tp+fp, recall, tp, tp+fn, passRecall, tn, tn+fp)
	if tp+fn < minBlock || tn+fp < minPass {
		t.Errorf("corpus too small: %d block and %d pass answers", tp+fn, tn+fp)
	}
	if passRecall < 0.9 {
		t.Errorf("clean SAFE answers passed %.3f, want at least 0.9: the parser blocks too much", passRecall)
	}
}
