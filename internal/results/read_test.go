package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRuns writes content to a runs.jsonl in a fresh folder and returns its path.
func writeRuns(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadRuns(t *testing.T) {
	long := strings.Repeat("x", 3<<20) // longer than any bufio default
	tests := []struct {
		name    string
		content string
		ids     []string
		errs    []string
		wantErr string
	}{
		{
			name:    "in file order with blank lines and CRLF",
			content: "{\"run_id\":\"b\"}\n\n{\"run_id\":\"a\",\"error\":\"boom\"}\r\n   \n{\"run_id\":\"b\"}",
			ids:     []string{"b", "a", "b"},
			errs:    []string{"", "boom", ""},
		},
		{
			name:    "very long line",
			content: `{"run_id":"r1","error":"` + long + "\"}\n",
			ids:     []string{"r1"},
			errs:    []string{long},
		},
		{
			name:    "malformed line names file and line",
			content: "{\"run_id\":\"a\"}\n\n{\"run_id\":\n",
			wantErr: "runs.jsonl:3:",
		},
		{
			name:    "missing run id",
			content: "{\"run_id\":\"a\"}\n{\"task\":\"x\"}\n",
			wantErr: "runs.jsonl:2: missing run_id",
		},
		{
			name:    "trailing data after the object",
			content: "{\"run_id\":\"a\"} {\"run_id\":\"b\"}\n",
			wantErr: "runs.jsonl:1:",
		},
		{
			name:    "wrong field type",
			content: "{\"run_id\":\"a\",\"attacked\":\"yes\"}\n",
			wantErr: "runs.jsonl:1:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids, errs []string
			err := ReadRuns(writeRuns(t, tt.content), func(r Run) error {
				ids = append(ids, r.RunID)
				errs = append(errs, r.Error)
				return nil
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(ids, ",") != strings.Join(tt.ids, ",") {
				t.Errorf("ids = %v, want %v", ids, tt.ids)
			}
			if strings.Join(errs, ",") != strings.Join(tt.errs, ",") {
				t.Errorf("errors differ")
			}
		})
	}
}

func TestReadRunsCallbackError(t *testing.T) {
	stop := errors.New("enough")
	n := 0
	err := ReadRuns(writeRuns(t, "{\"run_id\":\"a\"}\n{\"run_id\":\"b\"}\n"), func(Run) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err = %v after %d calls, want %v after 1", err, n, stop)
	}
}

func TestReadRunsMissingFile(t *testing.T) {
	err := ReadRuns(filepath.Join(t.TempDir(), "none.jsonl"), func(Run) error { return nil })
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want not exist", err)
	}
}

func TestReadLatestRuns(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string // run_id=error of each call, in order
		stats   ReadStats
		wantErr string
	}{
		{
			name:    "no duplicates",
			content: "{\"run_id\":\"a\"}\n{\"run_id\":\"b\"}\n",
			want:    []string{"a=", "b="},
			stats:   ReadStats{Lines: 2, Runs: 2},
		},
		{
			name: "resumed run: the last line wins",
			content: "{\"run_id\":\"a\",\"error\":\"provider\"}\n" +
				"{\"run_id\":\"b\",\"error\":\"\"}\n" +
				"\n" +
				"{\"run_id\":\"a\",\"error\":\"sandbox\"}\n" +
				"{\"run_id\":\"c\",\"error\":\"\"}\n" +
				"{\"run_id\":\"a\",\"error\":\"\"}\n",
			want:  []string{"b=", "c=", "a="},
			stats: ReadStats{Lines: 5, Runs: 3, Superseded: 2},
		},
		{
			name:    "empty file",
			content: "",
			stats:   ReadStats{},
		},
		{
			name:    "malformed superseded line still fails",
			content: "{\"run_id\":\"a\",}\n{\"run_id\":\"a\"}\n",
			wantErr: "runs.jsonl:1:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			st, err := ReadLatestRuns(writeRuns(t, tt.content), func(r Run) error {
				got = append(got, r.RunID+"="+r.Error)
				return nil
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("calls = %v, want %v", got, tt.want)
			}
			if st != tt.stats {
				t.Errorf("stats = %+v, want %+v", st, tt.stats)
			}
		})
	}
}
