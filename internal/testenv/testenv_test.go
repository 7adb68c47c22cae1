package testenv

import "testing"

func TestCI(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool
	}{{"", false}, {"false", false}, {"0", false}, {"true", true}, {"1", true}, {"yes", true}} {
		t.Run("CI="+tc.value, func(t *testing.T) {
			t.Setenv("CI", tc.value)
			if got := CI(); got != tc.want {
				t.Errorf("CI() = %v, want %v", got, tc.want)
			}
		})
	}
}
