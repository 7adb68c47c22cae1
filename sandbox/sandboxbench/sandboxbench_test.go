package sandboxbench

import (
	"runtime"
	"slices"
	"testing"
)

func TestLevels(t *testing.T) {
	cores := runtime.NumCPU()
	tests := []struct {
		name  string
		given []int
		want  []int
	}{
		{"default", nil, slices.Compact(slices.Sorted(slices.Values([]int{1, min(cores, 8), 8})))},
		{"given, sorted and once each", []int{8, 2, 8, 1}, []int{1, 2, 8}},
		{"one level", []int{4}, []int{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			given := slices.Clone(tt.given)
			if got := Levels(tt.given); !slices.Equal(got, tt.want) {
				t.Errorf("Levels(%v) = %v, want %v", tt.given, got, tt.want)
			}
			if !slices.Equal(given, tt.given) {
				t.Errorf("Levels changed its argument to %v", tt.given)
			}
		})
	}
}

func TestRoundRuns(t *testing.T) {
	tests := []struct {
		name           string
		runs, c        int
		round0, round1 int
	}{
		{"even", 24, 8, 12, 12},
		{"odd", 25, 1, 12, 13},
		{"at least one wave", 24, 16, 16, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a, b := RoundRuns(tt.runs, 0, tt.c), RoundRuns(tt.runs, 1, tt.c); a != tt.round0 || b != tt.round1 {
				t.Errorf("RoundRuns(%d, _, %d) = %d, %d; want %d, %d", tt.runs, tt.c, a, b, tt.round0, tt.round1)
			}
		})
	}
}
