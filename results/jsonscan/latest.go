package jsonscan

import (
	"context"
	"fmt"
	"hash/maphash"
	"path/filepath"
)

// Latest indexes a runs.jsonl file by run id, for readers where the last
// line of each run id wins (a resumed run is written again): it keeps a
// 64-bit hash of each id and the offset of its last line, about 40 bytes a
// run against a hundred for the ids themselves. Two distinct ids whose
// hashes collide (odds about 3·10⁻⁸ for a million runs) count as one run.
type Latest struct {
	seed maphash.Seed
	last map[uint64]int64
	// Lines is the number of non-blank lines read.
	Lines int
}

// IndexLatest reads the runs file at path once and returns its index.
func IndexLatest(ctx context.Context, path string) (*Latest, error) {
	l := &Latest{seed: maphash.MakeSeed(), last: make(map[uint64]int64)}
	name := filepath.Base(path)
	err := Lines(ctx, path, func(num int, off int64, data []byte) error {
		id, err := RunID(data)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, num, err)
		}
		l.last[maphash.Bytes(l.seed, id)] = off
		l.Lines++
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Runs returns the number of distinct run ids.
func (l *Latest) Runs() int { return len(l.last) }

// IsLatest reports whether the line at offset off, of run id id, is the
// last line of its run.
func (l *Latest) IsLatest(id []byte, off int64) bool {
	o, ok := l.last[maphash.Bytes(l.seed, id)]
	return ok && o == off
}
