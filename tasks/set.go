package tasks

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/hcldiag"
)

//go:embed builtin
var builtinFS embed.FS

// BuiltinDir is the folder of the embedded task files.
const BuiltinDir = "builtin"

// Set is the tasks a study may run: the built-in ones and the study's own,
// by name.
type Set struct {
	byName map[string]*Task
	// The stateful parts (environment.go), by name.
	envs       map[string]*Environment
	injections map[string]*Injection
	suites     map[string]*Suite
}

// NewSet returns a set of the given tasks; a later task replaces an earlier
// one of the same name.
func NewSet(ts ...*Task) *Set {
	s := &Set{byName: map[string]*Task{}}
	for _, t := range ts {
		s.byName[t.Name] = t
	}
	return s
}

// With returns a copy of the set with ts added, each replacing a task of its
// name; its environments, injections and suites are the set's.
func (s *Set) With(ts ...*Task) *Set {
	out := NewSet(s.All()...)
	out.envs, out.injections, out.suites = maps.Clone(s.envs), maps.Clone(s.injections), maps.Clone(s.suites)
	for _, t := range ts {
		out.byName[t.Name] = t
	}
	return out
}

// Get returns a task by name.
func (s *Set) Get(name string) (*Task, bool) {
	if s == nil {
		return nil, false
	}
	t, ok := s.byName[name]
	return t, ok
}

