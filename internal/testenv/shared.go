package testenv

import (
	"os"
	"testing"
)

// SharedDir returns a new temporary folder that every user may pass
// through (mode 0711), removed when t ends: the root of local sandboxes
// whose run_shell commands run as another user (nobody, when the tests run
// as root), which t.TempDir's private folders would shut out.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "killchain-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	return dir
}
