package docker

import (
	"context"
	"strings"
	"testing"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
)

// run_shell runs in the Debian image under the same hardening as every
// run: non-root, no network, a read-only root, only the state folder
// writable, and an empty environment; the workspace comes back with Files.
func TestShellHardening(t *testing.T) {
	b := newBackend(t, Options{ShellImage: images.Debian})
	ctx := context.Background()
	env := sandbox.Env{Study: uniqueStudy(t), Run: "shell", Task: "shell_test", Shell: true,
		Files: map[string][]byte{"workspace/tests/run.sh": []byte("exit 1\n")}}
	s, err := b.Open(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	tests := []struct {
		name, command, want string
		exit                int
	}{
		{"non-root", "id -u", "65534", 0},
		{"no network", "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ' | tr '\\n' ,; echo END", "code: 0\nlo,END", 0},
		{"read-only root", "touch /etc/x 2>&1", "Read-only file system", 1},
		{"no writable tmp outside the state", "touch /tmp/x 2>&1", "Read-only file system", 1},
		{"empty environment", "env | sort | tr '\\n' ' '", "HOME=/work/workspace LANG=C LC_ALL=C PATH=/usr/local/bin:/usr/bin:/bin PWD=/work/workspace TMPDIR=/work/tmp ", 0},
		{"workspace writable", "echo 1 > out.txt && cat out.txt", "1", 0},
		{"scripts run through sh", "sh tests/run.sh", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, s, "engineer", tools.RunShell, map[string]string{"command": tt.command})
			if res.ExitCode == nil || *res.ExitCode != tt.exit || !strings.Contains(res.Output, tt.want) {
				t.Errorf("exit %v output %q; want exit %d and %q", res.ExitCode, res.Output, tt.exit, tt.want)
			}
		})
	}
	files, err := s.(sandbox.FileReader).Files(ctx, "workspace")
	if err != nil {
		t.Fatal(err)
	}
	if string(files.Files["workspace/out.txt"]) != "1\n" || len(files.Files) != 2 {
		t.Errorf("files = %v", files)
	}
	st, err := s.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Effects) != 1 || st.Effects[0].Kind != sandbox.EffectFiles || st.Effects[0].Files[0].Path != "out.txt" {
		t.Errorf("effects = %+v, want the one file the commands added", st.Effects)
	}
}
