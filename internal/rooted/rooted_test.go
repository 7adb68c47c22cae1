package rooted_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/killchain/killchain/internal/rooted"
)

// hostile makes a folder "in" beside a folder "out" holding a file that
// must never change, with links inside "in" pointing out and in.
func hostile(t testing.TB) (in, out string) {
	t.Helper()
	base := t.TempDir()
	in, out = filepath.Join(base, "in"), filepath.Join(base, "out")
	for _, d := range []string{in, out, filepath.Join(in, "real"), filepath.Join(in, "report")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "keep.txt"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "runs.jsonl"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"report/report.md": filepath.Join(out, "keep.txt"), // a file outside
		"report/runs":      out,                            // a folder outside
		"inner":            "real",                         // a folder inside
		"report/copy.md":   "../runs.jsonl",                // a file inside
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(in, name)); err != nil {
			t.Fatal(err)
		}
	}
	return in, out
}

// checkOutside fails the test when the outside folder changed.
func checkOutside(t testing.TB, out string) {
	t.Helper()
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "keep.txt" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the outside folder holds %v, want only keep.txt", names)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "keep.txt")); string(b) != "outside" {
		t.Errorf("the outside file holds %q", b)
	}
}

// checkInside fails the test when a write went through an inside link.
func checkInside(t testing.TB, in string) {
	t.Helper()
	if b, _ := os.ReadFile(filepath.Join(in, "runs.jsonl")); string(b) != "inside" {
		t.Errorf("runs.jsonl, reached through an inside link, holds %q", b)
	}
	if ents, _ := os.ReadDir(filepath.Join(in, "real")); len(ents) > 0 {
		t.Errorf("a write went through the inside link: real/ holds %d entries", len(ents))
	}
}

func TestLinksAreRefused(t *testing.T) {
	ops := []struct {
		name string
		do   func(d *rooted.Dir, name string) error
	}{
		{"write", func(d *rooted.Dir, n string) error { return d.WriteFile(n, []byte("x")) }},
		{"append", func(d *rooted.Dir, n string) error {
			f, err := d.OpenAppend(n)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{"mkdir", func(d *rooted.Dir, n string) error { _, err := d.MkdirAll(n); return err }},
		{"sub", func(d *rooted.Dir, n string) error {
			s, err := d.Sub(n)
			if err == nil {
				s.Close()
			}
			return err
		}},
		{"read", func(d *rooted.Dir, n string) error { _, err := d.ReadFile(n); return err }},
		{"readdir", func(d *rooted.Dir, n string) error { _, err := d.ReadDir(n); return err }},
	}
	names := []struct {
		name string
		path string
		// leafOnly: the link is the name itself, which MkdirAll, Sub and
		// ReadDir (folders) and the others (files) all refuse.
	}{
		{"file linked outside", "report/report.md"},
		{"folder linked outside", "report/runs"},
		{"file in a folder linked outside", "report/runs/x.html"},
		{"file linked inside", "report/copy.md"},
		{"folder linked inside", "inner"},
		{"file in a folder linked inside", "inner/x"},
	}
	for _, op := range ops {
		for _, n := range names {
			t.Run(op.name+"/"+n.name, func(t *testing.T) {
				in, out := hostile(t)
				d, err := rooted.Open(in)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				err = op.do(d, n.path)
				if !errors.Is(err, rooted.ErrLink) {
					t.Errorf("%s %s: err %v, want ErrLink", op.name, n.path, err)
				}
				checkOutside(t, out)
				checkInside(t, in)
			})
		}
	}
}

func TestRemoveRemovesTheLinkNotItsTarget(t *testing.T) {
	in, out := hostile(t)
	d, err := rooted.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Remove("report/runs/keep.txt"); !errors.Is(err, rooted.ErrLink) {
		t.Errorf("remove through a linked folder: err %v, want ErrLink", err)
	}
	if err := d.Remove("report/report.md"); err != nil {
		t.Fatal(err)
	}
	checkOutside(t, out)
	if _, err := os.Lstat(filepath.Join(in, "report/report.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link is still there: %v", err)
	}
}

func TestNamesOutsideAreRefused(t *testing.T) {
	for _, name := range []string{"", ".", "..", "../out/keep.txt", "a/../../out/keep.txt", "/etc/passwd"} {
		t.Run(name, func(t *testing.T) {
			in, out := hostile(t)
			d, err := rooted.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := d.WriteFile(name, []byte("x")); !errors.Is(err, rooted.ErrPath) {
				t.Errorf("write %q: err %v, want ErrPath", name, err)
			}
			checkOutside(t, out)
		})
	}
}

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name string
		path string
	}{
		{"top", "report.md"},
		{"new folders", "report/figures/stages.svg"},
		{"through a real folder", "real/a.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, out := hostile(t)
			d, err := rooted.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			for _, data := range []string{"one", "two"} {
				if err := d.WriteFile(tc.path, []byte(data)); err != nil {
					t.Fatal(err)
				}
				if b, _ := os.ReadFile(filepath.Join(in, tc.path)); string(b) != data {
					t.Errorf("got %q, want %q", b, data)
				}
			}
			checkOutside(t, out)
			// No temporary file is left beside it.
			ents, _ := os.ReadDir(filepath.Dir(filepath.Join(in, tc.path)))
			for _, e := range ents {
				if filepath.Ext(e.Name()) == rooted.TempSuffix {
					t.Errorf("left %s", e.Name())
				}
			}
		})
	}
}

