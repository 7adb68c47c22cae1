package results

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSyncedLogConcurrent: appends from many goroutines each land whole,
// once, and a failed write fails every later append.
func TestSyncedLogConcurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.jsonl")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	l := newSyncedLog(f)
	const writers, each = 32, 20
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				line := fmt.Sprintf("%d-%d %s\n", w, i, strings.Repeat("x", 100*(i%7)))
				if err := l.Append([]byte(line)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	rf, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(rf)
	for sc.Scan() {
		var w, i int
		var rest string
		if _, err := fmt.Sscanf(sc.Text(), "%d-%d %s", &w, &i, &rest); err != nil && sc.Text() != fmt.Sprintf("%d-%d ", w, i) {
			t.Fatalf("torn line %q", sc.Text())
		}
		if rest != strings.Repeat("x", 100*(i%7)) {
			t.Fatalf("line %q is not whole", sc.Text())
		}
		key := fmt.Sprintf("%d-%d", w, i)
		if seen[key] {
			t.Fatalf("line %s twice", key)
		}
		seen[key] = true
	}
	if len(seen) != writers*each {
		t.Errorf("%d lines, want %d", len(seen), writers*each)
	}
	if err := l.Append([]byte("late\n")); err == nil || !strings.Contains(err.Error(), "log.jsonl") {
		t.Errorf("append to a closed log: %v, want an error naming the file", err)
	}
	if err := l.Append([]byte("later\n")); err == nil {
		t.Error("a log that failed accepts appends again")
	}
}
