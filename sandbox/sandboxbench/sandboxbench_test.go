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
		{"default", nil, slices.Compact(slices.Sorted(slices.Values([]int{1, cores, 8})))},
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
