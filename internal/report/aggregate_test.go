package report

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
)

// fill sets every integer in v (recursing into structs and arrays) to a
// distinct non-zero value.
func fill(v reflect.Value, next *int64) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), next)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), next)
		}
	case reflect.Int, reflect.Int64:
		*next++
		v.SetInt(*next)
	default:
		panic("unhandled kind " + v.Kind().String())
	}
}

// TestMergeCoversEveryField guards Merge against a counter added to Counts
// and forgotten there.
func TestMergeCoversEveryField(t *testing.T) {
	var src Counts
	var n int64
	fill(reflect.ValueOf(&src).Elem(), &n)
	got := src
	got.Merge(&src)
	var check func(path string, g, s reflect.Value)
	check = func(path string, g, s reflect.Value) {
		switch g.Kind() {
		case reflect.Struct:
			for i := range g.NumField() {
				check(path+"."+g.Type().Field(i).Name, g.Field(i), s.Field(i))
			}
		case reflect.Array:
			for i := range g.Len() {
				check(fmt.Sprintf("%s[%d]", path, i), g.Index(i), s.Index(i))
			}
		default:
			if g.Int() != 2*s.Int() {
				t.Errorf("%s: merged %d, want %d", path, g.Int(), 2*s.Int())
			}
		}
	}
	check("Counts", reflect.ValueOf(got), reflect.ValueOf(src))
}

func bp(b bool) *bool { return &b }

