package runbench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestWriteText: every figure is a readable line, the model server's
// included; JSON is for --json alone.
func TestWriteText(t *testing.T) {
	one := Pass{Concurrency: 1, Runs: 8, Wall: 8 * time.Second, RunWall: time.Second, Calls: 32, Cores: 2, CPU: time.Second,
		Time: Breakdown{Model: 800 * time.Millisecond, Other: 200 * time.Millisecond}}
	many := Pass{Concurrency: 256, Runs: 1024, Wall: 5 * time.Second, RunWall: 1100 * time.Millisecond, Calls: 4096, Cores: 2, CPU: 3 * time.Second,
		Time: Breakdown{Model: 900 * time.Millisecond, Record: 50 * time.Millisecond, Other: 150 * time.Millisecond}}
	tests := []struct {
		name   string
		server *Server
		want   []string
	}{
		{"simulated server", &Server{Requests: 4096, MaxInFlight: 256, OwnMS: 0.12, OwnShare: 0.00024},
			[]string{"ratio 0.80", "model server over the run at 256: 4096 requests (0 failed), at most 256 in flight, 0.12ms of its own per request (0.02% of its 500ms latency)"}},
		{"another server", nil, []string{"ratio 0.80"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Compare("local", 500*time.Millisecond, one, many)
			res.Server = tt.server
			var b bytes.Buffer
			res.WriteText(&b)
			out := b.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.ContainsAny(out, "{}") {
				t.Errorf("JSON in the text output:\n%s", out)
			}
			if tt.server == nil && strings.Contains(out, "model server") {
				t.Errorf("a model server line without one:\n%s", out)
			}
		})
	}
}
