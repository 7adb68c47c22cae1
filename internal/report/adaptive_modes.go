package report

import (
	"fmt"
	"strconv"

	"github.com/killchain/killchain/internal/stats"
)

// modeStat is one feedback mode on one cell: its first and last rounds
// (first -1: not reached) and the goal over the rounds after 0.
type modeStat struct {
	first, last int
	goals, runs int
}

// modeMeans is the mode comparison's last row: per feedback mode, over the
// cells every compared mode ran on, the mean rounds to the first success
// (a cell not reached counted as its last round + 1) with its interval,
// and the goal pooled over the rounds after 0. ok is false when fewer than
// two cells share the modes, where a mean says nothing a row does not.
func modeMeans(targets []string, byTarget map[string]map[string]modeStat, z float64) (row, mrow []string, ok bool) {
	stat := func(tg, mode string) (modeStat, bool) { st, ok := byTarget[tg][mode]; return st, ok }
	var modes []string
	for _, mode := range feedbackModes {
		for _, tg := range targets {
			if _, ran := stat(tg, mode); ran {
				modes = append(modes, mode)
				break
			}
		}
	}
	var shared []string
	for _, tg := range targets {
		all := true
		for _, mode := range modes {
			_, ran := stat(tg, mode)
			all = all && ran
		}
		if all {
			shared = append(shared, tg)
		}
	}
	if len(modes) < 2 || len(shared) < 2 {
		return nil, nil, false
	}
	label := fmt.Sprintf("mean over the %d cells every mode ran on", len(shared))
	row, mrow = []string{label}, []string{label}
	for _, mode := range feedbackModes {
		if _, ran := stat(shared[0], mode); !ran {
			row, mrow = append(row, "", "", ""), append(mrow, noneCell, noneCell)
			continue
		}
		var rounds []float64
		missed, goals, runs := 0, 0, 0
		for _, tg := range shared {
			st, _ := stat(tg, mode)
			first := st.first
			if first < 0 {
				first, missed = st.last+1, missed+1
			}
			rounds = append(rounds, float64(first))
			goals, runs = goals+st.goals, runs+st.runs
		}
		m, lo, hi := stats.MeanInterval(rounds, z)
		cell := fmt.Sprintf("%.2f (%.2f–%.2f)", m, lo, hi)
		if missed > 0 {
			cell += fmt.Sprintf(", %d not reached", missed)
		}
		row = append(row, strconv.FormatFloat(m, 'f', 2, 64), itoa(goals), itoa(runs))
		mrow = append(mrow, cell, kn(goals, runs)+" · "+rateCI(goals, runs, z))
	}
	return row, mrow, true
}
