package report

import (
	"github.com/killchain/killchain/internal/rooted"
)

// openOut opens the folder a report writes into, through package rooted:
// out when the caller names one (--output), else the folder sub of the
// study folder dir. sub is opened from dir, so a sub that is a link (a
// report/ pointing elsewhere) is refused like every link inside it.
func openOut(dir, sub, out string) (*rooted.Dir, error) {
	if out != "" {
		return rooted.Open(out)
	}
	base, err := rooted.OpenExisting(dir)
	if err != nil {
		return nil, err
	}
	defer base.Close()
	return base.Sub(sub)
}
