package study

import (
	"fmt"
	"io"
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
	if own, fileAttacks, ok := folderTasks(l, dir); ok {
		d.diags = append(d.diags, l.Diags...)
		d.study.Own = checkNames(&d.diags, own)
		d.study.Tasks = tasks.Builtin().With(d.study.Own...)
		return fileAttacks
	}
	var fileAttacks []fileAttackBlock
	var own []*tasks.Task
	inline := tasks.Origin{FS: os.DirFS(dir), File: d.study.File}
	for _, b := range blocks {
		if t := tasks.DecodeBlock(l, inline, d.study.Source, b); t != nil {
			own = append(own, t)
		}
	}
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
			src, err := os.ReadFile(m)
			if err != nil {
				l.Errorf(rng, "Cannot read task file", "read %s: %v.", m, err)
				continue
			}
			ts, diags := tasks.ParseFile(tasks.Origin{FS: os.DirFS(filepath.Dir(m)), File: m}, src)
			l.Add(diags)
			own = append(own, ts...)
			blocks, _ := attackBlocks(m, src) // ParseFile reported its syntax errors
			fileAttacks = append(fileAttacks, blocks...)
		}
	}
	d.diags = append(d.diags, l.Diags...)
	d.study.Own = checkNames(&d.diags, own)
	d.study.Tasks = tasks.Builtin().With(d.study.Own...)
	return fileAttacks
}

// checkNames keeps the first definition of each name and reports the
// others, and a built-in replaced without override = true by a definition
// that differs from it.
func checkNames(diags *hcl.Diagnostics, own []*tasks.Task) []*tasks.Task {
	builtin := tasks.Builtin()
	l := &hcldiag.List{}
	defer func() { *diags = append(*diags, l.Diags...) }()
	first := map[string]*tasks.Task{}
	var kept []*tasks.Task
	for _, t := range own {
		rng := t.Source.Range
		if prev, dup := first[t.Name]; dup {
			l.Errorf(&rng, "Duplicate task", "A task named %q was already declared at %s.", t.Name, hcldiag.RangeString(prev.Source.Range))
			continue
		}
		first[t.Name] = t
		kept = append(kept, t)
		b, isBuiltin := builtin.Get(t.Name)
		switch {
		case isBuiltin && !t.Override && b.Hash() != t.Hash():
			l.Errorf(&rng, "Built-in task shadowed",
				"%q is a built-in task and this definition differs from it; give the task another name, or set override = true to run this definition instead.", t.Name)
		case !isBuiltin && t.Override:
			l.Warnf(&rng, "Nothing to override", "override = true replaces a built-in task, and there is no built-in task %q.", t.Name)
		}
	}
	return kept
}

// folderTasks decodes the study's own task definitions kept in a study
// folder, and returns the attack blocks of its task files the folder
// keeps; ok is false when dir is not a study folder that keeps them.
func folderTasks(l *hcldiag.List, dir string) ([]*tasks.Task, []fileAttackBlock, bool) {
	m, err := results.ReadManifest(dir)
	if err != nil || len(m.Tasks) == 0 {
		return nil, nil, false
	}
	var fileAttacks []fileAttackBlock
	for _, info := range m.Attacks {
		p := filepath.Join(dir, filepath.FromSlash(info.File))
		src, err := os.ReadFile(p)
		if err != nil {
			l.Errorf(nil, "Missing attack definition", "The study folder %s ran attack %s from %s, which cannot be read: %v.", dir, info.Name, info.File, err)
			continue
		}
		blocks, diags := attackBlocks(p, src)
		l.Add(diags)
		fileAttacks = append(fileAttacks, blocks...)
	}
	var own []*tasks.Task
	for _, info := range m.Tasks {
		if info.Builtin {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(info.File))
		src, err := os.ReadFile(p)
		if err != nil {
			l.Errorf(nil, "Missing task definition", "The study folder %s ran task %s from %s, which cannot be read: %v.", dir, info.Name, info.File, err)
			continue
		}
		ts, diags := tasks.ParseFile(tasks.Origin{FS: os.DirFS(filepath.Dir(p)), File: p}, src)
		l.Add(diags)
		own = append(own, ts...)
	}
	return own, fileAttacks, true
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
		return strings.Contains(string(src), "task \"") && !strings.Contains(string(src), "study \"")
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
		case "task", "attack":
			tasksSeen = true
		}
	}
	return tasksSeen
}

// LoadTasks decodes a task file alone, as a study's task_files entry would
// be, with the name checks a study makes, and checks its attack blocks.
func LoadTasks(path string) ([]*tasks.Task, hcl.Diagnostics) {
	ts, _, diags := loadTaskFile(path)
	return ts, diags
}

// loadTaskFile is LoadTasks, also returning the file's attack families.
func loadTaskFile(path string) ([]*tasks.Task, []attacks.Family, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read task file", Detail: fmt.Sprintf("read %s: %v", path, err)}}
	}
	ts, diags := tasks.ParseFile(tasks.Origin{FS: os.DirFS(filepath.Dir(path)), File: path}, src)
	ts = checkNames(&diags, ts)
	// Its attack blocks, checked as a study that loads the file would.
	d := &decoder{study: &Study{File: path}}
	if blocks, _ := attackBlocks(path, src); len(blocks) > 0 {
		d.decodeAttacks(nil, blocks)
		diags = append(diags, d.diags...)
	}
	hcldiag.Sort(diags)
	if diags.HasErrors() {
		return nil, nil, diags
	}
	return ts, d.study.Attacks, diags
}

// ValidateTasks checks a task file alone, prints its diagnostics to
// stderr and a one-line verdict to stdout, and returns 0 when it is valid,
// 1 if not.
func ValidateTasks(path string, stdout, stderr io.Writer) int {
	ts, fams, diags := loadTaskFile(path)
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
