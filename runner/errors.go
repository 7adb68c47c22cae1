package runner

import (
	"errors"
	"fmt"
)

// FatalError is a provider answer that dooms every later run (a refused
// key, a model the server does not have): the study stops at once, the run
// that met it is recorded as a provider error, and runs in flight are left
// for --resume.
type FatalError struct {
	Run string
	Err error
}

func (e *FatalError) Error() string { return fmt.Sprintf("run %s: %v", e.Run, e.Err) }
func (e *FatalError) Unwrap() error { return e.Err }

// fatal is a driver's error that stops the study (limits.ProviderError
// for a 401, 403 or 404 answer).
type fatal interface{ Fatal() bool }

// rateLimited is a driver's error that counts the 429 answers it met.
type rateLimited interface{ RateLimited() int }

// isFatal reports whether err is a provider answer that dooms the study.
func isFatal(err error) bool {
	var f fatal
	return errors.As(err, &f) && f.Fatal()
}

// throttled is how many 429 answers err met, 0 when it says none.
func throttled(err error) int {
	var rl rateLimited
	if errors.As(err, &rl) {
		return rl.RateLimited()
	}
	return 0
}
