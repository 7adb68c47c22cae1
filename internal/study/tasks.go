package study

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/internal/plural"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/rooted"
	"github.com/killchain/killchain/tasks"
)

// decodeTasks decodes the study's own tasks, the task blocks of the file
// and those of its task files, with the loader that decodes the built-in
// ones, and checks their names: one definition per name, and a built-in
// replaced only with override = true (a definition identical to the
// built-in's replaces nothing and needs none).
//
// The study.hcl of a study folder (beside its manifest.json) runs the
// definitions the folder keeps in task_defs/, the exact ones it ran: what
// its task blocks and task files say now does not count, and a resume
// refuses a built-in that changed since. The same holds for the attack
// blocks of its task files, kept in attack_defs/.
//
// It returns the attack blocks of the task files (or of the folder), for
// decodeAttacks.
func (d *decoder) decodeTasks(blocks []*hcl.Block) []fileAttackBlock {
	l := &hcldiag.List{}
	dir := filepath.Dir(d.study.File)
	if defs, fileAttacks, ok := folderTasks(l, dir); ok {
		d.study.Tasks, d.study.Own = tasks.Link(l, tasks.Builtin(), defs...)
		d.diags = append(d.diags, l.Diags...)
		return fileAttacks
	}
	var fileAttacks []fileAttackBlock
	inline := tasks.DirOrigin(dir, d.study.File)
	all := []*tasks.Defs{tasks.DecodeBlocks(l, inline, d.study.Source, blocks)}
	var read []string
	for i, pattern := range d.study.TaskFiles {
		rng := d.taskFiles.Elem("task_files", i)
		full := pattern
		if !filepath.IsAbs(full) {
			full = filepath.Join(dir, pattern)
		}
		matches, err := filepath.Glob(full)
		switch {
		case err != nil:
			l.Errorf(rng, "Invalid task_files pattern", "%q is not a file pattern: %v.", pattern, err)
			continue
		case len(matches) == 0:
			l.Errorf(rng, "No task files", "%q (relative to the study file) matches no file.", pattern)
			continue
		}
		for _, m := range matches {
			if slices.Contains(read, m) {
				continue
			}
			read = append(read, m)
			src, err := tasks.ReadTaskFile(m)
			if err != nil {
				l.Errorf(rng, "Cannot read task file", "%v.", err)
				continue
			}
			defs, diags := tasks.ParseDefs(tasks.DirOrigin(filepath.Dir(m), m), src)
			l.Add(diags)
			all = append(all, defs)
			blocks, _ := attackBlocks(m, src) // ParseDefs reported its syntax errors
			fileAttacks = append(fileAttacks, blocks...)
		}
	}
	d.study.Tasks, d.study.Own = tasks.Link(l, tasks.Builtin(), all...)
	d.diags = append(d.diags, l.Diags...)
	return fileAttacks
}

// folderTasks decodes the study's own definitions kept in a study folder
// (tasks, with the environments, injections and suites they depend on),
// and returns the attack blocks of its task files the folder keeps; ok is
// false when dir is not a study folder that keeps them.
func folderTasks(l *hcldiag.List, dir string) ([]*tasks.Defs, []fileAttackBlock, bool) {
	m, err := results.ReadManifest(dir)
	if err != nil || len(m.Tasks) == 0 {
		return nil, nil, false
	}
	var fileAttacks []fileAttackBlock
	// The folder's files are read through package rooted: a name in the
	// manifest that leaves the folder, or a link in it, is refused.
	folder := rooted.FS(dir)
	for _, info := range m.Attacks {
		p := filepath.Join(dir, filepath.FromSlash(info.File))
		src, err := fs.ReadFile(folder, info.File)
		if err != nil {
			l.Errorf(nil, "Missing attack definition", "The study folder %s ran attack %s from %s, which cannot be read: %v.", dir, info.Name, info.File, err)
			continue
		}
		blocks, diags := attackBlocks(p, src)
		l.Add(diags)
		fileAttacks = append(fileAttacks, blocks...)
	}
	var all []*tasks.Defs
	for _, info := range m.Tasks {
		if info.Builtin {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(info.File))
		src, err := fs.ReadFile(folder, info.File)
		if err != nil {
			l.Errorf(nil, "Missing task definition", "The study folder %s ran task %s from %s, which cannot be read: %v.", dir, info.Name, info.File, err)
			continue
		}
		defs, diags := tasks.ParseDefs(tasks.DirOrigin(filepath.Dir(p), p), src)
		l.Add(diags)
		all = append(all, defs)
	}
	return all, fileAttacks, true
}

