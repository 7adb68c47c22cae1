// Package testenv tells the module's tests where they run. Under CI (the
// CI variable set and not "false" or "0") a test whose resource is missing
// (Docker, a Debian tool, the shared data folder, a browser) fails; on a
// developer's machine it is skipped with the reason. Every test decides this
// through Need, so no test skips under CI.
package testenv

import (
	"os"
	"testing"
)

// CI reports whether the tests run under CI.
func CI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Need skips t when err says that what it needs is missing, or fails it
// under CI. It does nothing when err is nil.
func Need(t testing.TB, err error, what string) {
	t.Helper()
	if err == nil {
		return
	}
	if CI() {
		t.Fatalf("%s is required under CI: %v", what, err)
	}
	t.Skipf("%s is not available: %v", what, err)
}