// Names returns every task name, sorted.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.byName))
	for n := range s.byName {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// All returns every task, sorted by name.
func (s *Set) All() []*Task {
	out := make([]*Task, 0, len(s.byName))
	for _, n := range s.Names() {
		out = append(out, s.byName[n])
	}
	return out
}

// Environment returns an environment by name.
func (s *Set) Environment(name string) (*Environment, bool) {
	if s == nil {
		return nil, false
	}
	e, ok := s.envs[name]
	return e, ok
}

// Injection returns an injection task by name.
func (s *Set) Injection(name string) (*Injection, bool) {
	if s == nil {
		return nil, false
	}
	in, ok := s.injections[name]
	return in, ok
}

// Suite returns a suite by name.
func (s *Set) Suite(name string) (*Suite, bool) {
	if s == nil {
		return nil, false
	}
	su, ok := s.suites[name]
	return su, ok
}

// Environments returns every environment, sorted by name.
func (s *Set) Environments() []*Environment {
	if s == nil {
		return nil
	}
	out := make([]*Environment, 0, len(s.envs))
	for _, n := range sortedNames(s.envs) {
		out = append(out, s.envs[n])
	}
	return out
}

// Injections returns every injection, sorted by name.
func (s *Set) Injections() []*Injection {
	if s == nil {
		return nil
	}
	out := make([]*Injection, 0, len(s.injections))
	for _, n := range sortedNames(s.injections) {
		out = append(out, s.injections[n])
	}
	return out
}

// Suites returns every suite, sorted by name.
func (s *Set) Suites() []*Suite {
	if s == nil {
		return nil
	}
	out := make([]*Suite, 0, len(s.suites))
	for _, su := range s.suites {
		out = append(out, su)
	}
	slices.SortFunc(out, func(a, b *Suite) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// NamesOf returns the names of the tasks of a family, sorted.
func (s *Set) NamesOf(family string) []string {
	var out []string
	for _, n := range s.Names() {
		if s.byName[n].Family() == family {
			out = append(out, n)
		}
	}
	return out
}

// Fixtures returns a task's payload-free files, identical across its runs:
// what a sandbox backend prepares once per task as its snapshot. Its
// signature fits docker.Options.Fixtures.
func (s *Set) Fixtures(_ context.Context, name string) (map[string][]byte, error) {
	t, ok := s.Get(name)
	if !ok {
		return nil, fmt.Errorf("unknown task %q", name)
	}
	if t.Reward != nil {
		// The files that carry a run's canary are left out.
		env, err := t.build(BuildInput{Study: "snapshot", Run: "snapshot", Variant: t.Variants[0]})
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", t.Name, err)
		}
		return env.Files, nil
	}
	env, err := t.Env(BuildInput{Study: "snapshot", Run: "snapshot"})
	if err != nil {
		return nil, err
	}
	return env.Files, nil
}

var builtin = sync.OnceValues(func() (*Set, hcl.Diagnostics) {
	defs, diags := loadDefsTree(builtinFS, BuiltinDir)
	l := &hcldiag.List{Diags: diags}
	set, _ := Link(l, nil, defs...)
	for _, t := range set.byName {
		t.Source.Builtin = true
	}
	for _, e := range set.envs {
		e.Source.Builtin = true
	}
	for _, in := range set.injections {
		in.Source.Builtin = true
	}
	for _, su := range set.suites {
		su.Source.Builtin = true
	}
	return set, l.Diags
})

// Builtin returns the built-in tasks, decoded once from the task files
// embedded in the binary by the same code that decodes a study's. A
// built-in file that does not decode is a programming error the package
// tests catch, so it panics.
func Builtin() *Set {
	s, diags := builtin()
	if diags.HasErrors() {
		panic(fmt.Sprintf("tasks: built-in task files: %s", diags.Error()))
	}
	return s
}

// LoadFS decodes every *.hcl file directly in dir of fsys, linked with one
// another alone, and returns their tasks.
func LoadFS(fsys fs.FS, dir string) ([]*Task, hcl.Diagnostics) {
	defs, diags := LoadDefsFS(fsys, dir)
	l := &hcldiag.List{Diags: diags}
	_, own := Link(l, nil, defs...)
	hcldiag.Sort(l.Diags)
	slices.SortFunc(own, func(a, b *Task) int { return strings.Compare(a.Name, b.Name) })
	return own, unique(l.Diags)
}

// LoadDefsFS decodes every *.hcl file directly in dir of fsys; each file's
// relative paths resolve inside dir, and each task keeps its file's text.
func LoadDefsFS(fsys fs.FS, dir string) ([]*Defs, hcl.Diagnostics) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read task folder", Detail: err.Error()}}
	}
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read task folder", Detail: err.Error()}}
	}
	var (
		out   []*Defs
		diags hcl.Diagnostics
	)
	for _, e := range entries {
		if e.IsDir() || !isTaskFile(e.Name()) {
			continue
		}
		name := dir + "/" + e.Name()
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read task file", Detail: err.Error()})
			continue
		}
		defs, ds := ParseDefs(Origin{FS: sub, File: name}, src)
		diags = append(diags, ds...)
		defs.fileText(src)
		out = append(out, defs)
	}
	return out, diags
}

// loadDefsTree decodes the *.hcl files of dir and of every folder below
// it (the built-in suites keep each environment's files in a folder of its
// own); each file's relative paths resolve inside its own folder.
func loadDefsTree(fsys fs.FS, dir string) ([]*Defs, hcl.Diagnostics) {
	var (
		out   []*Defs
		diags hcl.Diagnostics
	)
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		defs, ds := LoadDefsFS(fsys, p)
		out, diags = append(out, defs...), append(diags, ds...)
		return nil
	})
	if err != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read task folder", Detail: err.Error()})
	}
	return out, diags
}

// fileText makes a file's whole text, with its comments, the source text
// of the task decoded from it when the file holds that task alone (a
// built-in scenario's: `tasks show` prints the file). A task that shares
// its file (a suite's user tasks) keeps its own block.
func (df *Defs) fileText(src []byte) {
	if len(df.tasks) != 1 || len(df.envs)+len(df.injs)+len(df.suites) > 0 {
		return
	}
	df.tasks[0].Source.Text = src
}

func isTaskFile(name string) bool {
	return len(name) > 4 && name[len(name)-4:] == ".hcl"
}
