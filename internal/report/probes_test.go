package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
)

const probesTrainJSON = `{
  "model": {"path": "/m/tiny.gguf", "arch": "llama", "adapter": "llama/1", "layers": 1, "hidden": 64},
  "rows": 40, "runs": 10, "tasks": ["a", "b"], "fpr": 0.01, "folds": 5,
  "targets": [
    {"target": "injection", "positives": 20, "negatives": 20, "best_layer": 1,
     "layers": [
       {"layer": 0, "loso": {"auroc": {"value": 0.5, "lo": 0.5, "hi": 0.5, "n": 40}, "tpr_at_fpr": {"value": 0, "lo": 0, "hi": 0.1, "n": 20}},
                    "kfold": {"auroc": {"value": 0.5, "lo": 0.4, "hi": 0.6, "n": 40}, "tpr_at_fpr": {"value": 0, "lo": 0, "hi": 0.1, "n": 20}}},
       {"layer": 1, "loso": {"auroc": {"value": 0.9, "lo": 0.8, "hi": 0.95, "n": 40}, "tpr_at_fpr": {"value": 0.5, "lo": 0.3, "hi": 0.7, "n": 20}},
                    "kfold": {"auroc": {"value": 0.95, "lo": 0.9, "hi": 1, "n": 40}, "tpr_at_fpr": {"value": 0.6, "lo": 0.4, "hi": 0.8, "n": 20}}}],
     "shuffled": [{"layer": 0, "loso": {"auroc": {"value": 0.5}}}, {"layer": 1, "loso": {"auroc": {"value": 0.52}}}],
     "random": [{"layer": 0, "loso": {"auroc": {"value": null}}}, {"layer": 1, "loso": {"auroc": {"value": 0.61}}}],
     "bag_of_tokens": {"layer": -1, "loso": {"auroc": {"value": 0.97}}},
     "per_task": {"a": 0.9, "b": 0.88},
     "lead_time": {"turns": {"0": 2, "10": 1, "2": 1}, "missed": 1, "runs": 5}},
    {"target": "executes", "positives": 0, "negatives": 40, "layers": null}
  ]
}`

func TestProbesReport(t *testing.T) {
	cases := []struct {
		name     string
		json     string
		sections int
		figures  int
		want     []string
	}{
		{name: "no probes", sections: 0},
		{name: "trained", json: probesTrainJSON, sections: 2, figures: 1,
			want: []string{"1 (best)", "0.900 (0.800–0.950)", "0.520", "0.610", "bag of tokens", "0 turns: 2, 2 turns: 1, 10 turns: 1", "one class only", "a 0.90, b 0.88"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.json != "" {
				if err := os.MkdirAll(filepath.Join(dir, "probes"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, results.ProbesTrainFile), []byte(c.json), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			secs, figs, err := probesReport(dir, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(secs) != c.sections || len(figs) != c.figures {
				t.Fatalf("%d sections, %d figures; want %d, %d", len(secs), len(figs), c.sections, c.figures)
			}
			var text strings.Builder
			for _, s := range secs {
				text.WriteString(s.Intro)
				if err := s.Table.Markdown(&text); err != nil {
					t.Fatal(err)
				}
			}
			for _, w := range c.want {
				if !strings.Contains(text.String(), w) {
					t.Errorf("missing %q in\n%s", w, text.String())
				}
			}
			for _, f := range figs {
				if len(f.SVG) == 0 || len(f.PNG) == 0 {
					t.Errorf("figure %s is empty", f.Name)
				}
			}
		})
	}
}
