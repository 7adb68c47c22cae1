package archtest

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/killchain/killchain"

type pkg struct {
	ImportPath string
	Name       string
	Doc        string
	Imports    []string
	Deps       []string
	CgoFiles   []string
	// External are the direct imports from outside the module.
	External []string
}

// graph lists the module's packages with their direct imports and
// transitive dependencies (test files excluded), in short names.
func graph(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	short := func(ps []string) []string {
		var s []string
		for _, p := range ps {
			if p == module {
				s = append(s, "")
			} else if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				s = append(s, rest)
			}
		}
		return s
	}
	g := map[string]pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		var ext []string
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				ext = append(ext, imp)
			}
		}
		g[name] = pkg{ImportPath: name, Name: p.Name, Doc: p.Doc, Imports: short(p.Imports), Deps: short(p.Deps), CgoFiles: p.CgoFiles, External: ext}
	}
	if len(g) < 20 {
		t.Fatalf("go list found %d packages", len(g))
	}
	return g
}

var drivers = []string{"internal/models/ollama", "internal/models/openai", "internal/models/anthropic", "internal/models/deepseek", "internal/models/openaicompat", "internal/models/scripted"}

var backends = []string{"sandbox/docker", "sandbox/local", "sandbox/toolbox", "sandbox/audio", "sandbox/admit",
	"sandbox/kubernetes", "sandbox/stream", "sandbox/sandboxbench", "sandbox/warm"}

