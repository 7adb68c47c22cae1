//go:build cgo

package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/killchain/killchain/probes"
	"github.com/killchain/killchain/probes/internal/studytest"
)

// TestPipeline runs the whole path on the tiny model: a reference-agent
// study, extraction with the exactness check, the random-weights control,
// training with both splits and every control, and scoring.
func TestPipeline(t *testing.T) {
	dir := studytest.Run(t, fmt.Sprintf(studytest.Text, 1, 1), nil)
	r, err := probes.NewTemplateRenderer(probes.TinyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	engines := map[uint64]*Engine{1: tiny(t, 1, Options{Threads: 1}), 2: tiny(t, 2, Options{Threads: 1})}
	e := engines[1]
	extract := func(seed uint64, out string) probes.Meta {
		e := engines[seed]
		start := time.Now()
		meta, err := probes.Extract(context.Background(), dir, e, probes.ExtractOptions{Out: out, Renderer: r, TemplateSource: "tiny"})
		if err != nil {
			t.Error(err)
			return meta
		}
		t.Logf("seed %d: %d calls, %d tokens in %v (%.0f tokens/s), exactness max diff %g",
			seed, meta.Calls, meta.Tokens, time.Since(start).Round(time.Millisecond), float64(meta.Tokens)/meta.Seconds, meta.ExactMaxDiff)
		return meta
	}
	act := filepath.Join(dir, "probes", "activations")
	rnd := filepath.Join(dir, "probes", "random")
	meta := extract(1, act)
	extract(2, rnd)
	if t.Failed() {
		t.FailNow()
	}

	t.Run("arrays have the documented shapes", func(t *testing.T) {
		rows, err := probes.ReadIndex(act)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != meta.Rows || meta.Rows != meta.Calls {
			t.Fatalf("index %d rows, meta %d rows, %d calls", len(rows), meta.Rows, meta.Calls)
		}
		for l := 0; l <= 2; l++ {
			_, n, d, err := probes.ReadNpyFloats(filepath.Join(act, probes.LayerFile(l)))
			if err != nil {
				t.Fatal(err)
			}
			if n != meta.Rows || d != 64 {
				t.Fatalf("layer %d: %d x %d", l, n, d)
			}
		}
		if meta.ExactMaxDiff != 0 {
			t.Fatalf("exactness max diff %g", meta.ExactMaxDiff)
		}
		var inj, exe int
		for _, r := range rows {
			if r.Injection {
				inj++
			}
			if r.Executes {
				exe++
			}
			if r.Executes && !r.Attacked {
				t.Fatalf("row %d executes in a clean run", r.Row)
			}
		}
		if inj == 0 || exe == 0 {
			t.Fatalf("%d injection rows, %d executing rows", inj, exe)
		}
	})

	res, err := probes.Train(act, probes.TrainOptions{Random: rnd, Bootstrap: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("train reports both splits and the controls", func(t *testing.T) {
		if len(res.Tasks) != 3 {
			t.Fatalf("tasks %v", res.Tasks)
		}
		for _, tr := range res.Targets {
			if tr.Target == "tampers" {
				// A text study has no reward-hack runs: one class, skipped.
				if tr.Positives != 0 || len(tr.Layers) != 0 {
					t.Errorf("tampers: %d positives, %d layers in a study without reward-hack runs", tr.Positives, len(tr.Layers))
				}
				continue
			}
			if len(tr.Layers) != 3 || len(tr.Shuffled) != 3 || len(tr.Random) != 3 {
				t.Fatalf("%s: %d layers, %d shuffled, %d random", tr.Target, len(tr.Layers), len(tr.Shuffled), len(tr.Random))
			}
			for _, le := range tr.Layers {
				t.Logf("%s layer %d: LOSO AUROC %.3f [%.3f, %.3f] TPR@1%% %.2f, 5-fold %.3f; shuffled %.3f; random %.3f",
					tr.Target, le.Layer, le.LOSO.AUROC.Value, le.LOSO.AUROC.Lo, le.LOSO.AUROC.Hi, le.LOSO.TPR.Value,
					le.KFold.AUROC.Value, tr.Shuffled[le.Layer].LOSO.AUROC.Value, tr.Random[le.Layer].LOSO.AUROC.Value)
			}
			t.Logf("%s bag of tokens: LOSO %.3f 5-fold %.3f; lead %v missed %d of %d", tr.Target,
				tr.BagOfTokens.LOSO.AUROC.Value, tr.BagOfTokens.KFold.AUROC.Value, tr.Lead.Turns, tr.Lead.Missed, tr.Lead.Runs)
			best := tr.Layers[tr.Best].KFold.AUROC.Value
			if tr.Target == "injection" && (math.IsNaN(best) || best < 0.6) {
				t.Errorf("%s: best layer 5-fold AUROC %.3f; the canary's tokens should be readable", tr.Target, best)
			}
		}
	})
	t.Run("a saved probe scores another study", func(t *testing.T) {
		other := studytest.Run(t, studytest.Other, nil)
		if _, err := probes.Extract(context.Background(), other, e, probes.ExtractOptions{Renderer: r, TemplateSource: "tiny"}); err != nil {
			t.Fatal(err)
		}
		sum, err := probes.Score(filepath.Join(dir, "probes", "probes.json"), filepath.Join(other, "probes", "activations"), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sum.Targets {
			t.Logf("%s on another study: AUROC %.3f, fired on %d of %d rows", s.Target, s.AUROC, s.Fired, s.Rows)
		}
		if _, err := os.Stat(filepath.Join(other, "probes", "scores.jsonl")); err != nil {
			t.Fatal(err)
		}
	})
}
