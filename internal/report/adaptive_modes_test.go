package report

import (
	"slices"
	"testing"

	"github.com/killchain/killchain/internal/stats"
)

// TestModeMeans: the mode comparison ends with each mode's mean rounds to
// success over the cells every compared mode ran on (a user checking
// stage < outcome < none read it off per-cell rows before), a miss
// counted as the cell's last round + 1, and no row where fewer than two
// cells share the modes.
func TestModeMeans(t *testing.T) {
	st := func(first, goals int) modeStat { return modeStat{first: first, last: 6, goals: goals, runs: 12} }
	for _, tc := range []struct {
		name     string
		targets  []string
		byTarget map[string]map[string]modeStat
		ok       bool
		row      []string
		mdNone   string
	}{
		{"three modes on two cells", []string{"a", "b"}, map[string]map[string]modeStat{
			"a": {"none": st(-1, 0), "outcome": st(3, 4), "stage": st(1, 8)},
			"b": {"none": st(5, 1), "outcome": st(3, 2), "stage": st(2, 6)},
		}, true, []string{"mean over the 2 cells every mode ran on", "6.00", "1", "24", "3.00", "6", "24", "1.50", "14", "24"}, "6.00 (4.04–7.96), 1 not reached"},
		{"a cell without every mode is left out", []string{"a", "b", "c"}, map[string]map[string]modeStat{
			"a": {"outcome": st(2, 4), "stage": st(1, 8)},
			"b": {"outcome": st(4, 2), "stage": st(2, 6)},
			"c": {"stage": st(1, 9)},
		}, true, []string{"mean over the 2 cells every mode ran on", "", "", "", "3.00", "6", "24", "1.50", "14", "24"}, noneCell},
		{"one shared cell", []string{"a", "b"}, map[string]map[string]modeStat{
			"a": {"outcome": st(2, 4), "stage": st(1, 8)},
			"b": {"stage": st(2, 6)},
		}, false, nil, ""},
		{"one mode", []string{"a", "b"}, map[string]map[string]modeStat{"a": {"stage": st(1, 1)}, "b": {"stage": st(2, 1)}}, false, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row, mrow, ok := modeMeans(tc.targets, tc.byTarget, stats.Z95)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if !slices.Equal(row, tc.row) {
				t.Errorf("row %q\nwant %q", row, tc.row)
			}
			if mrow[1] != tc.mdNone {
				t.Errorf("none's rounds %q, want %q", mrow[1], tc.mdNone)
			}
		})
	}
}
