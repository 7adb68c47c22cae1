package rooted_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/rooted"
)

// FuzzWriteName writes and removes under arbitrary names in a folder
// holding links that point out and in: whatever the name, nothing outside
// the folder changes, nothing is written through a link, and a write that
// succeeds lands at the cleaned name inside the folder.
func FuzzWriteName(f *testing.F) {
	for _, s := range []string{
		"report.md", "report/report.md", "report/runs/x.html", "inner/x", "../out/keep.txt", "a/../../out/keep.txt",
		"/etc/passwd", "", ".", "..", "a//b/./c", "report/runs/../runs/keep.txt", "inner/../real/x", "\x00", "a\nb",
		strings.Repeat("a/", 40) + "z",
	} {
		f.Add(s)
	}
	in, out := hostile(f)
	d, err := rooted.Open(in)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { d.Close() })
	f.Fuzz(func(t *testing.T, name string) {
		err := d.WriteFile(name, []byte("fuzz"))
		checkOutside(t, out)
		if err == nil {
			p := filepath.Join(in, filepath.Clean(name))
			if rel, rerr := filepath.Rel(in, p); rerr != nil || !filepath.IsLocal(rel) {
				t.Fatalf("write %q succeeded at %s, outside the folder", name, p)
			}
			for q := p; q != in; q = filepath.Dir(q) {
				fi, err := os.Lstat(q)
				if err != nil {
					t.Fatalf("write %q succeeded, but %s: %v", name, q, err)
				}
				if fi.Mode()&fs.ModeSymlink != 0 {
					t.Fatalf("write %q went through the link %s", name, q)
				}
			}
			if b, err := os.ReadFile(p); err != nil || string(b) != "fuzz" {
				t.Fatalf("write %q succeeded, but %s holds %q (%v)", name, p, b, err)
			}
		}
		d.Remove(name)
		checkOutside(t, out)
	})
}
