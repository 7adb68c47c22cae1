package benchdata

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Cached returns a synthetic study of n runs (with events and forensics,
// no transcripts) under cacheDir, generating it on first use.
func Cached(cacheDir string, n int, seed int64) (string, error) {
	dir := filepath.Join(cacheDir, "killchain-bench-"+strconv.Itoa(n)+"-"+strconv.FormatInt(seed, 10))
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return dir, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("bench study: %w", err)
	}
	if err := Generate(dir, n, seed); err != nil {
		return "", fmt.Errorf("bench study: %w", err)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		return "", fmt.Errorf("bench study: %w", err)
	}
	return dir, nil
}
