package report

import (
	"context"
	"slices"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/vocab"
)

// signalKey groups events by the channel they were seen on and their signal.
type signalKey struct{ Channel, Signal string }

// signalCount counts events and the runs that had at least one.
type signalCount struct{ Events, Runs int }

// stepStats summarises the step at which runs first reached a stage.
type stepStats struct {
	N, Sum, Max int
	Hist        map[int]int
}

// median of the recorded steps.
func (s *stepStats) median() float64 {
	if s.N == 0 {
		return 0
	}
	steps := make([]int, 0, len(s.Hist))
	for k := range s.Hist {
		steps = append(steps, k)
	}
	slices.Sort(steps)
	lo, hi := (s.N-1)/2, s.N/2
	var a, b, seen int
	for _, k := range steps {
		next := seen + s.Hist[k]
		if lo >= seen && lo < next {
			a = k
		}
		if hi >= seen && hi < next {
			b = k
			break
		}
		seen = next
	}
	return float64(a+b) / 2
}

// EventStats are the counters of one pass over events.jsonl, plus the
// events of the runs picked for a per-run view.
type EventStats struct {
	Lines   int
	Signals map[signalKey]*signalCount
	// FirstStep is, per stage, the step at which runs first reached it.
	FirstStep map[string]*stepStats
	// ByRun holds the events of the picked runs only.
	ByRun map[string][]vocab.Event
}

// stageSignals are the event signals that name a kill-chain stage.
var stageSignals = map[string]bool{"exposed": true, "persisted": true, "relayed": true, "executed": true}

// readEvents streams the events file at path. Events of one run are written
// together (results.Writer), so per-run state is kept for the current run
// only. Each recorded run has its events once (results.Compact drops the
// events of unrecorded tries when a study is resumed); a folder written
// before that may hold a resumed run's events twice, and the counts then
// include both. A missing file is no error: older studies and imports have
// none.
func readEvents(path string, pick func(runID string) bool) (*EventStats, error) {
	st := &EventStats{
		Signals:   make(map[signalKey]*signalCount),
		FirstStep: make(map[string]*stepStats),
		ByRun:     make(map[string][]vocab.Event),
	}
	var (
		cur    string
		picked bool
		seen   = make(map[signalKey]bool)
	)
	err := results.ReadEvents(context.Background(), path, func(l *results.EventLine) error {
		st.Lines++
		ev := l.Event
		if ev.RunID != cur {
			cur = ev.RunID
			clear(seen)
			picked = pick != nil && pick(cur)
		}
		k := signalKey{ev.Channel, ev.Signal}
		c := st.Signals[k]
		if c == nil {
			c = &signalCount{}
			st.Signals[k] = c
		}
		c.Events++
		first := !seen[k]
		if first {
			c.Runs++
			seen[k] = true
		}
		stageKey := signalKey{Signal: ev.Signal}
		if stageSignals[ev.Signal] && !seen[stageKey] {
			seen[stageKey] = true
			s := st.FirstStep[ev.Signal]
			if s == nil {
				s = &stepStats{Hist: make(map[int]int)}
				st.FirstStep[ev.Signal] = s
			}
			s.N++
			s.Sum += ev.Step
			s.Max = max(s.Max, ev.Step)
			s.Hist[ev.Step]++
		}
		if picked {
			e := ev
			e.RunID = cur
			var err error
			if e.Excerpt, err = l.Excerpt(); err != nil {
				return err
			}
			st.ByRun[cur] = append(st.ByRun[cur], e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}
