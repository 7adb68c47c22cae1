package archtest

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// rootDirs are the folders the repository's root may hold: the design's
// names, and internal/ for everything else.
var rootDirs = []string{"cmd", "docs", "hcl", "images", "internal", "probes", "runner", "sandbox", "scripts", "tasks", "verifiers"}

// publicRoots are the design's packages: the only ones outside internal/
// and cmd/.
var publicRoots = []string{"images", "probes", "runner", "sandbox", "tasks", "verifiers"}

func TestRootHoldsTheDesignNames(t *testing.T) {
	entries, err := os.ReadDir("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		// bin/ and runs/ are build and study outputs, ignored by git.
		if name == "bin" || name == "runs" {
			continue
		}
		if !slices.Contains(rootDirs, name) {
			t.Errorf("the root holds %s/: move it under internal/ or one of %v", name, rootDirs)
		}
	}
	for _, name := range rootDirs {
		if fi, err := os.Stat("../../" + name); err != nil || !fi.IsDir() {
			t.Errorf("the root lacks %s/", name)
		}
	}
}

func TestPublicPackagesAreTheDesigns(t *testing.T) {
	for name := range graph(t) {
		if under(name, "internal", "cmd") {
			continue
		}
		if !under(name, publicRoots...) {
			t.Errorf("%s is importable from outside the module: move it under internal/", name)
		}
	}
}

// TestEveryPackageHasADocComment holds every package to a doc comment that
// starts "Package x" ("Command x" for a main package), as go doc shows it.
func TestEveryPackageHasADocComment(t *testing.T) {
	g := graph(t)
	for _, name := range sortedKeys(g) {
		p := g[name]
		want := "Package " + p.Name + " "
		if p.Name == "main" {
			want = "Command " + name[strings.LastIndex(name, "/")+1:] + " "
		}
		if !strings.HasPrefix(p.Doc+" ", want) {
			t.Errorf("%s: doc comment %q does not start %q", name, p.Doc, strings.TrimSpace(want))
		}
	}
}
