// Package runbench measures how well the runner overlaps the waiting of
// many runs in flight: a study of N runs at concurrency C against a model
// that takes a set time per reply, beside the same runs one at a time. It
// reports runs per second against the ideal (every run's waiting
// overlapped: ceil(N/C) waves of one run's wall time at concurrency 1), the
// runs' own wall time at C against at 1, and where each run's time went
// (model wait, tool calls, sandbox start, state reads and stop, result
// writing), all measured in one process run. `killchain bench runner`
// drives it.
package runbench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox"
)

// Options configure one pass.
type Options struct {
	Study   *study.Study // its concurrency and plan are the pass's
	Backend sandbox.Backend
	Models  runner.ModelFactory
	Logger  hclog.Logger
	// Progress, when set, receives the runner's progress output, as a
	// study's would (io.Discard keeps its cost without its text).
	Progress io.Writer
	// ResultsDir is the folder the pass's study folder is made in (and
	// removed from); empty: the system's temporary folder. Its file
	// system's fsyncs are part of what a run costs.
	ResultsDir string
}

// Breakdown is where a run's time went, as the mean per run.
type Breakdown struct {
	Model  time.Duration `json:"model_ns"`  // waiting for model replies, the driver's limits and retries included
	Tools  time.Duration `json:"tools_ns"`  // tool calls into the sandbox
	Start  time.Duration `json:"start_ns"`  // opening the sandbox
	State  time.Duration `json:"state_ns"`  // reading its pristine and final state (and files)
	Stop   time.Duration `json:"stop_ns"`   // closing it
	Record time.Duration `json:"record_ns"` // writing the run's results
	Other  time.Duration `json:"other_ns"`  // the rest: the runner's own work and waiting
}

// Pass is one measured study.
type Pass struct {
	Concurrency int           `json:"concurrency"`
	Runs        int           `json:"runs"`
	Errors      int           `json:"errors"`
	Wall        time.Duration `json:"wall_ns"`
	RunsPerSec  float64       `json:"runs_per_sec"`
	// RunWall is the mean of each run's own wall time, from its start to
	// its record on disk.
	RunWall time.Duration `json:"run_wall_ns"`
	Calls   int64         `json:"model_calls"`
	Time    Breakdown     `json:"time"`
	// CPU is the process's CPU time (user and system) over the pass,
	// the simulated model server's included when it runs in-process:
	// with Cores, whether the pass was bound by the machine, not by
	// waiting.
	CPU time.Duration `json:"cpu_ns"`
	// Setup is the time from the study's start to its first run's, Finish
	// from its last run's record to the study's end: the runner's own work
	// outside every run (the plan, the results folder, the summary).
	Setup  time.Duration `json:"setup_ns"`
	Finish time.Duration `json:"finish_ns"`
	Cores  int           `json:"cores"`
}

// Run executes the study into a temporary folder it removes afterwards and
// measures it.
func Run(ctx context.Context, opts Options) (Pass, error) {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	dir, err := os.MkdirTemp(opts.ResultsDir, "killchain-bench-runner-")
	if err != nil {
		return Pass{}, fmt.Errorf("bench runner: %w", err)
	}
	defer os.RemoveAll(dir)
	var m meter
	ropts := runner.Options{
		Output: dir, Backend: &timedBackend{Backend: opts.Backend, m: &m}, Logger: opts.Logger, Progress: opts.Progress,
		Models: func(b *study.Model) (agent.Model, error) {
			mod, err := opts.Models(b)
			if err != nil {
				return nil, err
			}
			return &timedModel{Model: mod, m: &m}, nil
		},
		Timed: func(wall, record time.Duration) {
			m.runWall.Add(int64(wall))
			m.record.Add(int64(record))
			now := time.Now().UnixNano()
			m.firstStart.CompareAndSwap(0, now-int64(wall))
			for b := m.firstStart.Load(); now-int64(wall) < b && !m.firstStart.CompareAndSwap(b, now-int64(wall)); b = m.firstStart.Load() {
			}
			for e := m.lastEnd.Load(); now > e && !m.lastEnd.CompareAndSwap(e, now); e = m.lastEnd.Load() {
			}
		},
	}
	r, err := runner.New(opts.Study, ropts)
	if err != nil {
		return Pass{}, err
	}
	start, cpu0 := time.Now(), cpuTime()
	sum, err := r.Run(ctx)
	end := time.Now()
	wall, cpu := end.Sub(start), cpuTime()-cpu0
	if err != nil {
		return Pass{}, err
	}
	if sum.Canceled {
		return Pass{}, ctx.Err()
	}
	p := Pass{Concurrency: opts.Study.Concurrency, Runs: sum.Ran, Errors: sum.Errors, Wall: wall, Calls: m.calls.Load(),
		CPU: cpu, Cores: runtime.NumCPU()}
	if sum.Ran == 0 {
		return p, fmt.Errorf("bench runner: no run finished")
	}
	n := int64(sum.Ran)
	mean := func(v *atomic.Int64) time.Duration { return time.Duration(v.Load() / n) }
	p.RunsPerSec = float64(sum.Ran) / wall.Seconds()
	p.RunWall = mean(&m.runWall)
	p.Time = Breakdown{Model: mean(&m.model), Tools: mean(&m.tools), Start: mean(&m.start), State: mean(&m.state),
		Stop: mean(&m.stop), Record: mean(&m.record)}
	if f := m.firstStart.Load(); f > 0 {
		p.Setup = time.Duration(max(0, f-start.UnixNano()))
		p.Finish = time.Duration(max(0, end.UnixNano()-m.lastEnd.Load()))
	}
	p.Time.Other = max(0, p.RunWall-p.Time.Model-p.Time.Tools-p.Time.Start-p.Time.State-p.Time.Stop-p.Time.Record)
	return p, nil
}

