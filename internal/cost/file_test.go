package cost

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	want := Prices{
		"gpt-4o-mini-2024-07-18": {Input: 0.15, CachedInput: ptr(0.075), Output: 0.6},
		"local":                  {Input: 1, Output: 2, Reasoning: ptr(3)},
	}
	for _, name := range []string{"prices.hcl", "prices.json"} {
		t.Run(name, func(t *testing.T) {
			got, err := ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, file, src, want string }{
		{"negative", "p.json", `{"m": {"input": -1, "output": 1}}`, "not below 0"},
		{"no output", "p.json", `{"m": {"input": 1}}`, "needs input and output"},
		{"unknown field", "p.json", `{"m": {"input": 1, "output": 1, "cost": 2}}`, "unknown field"},
		{"not an object", "p.json", `[1]`, "not a JSON object"},
		{"hcl duplicate", "p.hcl", "price \"m\" {\n input = 1\n output = 1\n}\nprice \"m\" {\n input = 1\n output = 1\n}\n", "given twice"},
		{"hcl missing output", "p.hcl", "price \"m\" {\n input = 1\n}\n", "output"},
		{"hcl unknown block", "p.hcl", "model \"m\" {}\n", "model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.file, []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	ps := Prices{"block": {Input: 1}, "id": {Input: 2}}
	if p, _ := ps.Lookup("block", "id"); p.Input != 1 {
		t.Error("the block label does not come first")
	}
	if p, ok := ps.Lookup("other", "id"); !ok || p.Input != 2 {
		t.Error("the model id is not looked up")
	}
	if _, ok := ps.Lookup("other", ""); ok {
		t.Error("an unpriced model has a price")
	}
}

// FuzzParse: no pricing file makes Parse panic, and every price it accepts
// is valid and costs a finite, non-negative amount.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"prices.hcl", "prices.json"} {
		src, err := readTestdata(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(name, src)
	}
	f.Add("x.json", []byte(`{"a": {"input": 1e308, "output": 1e308}}`))
	f.Fuzz(func(t *testing.T, name string, src []byte) {
		ps, err := Parse(name, src)
		if err != nil {
			return
		}
		for n, p := range ps {
			if errs := p.Validate(); len(errs) > 0 {
				t.Fatalf("%s: accepted an invalid price: %v", n, errs)
			}
			if c := p.Cost(Tokens{Input: 10, CachedInput: 3, Output: 10, Reasoning: 4}); c < 0 || c != c {
				t.Fatalf("%s: cost %g", n, c)
			}
		}
	})
}

func readTestdata(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }
