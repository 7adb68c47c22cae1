package cli

import (
	"os"
	"runtime/debug"
)

// studyGCPercent is the garbage collector's target for the commands that
// run studies, where GOGC does not set one: a study's heap is small (the
// runs in flight) and rewritten at every step of every run, and with
// hundreds of runs in flight the default (100) spends a CPU share that
// the runs' replies then wait for; at 200, bench runner at concurrency 256
// measured 0.90–0.93 of ideal against 0.87–0.91 in alternating passes
// (docs/benchmarks.md).
const studyGCPercent = 200

// tuneStudyGC sets studyGCPercent unless the user set GOGC.
func tuneStudyGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(studyGCPercent)
	}
}
