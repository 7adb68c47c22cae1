package world

import (
	"slices"
	"testing"
)

// TestChangeStrings checks what a change wrote: the key it added and its
// new value's strings; a key that was there before, or one removed, is
// not written.
func TestChangeStrings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before any
		after  any
		want   [][]string
	}{
		{"added key", map[string]any{"a": "x"}, map[string]any{"a": "x", "K-1": "v"}, [][]string{{"K-1", "v"}}},
		{"changed value under an old key", map[string]any{"K-1": "x"}, map[string]any{"K-1": "y"}, [][]string{{"y"}}},
		{"removed key", map[string]any{"K-1": "x"}, map[string]any{}, [][]string{nil}},
		{"appended record", []any{}, []any{map[string]any{"k": "v"}}, [][]string{{"k", "v"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [][]string
			for _, c := range diff("m", tc.before, tc.after, nil) {
				got = append(got, c.Strings())
			}
			if !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("strings %q, want %q", got, tc.want)
			}
		})
	}
}
