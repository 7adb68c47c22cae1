package results

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	long := "{" + strings.Repeat("x", 300) + "}"
	body := "{\"a\":1}\n\n  {\"b\":2}  \r\n" + long + "\n\t\n{\"c\":3}"
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	type line struct {
		num  int
		off  int64
		data string
	}
	longOff := int64(len("{\"a\":1}\n\n  {\"b\":2}  \r\n"))
	want := []line{{1, 0, `{"a":1}`}, {3, 9, `{"b":2}`}, {4, longOff, long}, {6, longOff + int64(len(long)) + 3, `{"c":3}`}}
	defer func(n int) { blockSize = n }(blockSize)
	// Block sizes that cut lines anywhere, and one that holds the file.
	for _, size := range []int{1, 5, 8, 64, 1 << 20} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			blockSize = size
			var got []line
			if err := Lines(context.Background(), path, func(num int, off int64, data []byte) error {
				got = append(got, line{num, off, string(data)})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
		})
	}
	if err := Lines(context.Background(), filepath.Join(t.TempDir(), "none.jsonl"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err %v", err)
	}
}

func TestRunID(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"as written", `{"study":"s","run_id":"r1","task":"t"}`, "r1", true},
		{"nested first", `{"harness":{"run_id":"inner"},"run_id":"outer"}`, "outer", true},
		{"escaped", `{"run_id":"a\u0062"}`, "ab", true},
		{"repeated key: the last, as the decoder reads it (issue 19)", `{"run_id":"first","task":"t","run_id":"second"}`, "second", true},
		{"missing", `{"task":"t"}`, "", false},
		{"malformed", `{oops}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runID([]byte(tt.in))
			if (err == nil) != tt.ok || string(got) != tt.want {
				t.Errorf("runID(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestReadLatestRepeatedRunID reads a line that names two run ids once,
// under the id the decoder reads.
func TestReadLatestRepeatedRunID(t *testing.T) {
	path := writeRuns(t, `{"run_id":"a","repeat":0}`+"\n"+`{"run_id":"a","repeat":1,"run_id":"b"}`+"\n")
	var got []string
	if _, err := ReadLatestRuns(path, func(r Run) error {
		got = append(got, fmt.Sprintf("%s/%d", r.RunID, r.Repeat))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/0", "b/1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("runs %v, want %v", got, want)
	}
}

// TestReadLatestCollisions gives every id the same hash: the index must
// still keep each run apart and its last line.
func TestReadLatestCollisions(t *testing.T) {
	var b strings.Builder
	for round := range 3 {
		for _, id := range []string{"a", "b", "c", "d"} {
			if round == 2 && id == "c" {
				continue
			}
			fmt.Fprintf(&b, "{\"run_id\":%q,\"repeat\":%d}\n", id, round)
		}
	}
	path := writeRuns(t, b.String())
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	idx := newLatestIndex(f)
	idx.hash = func([]byte) uint64 { return 7 }
	if err := Lines(context.Background(), path, func(num int, off int64, data []byte) error {
		id, err := runID(data)
		if err != nil {
			return err
		}
		return idx.add(id, off)
	}); err != nil {
		t.Fatal(err)
	}
	if idx.runs() != 4 || idx.lines != 11 {
		t.Fatalf("runs %d lines %d, want 4 and 11", idx.runs(), idx.lines)
	}
	latest := map[string]int{}
	if err := Lines(context.Background(), path, func(num int, off int64, data []byte) error {
		id, _ := runID(data)
		if idx.isLatest(id, off) {
			latest[string(id)] = num
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"a": 9, "b": 10, "c": 7, "d": 11}
	if !reflect.DeepEqual(latest, want) {
		t.Errorf("latest lines %v, want %v", latest, want)
	}
}

// TestReadLatestOrderAndStop reads a file of many batches on several
// workers: runs come in file order, and an error from fn stops the read.
func TestReadLatestOrderAndStop(t *testing.T) {
	defer func(n int) { blockSize = n }(blockSize)
	blockSize = 4 << 10 // many blocks and batches
	var b strings.Builder
	const n = 5000
	for i := range n {
		fmt.Fprintf(&b, "{\"run_id\":\"r%05d\",\"repeat\":%d,\"task\":\"t%d\"}\n", i, i, i%7)
	}
	fmt.Fprintf(&b, "{\"run_id\":\"r00010\",\"repeat\":-1}\n")
	path := writeRuns(t, b.String())
	var got []int
	st, err := ReadLatest(context.Background(), path, ReadOptions{Workers: 3}, func(r *Run) error {
		got = append(got, r.Repeat)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st != (ReadStats{Lines: n + 1, Runs: n, Superseded: 1}) || len(got) != n {
		t.Fatalf("stats %+v, %d runs", st, len(got))
	}
	for i := range n - 1 {
		want := i
		if i >= 10 {
			want = i + 1
		}
		if got[i] != want {
			t.Fatalf("run %d: repeat %d, want %d (out of order)", i, got[i], want)
		}
	}
	if got[n-1] != -1 {
		t.Errorf("last run: repeat %d, want the superseding line's -1", got[n-1])
	}
	stop := errors.New("stop")
	calls := 0
	_, err = ReadLatest(context.Background(), path, ReadOptions{Workers: 2}, func(r *Run) error {
		calls++
		if calls == 1234 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 1234 {
		t.Errorf("err %v after %d calls, want stop after 1234", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadLatest(ctx, path, ReadOptions{}, func(*Run) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: err %v", err)
	}
}

// TestReadLatestBadLine: a malformed kept line deep in the file is
// reported by its number, after the runs before it.
func TestReadLatestBadLine(t *testing.T) {
	defer func(n int) { blockSize = n }(blockSize)
	blockSize = 4 << 10
	var b strings.Builder
	for i := range 3000 {
		if i == 2500 {
			b.WriteString("{\"run_id\":\"bad\",\"repeat\":\"x\"}\n")
			continue
		}
		fmt.Fprintf(&b, "{\"run_id\":\"r%d\"}\n", i)
	}
	calls := 0
	_, err := ReadLatest(context.Background(), writeRuns(t, b.String()), ReadOptions{Workers: 4}, func(*Run) error {
		calls++
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "runs.jsonl:2501:") || calls != 2500 {
		t.Errorf("err %v after %d calls, want runs.jsonl:2501 after 2500", err, calls)
	}
}

// TestReadLatestAppended: lines appended while the runs are read (a report
// of a study still running) are not read, whether or not the file held a
// superseded line.
func TestReadLatestAppended(t *testing.T) {
	defer func(n int) { blockSize = n }(blockSize)
	blockSize = 4 << 10 // the scanner reads the appended lines after the first run is handed over
	for _, superseded := range []bool{false, true} {
		t.Run(fmt.Sprintf("superseded %v", superseded), func(t *testing.T) {
			var b strings.Builder
			const n = 2000
			for i := range n {
				fmt.Fprintf(&b, "{\"run_id\":\"r%05d\",\"repeat\":%d}\n", i, i)
			}
			if superseded {
				fmt.Fprintf(&b, "{\"run_id\":\"r00000\",\"repeat\":-1}\n")
			}
			path := writeRuns(t, b.String())
			runs := 0
			st, err := ReadLatest(context.Background(), path, ReadOptions{Workers: 2}, func(r *Run) error {
				if runs++; runs == 1 {
					f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						return err
					}
					defer f.Close()
					_, err = fmt.Fprintf(f, "{\"run_id\":\"r00001\",\"repeat\":-2}\n{\"run_id\":\"late\",\"repeat\":-3}\n")
					return err
				}
				if r.Repeat < -1 {
					t.Errorf("an appended line was read: %+v", r)
				}
				return nil
			})
			if err != nil || runs != n || st.Runs != n {
				t.Errorf("err %v, %d runs, stats %+v; want %d runs", err, runs, st, n)
			}
		})
	}
}

// TestReadLatestParallelIndex: the first pass split over ranges of the
// file finds what the one scan finds, wherever the ranges cut the lines,
// and a bad line is still named by its number.
func TestReadLatestParallelIndex(t *testing.T) {
	defer func(n int, min int64) { blockSize, parallelIndexMin = n, min }(blockSize, parallelIndexMin)
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "{\"run_id\":\"r%04d\",\"repeat\":%d}\n", i%2500, i)
		if i%97 == 0 {
			b.WriteString("\n  \n") // blank lines, some at a range's edge
		}
	}
	good := b.String()
	bad := good + "{\"task\":\"no id\"}\n" + good // found by the first pass
	tests := []struct {
		name    string
		content string
		err     string
	}{
		{"superseded lines", good, ""},
		{"a line without a run id", bad, ":3063: missing run_id"},
	}
	for _, tt := range tests {
		path := writeRuns(t, tt.content)
		read := func(workers int) ([]string, ReadStats, error) {
			var got []string
			st, err := ReadLatest(context.Background(), path, ReadOptions{Workers: workers}, func(r *Run) error {
				got = append(got, fmt.Sprintf("%s/%d", r.RunID, r.Repeat))
				return nil
			})
			return got, st, err
		}
		parallelIndexMin = math.MaxInt64
		want, wantSt, wantErr := read(1)
		for _, size := range []int{7, 64, 4 << 10} {
			for _, workers := range []int{2, 3, 4} {
				t.Run(fmt.Sprintf("%s, blocks of %d, %d workers", tt.name, size, workers), func(t *testing.T) {
					blockSize, parallelIndexMin = size, 0
					got, st, err := read(workers)
					if tt.err != "" {
						if err == nil || wantErr == nil || err.Error() != wantErr.Error() || !strings.Contains(err.Error(), tt.err) {
							t.Fatalf("err %v, want %v (with %q)", err, wantErr, tt.err)
						}
						return
					}
					if err != nil || st != wantSt || !slices.Equal(got, want) {
						t.Errorf("err %v, stats %+v (want %+v), %d runs (want %d)", err, st, wantSt, len(got), len(want))
					}
				})
			}
		}
	}
}
