package sandbox

import (
	"context"
	"errors"
	"sync"
)

// Live is the set of sandboxes a backend has open, so that closing the
// backend closes those its runs left open. The zero value is empty.
type Live[S interface {
	comparable
	Close(context.Context) error
}] struct {
	mu  sync.Mutex
	set map[S]struct{}
}

// Add records s.
func (l *Live[S]) Add(s S) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.set == nil {
		l.set = map[S]struct{}{}
	}
	l.set[s] = struct{}{}
}

// Remove forgets s (it closed).
func (l *Live[S]) Remove(s S) {
	l.mu.Lock()
	delete(l.set, s)
	l.mu.Unlock()
}

// CloseAll closes every sandbox still recorded, outside the lock (a
// sandbox's Close removes it).
func (l *Live[S]) CloseAll(ctx context.Context) error {
	l.mu.Lock()
	open := make([]S, 0, len(l.set))
	for s := range l.set {
		open = append(open, s)
	}
	l.mu.Unlock()
	var errs []error
	for _, s := range open {
		errs = append(errs, s.Close(ctx))
	}
	return errors.Join(errs...)
}
