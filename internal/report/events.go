package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/results/jsonscan"
	"github.com/killchain/killchain/internal/tracker"
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
	ByRun map[string][]tracker.Event
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
		ByRun:     make(map[string][]tracker.Event),
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	name := filepath.Base(path)
	sc := &eventDecoder{strs: jsonscan.NewStrings()}
	var (
		cur    string
		picked bool
		seen   = make(map[signalKey]bool)
		ev     tracker.Event
	)
	err := results.Lines(context.Background(), path, func(num int, _ int64, data []byte) error {
		st.Lines++
		excerpt, err := sc.decodeEvent(data, &ev)
		if err != nil {
			ev = tracker.Event{}
			if err := json.Unmarshal(data, &ev); err != nil {
				return fmt.Errorf("%s:%d: %w", name, num, err)
			}
			excerpt = -1
		}
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
			if excerpt >= 0 {
				if _, err = sc.str(data, excerpt, &e.Excerpt, false); err != nil {
					return fmt.Errorf("%s:%d: %w", name, num, err)
				}
			}
			st.ByRun[cur] = append(st.ByRun[cur], e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	return st, nil
}

// eventDecoder decodes events.jsonl lines with the jsonscan primitives,
// falling back to encoding/json for a line it does not take (see
// results.Decoder); the few distinct values of the identity fields are
// interned.
type eventDecoder struct {
	strs *jsonscan.Strings
}

// str decodes the string at p into dst, interned if intern is set.
func (s *eventDecoder) str(data []byte, p int, dst *string, intern bool) (int, error) {
	if jsonscan.IsNull(data, p) {
		return p + 4, nil
	}
	v, q, err := s.strs.String(data, p, intern)
	*dst = v
	return q, err
}

// decodeEvent fills e from one events.jsonl line except its excerpt, which
// only the picked runs need: it returns the position of the excerpt's
// value in data, or -1.
func (s *eventDecoder) decodeEvent(data []byte, e *tracker.Event) (excerpt int, err error) {
	*e = tracker.Event{}
	excerpt = -1
	err = jsonscan.Object(data, func(key []byte, p int) (int, error) {
		str := func(dst *string, in bool) (int, error) { return s.str(data, p, dst, in) }
		switch string(key) {
		case "study":
			return str(&e.Study, true)
		case "run_id":
			return str(&e.RunID, false)
		case "agent":
			return str(&e.Agent, true)
		case "position":
			return str(&e.Pos, true)
		case "tool":
			return str(&e.Tool, true)
		case "channel":
			return str(&e.Channel, true)
		case "signal":
			return str(&e.Signal, true)
		case "excerpt":
			excerpt = p
			if jsonscan.IsNull(data, p) {
				return p + 4, nil
			}
			_, q, _, err := jsonscan.RawString(data, p)
			return q, err
		case "step":
			if jsonscan.IsNull(data, p) {
				return p + 4, nil
			}
			v, q, err := jsonscan.Int(data, p)
			e.Step = int(v)
			return q, err
		}
		return jsonscan.SkipUnknown(data, p, key)
	})
	return excerpt, err
}
