package export

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/rooted"
)

// TestInspectRefusesLinks: an export never writes through a link: not an
// inspect/ folder of the study that points elsewhere (logs were once
// written through one), not a log name that is a link.
func TestInspectRefusesLinks(t *testing.T) {
	first := exportFixture(t, FormatEval)[0]
	tests := []struct {
		name  string
		setup func(t *testing.T, study, outside string) InspectOptions
	}{
		{"inspect linked to a folder outside", func(t *testing.T, study, outside string) InspectOptions {
			if err := os.Symlink(outside, filepath.Join(study, "inspect")); err != nil {
				t.Fatal(err)
			}
			return InspectOptions{}
		}},
		{"a log linked to a file outside", func(t *testing.T, study, outside string) InspectOptions {
			out := filepath.Join(study, "inspect")
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "keep"), filepath.Join(out, filepath.Base(first))); err != nil {
				t.Fatal(err)
			}
			return InspectOptions{}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			study, outside := t.TempDir(), t.TempDir()
			if err := os.CopyFS(study, os.DirFS(fixture)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("outside"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Inspect(t.Context(), study, tc.setup(t, study, outside))
			if !errors.Is(err, rooted.ErrLink) {
				t.Errorf("err %v, want a refused link", err)
			}
			ents, _ := os.ReadDir(outside)
			if b, _ := os.ReadFile(filepath.Join(outside, "keep")); len(ents) != 1 || string(b) != "outside" {
				t.Errorf("the outside folder changed: %d entries, keep holds %q", len(ents), b)
			}
		})
	}
}

// TestInspectFileMode: Inspect logs get the mode of every other file of a
// study (os.WriteFile's 0644 under the umask); they were once 0600.
func TestInspectFileMode(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref")
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(ref)
	for _, format := range []string{FormatEval, FormatJSON} {
		t.Run(format, func(t *testing.T) {
			for _, p := range exportFixture(t, format) {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != want.Mode().Perm() {
					t.Errorf("%s: mode %v, want %v", filepath.Base(p), fi.Mode().Perm(), want.Mode().Perm())
				}
			}
		})
	}
}

// TestLogNamesHoldNoControlCharacters: a task name from runs.jsonl with a
// newline or a separator makes a file name of one line in the folder.
func TestLogNamesHoldNoControlCharacters(t *testing.T) {
	for _, in := range []string{"task\nname", "../../x", `a\b`, "t\x1b]0;x\x07"} {
		t.Run(in, func(t *testing.T) {
			got := cleanComponent(in)
			if strings.ContainsAny(got, "/\\\n\x1b\x07") {
				t.Errorf("cleanComponent(%q) = %q", in, got)
			}
		})
	}
}
