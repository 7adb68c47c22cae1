package cli

import (
	"strings"
	"testing"

	"github.com/killchain/killchain/tasks"
)

// TestTasks: tasks lists every built-in task once, in name order, with its
// mode and each variant's surface.
func TestTasks(t *testing.T) {
	code, stdout, stderr := killchain("tasks")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if !strings.HasPrefix(lines[0], "TASK") || len(lines) != len(tasks.Names())+1 {
		t.Fatalf("%d lines for %d tasks:\n%s", len(lines), len(tasks.Names()), stdout)
	}
	prev := ""
	for _, l := range lines[1:] {
		name := strings.Fields(l)[0]
		task, ok := tasks.Get(name)
		if !ok || name <= prev {
			t.Errorf("line %q: not a task, or out of order after %q", l, prev)
			continue
		}
		prev = name
		if !strings.Contains(l, string(task.Mode)) {
			t.Errorf("line %q lacks mode %s", l, task.Mode)
		}
		for _, v := range task.Variants {
			if !strings.Contains(l, v.Name+" ("+string(v.Surface)+")") {
				t.Errorf("line %q lacks variant %s (%s)", l, v.Name, v.Surface)
			}
		}
	}
}
