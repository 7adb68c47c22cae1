package study

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// FuzzParse: no study file makes the decoder panic or hang; every error
// it reports says where in the file it is (a range in the file given), and
// a study it accepts expands into a plan. The seeds are the repository's
// study files and this package's fixtures.
func FuzzParse(f *testing.F) {
	for _, glob := range []string{"../../hcl/*.hcl", "testdata/*.hcl"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range files {
			src, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		s, diags := Parse("fuzz.hcl", src)
		for _, d := range diags {
			if d.Severity != hcl.DiagError {
				continue
			}
			// A file the study names (task_files) reports its own ranges.
			if d.Subject == nil || d.Subject.Filename == "" {
				t.Fatalf("error without a place in the file: %s", d.Error())
			}
		}
		if diags.HasErrors() {
			return
		}
		if s == nil {
			t.Fatal("no study and no error")
		}
		// A plan that cannot be made is an error, never a panic.
		_, _ = s.Plan()
	})
}
