package report

import (
	"github.com/killchain/killchain/internal/report/plot"
	"github.com/killchain/killchain/internal/results"
)

// analyzer adds the forensic analysis to a report: it sees every run once,
// may flag runs for the per-run views, and in the end returns its sections
// and the inputs of the drift and feature-importance figures.
type analyzer interface {
	// wantsForensics asks the reader to decode each run's forensics and
	// harness labels.
	wantsForensics() bool
	add(r *results.Run) (why string)
	finish(maxIDs int) ([]section, Extras)
}

// driftSeries averages the per-step drift of runs' forensics, clean and
// attacked apart: the figure input when no other analysis provides one.
type driftSeries struct {
	sum [2][]float64
	n   [2][]int
}

func (d *driftSeries) add(r *results.Run) {
	if r.Forensics == nil || r.Error != "" {
		return
	}
	i := 0
	if r.Attacked {
		i = 1
	}
	for s, v := range r.Forensics.Drift {
		if s >= maxDriftSteps {
			break
		}
		for len(d.sum[i]) <= s {
			d.sum[i] = append(d.sum[i], 0)
			d.n[i] = append(d.n[i], 0)
		}
		d.sum[i][s] += v
		d.n[i][s]++
	}
}

// maxDriftSteps bounds the drift figure's x axis.
const maxDriftSteps = 40

func (d *driftSeries) series() []plot.Series {
	var out []plot.Series
	for i, name := range []string{"clean", "attacked"} {
		var s plot.Series
		s.Name = name
		for step, sum := range d.sum[i] {
			if d.n[i][step] == 0 {
				continue
			}
			s.X = append(s.X, float64(step+1))
			s.Y = append(s.Y, sum/float64(d.n[i][step]))
		}
		if len(s.X) > 0 {
			out = append(out, s)
		}
	}
	return out
}
