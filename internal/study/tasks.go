package study

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/hashicorp/hcl/v2"

	"github.com/killchain/killchain/internal/hcldiag"
	"github.com/killchain/killchain/tasks"
)

// decodeTasks decodes the study's own tasks, the task blocks of the file
// and those of its task files, with the loader that decodes the built-in
// ones, and checks their names: one definition per name, and a built-in
// replaced only with override = true (a definition identical to the
// built-in's replaces nothing and needs none).
func (d *decoder) decodeTasks(blocks []*hcl.Block) {
	builtin := tasks.Builtin()
	l := &hcldiag.List{}
	dir := filepath.Dir(d.study.File)
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
		}
	}
	d.diags = append(d.diags, l.Diags...)

	first := map[string]*tasks.Task{}
	var kept []*tasks.Task
	for _, t := range own {
		rng := t.Source.Range
		if prev, dup := first[t.Name]; dup {
			d.errorf(&rng, "Duplicate task", "A task named %q was already declared at %s.", t.Name, hcldiag.RangeString(prev.Source.Range))
			continue
		}
		first[t.Name] = t
		kept = append(kept, t)
		b, isBuiltin := builtin.Get(t.Name)
		switch {
		case isBuiltin && !t.Override && b.Hash() != t.Hash():
			d.errorf(&rng, "Built-in task shadowed",
				"%q is a built-in task and this definition differs from it; give the task another name, or set override = true to run this definition instead.", t.Name)
		case !isBuiltin && t.Override:
			d.warnf(&rng, "Nothing to override", "override = true replaces a built-in task, and there is no built-in task %q.", t.Name)
		}
	}
	d.study.Own = kept
	d.study.Tasks = builtin.With(kept...)
}
