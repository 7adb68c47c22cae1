package report

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/killchain/killchain/benchdata"
	"github.com/killchain/killchain/results"
	"github.com/killchain/killchain/results/jsonscan"
)

// TestRunScannerMatchesEncodingJSON decodes every line of every fixture and
// a set of crafted lines both ways: where the scanner accepts a line, it must
// produce exactly what encoding/json produces.
func TestRunScannerMatchesEncodingJSON(t *testing.T) {
	var lines []string
	for _, name := range []string{"mixed", "simple", "smoke"} {
		f, err := os.Open(filepath.Join("testdata", name, "runs.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) != "" {
				lines = append(lines, sc.Text())
			}
		}
		f.Close()
	}
	// Synthetic runs carry every forensics field.
	bench := t.TempDir()
	if err := benchdata.Generate(bench, 300, 7); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(bench, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	withForensics := 0
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		lines = append(lines, l)
		if strings.Contains(l, `"forensics":{`) {
			withForensics++
		}
	}
	if withForensics < 100 {
		t.Fatalf("only %d synthetic lines with forensics", withForensics)
	}
	if len(lines) < 700 {
		t.Fatalf("only %d fixture lines", len(lines))
	}
	crafted := []struct {
		name string
		line string
		fast bool // the scanner must take it
	}{
		{"escapes", `{"run_id":"a\"b\\c\/d","task":"t\n\tx","error":"\u00e9\u4e2d\ud83d\ude00"}`, true},
		{"nulls", `{"run_id":"a","exposed":null,"lag":null,"model_b":null,"executed":true}`, true},
		{"white space", ` { "run_id" : "a" , "attacked" : true , "lag" : 3 } `, true},
		{"unknown keys", `{"run_id":"a","future":"x","ratio":1.5e3,"flag":false,"nothing":null}`, true},
		{"negative and big", `{"run_id":"a","duration_ms":-12,"input_tokens":123456789}`, true},
		{"empty object", `{}`, true},
		{"nested unknown", `{"run_id":"a","extra":{"x":[1,"]}",{"y":null}]},"task":"t"}`, true},
		{"forensics", `{"run_id":"a","forensics":{"drift":[0.5,1],"drift_mean":0.75,"features":{"steps":3}},"task":"t"}`, true},
		{"harness", `{"run_id":"a","harness":{"harness":"agentbench","labels":{"success":"True"}}}`, true},
		{"null forensics", `{"run_id":"a","forensics":null}`, true},
		{"bad forensics", `{"run_id":"a","forensics":{"drift":"x"}}`, false},
		{"full forensics", `{"run_id":"a","forensics":{"drift":[],"drift_mean":null,"drift_before":0.25,"drift_after":1e-3,` +
			`"exposed_step":2,"outbound_calls":3,"send_reports":1,"legit_report":true,"injected_action":false,` +
			`"dual_completion":null,"provenance":[{"position":"a","sources":[{"step":1}]}],` +
			`"tracer":{"calls":1,"tp":2,"fp":3,"fn":4,"hits":5,"top1":6,"new":7},` +
			`"features":{"steps":3,"outbound_novel":0.5,"unknown_feature":9,"drift_last":-1.5E2}}}`, true},
		{"upper-case key", `{"run_id":"a","Task":"t"}`, false},
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
		{"attempts and classifier errors", `{"run_id":"a","failed_calls":3,"canary_attempts":2,"classifier_errors":1,` +
			`"error":"reply cut","error_kind":"truncated"}`, true},
	}
	for _, c := range crafted {
		lines = append(lines, c.line)
	}
	sc := newRunScanner(true)
	for i, line := range lines {
		var want, got results.Run
		wantErr := json.Unmarshal([]byte(line), &want)
		if want.Forensics != nil {
			want.Forensics.Provenance = nil // the scanner skips it
		}
		err := sc.decode([]byte(line), &got)
		name := "fixture"
		mustFast := true
		if j := i - (len(lines) - len(crafted)); j >= 0 {
			name, mustFast = crafted[j].name, crafted[j].fast
		}
		t.Run(name, func(t *testing.T) {
			if err != nil {
				if mustFast {
					t.Fatalf("scanner refused %s: %v", line, err)
				}
				return
			}
			if !mustFast {
				t.Errorf("scanner took %s, expected a fallback", line)
			}
			if wantErr != nil {
				t.Fatalf("scanner took %s, encoding/json: %v", line, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("line %s:\nscanner %+v\njson    %+v", line, got, want)
			}
		})
	}
}

// TestReadLatestRunsMatchesResults checks the fast reader against
// results.ReadLatestRuns on a file with superseded lines.
func TestReadLatestRunsMatchesResults(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "smoke", "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.Split(strings.TrimSpace(string(data)), "\n")
	// Re-append three lines with a changed stage: they must win.
	var extra []string
	for _, l := range ls[:3] {
		extra = append(extra, strings.Replace(l, `"duration_ms":`, `"duration_ms":1`, 1))
	}
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	body := strings.Join(ls, "\n") + "\n\n" + strings.Join(extra, "\n") + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var want, got []results.Run
	wst, err := results.ReadLatestRuns(path, func(r results.Run) error { want = append(want, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	gst, err := readLatestRuns(path, true, func(r *results.Run) error { got = append(got, *r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if wst != gst {
		t.Errorf("stats = %+v, want %+v", gst, wst)
	}
	if gst.Superseded != 3 {
		t.Errorf("superseded = %d, want 3", gst.Superseded)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("runs differ from results.ReadLatestRuns")
	}
}

// TestScanBlocksMatchesScanLines compares the block reader with the line
// reader at block sizes that cut lines anywhere.
func TestScanBlocksMatchesScanLines(t *testing.T) {
	body := "{\"a\":1}\n\n  {\"b\":2}  \r\n" + strings.Repeat("x", 300) + "\n\t\n{\"c\":3}"
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	type line struct {
		num  int
		off  int64
		data string
	}
	var want []line
	if err := jsonscan.Lines(context.Background(), path, func(num int, off int64, data []byte) error {
		want = append(want, line{num, off, string(data)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { blockSize = n }(blockSize)
	for _, size := range []int{1, 5, 8, 64, 1 << 20} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			blockSize = size
			var got []line
			if err := scanBlocks(path, func(block []byte, num int, off int64, start, end int) error {
				got = append(got, line{num, off, string(block[start:end])})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
		})
	}
}

// TestRunScannerKnowsEveryField fills every top-level field of results.Run
// with a value other than its zero and checks the scanner decodes a line of
// it as encoding/json does, so a field added to results.Run without a case
// in runScanner.field fails here.
func TestRunScannerKnowsEveryField(t *testing.T) {
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
		case reflect.Slice:
			switch f.Type() {
			case reflect.TypeOf([]results.AttemptError(nil)):
				f.Set(reflect.ValueOf([]results.AttemptError{{Kind: "sandbox", Error: "v-" + name, Canary: "SECRET-0000000A", Started: "s", DurationMS: 3}}))
			case reflect.TypeOf([]string(nil)):
				f.Set(reflect.ValueOf([]string{"v-" + name, "w-" + name}))
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
				continue // forensics and harness: covered by TestRunScannerMatchesEncodingJSON
			}
		default:
			t.Fatalf("field %s: kind %s not covered by this test", name, f.Kind())
		}
	}
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got results.Run
	if err := newRunScanner(true).decode(line, &got); err != nil {
		t.Fatalf("scanner refused %s: %v", line, err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("scanner lost fields:\ngot  %+v\nwant %+v", got, r)
	}
}
