package analysis

import (
	"errors"
	"strconv"
	"testing"
)

func TestNumber(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "0.5", "0.4849", "-12.25", "123456789012345", "7.3084", "1e3", "2.5E-2", "12345678901234567", "0.1000000000000000055"} {
		t.Run(s, func(t *testing.T) {
			want, _ := strconv.ParseFloat(s, 64)
			got, err := number([]byte(s))
			if err != nil || got != want {
				t.Errorf("number(%s) = %v, %v; want %v", s, got, err, want)
			}
		})
	}
	for _, s := range []string{"", "-", "1.", ".5", "abc", "1.2.3"} {
		t.Run("bad "+s, func(t *testing.T) {
			if _, err := number([]byte(s)); !errors.Is(err, errFallback) {
				t.Errorf("number(%q) err %v, want fallback", s, err)
			}
		})
	}
}

func TestWalkObject(t *testing.T) {
	tests := []struct {
		name string
		in   string
		keys int
		ok   bool
	}{
		{"flat", `{"a":1,"b":"x","c":null}`, 3, true},
		{"nested and escapes", `{"a":{"b":[1,{"c":"}"}]},"d":"q\"}"}`, 2, true},
		{"empty", `{}`, 0, true},
		{"escaped key", `{"a\"b":1}`, 0, false},
		{"truncated", `{"a":1`, 1, false},
		{"not an object", `[1]`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			err := walkObject([]byte(tt.in), func(k, v []byte) error { n++; return nil })
			if (err == nil) != tt.ok || (tt.ok && n != tt.keys) {
				t.Errorf("walk %s: %d keys, err %v", tt.in, n, err)
			}
		})
	}
}
