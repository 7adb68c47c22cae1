package kubernetes_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/kubetest"
	"github.com/killchain/killchain/internal/models/scripted"
	"github.com/killchain/killchain/internal/recount"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/runner"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
	"github.com/killchain/killchain/sandbox/kubernetes"
	"github.com/killchain/killchain/tasks"
)

var smokeSample = flag.Int("kube.sample", 60, "runs of the smoke study (stratified) that TestSmokeSameAsDocker runs on each backend; 0: all of them")

// TestSmokeSameAsDocker runs the smoke study (the reference agents are
// deterministic) on Docker and on the cluster, from the same snapshot
// images, and requires the same run line for every run, canaries and
// timings aside: stages, outcomes, effects counted, errors (none) alike
// (audio runs' forensic text measures aside: see runLines).
// make test runs a stratified sample of every task, condition and defense;
// -kube.sample=0 runs all 390 runs.
func TestSmokeSameAsDocker(t *testing.T) {
	kubeconfig := kubetest.Require(t)
	s, diags := study.Load("../../hcl/smoke.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var sel *study.Selection
	if *smokeSample > 0 {
		sel = &study.Selection{Sample: *smokeSample, Seed: 7}
	}
	ctx := context.Background()
	dopts := docker.DefaultOptions()
	dopts.Client = dockertest.Require(t)
	dopts.Fixtures = tasks.Builtin().Fixtures
	dopts.Audio = &docker.Audio{Image: images.Debian, Synthesize: images.AudioSynthArgv, Transcribe: images.AudioASRArgv}
	dopts.ShellImage = images.Debian
	db, err := docker.New(ctx, dopts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	kb, err := kubernetes.New(ctx, kubernetes.Options{
		Kubeconfig: kubeconfig, Images: kubernetes.ImagesRegistry, Registry: kubetest.Registry,
		Docker: db, Concurrency: s.Concurrency,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		kb.Close(ctx)
		kubernetes.GC(ctx, kb.Client(), kubernetes.GCStudy(s.Name))
	}()

	got := map[string]map[string]string{}
	for _, be := range []sandbox.Backend{db, kb} {
		out := filepath.Join(t.TempDir(), be.Name())
		start := time.Now()
		r, err := runner.New(s, runner.Options{Output: out, Backend: be, Selection: sel,
			Models: func(m *study.Model) (agent.Model, error) { return scripted.New(m.Policy) }})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := r.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d runs in %s, %d errors, %d retries", be.Name(), sum.Ran, time.Since(start).Round(time.Second), sum.Errors, sum.Retried)
		if sum.Errors != 0 || sum.Retried != 0 || sum.Ran != sum.Selected {
			t.Errorf("%s: ran %d of %d, %d errors, %d retries", be.Name(), sum.Ran, sum.Selected, sum.Errors, sum.Retried)
		}
		got[be.Name()] = runLines(t, out)
		rep, err := recount.Study(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Disagreements) != 0 {
			t.Errorf("%s: recount disagrees on %d runs", be.Name(), len(rep.Disagreements))
		}
	}
	d, k := got["docker"], got["kubernetes"]
	if len(d) != len(k) || len(d) == 0 {
		t.Fatalf("docker has %d runs, kubernetes %d", len(d), len(k))
	}
	for id, line := range d {
		if k[id] != line {
			t.Errorf("run %s differs:\n docker:     %s\n kubernetes: %s", id, line, k[id])
		}
	}
}

var (
	canaryRe   = regexp.MustCompile(`SECRET-[0-9A-F]{8}`)
	startedRe  = regexp.MustCompile(`"started":"[^"]*"`)
	durationRe = regexp.MustCompile(`"duration_ms":[0-9]+`)
	runIDRe    = regexp.MustCompile(`"run_id":"([^"]*)"`)
)

// runLines reads a study folder's run lines by run id, canaries and timings
// masked.
func runLines(t *testing.T, dir string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, results.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for l := range strings.Lines(string(raw)) {
		l = strings.TrimSpace(l)
		m := runIDRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		l = canaryRe.ReplaceAllString(l, "SECRET-00000000")
		l = startedRe.ReplaceAllString(l, `"started":""`)
		l = durationRe.ReplaceAllString(l, `"duration_ms":0`)
		var fields map[string]any
		if err := json.Unmarshal([]byte(l), &fields); err != nil {
			t.Fatal(err)
		}
		if fields["surface"] == "audio" {
			// The forensic text measures (drift, token overlaps) read the
			// transcript, and a clip that speaks another canary is
			// recognized a few words differently; stages and outcomes are
			// compared all the same.
			delete(fields, "forensics")
		}
		norm, _ := json.Marshal(fields)
		out[m[1]] = string(norm)
	}
	if len(out) == 0 {
		t.Fatal(fmt.Errorf("no runs in %s", dir))
	}
	return out
}
