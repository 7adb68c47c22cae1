package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/killchain/killchain/benchdata"
)

// BenchStudy returns a synthetic study of n runs (with events and
// forensics, no transcripts) under cacheDir, generating it on first use.
func BenchStudy(cacheDir string, n int, seed int64) (string, error) {
	dir := filepath.Join(cacheDir, "killchain-bench-"+strconv.Itoa(n)+"-"+strconv.FormatInt(seed, 10))
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return dir, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("bench study: %w", err)
	}
	if err := benchdata.Generate(dir, n, seed); err != nil {
		return "", fmt.Errorf("bench study: %w", err)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		return "", fmt.Errorf("bench study: %w", err)
	}
	return dir, nil
}

// Bench writes the report of the study folder dir into outDir and measures
// it: wall time, peak heap and peak resident set. For a resident set that
// counts the report only, run it in a fresh process (killchain bench report).
func Bench(dir, outDir string) (benchdata.Measurement, error) {
	return benchdata.Measure(func() error { return Write(dir, Options{OutDir: outDir}) })
}
