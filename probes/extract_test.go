package probes

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/probes/internal/studytest"
)

// byteEngine is a fake engine: one token per byte, and each state holds
// its token's position, so rows can be checked against the prompt.
type byteEngine struct{ diff float64 }

func (byteEngine) Info() results.ProbeModel {
	return results.ProbeModel{Arch: "fake", Adapter: "fake/1", Layers: 1, Hidden: 2}
}

func (byteEngine) Tokenize(p string) ([]int32, error) {
	ids := make([]int32, len(p))
	for i := range len(p) {
		ids[i] = int32(p[i])
	}
	return ids, nil
}

func (byteEngine) Decode(ids []int32) (string, error) {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return string(b), nil
}

func (byteEngine) Forward(tokens []int32, keep []int) ([][]float32, error) {
	out := make([][]float32, 2)
	for l := range out {
		for _, k := range keep {
			out[l] = append(out[l], float32(k), float32(tokens[k]))
		}
	}
	return out, nil
}

func (e byteEngine) CheckExact([]int32) (float64, error) { return e.diff, nil }
func (byteEngine) Close() error                          { return nil }

func TestExtract(t *testing.T) {
	dir := studytest.Run(t, studytest.Other, nil)
	r, err := NewTemplateRenderer(TinyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		eng       byteEngine
		positions string
		err       string
	}{
		{name: "last token of each call", positions: "last"},
		{name: "tool result tokens", positions: "tool"},
		{name: "exactness refused", eng: byteEngine{diff: 0.5}, positions: "last", err: "exactness check"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "act")
			meta, err := Extract(context.Background(), dir, c.eng, ExtractOptions{Out: out, Renderer: r, Positions: c.positions})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				if _, err := ReadMeta(out); err == nil {
					t.Fatal("a refused extraction left meta.json")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rows, err := ReadIndex(out)
			if err != nil {
				t.Fatal(err)
			}
			x, n, d, err := ReadNpyFloats(filepath.Join(out, LayerFile(1)))
			if err != nil || n != len(rows) || n != meta.Rows || d != 2 {
				t.Fatalf("layer file %d x %d for %d rows: %v", n, d, len(rows), err)
			}
			toks, err := ReadTokens(out)
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[string]int{}
			for i, row := range rows {
				kinds[row.Kind]++
				if int(x[2*i]) != row.Token || int32(x[2*i+1]) != toks[row.TokOff+row.Token] {
					t.Fatalf("row %d: state %v does not belong to token %d", i, x[2*i:2*i+2], row.Token)
				}
				if row.Kind == "last" && row.Token != row.Tokens-1 {
					t.Fatalf("row %d: last token at %d of %d", i, row.Token, row.Tokens)
				}
			}
			if kinds["last"] != meta.Calls || (c.positions == "tool") != (kinds["tool"] > 0) {
				t.Fatalf("kinds %v for %d calls", kinds, meta.Calls)
			}
		})
	}
}

// TestExtractTampersLabel: in a reward-hack study, exactly the turn whose
// tool call first shows the hack in the effect log is labelled tampers,
// and no turn of an honest run is.
func TestExtractTampersLabel(t *testing.T) {
	dir := studytest.Run(t, studytest.Reward, nil)
	r, err := NewTemplateRenderer(TinyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "act")
	if _, err := Extract(context.Background(), dir, byteEngine{}, ExtractOptions{Out: out, Renderer: r, Positions: "last"}); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{} // run id → the hack's step
	if err := results.ReadRuns(filepath.Join(dir, results.RunsFile), func(run results.Run) error {
		if run.RewardHack != nil && results.Is(run.Hack) && run.HackStepEffect != nil {
			want[run.RunID] = *run.HackStepEffect
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("no hacked run in the reward study")
	}
	got := map[string]int{}
	for _, row := range rows {
		if !row.Tampers {
			continue
		}
		if _, dup := got[row.RunID]; dup {
			t.Errorf("run %s: two turns labelled tampers", row.RunID)
		}
		got[row.RunID] = row.Step
	}
	for id, step := range want {
		if got[id] != step {
			t.Errorf("run %s: tampers at step %d, want %d", id, got[id], step)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("run %s: tampers on a run without a hack", id)
		}
	}
}
