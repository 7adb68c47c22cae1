package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/killchain/killchain/benchdata"
	"github.com/killchain/killchain/results"
)

// project keeps the fields lineDecoder decodes (the features are compared
// apart, as a vector).
func project(r results.Run) results.Run {
	p := results.Run{
		RunID: r.RunID, Task: r.Task, Mode: r.Mode, ModelA: r.ModelA, ModelB: r.ModelB, Stage: r.Stage, Error: r.Error,
		Attacked: r.Attacked, TaskSuccess: r.TaskSuccess, AttackGoal: r.AttackGoal,
		Exposed: r.Exposed, Persisted: r.Persisted, Relayed: r.Relayed, Executed: r.Executed,
		Lag: r.Lag, Outbound: r.Outbound,
	}
	if f := r.Forensics; f != nil {
		p.Forensics = &results.Forensics{
			Drift: append([]float64{}, f.Drift...), DriftBefore: f.DriftBefore, DriftAfter: f.DriftAfter,
			LegitReport: f.LegitReport, InjectedAction: f.InjectedAction, DualCompletion: f.DualCompletion, Tracer: f.Tracer,
		}
	}
	return p
}

// TestLineDecoderMatchesEncodingJSON decodes synthetic and crafted lines
// both ways: where the fast decoder takes a line, the fields the
// Accumulator reads and the features vector must be what encoding/json
// gives.
func TestLineDecoderMatchesEncodingJSON(t *testing.T) {
	dir := t.TempDir()
	if err := benchdata.Generate(dir, 300, 3); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		name, text string
		fast       bool
	}
	var lines []line
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		lines = append(lines, line{"synthetic", l, true})
	}
	lines = append(lines,
		line{"escapes", `{"run_id":"a\"b","task":"t\u00e9","error":"x\ny"}`, true},
		line{"nulls", `{"run_id":"a","exposed":null,"lag":null,"forensics":null,"harness":null}`, true},
		line{"forensics", `{"run_id":"a","executed":false,"forensics":{"drift":[0.5,1e-2],"drift_before":null,"drift_after":0.25,` +
			`"legit_report":true,"tracer":{"calls":2,"tp":1},"features":{"steps":3,"unknown":1}}}`, true},
		line{"harness", `{"run_id":"a","harness":{"harness":"agentbench"}}`, false},
		line{"null string", `{"run_id":"a","task":null}`, false},
		line{"fraction in int", `{"run_id":"a","lag":1.5}`, false},
		line{"trailing garbage", `{"run_id":"a"} x`, false},
		line{"lone surrogate", `{"run_id":"a","task":"\ud83d"}`, false},
	)
	dec := newLineDecoder()
	withFeatures := 0
	for _, l := range lines {
		t.Run(l.name, func(t *testing.T) {
			var want results.Run
			wantErr := json.Unmarshal([]byte(l.text), &want)
			var got results.Run
			var f results.Forensics
			feats, err := dec.decode([]byte(l.text), &got, &f)
			if err != nil {
				if l.fast {
					t.Fatalf("decoder refused %s: %v", l.text, err)
				}
				return
			}
			if !l.fast {
				t.Errorf("decoder took %s, expected a fallback", l.text)
			}
			if wantErr != nil {
				t.Fatalf("decoder took %s, encoding/json: %v", l.text, wantErr)
			}
			var vec, wantVec []float64
			if feats != nil {
				if vec, err = dec.features(feats); err != nil {
					t.Fatalf("features of %s: %v", l.text, err)
				}
			}
			if want.Forensics != nil {
				wantVec = want.Forensics.Features.Vector(nil)
			}
			if g, w := project(got), project(want); !reflect.DeepEqual(g, w) {
				t.Errorf("line %s:\ndecoder %+v\njson    %+v", l.text, g, w)
			}
			if len(vec) > 0 {
				withFeatures++
			}
			if want.Forensics != nil && !reflect.DeepEqual(vec, wantVec) {
				t.Errorf("features of %s: %v, want %v", l.text, vec, wantVec)
			}
		})
	}
	if withFeatures < 100 {
		t.Errorf("only %d lines with features decoded", withFeatures)
	}
}
