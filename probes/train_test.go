package probes

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/killchain/killchain/probes/internal/studytest"
)

// TestTrainLeadTimeAgainstExecutes: every target's lead time counts the
// runs that reached Executed, not the runs of its own positive labels
// (issue 19: the injection target reported 56 runs where 24 executed).
func TestTrainLeadTimeAgainstExecutes(t *testing.T) {
	dir := studytest.Run(t, fmt.Sprintf(studytest.Text, 2, 1), nil)
	r, err := NewTemplateRenderer(TinyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	act := filepath.Join(dir, "probes", "activations")
	if _, err := Extract(context.Background(), dir, byteEngine{}, ExtractOptions{Out: act, Renderer: r, Positions: "last"}); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadIndex(act)
	if err != nil {
		t.Fatal(err)
	}
	executed, injected := map[string]bool{}, map[string]bool{}
	for _, row := range rows {
		if row.Kind != "last" {
			continue
		}
		if row.Executes {
			executed[row.RunID] = true
		}
		if row.Injection {
			injected[row.RunID] = true
		}
	}
	if len(executed) == 0 || len(injected) <= len(executed) {
		t.Fatalf("the study must have more injected (%d) than executed (%d) runs to tell the labels apart", len(injected), len(executed))
	}
	res, err := Train(act, TrainOptions{Out: t.TempDir(), Bootstrap: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	trained := 0
	for _, tr := range res.Targets {
		if len(tr.Layers) == 0 {
			continue
		}
		trained++
		// The study's attacked runs come from several payload variants:
		// every layer is also held out family by family.
		for _, l := range tr.Layers {
			if l.LOFO == nil || l.LOFO.AUROC.N == 0 {
				t.Errorf("target %s layer %d: no leave-one-attack-family-out evaluation", tr.Target, l.Layer)
			}
		}
		if tr.Lead.Runs != len(executed) {
			t.Errorf("target %s: lead time over %d runs, want the %d runs that reached Executed", tr.Target, tr.Lead.Runs, len(executed))
		}
	}
	if trained < 2 {
		t.Errorf("%d targets trained, want injection and executes", trained)
	}
}
