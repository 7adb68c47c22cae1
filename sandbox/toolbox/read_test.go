package toolbox

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadsAreBounded: what a command can leave where a tool reads — a
// FIFO, a socket, a link, a folder, a sparse file of a terabyte — is
// refused or cut at once, never read whole, never waited on.
func TestReadsAreBounded(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	os.WriteFile(p("small"), []byte("hello"), 0o644)
	if err := syscall.Mkfifo(p("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(p("small"), p("link"))
	os.Mkdir(p("folder"), 0o755)
	sparse, err := os.Create(p("sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sparse.Truncate(1 << 40); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	sparse.Close()
	l, err := net.Listen("unix", p("socket"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tests := []struct {
		name    string
		file    string
		limit   int64
		want    string // content readBounded returns
		wantErr error
		prefix  string // readPrefix's content
		size    int64  // readPrefix's size
	}{
		{name: "regular", file: "small", limit: 5, want: "hello", prefix: "hel", size: 5},
		{name: "one byte over", file: "small", limit: 4, wantErr: errTooLarge, prefix: "hel", size: 5},
		{name: "sparse terabyte", file: "sparse", limit: maxDocument, wantErr: errTooLarge, prefix: "\x00\x00\x00", size: 1 << 40},
		{name: "FIFO", file: "fifo", limit: 5, wantErr: errNotRegular},
		{name: "socket", file: "socket", limit: 5, wantErr: errNotRegular},
		{name: "link", file: "link", limit: 5, wantErr: errNotRegular},
		{name: "folder", file: "folder", limit: 5, wantErr: errNotRegular},
		{name: "missing", file: "none", limit: 5, wantErr: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			data, berr := readBounded(p(tt.file), tt.limit)
			if !errors.Is(berr, tt.wantErr) || string(data) != tt.want {
				t.Errorf("readBounded = %q, %v; want %q, %v", data, berr, tt.want, tt.wantErr)
			}
			if tt.wantErr != nil && !unreadable(berr) {
				t.Errorf("%v is not a tool error", berr)
			}
			prefix, size, err := readPrefix(p(tt.file), 3)
			if tt.prefix != "" && (err != nil || string(prefix) != tt.prefix || size != tt.size) {
				t.Errorf("readPrefix = %q, %d, %v; want %q, %d", prefix, size, err, tt.prefix, tt.size)
			}
			if tt.prefix == "" && !errors.Is(err, tt.wantErr) {
				t.Errorf("readPrefix: err = %v, want %v", err, tt.wantErr)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

// TestStoreBrokenByACommand: a memory store or records database a command
// overwrote is a tool error the agent reads, and an empty store in State,
// never a sandbox error.
func TestStoreBrokenByACommand(t *testing.T) {
	for _, tc := range []struct {
		name    string
		breakIt func(p string) error
		want    string
	}{
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("garbage"), 0o644) }, "is not valid"},
		{"a FIFO", func(p string) error { os.Remove(p); return syscall.Mkfifo(p, 0o644) }, "not a regular file (a FIFO)"},
		{"a link to /dev/zero", func(p string) error { os.Remove(p); return os.Symlink("/dev/zero", p) }, "not a regular file (a symbolic link)"},
		{"too large", func(p string) error { return os.Truncate(p, maxStore+1) }, "too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBox(t)
			for _, f := range []string{MemoryFile, "db/records.json"} {
				if err := tc.breakIt(filepath.Join(b.Dir, f)); err != nil {
					t.Fatal(err)
				}
			}
			for _, tool := range []string{"read_memory", "search"} {
				r, err := b.Call("a", tool, []byte(`{}`))
				if err != nil || !strings.Contains(r.Error, tc.want) {
					t.Errorf("%s = %+v, %v; want a tool error saying %q", tool, r, err, tc.want)
				}
			}
			st, err := b.State()
			if err != nil || len(st.Memory) != 0 || len(st.DB) != 0 {
				t.Errorf("state = %+v, %v; want empty stores", st, err)
			}
		})
	}
}
