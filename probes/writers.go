package probes

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
)

// writers stream one extraction to disk.
type writers struct {
	dir    *rooted.Dir
	layers []*NpyWriter
	toks   *NpyWriter
	index  *os.File
	hidden int
	rows   int
	tokens int
	closed bool
}

func newWriters(dir *rooted.Dir, info results.ProbeModel) (*writers, error) {
	w := &writers{dir: dir, hidden: info.Hidden}
	var err error
	for l := 0; l <= info.Layers; l++ {
		nw, err := createNpy(dir, LayerFile(l), "<f4", info.Hidden)
		if err != nil {
			w.abort()
			return nil, err
		}
		w.layers = append(w.layers, nw)
	}
	if w.toks, err = createNpy(dir, TokensFile, "<i4", -1); err != nil {
		w.abort()
		return nil, err
	}
	if w.index, err = dir.OpenFile(IndexFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, rooted.FileMode); err != nil {
		w.abort()
		return nil, fmt.Errorf("extract: %w", err)
	}
	return w, nil
}

// call writes the rows of one model call.
func (w *writers) call(base Row, ids []int32, keep []int, kinds []string, states [][]float32) error {
	if len(states) != len(w.layers) {
		return fmt.Errorf("extract: %d layer states, want %d", len(states), len(w.layers))
	}
	for l, s := range states {
		if len(s) != len(keep)*w.hidden {
			return fmt.Errorf("extract: layer %d has %d values for %d rows", l, len(s), len(keep))
		}
		if err := w.layers[l].WriteFloats(s); err != nil {
			return err
		}
	}
	base.TokOff = w.tokens
	if err := w.toks.WriteInts(ids); err != nil {
		return err
	}
	w.tokens += len(ids)
	enc := json.NewEncoder(w.index)
	for i, k := range keep {
		r := base
		r.Row, r.Token, r.Kind = w.rows, k, kinds[i]
		if r.Kind != "last" {
			r.Executes, r.Tampers = false, false // only the last token precedes the turn's call
		}
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("extract: %w", err)
		}
		w.rows++
	}
	return nil
}

func (w *writers) close(meta Meta) error {
	w.closed = true
	for _, l := range w.layers {
		if err := l.Close(); err != nil {
			return err
		}
	}
	if err := w.toks.Close(); err != nil {
		return err
	}
	if err := w.index.Close(); err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	return w.dir.WriteFile(MetaFile, data)
}

// abort closes whatever is open after a failure; the meta file is never
// written, so a half extraction is not mistaken for a whole one.
func (w *writers) abort() {
	if w.closed {
		return
	}
	w.closed = true
	for _, l := range w.layers {
		l.Close()
	}
	if w.toks != nil {
		w.toks.Close()
	}
	if w.index != nil {
		w.index.Close()
	}
	w.dir.Remove(MetaFile)
}
