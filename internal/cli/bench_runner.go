package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/internal/models"
	"github.com/killchain/killchain/internal/models/limits"
	"github.com/killchain/killchain/internal/models/simserver"
	"github.com/killchain/killchain/internal/secrets"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner/runbench"
	"github.com/killchain/killchain/tasks"
)

// benchRunnerFlags are bench runner's settings.
type benchRunnerFlags struct {
	runs, concurrency, atOne int
	latency                  time.Duration
	sandbox, task, policy    string
	baseURL, model           string
	maxConcurrency           int
	warmPool                 int
	asJSON                   bool
	cpuProfile               string
	resultsDir               string
}

func newBenchRunnerCmd(g *globals) *cobra.Command {
	var f benchRunnerFlags
	cmd := &cobra.Command{
		Use:   "runner [--runs N] [--concurrency C] [--latency 500ms] [--sandbox local|docker]",
		Short: "Measure how well many runs in flight overlap their waiting on a slow model",
		Long: `runner measures, in one run on this machine, how well the runner overlaps the
waiting of many runs: a study of --runs runs of one task at --concurrency,
through the real openai_compatible driver, against a simulated model server
it starts on loopback whose every reply is a scripted reference agent's
(--policy) sent --latency after the request arrived. The same task is run
--at-one times one at a time first.

It prints runs per second against the ideal (every run's waiting overlapped:
ceil(N/C) waves, each as long as one run at concurrency 1) and their ratio, a
run's own wall time at C against at 1, where a run's time goes (model wait,
tool calls, sandbox start, state reads, sandbox stop, result writing, the
rest) at 1 and at C, and the model server's own share of the time beside its
latency. Runs are written to a temporary folder that is removed.

--base-url points the runs at another OpenAI-compatible server instead (its
model --model); --latency then only labels the output.`,
		Example: `  killchain bench runner --runs 1024 --concurrency 256 --latency 500ms --sandbox local
  killchain bench runner --runs 64 --concurrency 16 --sandbox docker --json
  killchain bench runner --base-url http://127.0.0.1:8000/v1 --model slow --runs 1024 --concurrency 256`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, g) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.runs, "runs", 1024, "runs at --concurrency")
	fl.IntVar(&f.concurrency, "concurrency", 256, "runs in flight at once")
	fl.IntVar(&f.atOne, "at-one", 8, "runs one at a time, measured first for the ideal")
	fl.DurationVar(&f.latency, "latency", 500*time.Millisecond, "the simulated model's time per reply")
	fl.StringVar(&f.sandbox, "sandbox", "local", `sandbox backend: "local", "docker" or "kubernetes"`)
	fl.StringVar(&f.task, "task", "tool_poison", "the built-in task every run runs")
	fl.StringVar(&f.policy, "policy", "compliant", "the scripted reference agent the simulated model answers as")
	fl.StringVar(&f.baseURL, "base-url", "", "an OpenAI-compatible server to use instead of the simulated one")
	fl.StringVar(&f.model, "model", "", "with --base-url: the server's model name")
	fl.IntVar(&f.maxConcurrency, "max-concurrency", 0, "the model block's max_concurrency (0: the study default)")
	fl.IntVar(&f.warmPool, "warm-pool", study.DefaultWarmPool, "the study's warm_pool on docker and kubernetes: warm sandboxes per task (0: none; -1: the study default)")
	fl.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fl.StringVar(&f.resultsDir, "results-dir", "", "make the passes' study folders in `DIR` (default: the temporary folder, where --sandbox local also makes its sandboxes)")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the pass at --concurrency to this file (go tool pprof reads it)")
	return cmd
}

