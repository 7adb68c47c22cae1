package toolbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/testenv"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
)

func newWorkspace(t *testing.T) *Box {
	t.Helper()
	_, err := os.Stat(DefaultShell)
	testenv.Need(t, err, DefaultShell)
	b := New(t.TempDir(), nil)
	b.ShellTimeout = 2 * time.Second
	err = b.Prepare(sandbox.Env{Files: map[string][]byte{
		"workspace/tests/run.sh": []byte("test \"$(sh solution.sh)\" = 42\n"),
		"workspace/solution.sh":  []byte("echo 41\n"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func call(t *testing.T, b *Box, tool string, args map[string]string) sandbox.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := b.Call("coder", tool, raw)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func TestShellTools(t *testing.T) {
	tests := []struct {
		name     string
		tool     string
		args     map[string]string
		want     string // substring of the output
		wantErr  string // substring of the tool error
		exit     int    // wanted exit code; -1: none
		changed  []string
		changeOf string // wanted change of the first changed file
	}{
		{name: "failing tests", tool: tools.RunShell, args: map[string]string{"command": "sh tests/run.sh"}, exit: 1},
		{name: "output and exit code", tool: tools.RunShell, args: map[string]string{"command": "echo hello; exit 3"}, want: "exit code: 3\nhello", exit: 3},
		{name: "file added by a command", tool: tools.RunShell, args: map[string]string{"command": "echo 42 > out.txt"}, exit: 0, changed: []string{"out.txt"}, changeOf: sandbox.FileAdded},
		{name: "file deleted by a command", tool: tools.RunShell, args: map[string]string{"command": "rm tests/run.sh"}, exit: 0, changed: []string{"tests/run.sh"}, changeOf: sandbox.FileDeleted},
		{name: "time limit", tool: tools.RunShell, args: map[string]string{"command": "echo started; sleep 30"}, want: "timed out after 2s", exit: -1},
		{name: "output cut", tool: tools.RunShell, args: map[string]string{"command": "yes | head -c 100000"}, want: "[output cut: 16384 of 100000 bytes shown]", exit: 0},
		{name: "empty environment", tool: tools.RunShell, args: map[string]string{"command": "env | sort"}, want: "LC_ALL=C", exit: 0},
		{name: "empty command", tool: tools.RunShell, args: map[string]string{"command": " "}, wantErr: "command is required", exit: -1},
		{name: "write_file modifies", tool: tools.WriteFile, args: map[string]string{"path": "solution.sh", "content": "echo 42\n"}, want: "wrote 8 bytes", exit: -1, changed: []string{"solution.sh"}, changeOf: sandbox.FileModified},
		{name: "write_file creates folders", tool: tools.WriteFile, args: map[string]string{"path": "a/b/c.txt", "content": "x"}, exit: -1, changed: []string{"a/b/c.txt"}, changeOf: sandbox.FileAdded},
		{name: "write_file escape is contained", tool: tools.WriteFile, args: map[string]string{"path": "../../state/effects.jsonl", "content": "x"}, exit: -1, changed: []string{"state/effects.jsonl"}, changeOf: sandbox.FileAdded},
		{name: "read_file", tool: tools.ReadFile, args: map[string]string{"path": "tests/run.sh"}, want: "sh solution.sh", exit: -1},
		{name: "read_file missing", tool: tools.ReadFile, args: map[string]string{"path": "none.txt"}, wantErr: "no such file", exit: -1},
		{name: "list_files", tool: tools.ListFiles, args: map[string]string{}, want: "solution.sh\t8 bytes\ntests/run.sh", exit: -1},
		{name: "list_files missing folder", tool: tools.ListFiles, args: map[string]string{"path": "nope"}, wantErr: "no such folder", exit: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newWorkspace(t)
			res := call(t, b, tt.tool, tt.args)
			if tt.wantErr != "" {
				if !strings.Contains(res.Error, tt.wantErr) {
					t.Fatalf("error = %q, want %q", res.Error, tt.wantErr)
				}
				return
			}
			if res.Error != "" {
				t.Fatalf("unexpected tool error %q", res.Error)
			}
			if !strings.Contains(res.Output, tt.want) {
				t.Errorf("output = %q, want it to hold %q", res.Output, tt.want)
			}
			switch {
			case tt.exit < 0 && res.ExitCode != nil:
				t.Errorf("exit code = %d, want none", *res.ExitCode)
			case tt.exit >= 0 && (res.ExitCode == nil || *res.ExitCode != tt.exit):
				t.Errorf("exit code = %v, want %d", res.ExitCode, tt.exit)
			}
			var got []string
			if res.Effect != nil {
				if res.Effect.Kind != sandbox.EffectFiles {
					t.Errorf("effect kind = %s, want files", res.Effect.Kind)
				}
				for _, f := range res.Effect.Files {
					got = append(got, f.Path)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.changed, ",") {
				t.Fatalf("changed = %v, want %v", got, tt.changed)
			}
			if len(got) > 0 {
				f := res.Effect.Files[0]
				if f.Change != tt.changeOf {
					t.Errorf("change = %s, want %s", f.Change, tt.changeOf)
				}
				if f.Change != sandbox.FileDeleted && len(f.SHA256) != 64 {
					t.Errorf("sha256 = %q, want a hex digest", f.SHA256)
				}
			}
		})
	}
}

// The effect log the Box returns is its own: a command that rewrites the
// log file cannot forge or erase an effect.
func TestShellCannotRewriteEffectLog(t *testing.T) {
	b := newWorkspace(t)
	call(t, b, tools.WriteFile, map[string]string{"path": "solution.sh", "content": "echo 42\n"})
	forged := `{"seq":9,"kind":"report","agent":"coder","tool":"send_report","report":{"to":"x@y.z"}}`
	res := call(t, b, tools.RunShell, map[string]string{"command": "printf '%s\\n' '" + forged + "' > ../state/effects.jsonl"})
	if res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("rewrite failed: %s", res.Output)
	}
	st, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Effects) != 1 || st.Effects[0].Kind != sandbox.EffectFiles || len(st.Outbox) != 0 {
		t.Fatalf("effects = %+v, want only the write_file effect", st.Effects)
	}
}

func TestShellKillsItsProcessGroup(t *testing.T) {
	b := newWorkspace(t)
	res := call(t, b, tools.RunShell, map[string]string{"command": "(sleep 5; echo late > late.txt) & echo forked"})
	if res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("exit = %v, output %q", res.ExitCode, res.Output)
	}
	time.Sleep(50 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(b.Dir, WorkspaceDir, "late.txt")); err == nil {
		t.Fatal("a background process outlived its command")
	}
}

func TestSymlinkOutOfWorkspaceRefused(t *testing.T) {
	b := newWorkspace(t)
	call(t, b, tools.RunShell, map[string]string{"command": "ln -s ../state link"})
	res := call(t, b, tools.WriteFile, map[string]string{"path": "link/effects.jsonl", "content": "x"})
	if !strings.Contains(res.Error, "leads out of the workspace") {
		t.Fatalf("error = %q, want a refusal", res.Error)
	}
}

func TestFiles(t *testing.T) {
	b := newWorkspace(t)
	call(t, b, tools.WriteFile, map[string]string{"path": "solution.sh", "content": "echo 42\n"})
	files, err := b.Files(WorkspaceDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files.Files) != 2 || string(files.Files["workspace/solution.sh"]) != "echo 42\n" || len(files.Limits) != 0 {
		t.Fatalf("files = %v", files)
	}
}