func under(p string, roots ...string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

func TestDependencyRules(t *testing.T) {
	g := graph(t)
	rules := []struct {
		name string
		// bad reports a violation of package p, or "".
		bad func(p pkg) string
	}{
		{"only the driver registry and the command line import a concrete model driver", func(p pkg) string {
			if under(p.ImportPath, "internal/models", "internal/cli", "cmd") || testSupport(p.ImportPath) {
				return ""
			}
			for _, imp := range p.Imports {
				// probes replays each call through the Ollama driver's own
				// request conversion, so the prompt is the one the model saw.
				if p.ImportPath == "probes" && imp == "internal/models/ollama" {
					continue
				}
				if slices.Contains(drivers, imp) {
					return "imports " + imp
				}
			}
			return ""
		}},
		{"nothing on the study and plan path reaches a sandbox backend or the runner", func(p pkg) string {
			if !under(p.ImportPath, "internal/study", "tasks", "internal/tools", "internal/pdfdoc", "internal/canary") {
				return ""
			}
			for _, d := range p.Deps {
				if under(d, backends...) || d == "runner" {
					return "depends on " + d
				}
			}
			return ""
		}},
		{"only the command line imports the benchmark generators", func(p pkg) string {
			if under(p.ImportPath, "internal/cli", "cmd", "internal/benchdata") {
				return ""
			}
			if slices.Contains(p.Imports, "internal/benchdata") {
				return "imports benchdata"
			}
			return ""
		}},
		{"tracker, defenses and verifiers reach no model driver and no Docker", func(p pkg) string {
			if !under(p.ImportPath, "internal/tracker", "internal/defense", "verifiers", "internal/canary") {
				return ""
			}
			for _, d := range p.Deps {
				if under(d, "internal/models", "sandbox/docker", "runner") {
					return "depends on " + d
				}
			}
			return ""
		}},
		{"only the command line wires the exporters", func(p pkg) string {
			if under(p.ImportPath, "internal/cli", "cmd", "internal/export") {
				return ""
			}
			if slices.Contains(p.Imports, "internal/export") {
				return "imports export"
			}
			return ""
		}},
		{"results, analysis and report (its run views and plots too) read results; they run nothing", func(p pkg) string {
			if !under(p.ImportPath, "internal/results", "internal/analysis", "internal/report", "internal/report/runview",
				"internal/report/plot", "runner/forensics", "internal/gate", "internal/recount", "internal/export") {
				return ""
			}
			for _, d := range p.Imports {
				if under(d, "runner", "internal/cli", "internal/models", "internal/importer", "internal/benchdata", "images") || under(d, backends...) ||
					d == "internal/defense" {
					return "imports " + d
				}
			}
			return ""
		}},
		{"results does not read upward into its consumers", func(p pkg) string {
			if !under(p.ImportPath, "internal/results") {
				return ""
			}
			for _, d := range p.Deps {
				if under(d, "internal/report", "internal/analysis", "internal/gate", "internal/recount", "internal/export", "runner") {
					return "depends on " + d
				}
			}
			return ""
		}},
		{"the report's rooms (its run views, its plots) import nothing of the report", func(p pkg) string {
			if !strings.HasPrefix(p.ImportPath, "internal/report/") {
				return ""
			}
			for _, d := range p.Imports {
				if under(d, "internal/report") {
					return "imports " + d
				}
			}
			return ""
		}},
		{"only the report's plot package draws (gonum.org/v1/plot)", func(p pkg) string {
			if p.ImportPath == "internal/report/plot" {
				return ""
			}
			for _, imp := range p.External {
				if under(imp, "gonum.org/v1/plot") {
					return "imports " + imp
				}
			}
			return ""
		}},
		{"the agent loop knows no runner, backend or driver", func(p pkg) string {
			if p.ImportPath != "internal/agent" {
				return ""
			}
			for _, d := range p.Deps {
				if under(d, "runner", "internal/models", "internal/cli") || under(d, backends...) {
					return "depends on " + d
				}
			}
			return ""
		}},
		{"no package but cmd imports the command line", func(p pkg) string {
			if under(p.ImportPath, "cmd", "internal/cli") {
				return ""
			}
			if slices.Contains(p.Imports, "internal/cli") {
				return "imports cli"
			}
			return ""
		}},
		{"only the kubernetes backend and its benchmark's raw pods speak to a cluster", func(p pkg) string {
			if p.ImportPath == "sandbox/kubernetes" || p.ImportPath == "sandbox/sandboxbench/kubebench" {
				return ""
			}
			for _, imp := range p.External {
				if strings.HasPrefix(imp, "k8s.io/") {
					return "imports " + imp
				}
			}
			return ""
		}},
		{"the kubernetes backend reaches no docker backend (it takes an image builder)", func(p pkg) string {
			if p.ImportPath != "sandbox/kubernetes" {
				return ""
			}
			for _, d := range p.Deps {
				if under(d, "sandbox/docker") {
					return "depends on " + d
				}
			}
			return ""
		}},
		{"no backend reaches a benchmark; only the command line imports one", func(p pkg) string {
			if under(p.ImportPath, "sandbox/sandboxbench", "internal/cli", "cmd") {
				return ""
			}
			for _, d := range p.Deps {
				if under(d, "sandbox/sandboxbench") {
					return "depends on " + d
				}
			}
			return ""
		}},
		{"statistics live in internal/stats, which imports nothing of killchain", func(p pkg) string {
			if p.ImportPath == "internal/stats" {
				if len(p.Imports) > 0 {
					return "imports " + strings.Join(p.Imports, ", ")
				}
				return ""
			}
			for _, imp := range p.External {
				for _, num := range []string{"gonum.org/v1/gonum/stat", "gonum.org/v1/gonum/optimize", "gonum.org/v1/gonum/integrate"} {
					if under(imp, num) {
						return "imports " + imp + " (a statistic belongs in internal/stats)"
					}
				}
			}
			return ""
		}},
		{"the vocabulary imports nothing of killchain; tasks import neither the tracker nor results", func(p pkg) string {
			switch p.ImportPath {
			case "internal/vocab":
				if len(p.Imports) > 0 {
					return "imports " + strings.Join(p.Imports, ", ")
				}
			case "tasks":
				for _, imp := range p.Imports {
					if under(imp, "internal/tracker", "internal/results") {
						return "imports " + imp + " (the shared words are in internal/vocab)"
					}
				}
			}
			return ""
		}},
		{"cgo only in probes", func(p pkg) string {
			if under(p.ImportPath, "probes") || len(p.CgoFiles) == 0 {
				return ""
			}
			return "has cgo files"
		}},
	}
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			for _, name := range sortedKeys(g) {
				if why := r.bad(g[name]); why != "" {
					t.Errorf("%s %s", name, why)
				}
			}
		})
	}
}

// testSupport reports whether a package only serves tests (an internal
// package named ...test, like probes/internal/studytest).
func testSupport(p string) bool {
	return strings.Contains(p, "internal/") && strings.HasSuffix(p, "test")
}

func sortedKeys(m map[string]pkg) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
