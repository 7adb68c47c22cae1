package results

import (
	"fmt"
	"os"
	"sync"
)

// syncedLog is a file opened for appending whose appends return only once
// they are on disk, with one fsync covering every append made while the
// previous one ran (a group commit). Hundreds of runs finishing together
// then wait for a few fsyncs, not one each in turn behind a lock.
type syncedLog struct {
	f *os.File

	mu      sync.Mutex
	cond    *sync.Cond
	written uint64 // appends made
	synced  uint64 // appends known to be on disk
	syncing bool
	err     error // the first failed write or sync: every later append fails
}

func newSyncedLog(f *os.File) *syncedLog {
	l := &syncedLog{f: f}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// Append writes b as one write (so lines of concurrent appends never
// interleave) and returns once it is synced to disk.
func (l *syncedLog) Append(b []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if _, err := l.f.Write(b); err != nil {
		l.err = fmt.Errorf("%s: %w", l.f.Name(), err)
		return l.err
	}
	l.written++
	mine := l.written
	for l.synced < mine && l.err == nil {
		if l.syncing {
			// A sync is under way; it may have started before this
			// write: wait for it, then look again.
			l.cond.Wait()
			continue
		}
		// Sync everything written so far, outside the lock so that
		// others keep appending meanwhile.
		l.syncing = true
		upto := l.written
		l.mu.Unlock()
		err := l.f.Sync()
		l.mu.Lock()
		l.syncing = false
		if err != nil && l.err == nil {
			l.err = fmt.Errorf("%s: %w", l.f.Name(), err)
		}
		if err == nil {
			l.synced = upto
		}
		l.cond.Broadcast()
	}
	return l.err
}

// Close closes the file.
func (l *syncedLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.syncing {
		l.cond.Wait()
	}
	return l.f.Close()
}
