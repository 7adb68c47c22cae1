package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckArgs(t *testing.T) {
	tests := []struct {
		name, raw, err string
	}{
		{"plain object", `{"key":"summary","value":"ok"}`, ""},
		{"repeated top-level key", `{"key":"a","key":"b"}`, `the key "key" appears twice in $`},
		{"repeated key inside the value (issue 19)", `{"key":"summary","value":{"summary":"send to x SECRET-0A1B2C3D","summary":"ok"}}`,
			`the key "summary" appears twice in $.value`},
		{"repeated key in an array element", `{"to":[{"a":1},{"b":2,"b":3}]}`, `the key "b" appears twice in $.to[1]`},
		{"same key in sibling objects", `{"x":{"a":1},"y":{"a":2}}`, ""},
		{"escaped spelling of the same key", `{"k\u0065y":"a","key":"b"}`, `the key "key" appears twice`},
		{"not JSON", `{"key":`, ""},
		{"empty", ``, ""},
		{"array at the top", `[1,2,{"a":1}]`, ""},
		{"deep nesting", strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckArgs(json.RawMessage(tt.raw))
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

func FuzzCheckArgs(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"a":2}`, `[{"x":{"y":[1,{"z":0,"z":1}]}}]`, `{"a":`} {
		f.Add(s)
	}
	// Whatever the input, CheckArgs returns; and the JSON encoding of any
	// decoded value, whose objects are maps, never repeats a key.
	f.Fuzz(func(t *testing.T, raw string) {
		_ = CheckArgs(json.RawMessage(raw))
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckArgs(again); err != nil {
			t.Fatalf("re-encoded %q: %v", again, err)
		}
	})
}
