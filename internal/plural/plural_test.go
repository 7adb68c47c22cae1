package plural

import (
	"fmt"
	"testing"
)

func TestCount(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"zero", Count(0, "error"), "0 errors"},
		{"one", Count(1, "error"), "1 error"},
		{"two", Count(2, "grid"), "2 grids"},
		{"negative", Count(-1, "run"), "-1 runs"},
		{"irregular one", CountAs(1, "stratum", "strata"), "1 stratum"},
		{"irregular many", CountAs(81, "stratum", "strata"), "81 strata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func ExampleCount() {
	fmt.Println(Count(1, "error") + ", " + Count(2, "grid"))
	// Output: 1 error, 2 grids
}
