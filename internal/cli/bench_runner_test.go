package cli

import (
	"encoding/json"
	"testing"

	"github.com/killchain/killchain/internal/study"
)

// TestBenchRunner runs the benchmark small through the real driver, the
// simulated server and the local sandbox, and checks that its figures
// add up: every run finished, each model call reached the server, the
// ratio is the ideal over the measured wall time.
func TestBenchRunner(t *testing.T) {
	code, stdout, stderr := killchain("bench", "runner", "--runs", "6", "--concurrency", "3", "--at-one", "2",
		"--latency", "20ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var res struct {
		Backend string  `json:"backend"`
		Ideal   float64 `json:"ideal_ns"`
		Ratio   float64 `json:"ratio"`
		One     struct {
			Runs, Errors int
			Calls        int64 `json:"model_calls"`
		} `json:"one"`
		Many struct {
			Runs, Errors, Concurrency int
			Calls                     int64   `json:"model_calls"`
			Wall                      float64 `json:"wall_ns"`
			RunWall                   float64 `json:"run_wall_ns"`
			Time                      map[string]float64
		} `json:"many"`
		Server struct {
			Requests    int64 `json:"requests"`
			Failed      int64 `json:"failed"`
			MaxInFlight int64 `json:"max_in_flight"`
		} `json:"server"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if res.Backend != "local" || res.One.Runs != 2 || res.Many.Runs != 6 || res.Many.Concurrency != 3 || res.One.Errors+res.Many.Errors != 0 {
		t.Fatalf("passes: %+v", res)
	}
	if res.Server.Requests != res.Many.Calls || res.Server.Failed != 0 || res.Many.Calls < int64(res.Many.Runs) {
		t.Errorf("server answered %d requests (%d failed) for %d model calls", res.Server.Requests, res.Server.Failed, res.Many.Calls)
	}
	if res.Server.MaxInFlight < 1 || res.Server.MaxInFlight > 3 {
		t.Errorf("server held %d requests at once, want 1 to 3", res.Server.MaxInFlight)
	}
	if got := res.Ideal / res.Many.Wall; res.Ratio <= 0 || got-res.Ratio > 1e-9 || res.Ratio-got > 1e-9 {
		t.Errorf("ratio %v, want ideal/wall = %v", res.Ratio, got)
	}
	var parts float64
	for _, k := range []string{"model_ns", "tools_ns", "start_ns", "state_ns", "stop_ns", "record_ns", "other_ns"} {
		parts += res.Many.Time[k]
	}
	if res.Many.Time["model_ns"] <= 0 || res.Many.Time["record_ns"] <= 0 || parts < res.Many.RunWall*0.99 {
		t.Errorf("breakdown %v does not add up to a run's wall time %v", res.Many.Time, res.Many.RunWall)
	}
}

func TestBenchRunnerFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no runs", []string{"--runs", "0"}},
		{"unknown task", []string{"--task", "no_such_task"}},
		{"base url without model", []string{"--base-url", "http://127.0.0.1:1/v1"}},
		{"negative warm pool", []string{"--sandbox", "docker", "--warm-pool", "-2"}},
		{"warm pool on the local sandbox", []string{"--warm-pool", "4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := killchain(append([]string{"bench", "runner"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d (usage): %s", code, exitUsage, stderr)
			}
		})
	}
}

// TestBenchStudy: the study a bench pass writes parses, and carries the
// flags that shape it.
func TestBenchStudy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		flags    benchRunnerFlags
		wantPool int
		wantMax  int
	}{
		{"defaults", benchRunnerFlags{sandbox: "local", task: "tool_poison", warmPool: study.DefaultWarmPool}, study.DefaultWarmPool, 0},
		{"no pool", benchRunnerFlags{sandbox: "docker", task: "tool_poison", warmPool: 0}, 0, 0},
		{"pool and model limit", benchRunnerFlags{sandbox: "docker", task: "tool_poison", warmPool: 8, maxConcurrency: 16}, 8, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := benchStudy(&tc.flags, "http://127.0.0.1:1/v1", "sim", "", 4, 2)
			s, diags := study.Parse("bench.hcl", src)
			if diags.HasErrors() {
				t.Fatalf("%s\n%s", diags, src)
			}
			if s.WarmPool != tc.wantPool || s.Concurrency != 2 || s.Sandbox != tc.flags.sandbox {
				t.Errorf("warm_pool %d, concurrency %d, sandbox %q; want %d, 2, %q", s.WarmPool, s.Concurrency, s.Sandbox, tc.wantPool, tc.flags.sandbox)
			}
			if got := s.Models[0].MaxConcurrency; tc.wantMax > 0 && got != tc.wantMax {
				t.Errorf("max_concurrency %d, want %d", got, tc.wantMax)
			}
		})
	}
}
