package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/killchain/killchain/runner"
)

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print killchain's version and the git commit it was built from",
		Long: `version prints the tool's version, the git commit it was built from and the
Go toolchain, as killchain --version does. It reads nothing else.

The commit is the one make build-main stamps into the binary (runner.Commit);
a binary built otherwise reports the commit Go recorded from the checkout
(vcs.revision, "+dirty" when it had changes), or "unknown".`,
		Example: `  killchain version
  killchain --version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(g.stdout, versionString())
			return err
		},
	}
}

// versionString is what --version and version print.
func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	version, commit := versionOf(runner.Version, runner.Commit, bi)
	return fmt.Sprintf("killchain %s (commit %s, %s %s/%s)", version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// versionOf picks the version and commit: what the build stamped, else
// what Go recorded in bi (which may be nil), else "dev" and "unknown".
func versionOf(stampedVersion, stampedCommit string, bi *debug.BuildInfo) (version, commit string) {
	version, commit = stampedVersion, stampedCommit
	if bi != nil && version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	if bi != nil && commit == "" {
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if commit != "" && modified {
			commit += "+dirty"
		}
	}
	if version == "" {
		version = "dev"
	}
	if commit == "" {
		commit = "unknown"
	}
	return version, commit
}
