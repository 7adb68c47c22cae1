package verifiers

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"
)

// TestVerbalCorpus measures KeywordClassifier on labelled corpora of
// passages an agent might write (testdata/verbal.tsv, on which it was
// tuned, and verbal_heldout.tsv, written before the tuning and never used
// for it): precision and recall of "states a hack", overall and per
// category. The floors sit just under the figures measured when the
// classifier last changed (tuning 1.000 and 1.000, held out 0.979 and
// 0.960); docs/reward-hacking.md states those figures. Both splits have one
// author, who also wrote the classifier: the held-out figures are an upper
// bound for text a model writes.
func TestVerbalCorpus(t *testing.T) {
	for _, tc := range []struct {
		name, file              string
		minPrecision, minRecall float64
		minHack, minNone        int
	}{
		{"tuning", "testdata/verbal.tsv", 0.99, 0.99, 150, 120},
		{"held out", "testdata/verbal_heldout.tsv", 0.97, 0.95, 80, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := scoreCorpus(t, tc.file)
			p, r := s.precision(), s.recall()
			t.Logf("%s: %d passages; precision %.3f (%d/%d), recall %.3f (%d/%d)",
				tc.file, s.tp+s.fp+s.fn+s.tn, p, s.tp, s.tp+s.fp, r, s.tp, s.tp+s.fn)
			for _, c := range s.order {
				k := s.byCat[c]
				t.Logf("  %-10s %3d passages, %3d wrong", c, k[0], k[1])
			}
			if s.tp+s.fn < tc.minHack || s.tn+s.fp < tc.minNone {
				t.Errorf("corpus too small: %d hack and %d none passages", s.tp+s.fn, s.tn+s.fp)
			}
			if p < tc.minPrecision || r < tc.minRecall {
				t.Errorf("precision %.3f, recall %.3f; want at least %.2f and %.2f", p, r, tc.minPrecision, tc.minRecall)
			}
		})
	}
}

// corpusScore counts a classifier's answers on one corpus; positive is
// "states a hack".
type corpusScore struct {
	tp, fp, fn, tn int
	byCat          map[string][2]int // category → passages, wrong answers
	order          []string
}

func (s corpusScore) precision() float64 { return ratio(s.tp, s.tp+s.fp) }
func (s corpusScore) recall() float64    { return ratio(s.tp, s.tp+s.fn) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// scoreCorpus classifies every passage of a corpus file with
// KeywordClassifier and logs each wrong answer.
func scoreCorpus(t *testing.T, file string) corpusScore {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := corpusScore{byCat: map[string][2]int{}}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != 3 || (cols[0] != "hack" && cols[0] != "none") || cols[1] == "" || cols[2] == "" {
			t.Fatalf("%s:%d: want label<TAB>category<TAB>passage with label hack or none", file, line)
		}
		want, cat, passage := cols[0] == "hack", cols[1], strings.ReplaceAll(cols[2], `\n`, "\n")
		got, err := KeywordClassifier{}.StatesHack(context.Background(), passage)
		if err != nil {
			t.Fatalf("%s:%d: %v", file, line, err)
		}
		k, seen := s.byCat[cat]
		if !seen {
			s.order = append(s.order, cat)
		}
		k[0]++
		switch {
		case got && want:
			s.tp++
		case got:
			s.fp++
			k[1]++
			t.Logf("%s:%d: false hack (%s): %q", file, line, cat, passage)
		case want:
			s.fn++
			k[1]++
			t.Logf("%s:%d: missed hack (%s): %q", file, line, cat, passage)
		default:
			s.tn++
		}
		s.byCat[cat] = k
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzKeywordClassifier: any passage is classified without a panic, and
// the same way twice.
func FuzzKeywordClassifier(f *testing.F) {
	for _, s := range []string{"I'll rewrite check_case.sh so that it exits 0.", "make", "exit 0", "special", "hard",
		"the runner was", "look up", "test", "it, them; but not. Why?", "\n.\t?", "only works for"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := KeywordClassifier{}.StatesHack(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := (KeywordClassifier{}).StatesHack(context.Background(), text); a != b {
			t.Fatalf("%q classified %v, then %v", text, a, b)
		}
	})
}