func TestAggregatorAdd(t *testing.T) {
	tests := []struct {
		name  string
		run   results.Run
		check func(t *testing.T, c Counts, a *Aggregator)
	}{
		{
			name: "errored run counts only as an error",
			run:  results.Run{RunID: "e", Attacked: true, Executed: bp(true), AttackGoal: true, Error: "x", ErrorKind: "provider"},
			check: func(t *testing.T, c Counts, a *Aggregator) {
				if c.Errors != 1 || c.Runs != 0 || c.Executed.N != 0 || c.AttackGoal != 0 {
					t.Errorf("counts = %+v", c)
				}
				if a.Disagreements.Total != 0 || a.Errored() != 1 || a.Total() != 1 {
					t.Errorf("errored run leaked into lists or totals")
				}
			},
		},
		{
			name: "null stages are not applicable",
			run:  results.Run{RunID: "s", Attacked: true, Stage: "exposed", Exposed: bp(true), Executed: bp(false)},
			check: func(t *testing.T, c Counts, _ *Aggregator) {
				if c.Persisted.N != 0 || c.Relayed.N != 0 || c.Exposed != (Rate{1, 1}) || c.Executed != (Rate{0, 1}) {
					t.Errorf("counts = %+v", c)
				}
				if c.LastStage[1] != 1 {
					t.Errorf("last stage = %v", c.LastStage)
				}
			},
		},
		{
			name: "goal without executed is a disagreement",
			run:  results.Run{RunID: "g", Task: "propagation", ModelA: "a", ModelB: "b", Attacked: true, AttackGoal: true, Executed: bp(false)},
			check: func(t *testing.T, c Counts, a *Aggregator) {
				if c.GoalNotExecuted != 1 || a.Disagreements.Total != 1 {
					t.Fatalf("counts = %+v", c)
				}
				if it := a.Disagreements.Items()[0]; it.RunID != "g" || !strings.Contains(it.Note, "a→b, propagation") {
					t.Errorf("item = %+v", it)
				}
			},
		},
		{
			name: "noticed and executed",
			run:  results.Run{RunID: "n", Attacked: true, Noticed: true, NoticedThinking: true, Executed: bp(true), AttackGoal: true},
			check: func(t *testing.T, c Counts, a *Aggregator) {
				if c.Noticed != 1 || c.NoticedExecuted != 1 || c.NoticedThinking != 1 || c.GoalAndExecuted != 1 {
					t.Errorf("counts = %+v", c)
				}
			},
		},
		{
			name: "contaminated clean run is an anomaly",
			run:  results.Run{RunID: "c", Contaminated: true, Executed: bp(true)},
			check: func(t *testing.T, c Counts, a *Aggregator) {
				if c.Contaminated != 1 || a.Anomalies.Total != 1 {
					t.Fatalf("counts = %+v", c)
				}
				if it := a.Anomalies.Items()[0]; !strings.HasPrefix(it.Note, "contaminated and executed in a clean run") {
					t.Errorf("note = %q", it.Note)
				}
			},
		},
		{
			name: "no tool call stays out of the called denominator",
			run:  results.Run{RunID: "t", Attacked: true, NoToolCall: true, Executed: bp(false)},
			check: func(t *testing.T, c Counts, _ *Aggregator) {
				if c.ASR() != (Rate{0, 1}) || c.CalledASR() != (Rate{0, 0}) {
					t.Errorf("ASR = %v, called = %v", c.ASR(), c.CalledASR())
				}
			},
		},
		{
			name: "executed after calling the tool counts in both",
			run:  results.Run{RunID: "x", Attacked: true, Executed: bp(true)},
			check: func(t *testing.T, c Counts, _ *Aggregator) {
				if c.ASR() != (Rate{1, 1}) || c.CalledASR() != (Rate{1, 1}) {
					t.Errorf("ASR = %v, called = %v", c.ASR(), c.CalledASR())
				}
			},
		},
		{
			name: "executed not applicable stays out of every Executed denominator",
			run:  results.Run{RunID: "na", Task: "bank.pay", Attacked: true, AttackGoal: true, Exposed: bp(true)},
			check: func(t *testing.T, c Counts, a *Aggregator) {
				if c.ASR() != (Rate{0, 0}) || c.CalledASR() != (Rate{0, 0}) || c.AttackGoal != 1 || c.NoExecuted != 1 {
					t.Errorf("ASR = %v, called = %v, counts %+v", c.ASR(), c.CalledASR(), c)
				}
				if c.GoalNotExecuted != 0 || a.Disagreements.Total != 0 {
					t.Errorf("an attack goal without an applicable Executed is counted as a disagreement: %+v", c)
				}
			},
		},
		{
			name: "attempts and classifier errors",
			run:  results.Run{RunID: "k", Attacked: true, FailedCalls: 3, CanaryAttempts: 2, ClassifierErrors: 2},
			check: func(t *testing.T, c Counts, _ *Aggregator) {
				if c.FailedCalls != 3 || c.CanaryAttempts != 2 || c.ClassifierErrors != 2 || c.ClassifierErrorRuns != 1 {
					t.Errorf("counts = %+v", c)
				}
			},
		},
		{
			name: "errored run's classifier errors are not counted",
			run:  results.Run{RunID: "d", Attacked: true, ClassifierErrors: 4, Error: "x", ErrorKind: "defense"},
			check: func(t *testing.T, c Counts, _ *Aggregator) {
				if c.ClassifierErrors != 0 || c.ClassifierErrorRuns != 0 || c.ASR().N != 0 || c.CalledASR().N != 0 {
					t.Errorf("counts = %+v", c)
				}
			},
		},
		{
			name: "unknown stage",
			run:  results.Run{RunID: "u", Stage: "exfiltrated"},
			check: func(t *testing.T, c Counts, _ *Aggregator) {
				if c.OtherStage != 1 {
					t.Errorf("counts = %+v", c)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAggregator(5)
			a.Add(tt.run)
			cells := a.Cells()
			if len(cells) != 1 {
				t.Fatalf("cells = %v", cells)
			}
			tt.check(t, a.Counts(cells[0]), a)
		})
	}
}

func TestIDList(t *testing.T) {
	tests := []struct {
		name string
		max  int
		add  []string
		want string
	}{
		{name: "keeps the smallest", max: 3, add: []string{"d", "b", "e", "a", "c"}, want: "a,b,c"},
		{name: "fewer than max", max: 3, add: []string{"z", "y"}, want: "y,z"},
		{name: "zero keeps none", max: 0, add: []string{"a"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewIDList(tt.max)
			for _, id := range tt.add {
				l.Add(id, "note "+id)
			}
			var got []string
			for _, it := range l.Items() {
				if it.Note != "note "+it.RunID {
					t.Errorf("note of %s = %q", it.RunID, it.Note)
				}
				got = append(got, it.RunID)
			}
			if strings.Join(got, ",") != tt.want || l.Total != len(tt.add) {
				t.Errorf("items = %v (total %d), want %s (total %d)", got, l.Total, tt.want, len(tt.add))
			}
		})
	}
}

func TestMarkdownTable(t *testing.T) {
	tests := []struct {
		name  string
		table Table
		want  string
	}{
		{
			name:  "aligned by runes",
			table: Table{Header: []string{"model", "n"}, Rows: [][]string{{"a→b", "10"}, {"alpha", "—"}}},
			want: "| model | n   |\n" +
				"| ----- | --- |\n" +
				"| a→b   | 10  |\n" +
				"| alpha | —   |\n",
		},
		{
			name:  "pipes escaped and lines joined",
			table: Table{Header: []string{"message"}, Rows: [][]string{{"a | b\nc"}}},
			want: "| message  |\n" +
				"| -------- |\n" +
				"| a \\| b c |\n",
		},
		{
			name:  "empty",
			table: Table{Header: []string{"x"}},
			want:  "_No runs._\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.table.Markdown(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestTableDrop(t *testing.T) {
	tb := Table{Header: []string{"a", "condition", "b"}, Rows: [][]string{{"1", "hack", "2"}}}
	got := tb.drop("condition", "absent")
	if strings.Join(got.Header, ",") != "a,b" || strings.Join(got.Rows[0], ",") != "1,2" {
		t.Errorf("got %+v", got)
	}
}
