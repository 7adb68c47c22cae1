package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/killchain/killchain/internal/results/jsonscan"
	"github.com/killchain/killchain/internal/vocab"
)

// EventLine is one line of events.jsonl as ReadEvents hands it over: the
// event decoded without its excerpt, which Excerpt decodes on demand (only
// the runs a report shows need it).
type EventLine struct {
	Num   int // 1-based line number
	Event vocab.Event

	data    []byte
	excerpt int // position of the excerpt's value in data, or -1
	plain   bool
	dec     *eventDecoder
}

// Excerpt decodes the event's excerpt.
func (l *EventLine) Excerpt() (string, error) {
	if l.plain || l.excerpt < 0 {
		return l.Event.Excerpt, nil
	}
	var s string
	if _, err := l.dec.str(l.data, l.excerpt, &s, false); err != nil {
		return "", fmt.Errorf("%s line %d: %w", EventsFile, l.Num, err)
	}
	return s, nil
}

// ReadEvents streams the events file at path (a study's events.jsonl),
// calling fn with each line in file order; the line is valid only during
// the call. Events of one run are written together (Writer), and each
// recorded run has its events once (Compact drops the events of unrecorded
// tries when a study is resumed). A missing file is no error: older studies
// and imports have none.
func ReadEvents(ctx context.Context, path string, fn func(*EventLine) error) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	name := filepath.Base(path)
	dec := &eventDecoder{strs: jsonscan.NewStrings()}
	l := &EventLine{dec: dec}
	err := Lines(ctx, path, func(num int, _ int64, data []byte) error {
		l.Num, l.data, l.plain = num, data, false
		var err error
		l.excerpt, err = dec.decodeEvent(data, &l.Event)
		if err != nil {
			l.Event = vocab.Event{}
			if err := json.Unmarshal(data, &l.Event); err != nil {
				return fmt.Errorf("%s:%d: %w", name, num, err)
			}
			l.plain = true
		}
		return fn(l)
	})
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	return nil
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
func (s *eventDecoder) decodeEvent(data []byte, e *vocab.Event) (excerpt int, err error) {
	*e = vocab.Event{}
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
