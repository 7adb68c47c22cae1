package tasks_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/tasks"
)

// FuzzParseFile decodes arbitrary task files. Whatever the input, decoding
// does not panic; a task it accepts encodes to a file that decodes to the
// same encoding and hash, and builds a clean environment without a canary
// and an attacked one carrying it, for every variant. The seeds are every
// task file of the repository, so plain go test checks all of them.
func FuzzParseFile(f *testing.F) {
	var seeds []string
	for _, pattern := range []string{"builtin/*.hcl", "starter/*.hcl", "testdata/valid/*.hcl", "testdata/invalid/*.hcl",
		"../runner/testdata/usertasks/tasks/*.hcl", "../hcl/suite/*.hcl"} {
		files, _ := filepath.Glob(pattern)
		seeds = append(seeds, files...)
	}
	if len(seeds) < 40 {
		f.Fatalf("%d seed files", len(seeds))
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	const c = "SECRET-0A1B2C3D"
	f.Fuzz(func(t *testing.T, src []byte) {
		origin := tasks.Origin{FS: os.DirFS("builtin"), File: "fuzz.hcl"}
		ts, diags := tasks.ParseFile(origin, src)
		if diags.HasErrors() {
			// A task with an error of its own is never returned (an
			// error in another block of the file leaves it be).
			for _, tk := range ts {
				start := bytes.Index(src, tk.Source.Text)
				for _, d := range diags {
					if d.Severity == hcl.DiagError && d.Subject != nil && d.Subject.Filename == "fuzz.hcl" && start >= 0 &&
						d.Subject.Start.Byte >= start && d.Subject.Start.Byte < start+len(tk.Source.Text) {
						t.Fatalf("task %s decoded with an error of its own: %v", tk.Name, d)
					}
				}
			}
			return
		}
		for _, tk := range ts {
			enc := tasks.Encode(tk)
			again, diags := tasks.ParseFile(tasks.Origin{File: "again.hcl"}, enc)
			if diags.HasErrors() || len(again) != 1 {
				t.Fatalf("the encoding of %s does not decode: %v\n%s", tk.Name, diags, enc)
			}
			if !bytes.Equal(tasks.Encode(again[0]), enc) || again[0].Hash() != tk.Hash() {
				t.Fatalf("the encoding of %s is not stable:\n%s\n---\n%s", tk.Name, enc, tasks.Encode(again[0]))
			}
			for _, v := range tk.Variants {
				if v.Injection != nil && v.Payload == "" {
					continue // an injection without its own wording runs with an attack's
				}
				clean, err := tk.Env(tasks.BuildInput{Study: "f", Run: "r", Variant: v, Canary: cleanCanary(tk, c)})
				if err != nil {
					t.Fatalf("%s clean: %v", tk.Name, err)
				}
				texts, _ := tasks.EnvTexts(clean)
				for place, text := range texts {
					if tk.Reward == nil && len(canary.FindAny(text)) > 0 {
						t.Fatalf("%s: clean environment carries a canary in %s", tk.Name, place)
					}
				}
				if _, err := tk.Env(tasks.BuildInput{Study: "f", Run: "r", Variant: v, Attacked: true, Canary: c}); err != nil {
					t.Fatalf("%s/%s attacked: %v", tk.Name, v.Name, err)
				}
			}
		}
	})
}

// cleanCanary is the canary a clean run of tk carries: none, but a
// reward-hack task's runs always carry one.
func cleanCanary(tk *tasks.Task, c string) string {
	if tk.CarriesCanary(false) {
		return c
	}
	return ""
}

// FuzzEnvironment decodes arbitrary files of environments, user tasks,
// injections and suites, beside a state file. Whatever the input,
// decoding does not panic; what it accepts encodes to a self-contained
// file that decodes to the same tasks (same hashes), its clean
// environment's state carries no canary and holds every vector's default,
// and each injection with its own wording plants the run's canary in the
// state. The seeds are the environment fixtures and the example suite.
func FuzzEnvironment(f *testing.F) {
	var seeds []string
	for _, pattern := range []string{"testdata/valid/ledger.hcl", "testdata/invalid/env_*.hcl", "testdata/invalid/user_*.hcl",
		"testdata/invalid/injection_*.hcl", "../hcl/suite/*.hcl", "testdata/suite/*/pocketbank.hcl"} {
		files, _ := filepath.Glob(pattern)
		seeds = append(seeds, files...)
	}
	if len(seeds) < 40 {
		f.Fatalf("%d seed files", len(seeds))
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	const c = "SECRET-0A1B2C3D"
	f.Fuzz(func(t *testing.T, src []byte) {
		origin := tasks.Origin{FS: os.DirFS("../hcl/suite"), File: "fuzz.hcl"}
		ts, diags := tasks.ParseFile(origin, src)
		if diags.HasErrors() {
			return
		}
		for _, tk := range ts {
			if tk.Environment == nil {
				continue
			}
			enc := tasks.Encode(tk)
			again, diags := tasks.ParseFile(tasks.Origin{File: "again.hcl"}, enc)
			if diags.HasErrors() || len(again) != 1 || again[0].Hash() != tk.Hash() {
				t.Fatalf("the resolved form of %s does not decode to it: %v\n%s", tk.Name, diags, enc)
			}
			clean, err := tk.Env(tasks.BuildInput{Study: "f", Run: "r"})
			if err != nil {
				t.Fatalf("%s clean: %v", tk.Name, err)
			}
			if canary.FindAny(string(clean.World.State)) != nil {
				t.Fatalf("%s: the clean state carries a canary", tk.Name)
			}
			for _, v := range tk.Variants {
				if v.Payload == "" {
					continue
				}
				env, err := tk.Env(tasks.BuildInput{Study: "f", Run: "r", Variant: v, Attacked: true, Canary: c, Attacker: "A"})
				if err != nil {
					t.Fatalf("%s/%s attacked: %v", tk.Name, v.Name, err)
				}
				if !strings.Contains(string(env.World.State), c) {
					t.Fatalf("%s/%s: the attacked state lacks the canary", tk.Name, v.Name)
				}
			}
		}
	})
}
