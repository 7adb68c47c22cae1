package jsonscan

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"unsafe"
)

func TestFloat(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "0.5", "0.4849", "-12.25", "123456789012345", "7.3084", "1e3", "2.5E-2", "12345678901234567", "0.1000000000000000055", "1E+2"} {
		t.Run(s, func(t *testing.T) {
			want, _ := strconv.ParseFloat(s, 64)
			got, q, err := Float([]byte(s+","), 0)
			if err != nil || got != want || q != len(s) {
				t.Errorf("Float(%s) = %v, %d, %v; want %v, %d", s, got, q, err, want, len(s))
			}
		})
	}
	for _, s := range []string{"", "-", "1.", ".5", "abc", "01", "+1", "1e", "1e400", "null"} {
		t.Run("bad "+s, func(t *testing.T) {
			if _, _, err := Float([]byte(s), 0); !errors.Is(err, ErrFallback) {
				t.Errorf("Float(%q) err %v, want fallback", s, err)
			}
		})
	}
}

func TestInt(t *testing.T) {
	for _, s := range []string{"0", "-0", "7", "-12", "123456789012345678"} {
		t.Run(s, func(t *testing.T) {
			want, _ := strconv.ParseInt(s, 10, 64)
			got, q, err := Int([]byte(s+"}"), 0)
			if err != nil || got != want || q != len(s) {
				t.Errorf("Int(%s) = %d, %d, %v; want %d", s, got, q, err, want)
			}
		})
	}
	for _, s := range []string{"", "-", "01", "1.5", "2e3", "1234567890123456789", "null", "x"} {
		t.Run("bad "+s, func(t *testing.T) {
			if _, _, err := Int([]byte(s), 0); !errors.Is(err, ErrFallback) {
				t.Errorf("Int(%q) err %v, want fallback", s, err)
			}
		})
	}
}

func TestObject(t *testing.T) {
	tests := []struct {
		name string
		in   string
		keys int
		ok   bool
	}{
		{"flat", `{"a":1,"b":"x","c":null}`, 3, true},
		{"nested and escapes", `{"a":{"b":[1,{"c":"}"}]},"d":"q\"}"}`, 2, true},
		{"empty", `{}`, 0, true},
		{"white space", " { \"a\" : true , \"b\" : [ ] } \n", 2, true},
		{"escaped key", `{"a\"b":1}`, 0, false},
		{"truncated", `{"a":1`, 1, false},
		{"not an object", `[1]`, 0, false},
		{"trailing garbage", `{"a":1} x`, 1, false},
		{"bad literal", `{"a":tru}`, 0, false},
		{"control character", "{\"a\":\"x\ty\"}", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			data := []byte(tt.in)
			err := Object(data, func(k []byte, p int) (int, error) {
				q, err := Skip(data, p)
				if err == nil {
					n++
				}
				return q, err
			})
			if (err == nil) != tt.ok || n != tt.keys {
				t.Errorf("walk %s: %d keys, err %v", tt.in, n, err)
			}
		})
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"plain", `"abc"`, true},
		{"escapes", `"a\"b\\c\/d\n\t\u00e9\ud83d\ude00"`, true},
		{"lone surrogate", `"\ud83d"`, false},
		{"bad escape", `"\x"`, false},
		{"invalid utf-8", "\"\xff\"", false},
		{"null", `null`, false},
		{"unterminated", `"abc`, false},
	}
	s := NewStrings()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, q, err := s.String([]byte(tt.in), 0, true)
			if !tt.ok {
				if !errors.Is(err, ErrFallback) {
					t.Errorf("String(%s) = %q, %v; want fallback", tt.in, got, err)
				}
				return
			}
			var want string
			if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
				t.Fatal(err)
			}
			if err != nil || got != want || q != len(tt.in) {
				t.Errorf("String(%s) = %q, %d, %v; want %q", tt.in, got, q, err, want)
			}
		})
	}
}

func TestFloats(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"numbers", `[1, 0.5,-2e-3 ]`, true},
		{"empty", `[]`, true},
		{"null element", `[1,null]`, false},
		{"string element", `[1,"2"]`, false},
		{"unclosed", `[1,2`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, q, err := Floats([]byte(tt.in), 0, nil)
			if !tt.ok {
				if err == nil {
					t.Errorf("Floats(%s) = %v, want an error", tt.in, got)
				}
				return
			}
			var want []float64
			if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
				t.Fatal(err)
			}
			if err != nil || !reflect.DeepEqual(got, want) || q != len(tt.in) {
				t.Errorf("Floats(%s) = %#v, %d, %v; want %#v", tt.in, got, q, err, want)
			}
		})
	}
}

// TestStringsInterned: one Strings decoding many values, interned or not,
// gives each its own value, whatever it met before (values that share a
// place in its cache of recent values among them), and one string per
// distinct interned value.
func TestStringsInterned(t *testing.T) {
	s := NewStrings()
	var vals []string
	for i := range 2000 {
		// Same length, first, middle and last bytes: the same cache place.
		vals = append(vals, fmt.Sprintf("a%04dz", i), fmt.Sprintf("a%04dz", i%7), "aXXXXz", "\xff", `\u00e9`)
	}
	first := map[string]string{}
	for _, v := range vals {
		for _, intern := range []bool{true, false} {
			in := `"` + v + `"`
			got, q, err := s.String([]byte(in), 0, intern)
			if v == "\xff" {
				if !errors.Is(err, ErrFallback) {
					t.Fatalf("String(%q) = %q, %v; want fallback", in, got, err)
				}
				continue
			}
			var want string
			if err := json.Unmarshal([]byte(in), &want); err != nil {
				t.Fatal(err)
			}
			if err != nil || got != want || q != len(in) {
				t.Fatalf("String(%q) = %q, %d, %v; want %q", in, got, q, err, want)
			}
			if !intern {
				continue
			}
			if f, ok := first[got]; ok && unsafe.StringData(f) != unsafe.StringData(got) {
				t.Fatalf("%q interned twice", got)
			}
			first[got] = got
		}
	}
}