// Result compares a pass at concurrency C with the same runs one at a time.
type Result struct {
	Backend string        `json:"backend"`
	Latency time.Duration `json:"latency_ns"` // the simulated model's time per reply
	One     Pass          `json:"one"`
	Many    Pass          `json:"many"`
	// Ideal is the many pass's wall time with every run's waiting
	// overlapped: ceil(N/C) waves, each as long as one run at
	// concurrency 1.
	Ideal           time.Duration `json:"ideal_ns"`
	IdealRunsPerSec float64       `json:"ideal_runs_per_sec"`
	Ratio           float64       `json:"ratio"`      // Ideal ÷ the many pass's wall: 1 is perfect overlap
	RunWallX        float64       `json:"run_wall_x"` // a run's own wall time at C ÷ at 1
	// Server is what the simulated model server counted over the many
	// pass, when one served it: its own share of the time beside the
	// latency, and the most requests it held at once.
	Server *Server `json:"server,omitempty"`
}

// Server is what a simulated model server counted over a pass.
type Server struct {
	Requests    int64 `json:"requests"`
	Failed      int64 `json:"failed"`
	MaxInFlight int64 `json:"max_in_flight"`
	// OwnMS is the server's own time per request beside its latency, in
	// milliseconds, and OwnShare that time's share of the latency.
	OwnMS    float64 `json:"own_ms_per_request,omitempty"`
	OwnShare float64 `json:"own_share_of_latency,omitempty"`
}

// Compare computes the ratios of a many pass against a pass at 1.
func Compare(backend string, latency time.Duration, one, many Pass) Result {
	res := Result{Backend: backend, Latency: latency, One: one, Many: many}
	if many.Concurrency < 1 || one.RunWall <= 0 || many.Wall <= 0 {
		return res
	}
	waves := math.Ceil(float64(many.Runs) / float64(many.Concurrency))
	res.Ideal = time.Duration(waves * float64(one.RunWall))
	res.IdealRunsPerSec = float64(many.Runs) / res.Ideal.Seconds()
	res.Ratio = res.Ideal.Seconds() / many.Wall.Seconds()
	res.RunWallX = many.RunWall.Seconds() / one.RunWall.Seconds()
	return res
}

