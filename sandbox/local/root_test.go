package local

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/killchain/killchain/sandbox"
)

// TestRoot: where a run's folder is made, for each setting that decides it.
func TestRoot(t *testing.T) {
	tests := []struct {
		name   string
		root   string
		tmpdir string // "-": unset
		shell  bool
		want   string // "memory": memoryRoot where usable, else ""
	}{
		{"root given", "/srv/runs", "-", false, "/srv/runs"},
		{"root given, shell task", "/srv/runs", "-", true, "/srv/runs"},
		{"shell task", "", "-", true, ""},
		{"TMPDIR set", "", "/var/tmp", false, ""},
		{"TMPDIR empty", "", "", false, "memory"},
		{"no shell, TMPDIR unset", "", "-", false, "memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TMPDIR", tt.tmpdir)
			if tt.tmpdir == "-" {
				os.Unsetenv("TMPDIR")
			}
			want := tt.want
			if want == "memory" {
				want = ""
				if inMemory() {
					want = memoryRoot
				}
			}
			b := Backend{Root: tt.root}
			if got := b.root(tt.shell); got != want {
				t.Errorf("root(shell=%v) = %q, want %q", tt.shell, got, want)
			}
		})
	}
}

// TestTmpfs: what is not a tmpfs is never taken for one, and a folder
// that cannot be read has no free space.
func TestTmpfs(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	if isTmpfs(missing) {
		t.Error("a missing folder is taken for a tmpfs")
	}
	if isTmpfs("/proc") {
		t.Error("/proc is taken for a tmpfs")
	}
	if n := freeBytes(missing); n != 0 {
		t.Errorf("free space of a missing folder = %d", n)
	}
	if n := freeBytes(t.TempDir()); n == 0 {
		t.Error("the test's temporary folder has no free space")
	}
}

// TestRunFolderInMemory: a run without a shell gets its folder in memory
// where /dev/shm is usable and TMPDIR unset, and it is removed at Close.
func TestRunFolderInMemory(t *testing.T) {
	t.Setenv("TMPDIR", "")
	os.Unsetenv("TMPDIR")
	if !inMemory() {
		t.Skipf("%s is not a usable tmpfs here", memoryRoot)
	}
	var b Backend
	ctx := context.Background()
	sb, err := b.Open(ctx, sandbox.Env{Study: "s", Run: "mem-r1", Task: "memory_poison"})
	if err != nil {
		t.Fatal(err)
	}
	dir := sb.(*Sandbox).dir
	if filepath.Dir(dir) != memoryRoot {
		t.Errorf("run folder %s, want one in %s", dir, memoryRoot)
	}
	if err := sb.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("run folder %s left after Close: %v", dir, err)
	}
}
