package results_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/benchdata"
	"github.com/killchain/killchain/internal/results"
)

// fixtureLines returns the lines of the studies kept as test data
// elsewhere in the module (a real smoke study among them) and of a
// synthetic study, whose runs carry every forensics field.
func fixtureLines(t testing.TB, synthetic int) []string {
	t.Helper()
	files, _ := filepath.Glob("../report/testdata/*/runs.jsonl")
	more, _ := filepath.Glob("../../runner/testdata/*/runs.jsonl")
	dir := t.TempDir()
	if err := benchdata.Generate(dir, synthetic, 7); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range append(append(files, more...), filepath.Join(dir, "runs.jsonl")) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for l := range strings.Lines(string(data)) {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// crafted lines: fast is whether the scanner must take the line itself
// rather than leave it to encoding/json.
var crafted = []struct {
	name string
	line string
	fast bool
}{
	{"escapes", `{"run_id":"a\"b\\c\/d","task":"t\n\tx","error":"\u00e9\u4e2d\ud83d\ude00"}`, true},
	{"adaptive", `{"run_id":"a","round":2,"attacker":"ref","feedback":"stage","payload":"r2.1","parent":"r1.2"}`, true},
	{"adaptive round 0", `{"run_id":"a","round":0,"attacker":"ref","feedback":"none","payload":"tool_knowledge","parent":""}`, true},
	{"suite", `{"run_id":"a","suite":"bank","injection":"bank.steal","injection_kind":"exfiltration","helpful":true,"relay_depth":2,"executed":null}`, true},
	{"suite clean", `{"run_id":"a","suite":"bank","injection":"","injection_kind":"","helpful":false,"relay_depth":null}`, true},
	{"nulls", `{"run_id":"a","exposed":null,"lag":null,"model_b":null,"executed":true}`, true},
	{"white space", ` { "run_id" : "a" , "attacked" : true , "lag" : 3 } `, true},
	{"unknown keys", `{"run_id":"a","future":"x","ratio":1.5e3,"flag":false,"nothing":null}`, true},
	{"negative and big", `{"run_id":"a","duration_ms":-12,"input_tokens":123456789}`, true},
	{"empty object", `{}`, true},
	{"nested unknown", `{"run_id":"a","extra":{"x":[1,"]}",{"y":null}]},"task":"t"}`, true},
	{"forensics", `{"run_id":"a","forensics":{"drift":[0.5,1],"drift_mean":0.75,"features":{"steps":3}},"task":"t"}`, true},
	{"repeated forensics", `{"run_id":"a","forensics":{"drift_mean":0.75},"forensics":{"send_reports":2}}`, true},
	{"harness", `{"run_id":"a","harness":{"harness":"agentbench","labels":{"success":"True"}}}`, true},
	{"attempt errors", `{"run_id":"a","attempts":2,"attempt_errors":[{"kind":"sandbox","error":"x","started":"s","duration_ms":3}]}`, true},
	{"null forensics", `{"run_id":"a","forensics":null}`, true},
	{"bad forensics", `{"run_id":"a","forensics":{"drift":"x"}}`, false},
	{"full forensics", `{"run_id":"a","forensics":{"drift":[],"drift_mean":null,"drift_before":0.25,"drift_after":1e-3,` +
		`"exposed_step":2,"outbound_calls":3,"send_reports":1,"legit_report":true,"injected_action":false,` +
		`"dual_completion":null,"provenance":[{"position":"a","sources":[{"step":1}]}],` +
		`"tracer":{"calls":1,"tp":2,"fp":3,"fn":4,"hits":5,"top1":6,"new":7},` +
		`"features":{"steps":3,"outbound_novel":0.5,"unknown_feature":9,"drift_last":-1.5E2}}}`, true},
	{"upper-case key", `{"run_id":"a","Task":"t"}`, false},
	{"upper-case nested key", `{"run_id":"a","forensics":{"Send_Reports":2}}`, false},
	{"folded key", "{\"run_id\":\"a\",\"\u017ftudy\":\"s\"}", false}, // ſ folds to s
	{"kelvin key", "{\"run_id\":\"a\",\"tas\u212a\":\"t\"}", false},  // K (Kelvin) folds to k
	{"escaped key", `{"run_id":"a","t\u0061sk":"t"}`, false},
	{"lone surrogate", `{"run_id":"a","task":"\ud83d"}`, false},
	{"fraction in int", `{"run_id":"a","lag":1.5}`, false},
	{"trailing garbage", `{"run_id":"a"} x`, false},
	{"truncated", `{"run_id":"a","task":"t`, false},
	{"invalid utf-8", "{\"run_id\":\"a\",\"task\":\"\xff\"}", false},
	{"string for bool", `{"run_id":"a","attacked":"yes"}`, false},
	{"null after value", `{"run_id":"a","task":"t","task":null,"repeat":2,"repeat":null,"attacked":true,"attacked":null,` +
		`"lag":3,"lag":null,"forensics":{"drift":[1],"drift":null,"exposed_step":1,"exposed_step":null,` +
		`"features":{"steps":2,"steps":null}}}`, true},
	{"leading zero", `{"run_id":"a","repeat":01}`, false},
	{"bare fraction", `{"run_id":"a","forensics":{"drift_mean":.5}}`, false},
	{"plus sign", `{"run_id":"a","forensics":{"features":{"steps":+1}}}`, false},
	{"bad literal in unknown", `{"run_id":"a","future":nul}`, false},
}

// trim applies a Detail to a run decoded in full.
func trim(r results.Run, d results.Detail) results.Run {
	switch d {
	case results.Flat:
		r.Forensics, r.Harness, r.AttemptErrors = nil, nil, nil
	case results.NoProvenance:
		if r.Forensics != nil {
			f := *r.Forensics
			f.Provenance = nil
			r.Forensics = &f
		}
	}
	return r
}

// TestDecoderMatchesEncodingJSON decodes every fixture line and the crafted
// ones at each detail both ways: the Decoder must give exactly what
// encoding/json gives (less what the detail leaves out), and fail where it
// fails; the crafted lines marked fast must not need the fallback.
func TestDecoderMatchesEncodingJSON(t *testing.T) {
	lines := fixtureLines(t, 300)
	if len(lines) < 700 {
		t.Fatalf("only %d fixture lines", len(lines))
	}
	fast := map[string]bool{}
	for _, c := range crafted {
		lines = append(lines, c.line)
		fast[c.line] = c.fast
	}
	for _, d := range []results.Detail{results.Full, results.NoProvenance, results.Flat} {
		dec := results.NewDecoder(d)
		for _, line := range lines {
			var want, got results.Run
			wantErr := json.Unmarshal([]byte(line), &want)
			err := dec.Decode([]byte(line), &got)
			if d == results.Flat && wantErr != nil && err == nil && strings.Contains(line, `"forensics":{`) {
				continue // Flat checks only the brackets of what it leaves out
			}
			if (err == nil) != (wantErr == nil) {
				t.Errorf("detail %d, %s: err %v, encoding/json %v", d, line, err, wantErr)
				continue
			}
			if err == nil && !reflect.DeepEqual(got, trim(want, d)) {
				t.Errorf("detail %d, %s:\ngot  %+v\nwant %+v", d, line, got, trim(want, d))
			}
			if f, ok := fast[line]; ok && d != results.Flat && f != results.DecodesFast(dec, []byte(line)) {
				t.Errorf("detail %d, %s: fast path %v, want %v", d, line, !f, f)
			}
		}
	}
}

// TestDecoderKnowsEveryField fills every top-level field of Run with a value
// other than its zero and checks the fast path decodes a line of it as
// encoding/json does, so a field added to Run without a case in the
// Decoder fails here.
func TestDecoderKnowsEveryField(t *testing.T) {
	var r results.Run
	v := reflect.ValueOf(&r).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		name := v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.String:
			f.SetString("v-" + name)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Float64:
			f.SetFloat(float64(i) + 0.000125)
		case reflect.Slice:
			switch f.Type() {
			case reflect.TypeOf([]results.AttemptError(nil)):
				f.Set(reflect.ValueOf([]results.AttemptError{{Kind: "sandbox", Error: "v-" + name, Canary: "SECRET-0000000A", Started: "s", DurationMS: 3}}))
			case reflect.TypeOf([]string(nil)):
				f.Set(reflect.ValueOf([]string{"v-" + name, "tests/run.sh"}))
			default:
				t.Fatalf("field %s: slice type %s not covered by this test", name, f.Type())
			}
		case reflect.Pointer:
			switch f.Type().Elem().Kind() {
			case reflect.Bool:
				b := i%2 == 0
				f.Set(reflect.ValueOf(&b))
			case reflect.Int:
				n := i
				f.Set(reflect.ValueOf(&n))
			default:
				continue // forensics and harness: covered by TestDecoderMatchesEncodingJSON
			}
		default:
			t.Fatalf("field %s: kind %s not covered by this test", name, f.Kind())
		}
	}
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	dec := results.NewDecoder(results.Full)
	var got results.Run
	if err := dec.Decode(line, &got); err != nil || !results.DecodesFast(dec, line) {
		t.Fatalf("the fast path refused %s: %v", line, err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("fields lost:\ngot  %+v\nwant %+v", got, r)
	}
}

// FuzzDecoder: on any input the Decoder agrees with encoding/json.
func FuzzDecoder(f *testing.F) {
	for _, c := range crafted {
		f.Add(c.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var want, got results.Run
		wantErr := json.Unmarshal([]byte(line), &want)
		err := results.NewDecoder(results.Full).Decode([]byte(line), &got)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: err %v, encoding/json %v", line, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\ngot  %+v\nwant %+v", line, got, want)
		}
	})
}

// BenchmarkDecodeLine decodes synthetic run lines (the bench report's
// shape) with encoding/json and with the Decoder at each detail, per line.
func BenchmarkDecodeLine(b *testing.B) {
	dir := b.TempDir()
	if err := benchdata.Generate(dir, 2000, 1); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	raw := make([][]byte, len(lines))
	for i, l := range lines {
		raw[i] = []byte(l)
	}
	b.Run("encoding-json", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			var r results.Run
			if err := json.Unmarshal(raw[i%len(raw)], &r); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, d := range []struct {
		name string
		d    results.Detail
	}{{"decoder-full", results.Full}, {"decoder-noprovenance", results.NoProvenance}, {"decoder-flat", results.Flat}} {
		b.Run(d.name, func(b *testing.B) {
			dec := results.NewDecoder(d.d)
			var r results.Run
			for i := 0; b.Loop(); i++ {
				if err := dec.Decode(raw[i%len(raw)], &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