// WriteText prints the result for a reader.
func (r Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "backend %s, model reply latency %s\n", r.Backend, r.Latency)
	for _, p := range []Pass{r.One, r.Many} {
		fmt.Fprintf(w, "  concurrency %-4d %5d runs (%d errors) in %6.2fs  %7.1f runs/s  run wall %s  model calls %d  CPU %.2fs (%.0f%% of %d cores)\n",
			p.Concurrency, p.Runs, p.Errors, p.Wall.Seconds(), p.RunsPerSec, ms(p.RunWall), p.Calls,
			p.CPU.Seconds(), 100*p.CPU.Seconds()/(p.Wall.Seconds()*float64(max(1, p.Cores))), p.Cores)
	}
	fmt.Fprintf(w, "ideal at %d: %.2fs (%.1f runs/s)  measured %.2fs  ratio %.2f\n",
		r.Many.Concurrency, r.Ideal.Seconds(), r.IdealRunsPerSec, r.Many.Wall.Seconds(), r.Ratio)
	fmt.Fprintf(w, "a run's own wall time at %d ÷ at 1: %.2f\n", r.Many.Concurrency, r.RunWallX)
	fmt.Fprintf(w, "outside every run at %d: %s before the first run started, %s after the last one was recorded\n",
		r.Many.Concurrency, ms(r.Many.Setup), ms(r.Many.Finish))
	fmt.Fprintf(w, "where a run's time goes (mean per run, share of its wall time):\n")
	fmt.Fprintf(w, "  %-14s %18s %18s\n", "", "at 1", fmt.Sprintf("at %d", r.Many.Concurrency))
	rows := []struct {
		name string
		get  func(Breakdown) time.Duration
	}{
		{"model wait", func(b Breakdown) time.Duration { return b.Model }},
		{"tool calls", func(b Breakdown) time.Duration { return b.Tools }},
		{"sandbox start", func(b Breakdown) time.Duration { return b.Start }},
		{"state reads", func(b Breakdown) time.Duration { return b.State }},
		{"sandbox stop", func(b Breakdown) time.Duration { return b.Stop }},
		{"result writing", func(b Breakdown) time.Duration { return b.Record }},
		{"other", func(b Breakdown) time.Duration { return b.Other }},
	}
	for _, row := range rows {
		fmt.Fprintf(w, "  %-14s %18s %18s\n", row.name, share(row.get(r.One.Time), r.One.RunWall), share(row.get(r.Many.Time), r.Many.RunWall))
	}
	if s := r.Server; s != nil {
		fmt.Fprintf(w, "model server over the run at %d: %d requests (%d failed), at most %d in flight, %.2fms of its own per request (%.2f%% of its %s latency)\n",
			r.Many.Concurrency, s.Requests, s.Failed, s.MaxInFlight, s.OwnMS, 100*s.OwnShare, r.Latency)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }

func share(d, of time.Duration) string {
	if of <= 0 {
		return ms(d)
	}
	return fmt.Sprintf("%s %5.1f%%", ms(d), 100*d.Seconds()/of.Seconds())
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// meter sums durations over every run of a pass.
type meter struct {
	calls                                             atomic.Int64
	model, tools, start, state, stop, record, runWall atomic.Int64
	firstStart, lastEnd                               atomic.Int64 // Unix ns: the first run's start, the last run's record
}

func since(v *atomic.Int64, t time.Time) { v.Add(int64(time.Since(t))) }

type timedModel struct {
	agent.Model
	m *meter
}

func (t *timedModel) Generate(ctx context.Context, req agent.Request) (agent.Reply, error) {
	defer since(&t.m.model, time.Now())
	t.m.calls.Add(1)
	return t.Model.Generate(ctx, req)
}

// timedBackend times each sandbox's lifecycle; it keeps what the backend
// says it can do and the snapshots it made.
type timedBackend struct {
	sandbox.Backend
	m *meter
}

func (b *timedBackend) Capabilities() []sandbox.Capability { return sandbox.CapabilitiesOf(b.Backend) }

func (b *timedBackend) Snapshots() map[string]string {
	if s, ok := b.Backend.(interface{ Snapshots() map[string]string }); ok {
		return s.Snapshots()
	}
	return nil
}

func (b *timedBackend) Open(ctx context.Context, env sandbox.Env) (sandbox.Sandbox, error) {
	defer since(&b.m.start, time.Now())
	sb, err := b.Backend.Open(ctx, env)
	if err != nil {
		return nil, err
	}
	if fr, ok := sb.(sandbox.FileReader); ok {
		return &timedFiles{timedSandbox{Sandbox: sb, m: b.m}, fr}, nil
	}
	return &timedSandbox{Sandbox: sb, m: b.m}, nil
}

type timedSandbox struct {
	sandbox.Sandbox
	m *meter
}

func (s *timedSandbox) Call(ctx context.Context, agent, tool string, args json.RawMessage) (sandbox.Result, error) {
	defer since(&s.m.tools, time.Now())
	return s.Sandbox.Call(ctx, agent, tool, args)
}

func (s *timedSandbox) State(ctx context.Context) (sandbox.State, error) {
	defer since(&s.m.state, time.Now())
	return s.Sandbox.State(ctx)
}

func (s *timedSandbox) Close(ctx context.Context) error {
	defer since(&s.m.stop, time.Now())
	return s.Sandbox.Close(ctx)
}

type timedFiles struct {
	timedSandbox
	fr sandbox.FileReader
}

func (s *timedFiles) Files(ctx context.Context, dir string) (sandbox.Folder, error) {
	defer since(&s.m.state, time.Now())
	return s.fr.Files(ctx, dir)
}
