package local

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/sandboxtest"
	"github.com/killchain/killchain/internal/testenv"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/toolbox"
)

func shellBackend(t *testing.T) *Backend {
	t.Helper()
	_, err := os.Stat(toolbox.DefaultShell)
	testenv.Need(t, err, toolbox.DefaultShell)
	return &Backend{Root: testenv.SharedDir(t), AllowHostShell: true}
}

func runShell(t *testing.T, sb sandbox.Sandbox, command string) sandbox.Result {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"command": command})
	res, err := sb.Call(context.Background(), "engineer", tools.RunShell, raw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// An agent's shell on this host is refused unless the backend allows it.
func TestHostShellNeedsOptIn(t *testing.T) {
	b := &Backend{Root: t.TempDir()}
	if slices.Contains(b.Capabilities(), sandbox.Shell) {
		t.Fatal("the shell capability without AllowHostShell")
	}
	_, err := b.Open(context.Background(), sandbox.Env{Run: "r", Task: "reward_rounding", Shell: true})
	if !errors.Is(err, sandbox.ErrUnavailable) {
		t.Fatalf("Open with a shell: err = %v, want ErrUnavailable", err)
	}
	if !slices.Contains(shellBackend(t).Capabilities(), sandbox.Shell) {
		t.Error("no shell capability with AllowHostShell")
	}
}

// With the opt-in, a command cannot read killchain's environment (the API
// keys) from /proc, its parent's or any process's, and its own holds only
// what run_shell gives it; as root it runs as nobody.
func TestHostShellCannotReadKillchainEnvironment(t *testing.T) {
	const key = "sk-ant-test-host-shell-must-not-read"
	t.Setenv("ANTHROPIC_API_KEY", key)
	b := shellBackend(t)
	ctx := context.Background()
	sb, err := b.Open(ctx, sandbox.Env{Run: "env", Task: "reward_rounding", Shell: true,
		Files: map[string][]byte{"workspace/a.txt": []byte("a")}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close(ctx)
	how, _ := HostShell()
	t.Logf("run_shell runs %s", how)
	res := runShell(t, sb, `cat /proc/$PPID/environ /proc/`+strconv.Itoa(os.Getpid())+`/environ 2>&1; for p in /proc/[0-9]*; do tr '\0' '\n' < $p/environ 2>/dev/null; done | grep -c ANTHROPIC_API_KEY; id -u; env | sort | tr '\n' ' '`)
	if strings.Contains(res.Output, key) {
		t.Fatalf("the command read the key: %q", res.Output)
	}
	if !strings.Contains(res.Output, "\n0\n") {
		t.Errorf("some process's environment held the key name: %q", res.Output)
	}
	if os.Getuid() == 0 && !strings.Contains(res.Output, "\n"+strconv.Itoa(toolbox.NobodyID)+"\n") {
		t.Errorf("as root, the command did not run as nobody: %q", res.Output)
	}
	if !strings.Contains(res.Output, "LANG=C LC_ALL=C PATH=/usr/local/bin:/usr/bin:/bin PWD=") {
		t.Errorf("environment: %q", res.Output)
	}
}

// The attacks a Docker container and a pod replay (internal/sandboxtest)
// that have a meaning on a host: no process outlives its call, and the
// files a command leaves stay outcomes.
func TestAttacksOnHost(t *testing.T) {
	b := shellBackend(t)
	b.Transcriber = echoTranscriber{}
	open := sandboxtest.OpenerOf(b, "attacks")
	t.Run("processes", func(t *testing.T) { sandboxtest.ProcessAttacks(t, open, 100) })
	t.Run("files", func(t *testing.T) { sandboxtest.FileAttacks(t, open, sandboxtest.FileWant{Transcribe: true}) })
}

// Call honours its context: a command is killed when the context ends, and
// the next call is not kept waiting.
func TestCallHonoursContext(t *testing.T) {
	b := shellBackend(t)
	sb, err := b.Open(context.Background(), sandbox.Env{Run: "ctx", Task: "reward_rounding", Shell: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	raw, _ := json.Marshal(map[string]string{"command": "sleep 20"})
	if _, err := sb.Call(ctx, "engineer", tools.RunShell, raw); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the cancelled call took %s", d)
	}
	if res := runShell(t, sb, "echo next"); !strings.Contains(res.Output, "next") {
		t.Errorf("the next call: %+v", res)
	}
}

// Every run's commands run as the same user (nobody, as root), so a
// command must not find another run's workspace: the run folders cannot
// be listed, and the workspace lies under a name no command can guess.
func TestRunsCannotReachEachOther(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("not root: commands run as this user, who owns every run's folder")
	}
	b := shellBackend(t)
	if err := os.Chmod(b.Root, 0o1777); err != nil { // listable, as the system temp folder
		t.Fatal(err)
	}
	ctx := context.Background()
	env := sandbox.Env{Task: "reward_rounding", Shell: true, Files: map[string][]byte{"workspace/solution.sh": []byte("echo 41\n")}}
	env.Run = "a"
	a, err := b.Open(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	env.Run = "b"
	other, err := b.Open(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	runShell(t, other, "true") // b's workspace is nobody's now
	res := runShell(t, a, `for w in `+b.Root+`/*/*/workspace `+b.Root+`/*/workspace; do echo "echo 42" > "$w/solution.sh" && echo "wrote $w"; done; ls `+b.Root+`/killchain-b-* 2>&1; echo done`)
	if strings.Contains(res.Output, "wrote") {
		t.Errorf("a command reached another run's workspace: %q", res.Output)
	}
	files, err := other.(sandbox.FileReader).Files(ctx, "workspace")
	if err != nil || string(files.Files["workspace/solution.sh"]) != "echo 41\n" {
		t.Errorf("run b's solution = %q, %v", files.Files["workspace/solution.sh"], err)
	}
}

// TestHostShellTmpIsPrivate: a command writes /tmp, /var/tmp and /dev/shm;
// it reads its own files back within its call, no file reaches the host's
// folders, and the next command (of the same run or another) sees none:
// the shared temporary folders are no channel between runs.
func TestHostShellTmpIsPrivate(t *testing.T) {
	b := shellBackend(t)
	ctx := context.Background()
	mark := "kc-private-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	open := func(run string) sandbox.Sandbox {
		sb, err := b.Open(ctx, sandbox.Env{Run: run, Task: "reward_rounding", Shell: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sb.Close(ctx) })
		return sb
	}
	first, second := open("r-writes"), open("r-reads")
	write := "for d in /tmp /var/tmp /dev/shm; do echo secret > $d/" + mark + " && cat $d/" + mark + "; done"
	if res := runShell(t, first, write); strings.Count(res.Output, "secret") != 3 {
		t.Fatalf("the command could not use its temporary folders: %+v", res)
	}
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		if _, err := os.Lstat(d + "/" + mark); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s/%s reached the host (err %v)", d, mark, err)
		}
	}
	for _, sb := range []sandbox.Sandbox{first, second} {
		res := runShell(t, sb, "cat /tmp/"+mark+" /var/tmp/"+mark+" /dev/shm/"+mark+" 2>&1; ls /proc | grep -c '^[0-9]'")
		if strings.Contains(res.Output, "secret") {
			t.Fatalf("a later command read the file: %q", res.Output)
		}
		if n, _ := strconv.Atoi(strings.TrimSpace(res.Output[strings.LastIndex(strings.TrimSpace(res.Output), "\n")+1:])); n > 5 {
			t.Errorf("the command sees %d processes: its /proc is not its own pid namespace's", n)
		}
	}
}
