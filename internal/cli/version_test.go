package cli

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/killchain/killchain/runner"
)

func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
		bi.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
		return bi
	}
	tests := []struct {
		name             string
		version, commit  string // stamped
		bi               *debug.BuildInfo
		wantVer, wantCom string
	}{
		{"stamped", "", "0123abc", vcs("fedc987", "false"), "dev", "0123abc"},
		{"stamped dirty", "v1.2.0", "0123abc+dirty", nil, "v1.2.0", "0123abc+dirty"},
		{"from vcs", "", "", vcs("fedc987", "false"), "dev", "fedc987"},
		{"from vcs, modified", "", "", vcs("fedc987", "true"), "dev", "fedc987+dirty"},
		{"module version", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.1"}}, "v0.3.1", "unknown"},
		{"nothing", "", "", nil, "dev", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, c := versionOf(tt.version, tt.commit, tt.bi)
			if v != tt.wantVer || c != tt.wantCom {
				t.Errorf("versionOf = %q, %q; want %q, %q", v, c, tt.wantVer, tt.wantCom)
			}
		})
	}
}

// TestVersion: --version and version print the same line, with the
// commit the build stamped.
func TestVersion(t *testing.T) {
	old := runner.Commit
	runner.Commit = "d8a796e0c0ffee"
	t.Cleanup(func() { runner.Commit = old })
	var outs []string
	for _, args := range [][]string{{"--version"}, {"version"}, {"-v"}} {
		code, stdout, stderr := killchain(args...)
		if code != exitOK || stderr != "" {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		if !strings.HasPrefix(stdout, "killchain ") || !strings.Contains(stdout, "(commit d8a796e0c0ffee, go") {
			t.Errorf("%v printed %q", args, stdout)
		}
		outs = append(outs, stdout)
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Errorf("the version lines differ: %q", outs)
	}
}