func (f *benchRunnerFlags) run(cmd *cobra.Command, g *globals) error {
	tuneStudyGC()
	ctx := cmd.Context()
	if f.runs < 1 || f.concurrency < 1 || f.atOne < 1 {
		return usagef("--runs, --concurrency and --at-one must be at least 1")
	}
	task, ok := tasks.Builtin().Get(f.task)
	if !ok {
		return usagef("--task %q: not a built-in task", f.task)
	}
	switch {
	case f.warmPool < study.DefaultWarmPool:
		return usagef("--warm-pool %d: want 0 or more, or -1 for the study default", f.warmPool)
	case f.warmPool != study.DefaultWarmPool && f.sandbox == "local":
		return usagef("--warm-pool: the local sandbox keeps no warm pool (use --sandbox docker or kubernetes)")
	}
	var srv *simserver.Server
	url, model := f.baseURL, f.model
	if url == "" {
		var err error
		if srv, err = simserver.Start(f.latency); err != nil {
			return err
		}
		defer srv.Close()
		url, model = srv.URL, f.policy
	} else if model == "" {
		return usagef("--base-url needs --model, the server's model name")
	}
	variant := ""
	if names := task.VariantNames(); len(names) > 0 {
		variant = names[0]
	}
	load := func(runs, conc int) (*study.Study, error) {
		src := benchStudy(f, url, model, variant, runs, conc)
		s, diags := study.Parse("bench-runner.hcl", src)
		if diags.HasErrors() {
			return nil, fmt.Errorf("bench study: %s", diags.Error())
		}
		return s, nil
	}
	one, err := load(f.atOne, 1)
	if err != nil {
		return err
	}
	many, err := load(f.runs, f.concurrency)
	if err != nil {
		return err
	}
	if err := preflight(ctx, many); err != nil {
		return err
	}
	choice, err := chooseBackend(many)
	if err != nil {
		return err
	}
	sec := secrets.New()
	log := g.logger(sec)
	be, err := choice.open(ctx, g, log)
	if err != nil {
		return err
	}
	defer be.close()
	fmt.Fprintf(g.stderr, "bench runner: %d runs of %s one at a time, then %d at concurrency %d (%s sandbox)\n",
		f.atOne, f.task, f.runs, f.concurrency, choice.name)
	pass := func(s *study.Study) (runbench.Pass, error) {
		// Each pass has its own limit on calls in flight, as the study
		// alone in a process would: the process-wide one per endpoint
		// keeps the lowest limit it was given.
		lim := limits.NewLimiter(liveConfig(s.Models[0], s).Limit(), 0)
		return runbench.Run(ctx, runbench.Options{Study: s, Backend: be.Backend, Logger: log, Progress: io.Discard,
			Models: modelFactory(log, sec, s, models.WithLimiter(lim)), ResultsDir: f.resultsDir})
	}
	p1, err := pass(one)
	if err != nil {
		return err
	}
	if srv != nil {
		srv.Reset()
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
	}
	pn, err := pass(many)
	if f.cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return err
	}
	res := runbench.Compare(choice.name, f.latency, p1, pn)
	if srv != nil {
		st := srv.Stats()
		res.Server = serverShare(st, f.latency)
	}
	if f.asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	res.WriteText(g.stdout)
	return nil
}

// serverShare is what bench runner reports of the simulated server.
func serverShare(st simserver.Stats, latency time.Duration) *runbench.Server {
	out := &runbench.Server{Requests: st.Requests, Failed: st.Failed, MaxInFlight: st.MaxInFlight}
	if st.Requests > 0 {
		per := st.Own / time.Duration(st.Requests)
		out.OwnMS = float64(per) / float64(time.Millisecond)
		if latency > 0 {
			out.OwnShare = per.Seconds() / latency.Seconds()
		}
	}
	return out
}

// benchStudy writes the study a bench pass runs: one task, one variant,
// the hack condition, runs repeats of one cell.
func benchStudy(f *benchRunnerFlags, url, model, variant string, runs, conc int) []byte {
	maxConc := ""
	if f.maxConcurrency > 0 {
		maxConc = "\n  max_concurrency = " + strconv.Itoa(f.maxConcurrency)
	}
	pool := ""
	if f.warmPool >= 0 {
		pool = "\n  warm_pool   = " + strconv.Itoa(f.warmPool)
	}
	variants := ""
	if variant != "" {
		variants = "\n  variants   = [" + strconv.Quote(variant) + "]"
	}
	return fmt.Appendf(nil, `study "bench-runner" {
  seed        = 1
  concurrency = %d
  output      = "bench-runner"
  sandbox     = %q
  max_turns   = 10%s
}

model "sim" {
  provider = "openai_compatible"
  base_url = %q
  name     = %q%s
}

grid "bench" {
  tasks      = [%q]
  models     = ["sim"]%s
  conditions = ["hack"]
  repeats    = %d
}
`, conc, f.sandbox, pool, url, model, maxConc, f.task, variants, runs)
}