// isTaskFile reports whether a file holds task or attack blocks and no
// study block: a task file, checked alone by validate.
func isTaskFile(path string) bool {
	src, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	file, diags := hclsyntax.ParseConfig(src, path, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return !strings.Contains(string(src), "study \"") && (strings.Contains(string(src), "task \"") ||
			strings.Contains(string(src), "environment \"") || strings.Contains(string(src), "injection \""))
	}
	body, ok := file.Body.(*hclsyntax.Body)
	if !ok {
		return false
	}
	tasksSeen := false
	for _, b := range body.Blocks {
		switch b.Type {
		case "study":
			return false
		case "task", "attack", "environment", "injection", "suite":
			tasksSeen = true
		}
	}
	return tasksSeen
}

// LoadTasks decodes a task file alone, as a study's task_files entry would
// be, with the name checks a study makes, and checks its attack blocks.
func LoadTasks(path string) ([]*tasks.Task, hcl.Diagnostics) {
	_, ts, _, diags := loadTaskFile(path)
	return ts, diags
}

// LoadTasksAndReport loads what `killchain tasks` reads from a file: a
// study's tasks, or a task file's, each with the built-ins. It prints
// the file's diagnostics to w and returns the set, the file's own tasks
// and whether the file is valid.
func LoadTasksAndReport(path string, w io.Writer) (*tasks.Set, []*tasks.Task, bool) {
	if !isTaskFile(path) {
		s, ok := LoadAndReport(path, w)
		if !ok {
			return nil, nil, false
		}
		return s.Tasks, s.Own, true
	}
	set, ts, _, diags := loadTaskFile(path)
	if err := WriteDiagnostics(w, sources(diags, map[string]*hcl.File{}), diags); err != nil || diags.HasErrors() {
		return nil, nil, false
	}
	return set, ts, true
}

// loadTaskFile is LoadTasks, also returning the set the file's
// definitions make with the built-ins, and the file's attack families.
func loadTaskFile(path string) (*tasks.Set, []*tasks.Task, []attacks.Family, hcl.Diagnostics) {
	src, err := tasks.ReadTaskFile(path)
	if err != nil {
		return nil, nil, nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read task file", Detail: err.Error()}}
	}
	defs, diags := tasks.ParseDefs(tasks.DirOrigin(filepath.Dir(path), path), src)
	l := &hcldiag.List{Diags: diags}
	set, ts := tasks.Link(l, tasks.Builtin(), defs)
	diags = l.Diags
	// Its attack blocks, checked as a study that loads the file would.
	d := &decoder{study: &Study{File: path}}
	if blocks, _ := attackBlocks(path, src); len(blocks) > 0 {
		d.decodeAttacks(nil, blocks)
		diags = append(diags, d.diags...)
	}
	hcldiag.Sort(diags)
	if diags.HasErrors() {
		return nil, nil, nil, diags
	}
	return set, ts, d.study.Attacks, diags
}

// ValidateTasks checks a task file alone, prints its diagnostics to
// stderr and a one-line verdict to stdout, and returns 0 when it is valid,
// 1 if not.
func ValidateTasks(path string, stdout, stderr io.Writer) int {
	set, ts, fams, diags := loadTaskFile(path)
	if err := WriteDiagnostics(stderr, sources(diags, map[string]*hcl.File{}), diags); err != nil {
		return 1
	}
	if diags.HasErrors() {
		return invalid(stdout, path, diags)
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	fmt.Fprintf(stdout, "%s: task file is valid: %s (%s)", path, plural.Count(len(ts), "task"), strings.Join(names, ", "))
	var envs, injs, suites []string
	for _, e := range set.Environments() {
		if e.Source.File == path {
			envs = append(envs, e.Name)
		}
	}
	for _, in := range set.Injections() {
		if in.Source.File == path {
			injs = append(injs, in.Name)
		}
	}
	for _, su := range set.Suites() {
		if su.Source.File == path {
			suites = append(suites, su.Name)
		}
	}
	for _, part := range []struct {
		one, many string
		names     []string
	}{{"environment", "environments", envs}, {"injection", "injections", injs}, {"suite", "suites", suites}} {
		if len(part.names) > 0 {
			fmt.Fprintf(stdout, ", %s (%s)", plural.CountAs(len(part.names), part.one, part.many), strings.Join(part.names, ", "))
		}
	}
	if len(fams) > 0 {
		names = names[:0]
		for _, f := range fams {
			names = append(names, f.Name)
		}
		fmt.Fprintf(stdout, ", %s (%s)", plural.CountAs(len(fams), "attack family", "attack families"), strings.Join(names, ", "))
	}
	fmt.Fprintf(stdout, "%s\n", warnings(diags))
	return 0
}
