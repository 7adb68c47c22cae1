package probes

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/probes/internal/studytest"
)

// TestScoreChecksTheProbe scores a fake extraction with a saved probe of
// the right width and refuses one of another width with an error naming
// the file, not a panic.
func TestScoreChecksTheProbe(t *testing.T) {
	dir := studytest.Run(t, studytest.Other, nil)
	r, err := NewTemplateRenderer(TinyTemplate)
	if err != nil {
		t.Fatal(err)
	}
	act := filepath.Join(t.TempDir(), "act")
	if _, err := Extract(context.Background(), dir, byteEngine{}, ExtractOptions{Out: act, Renderer: r, Positions: "last"}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		probe *Probe
		err   string
	}{
		{name: "a probe of the extraction's width", probe: &Probe{Mean: []float64{0, 0}, Std: []float64{1, 0}, W: []float64{0.01, 5}, B: -1}},
		{name: "a probe of another width", probe: &Probe{Mean: []float64{0}, Std: []float64{1}, W: []float64{1}}, err: "is not a probe of hidden 2"},
		{name: "no probe", err: "is not a probe of hidden 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			file := filepath.Join(out, "probes.json")
			saved := SavedProbes{Model: byteEngine{}.Info(), Probes: []SavedProbe{{Target: "injection", Layer: 1, Probe: c.probe}}}
			if err := writeJSON(file, saved); err != nil {
				t.Fatal(err)
			}
			sum, err := Score(file, act, out)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), file) {
					t.Fatalf("err = %v, want %q naming %s", err, c.err, file)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Targets) != 1 || sum.Targets[0].Rows == 0 {
				t.Fatalf("summary %+v", sum)
			}
		})
	}
}
