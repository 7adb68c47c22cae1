package groundtruth_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/killchain/killchain/sandbox/local"
	"github.com/killchain/killchain/tasks"
	"github.com/killchain/killchain/verifiers/groundtruth"
)

// The part of docs/suites.md that `killchain tasks check --markdown`
// prints for the built-in suites.
const (
	suitesDoc   = "../../docs/suites.md"
	suitesBegin = "<!-- begin: killchain tasks check --markdown -->\n"
	suitesEnd   = "<!-- end: killchain tasks check --markdown -->\n"
)

// TestSuitesDoc: docs/suites.md lists every built-in user task and
// injection as the checked corpus has them (with -update it is rewritten
// between its markers), and the built-in corpus's check passes with no
// warning: every injection can be seen through some user task.
func TestSuitesDoc(t *testing.T) {
	set := tasks.Builtin()
	var envs []string
	for _, e := range set.Environments() {
		envs = append(envs, e.Name)
	}
	r, err := groundtruth.Check(t.Context(), &local.Backend{Root: t.TempDir()}, set, envs)
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed() > 0 || len(r.Warnings) > 0 {
		var buf bytes.Buffer
		r.Write(&buf)
		t.Fatalf("the built-in suites must check clean:\n%s", buf.String())
	}
	var buf bytes.Buffer
	if err := r.WriteMarkdown(&buf, set); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(suitesDoc)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), suitesBegin)
	_, after, ok2 := strings.Cut(rest, suitesEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the markers %q and %q", suitesDoc, suitesBegin, suitesEnd)
	}
	want := before + suitesBegin + buf.String() + suitesEnd + after
	if *update {
		if err := os.WriteFile(suitesDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(doc) {
		t.Errorf("%s is out of date with the built-in suites: go test ./verifiers/groundtruth -run TestSuitesDoc -update", suitesDoc)
	}
}
