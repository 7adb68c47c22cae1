package agent_test

import (
	"flag"
	"os"
	"testing"

	"pgregory.net/rapid"
)

// TestMain runs the property tests over 2,000 random runs each unless
// -rapid.checks says otherwise.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		_ = flag.Set("rapid.checks", "2000")
	}
	os.Exit(m.Run())
}

// tempDir is a fresh folder for one property check, removed after it.
func tempDir(t *rapid.T) string {
	dir, err := os.MkdirTemp("", "killchain-prop-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
