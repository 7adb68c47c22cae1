package cli

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// topics are the documents docs/ holds, one per topic; help may point
// only to these.
var topics = func() []string {
	entries, err := os.ReadDir("../../docs")
	if err != nil {
		panic(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			out = append(out, e.Name())
		}
	}
	return out
}()

// walk calls fn on c and every command below it.
func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// TestHelp: every command has a one-line Short and a Long saying what it
// reads and writes; every command that takes arguments or flags has an
// Example; help points only to documents docs/ holds (no DESIGN.md).
func TestHelp(t *testing.T) {
	root := newRoot(newGlobals(&strings.Builder{}, &strings.Builder{}, os.Getenv))
	docRef := regexp.MustCompile(`docs/([\w.-]+\.md)`)
	walk(root, func(c *cobra.Command) {
		t.Run(c.CommandPath(), func(t *testing.T) {
			if c.Short == "" || strings.Contains(c.Short, "\n") || strings.HasSuffix(c.Short, ".") {
				t.Errorf("Short %q: want one line without a final period", c.Short)
			}
			// The probes commands are probescli's; their help is its own.
			if p := c.CommandPath(); strings.HasPrefix(p, "killchain probes") || p == "killchain bench probes" {
				return
			}
			if c.Long == "" {
				t.Error("no Long help")
			}
			takesArgs := c.Args != nil && c.Args(c, nil) != nil
			if (takesArgs || c.HasAvailableLocalFlags() || c.HasSubCommands()) && c.Example == "" {
				t.Error("no Example")
			}
			for _, ref := range docRef.FindAllStringSubmatch(c.Long+c.Example, -1) {
				if !slices.Contains(topics, ref[1]) {
					t.Errorf("help points to %s, which docs/ does not hold", ref[0])
				}
			}
			if strings.Contains(c.Long, "DESIGN.md") || strings.Contains(c.Long, "README") {
				t.Error("help points to DESIGN.md or the README; docs/ holds the topics")
			}
		})
	})
}

// TestCommandsDocumented: docs/cli.md has a section for every command the
// root wires, and names no command it lacks.
func TestCommandsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile("(?m)^### `killchain ([a-z-]+)")
	var documented []string
	for _, m := range heading.FindAllStringSubmatch(string(doc), -1) {
		documented = append(documented, m[1])
	}
	root := newRoot(newGlobals(&strings.Builder{}, &strings.Builder{}, os.Getenv))
	var wired []string
	for _, c := range root.Commands() {
		wired = append(wired, c.Name())
	}
	slices.Sort(documented)
	if !slices.Equal(documented, wired) {
		t.Errorf("docs/cli.md documents %q; the root wires %q", documented, wired)
	}
	for _, ref := range regexp.MustCompile(`\]\(([\w.-]+\.md)\)`).FindAllStringSubmatch(string(doc), -1) {
		if !slices.Contains(topics, ref[1]) {
			t.Errorf("docs/cli.md links %s, which is not a topic document", ref[1])
		}
	}
}
