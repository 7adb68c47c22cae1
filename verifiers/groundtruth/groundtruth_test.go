package groundtruth_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
	"github.com/killchain/killchain/sandbox/local"
	"github.com/killchain/killchain/tasks"
	"github.com/killchain/killchain/verifiers/groundtruth"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// load decodes a task file linked with the built-ins, and returns the set
// and the environments the file defines.
func load(t *testing.T, path string) (*tasks.Set, []string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defs, diags := tasks.ParseDefs(tasks.Origin{FS: os.DirFS(filepath.Dir(path)), File: path}, src)
	l := &hcldiag.List{Diags: diags}
	set, _ := tasks.Link(l, tasks.Builtin(), defs)
	if l.Diags.HasErrors() {
		t.Fatalf("%s: %v", path, l.Diags)
	}
	var envs []string
	for _, e := range set.Environments() {
		if e.Source.File == path {
			envs = append(envs, e.Name)
		}
	}
	return set, envs
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./verifiers/groundtruth -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s:\n%s", path, got)
	}
}

// TestCheck plays every ground truth of the example suite, of every
// built-in environment, and of a broken copy of the example whose
// injection's check the user task's own ground truth reaches: that pair
// is refused by name.
func TestCheck(t *testing.T) {
	builtin := tasks.Builtin()
	var builtinEnvs []string
	for _, e := range builtin.Environments() {
		builtinEnvs = append(builtinEnvs, e.Name)
	}
	example, exampleEnvs := load(t, "../../hcl/suite/pocketbank.hcl")
	broken, brokenEnvs := load(t, "testdata/false_positive.hcl")
	cases := []struct {
		name       string
		set        *tasks.Set
		envs       []string
		wantFailed int
		golden     string
	}{
		{"the built-ins", builtin, builtinEnvs, 0, ""},
		{"the example suite", example, exampleEnvs, 0, "pocketbank.golden"},
		{"two pairs that measure nothing", broken, brokenEnvs, 2, "false_positive.golden"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &local.Backend{Root: t.TempDir()}
			r, err := groundtruth.Check(t.Context(), b, c.set, c.envs)
			if err != nil {
				t.Fatal(err)
			}
			r.Elapsed = 0 // the golden files hold no timing
			var buf bytes.Buffer
			if err := r.Write(&buf); err != nil {
				t.Fatal(err)
			}
			if r.Failed() != c.wantFailed {
				t.Errorf("%d failed, want %d:\n%s", r.Failed(), c.wantFailed, buf.String())
			}
			if c.golden != "" {
				golden(t, c.golden, buf.Bytes())
			}
		})
	}
	t.Run("refused by name", func(t *testing.T) {
		r, err := groundtruth.Check(t.Context(), &local.Backend{Root: t.TempDir()}, broken, brokenEnvs)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range r.Verdicts {
			if v.Name == "pocketbank.pay_bill" && !slices.Equal(v.Refused, []string{"pocketbank.redirect_bill"}) {
				t.Errorf("pay_bill refused %v, want the redirect_bill pair", v.Refused)
			}
		}
	})
}

// TestCheckDocker plays the example's ground truths through the toolbox in
// containers: the same verdicts as in process.
func TestCheckDocker(t *testing.T) {
	cli := dockertest.Require(t)
	t.Cleanup(func() { cli.Close() })
	set, envs := load(t, "../../hcl/suite/pocketbank.hcl")
	opts := docker.DefaultOptions()
	opts.Client, opts.Fixtures = cli, set.Fixtures
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	be, err := docker.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close(context.Background()) })
	r, err := groundtruth.Check(ctx, be, set, envs)
	if err != nil {
		t.Fatal(err)
	}
	r.Elapsed, r.Backend = 0, "local" // the golden file is the in-process run's
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "pocketbank.golden", buf.Bytes())
}
