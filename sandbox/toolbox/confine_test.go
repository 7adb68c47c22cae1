package toolbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
)

// echoWAV transcribes a recording by returning what follows its header.
type echoWAV struct{}

func (echoWAV) Transcribe(p string) (string, error) {
	data, err := os.ReadFile(p)
	return string(data[min(12, len(data)):]), err
}

// TestTranscribeChecksTheRecording: transcribe_audio hands the transcriber
// only a regular WAV file of bounded size; anything else an agent points it
// at is a tool error, not a transcriber failure.
func TestTranscribeChecksTheRecording(t *testing.T) {
	b := New(t.TempDir(), echoWAV{})
	err := b.Prepare(sandbox.Env{Files: map[string][]byte{
		"audio/clip.wav":  []byte("RIFF\x24\x00\x00\x00WAVEspoken words"),
		"db/records.json": []byte(`[{"id":"R-1"}]`),
	}})
	if err != nil {
		t.Fatal(err)
	}
	syscall.Mkfifo(filepath.Join(b.Dir, "audio", "pipe.wav"), 0o644)
	big, _ := os.Create(filepath.Join(b.Dir, "audio", "big.wav"))
	big.WriteString("RIFF\x24\x00\x00\x00WAVE")
	big.Truncate(1 << 40)
	big.Close()
	tests := []struct{ name, path, want, wantErr string }{
		{"a recording", "audio/clip.wav", "spoken words", ""},
		{"JSON", "db/records.json", "", "not a WAV recording"},
		{"a FIFO", "audio/pipe.wav", "", "not a regular file"},
		{"a terabyte", "audio/big.wav", "", "too large"},
		{"missing", "audio/none.wav", "", "no such recording"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(map[string]string{"path": tt.path})
			r, err := b.Call("a", tools.TranscribeAudio, raw)
			if err != nil {
				t.Fatalf("sandbox error %v", err)
			}
			if r.Output != tt.want || !strings.Contains(r.Error, tt.wantErr) || (tt.wantErr == "") != (r.Error == "") {
				t.Errorf("result %+v; want output %q, error %q", r, tt.want, tt.wantErr)
			}
		})
	}
}

// TestWorkspaceReplacedByALink: after a command swaps the workspace for a
// link to /, the file tools refuse to follow it and Files reads nothing.
func TestWorkspaceReplacedByALink(t *testing.T) {
	b := newWorkspace(t)
	call(t, b, tools.RunShell, map[string]string{"command": "cd .. && mv workspace moved && ln -s / workspace"})
	for _, c := range []struct {
		tool string
		args map[string]string
	}{
		{tools.ReadFile, map[string]string{"path": "etc/passwd"}},
		{tools.WriteFile, map[string]string{"path": "tmp/x", "content": "x"}},
		{tools.ListFiles, map[string]string{"path": "etc"}},
		{tools.RunShell, map[string]string{"command": "echo hi"}},
	} {
		if res := call(t, b, c.tool, c.args); !strings.Contains(res.Error, "the workspace is not a folder any more (it is a symbolic link)") {
			t.Errorf("%s: %+v", c.tool, res)
		}
	}
	files, err := b.Files(WorkspaceDir)
	if err != nil || len(files.Files) != 0 || !slices.Equal(files.Limits, []string{sandbox.LimitNotFolder}) {
		t.Errorf("files = %+v, %v; want none, the workspace not a folder", files, err)
	}
}

// TestCallContextKillsTheCommand: a call whose context ends returns its
// error at once, the command killed, and the next call runs.
func TestCallContextKillsTheCommand(t *testing.T) {
	b := newWorkspace(t)
	b.ShellTimeout = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	raw, _ := json.Marshal(map[string]string{"command": "sleep 30; echo late > late.txt"})
	if _, err := b.CallContext(ctx, "coder", tools.RunShell, raw); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	if res := call(t, b, tools.RunShell, map[string]string{"command": "echo next"}); !strings.Contains(res.Output, "next") {
		t.Errorf("next call: %+v", res)
	}
	// A call waiting for the lock gives up with its context.
	b.acquire(context.Background())
	defer b.release()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if _, err := b.CallContext(ctx2, "coder", tools.ListFiles, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting for the lock: err = %v", err)
	}
}

// TestKillAllOnlyInASandbox: KillAll, which ends every process it may
// signal, refuses to run in a process that is no sandbox's subreaper
// (toolbox serve makes itself one) or that is root.
func TestKillAllOnlyInASandbox(t *testing.T) {
	b := newWorkspace(t)
	b.Confine = Confine{KillAll: true}
	raw, _ := json.Marshal(map[string]string{"command": "true"})
	if _, err := b.Call("coder", tools.RunShell, raw); !errors.Is(err, errSurvivors) || !strings.Contains(err.Error(), "refusing kill(-1)") {
		t.Fatalf("err = %v, want a refusal", err)
	}
}

// TestHostConfine: on this host commands run as HostConfine says; as root,
// as nobody, with setsid no way out of their pid namespace.
func TestHostConfine(t *testing.T) {
	helper, err := images.ToolboxFile()
	if err != nil {
		t.Fatal(err)
	}
	c, how, err := HostConfine(helper)
	if err != nil {
		t.Skip(err)
	}
	t.Logf("commands run %s", how)
	if os.Getuid() != 0 {
		t.Skip("not root: commands run as this user")
	}
	if c.Credential == nil || c.Credential.Uid != NobodyID {
		t.Fatalf("confine %+v, want nobody", c)
	}
	dir, err := os.MkdirTemp("", "killchain-confine-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o711)
	b := New(filepath.Join(dir, "run"), nil)
	if err := b.Prepare(sandbox.Env{Files: map[string][]byte{"workspace/a": []byte("a")}}); err != nil {
		t.Fatal(err)
	}
	b.Confine = c
	res := call(t, b, tools.RunShell, map[string]string{"command": "id -u; echo x > mine; (setsid sleep 3007 &); echo ok"})
	if !strings.Contains(res.Output, "65534\nok") {
		t.Fatalf("output %q", res.Output)
	}
	if c.PidNamespace {
		if procsMatching(t, "sleep 3007") {
			t.Error("a setsid process outlived its pid namespace")
		}
	}
}

// procsMatching reports whether a process's command line holds s.
func procsMatching(t *testing.T, s string) bool {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(strings.ReplaceAll(string(data), "\x00", " "), s) {
			return true
		}
	}
	return false
}