// TestFileMode: every file a study writes has os.WriteFile's 0644 under
// the same umask (Inspect logs were once written 0600 by os.CreateTemp).
func TestFileMode(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(ref)
	d, err := rooted.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.WriteFile("a/b.eval", []byte("x")); err != nil {
		t.Fatal(err)
	}
	f, err := d.OpenAppend("runs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, n := range []string{"a/b.eval", "runs.jsonl"} {
		got, err := os.Stat(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if got.Mode().Perm() != want.Mode().Perm() {
			t.Errorf("%s: mode %v, want %v", n, got.Mode().Perm(), want.Mode().Perm())
		}
	}
}

func TestCreateWithoutCommitKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	d, err := rooted.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.WriteFile("a.json", []byte("old")); err != nil {
		t.Fatal(err)
	}
	f, err := d.Create("a.json")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	f.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, "a.json")); string(b) != "old" {
		t.Errorf("got %q, want the old file", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("the folder holds %d entries, want 1", len(ents))
	}
}

func TestFSRefusesLinks(t *testing.T) {
	in, _ := hostile(t)
	fsys := rooted.FS(in)
	tests := []struct {
		name, path string
		link       bool
	}{
		{"a file", "runs.jsonl", false},
		{"a file linked outside", "report/report.md", true},
		{"a file linked inside", "report/copy.md", true},
		{"a file under a folder linked outside", "report/runs/keep.txt", true},
		{"a folder linked inside", "inner", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fs.ReadFile(fsys, tc.path)
			if got := errors.Is(err, rooted.ErrLink); got != tc.link {
				t.Errorf("read %s: err %v; refused as a link %v, want %v", tc.path, err, got, tc.link)
			}
			_, err = fs.Stat(fsys, tc.path)
			if got := errors.Is(err, rooted.ErrLink); got != tc.link {
				t.Errorf("stat %s: err %v; refused as a link %v, want %v", tc.path, err, got, tc.link)
			}
		})
	}
	t.Run("a walk lists links as links", func(t *testing.T) {
		var links []string
		err := fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.Type()&fs.ModeSymlink != 0 {
				links = append(links, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(links)
		want := []string{"inner", "report/copy.md", "report/report.md", "report/runs"}
		if !slices.Equal(links, want) {
			t.Errorf("links %v, want %v", links, want)
		}
	})
}
