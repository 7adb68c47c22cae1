package study

import (
	"maps"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/killchain/killchain/tasks"
	"github.com/killchain/killchain/tasks/suitetest"
)

// twoSuitesPlan plans the Go-built suite, a second suite over the same
// environment holding one of its user tasks, and two tasks outside suites:
// four units for a small sample (two suites, two tasks), in that order.
func twoSuitesPlan(t *testing.T) []Run {
	t.Helper()
	src := suiteHead + `
grid "a" {
  suites     = ["minibank"]
  models     = ["compliant", "resistant"]
  conditions = ["plain", "hack"]
  defenses   = ["none", "spotlighting"]
}
grid "b" {
  suites     = ["minibank_b"]
  models     = ["compliant"]
  conditions = ["plain", "hack"]
}
grid "t" {
  tasks      = ["memory_poison", "tool_poison"]
  models     = ["compliant"]
  conditions = ["plain", "hack"]
}
`
	file, diags := hclsyntax.ParseConfig([]byte(src), "s.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	d := &decoder{file: file, study: &Study{File: "s.hcl", Source: []byte(src)}, withTasks: func(s *tasks.Set) *tasks.Set {
		out, err := suitetest.AddTo(s)
		if err != nil {
			t.Fatal(err)
		}
		return out.WithStateful(nil, nil, []*tasks.Suite{{Name: "minibank_b", Environment: suitetest.Env,
			User: suitetest.User, Attacker: suitetest.Attacker, UserTasks: []string{suitetest.PayBill}}})
	}}
	d.decode()
	if d.diags.HasErrors() {
		t.Fatal(d.diags)
	}
	plan, err := d.study.Plan()
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestSampleSuites: a small sample keeps every suite represented, each by a
// user task × injection pair first and its clean control second, as far
// as N allows; below the suites and tasks, the first N in plan order.
func TestSampleSuites(t *testing.T) {
	plan := twoSuitesPlan(t)
	if Strata(plan) <= 8 {
		t.Fatalf("%d strata: the plan is too small to test a sample below them", Strata(plan))
	}
	tests := []struct {
		name          string
		n             int
		pairs, clean  []string // suites with an attacked run, with a clean control
		tasks         []string // tasks outside suites represented
		missing, part []string // SuiteCoverage
	}{
		{"twice the suites and tasks", 8, []string{"minibank", "minibank_b"}, []string{"minibank", "minibank_b"},
			[]string{"memory_poison", "tool_poison"}, nil, nil},
		{"one per suite and task", 4, []string{"minibank", "minibank_b"}, nil,
			[]string{"memory_poison", "tool_poison"}, nil, []string{"minibank", "minibank_b"}},
		{"between", 5, []string{"minibank", "minibank_b"}, []string{"minibank"},
			[]string{"memory_poison", "tool_poison"}, nil, []string{"minibank_b"}},
		{"below the suites and tasks", 1, []string{"minibank"}, nil, nil, []string{"minibank_b"}, []string{"minibank"}},
		{"every stratum", Strata(plan), []string{"minibank", "minibank_b"}, []string{"minibank", "minibank_b"},
			[]string{"memory_poison", "tool_poison"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, seed := range []int64{1, 42, -7} {
				got := Sample(plan, tt.n, seed)
				if len(got) != tt.n {
					t.Fatalf("seed %d: kept %d runs, want %d", seed, len(got), tt.n)
				}
				var pairs, clean, other []string
				sameTask := map[string]map[string]int{} // suite → user task → 1 attacked | 2 clean
				for _, r := range got {
					switch {
					case r.Suite == "":
						other = append(other, r.Task)
					case r.Attacked:
						pairs = append(pairs, r.Suite)
						if r.Injection == "" {
							t.Errorf("seed %d: attacked run %s plants no injection", seed, r.RunID)
						}
					default:
						clean = append(clean, r.Suite)
					}
					if r.Suite != "" {
						if sameTask[r.Suite] == nil {
							sameTask[r.Suite] = map[string]int{}
						}
						sameTask[r.Suite][r.Task] |= map[bool]int{true: 1, false: 2}[r.Attacked]
					}
				}
				for _, c := range []struct {
					what      string
					got, want []string
				}{{"suites with a pair", pairs, tt.pairs}, {"suites with a clean control", clean, tt.clean}, {"tasks", other, tt.tasks}} {
					if g := compact(c.got); !slices.Equal(g, c.want) {
						t.Errorf("seed %d: %s %v, want %v", seed, c.what, g, c.want)
					}
				}
				// The first pair and clean control of a suite are of one
				// user task, when the sample holds one run each.
				if tt.n == 8 {
					for su, byTask := range sameTask {
						if !slices.Contains(slices.Collect(maps.Values(byTask)), 3) {
							t.Errorf("seed %d: suite %s: no user task with both its pair and its clean control: %v", seed, su, byTask)
						}
					}
				}
				missing, partial := SuiteCoverage(plan, got)
				if !slices.Equal(missing, tt.missing) || !slices.Equal(partial, tt.part) {
					t.Errorf("seed %d: coverage missing %v partial %v, want %v and %v", seed, missing, partial, tt.missing, tt.part)
				}
			}
		})
	}
}

// compact is the sorted distinct values of l.
func compact(l []string) []string {
	out := slices.Clone(l)
	slices.Sort(out)
	return slices.Compact(out)
}
