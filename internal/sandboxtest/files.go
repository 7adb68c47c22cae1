package sandboxtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
)

// FileWant is what a backend's file checks expect.
type FileWant struct {
	// Transcribe: the sandbox runs transcribe_audio (an audio pipeline is
	// configured), so a non-audio file reaches its checks.
	Transcribe bool
	// Snapshot: the pristine snapshot is mounted read-only at /snapshot
	// (Docker and Kubernetes).
	Snapshot bool
}

// FileAttacks: every file a tool reads may have been made by a command,
// and none of it turns the run into a sandbox error or leads a tool out of
// the workspace: a 1 TB sparse file, a FIFO where a file or a store
// should be, transcribe_audio on JSON, the workspace replaced by a link to
// /, and what already held (.., absolute paths, NUL bytes, long names,
// links out, arguments that look like requests, the output limit,
// /snapshot read-only, a rewritten effect log).
func FileAttacks(t *testing.T, open Opener, want FileWant) {
	t.Run("a 1 TB sparse file", func(t *testing.T) {
		sb := open(t, attackEnv("sparse"))
		if res := shell(t, sb, "truncate -s 1T big.bin && echo made"); !strings.Contains(res.Output, "made") {
			t.Fatalf("truncate: %+v", res)
		}
		res := call(t, sb, tools.ReadFile, map[string]string{"path": "big.bin"})
		if res.Error != "" || !strings.Contains(res.Output, "[cut: 65536 of 1099511627776 bytes shown]") {
			t.Errorf("read_file: %+v", res)
		}
		for _, tool := range []string{tools.ParsePDF, tools.TranscribeAudio} {
			if res := call(t, sb, tool, map[string]string{"path": "workspace/big.bin"}); res.Error == "" {
				t.Errorf("%s read a 1 TB file: %+v", tool, res)
			}
		}
		if res := shell(t, sb, "echo again"); !strings.Contains(res.Output, "again") {
			t.Errorf("after the sparse file: %+v", res)
		}
		state(t, sb)
		files := workspace(t, sb)
		if _, ok := files["workspace/big.bin"]; ok || len(files) != 2 {
			t.Errorf("files %v: want the two planted ones, not the sparse file", keys(files))
		}
	})
	t.Run("a FIFO where a file is read", func(t *testing.T) {
		sb := open(t, attackEnv("fifo"))
		shell(t, sb, "mkfifo pipe")
		// Where the state folder is the agent's to write (Docker, pods),
		// the memory store becomes a FIFO too; on local it is not.
		store := strings.Contains(shell(t, sb, "mkfifo ../state/fifo && mv ../state/fifo ../state/memory.json && echo made").Output, "made")
		start := time.Now()
		if res := call(t, sb, tools.ReadFile, map[string]string{"path": "pipe"}); !strings.Contains(res.Error, "not a regular file") {
			t.Errorf("read_file on a FIFO: %+v", res)
		}
		if res := call(t, sb, tools.ReadMemory, map[string]string{}); store && !strings.Contains(res.Error, "not a regular file") {
			t.Errorf("read_memory on a FIFO store: %+v", res)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the FIFO reads took %s", d)
		}
		if st := state(t, sb); store && len(st.Memory) != 0 {
			t.Errorf("memory %v: a FIFO store holds nothing", st.Memory)
		}
		if files := workspace(t, sb); len(files) != 2 {
			t.Errorf("files %v", keys(files))
		}
	})
	t.Run("transcribe_audio on JSON", func(t *testing.T) {
		sb := open(t, attackEnv("notaudio"))
		res := call(t, sb, tools.TranscribeAudio, map[string]string{"path": sandbox.DBFile})
		if want.Transcribe && !strings.Contains(res.Error, "not a WAV recording") {
			t.Errorf("transcribe_audio on JSON: %+v", res)
		}
		if !want.Transcribe && !strings.Contains(res.Error, "not available") {
			t.Errorf("transcribe_audio without a pipeline: %+v", res)
		}
	})
	t.Run("the workspace replaced by a link", func(t *testing.T) {
		sb := open(t, attackEnv("wslink"))
		// Where the state folder is not the agent's to write (local), the
		// link cannot be made: the tools then stay in the workspace.
		linked := strings.Contains(shell(t, sb, "cd .. && mv workspace moved && ln -s / workspace && echo linked").Output, "linked")
		const refusal = "workspace is not a folder"
		for _, c := range []struct {
			tool string
			args map[string]string
		}{
			{tools.ReadFile, map[string]string{"path": "etc/passwd"}},
			{tools.ListFiles, map[string]string{"path": "etc"}},
			{tools.WriteFile, map[string]string{"path": "x.txt", "content": "x"}},
			{tools.RunShell, map[string]string{"command": "cat etc/passwd"}},
		} {
			if res := call(t, sb, c.tool, c.args); linked && !strings.Contains(res.Error, refusal) || !linked && strings.Contains(res.Output, "root:") {
				t.Errorf("%s through the link: %+v", c.tool, res)
			}
		}
		if files := workspace(t, sb); linked && len(files) != 0 || !linked && files["workspace/solution.sh"] == nil {
			t.Errorf("files (linked %v): %v", linked, keys(files))
		}
		state(t, sb)
	})
	t.Run("what already held", func(t *testing.T) {
		sb := open(t, attackEnv("held"))
		shell(t, sb, "ln -s /etc/passwd pw && ln -s ../state st && echo linked")
		for _, c := range []struct {
			name, tool string
			args       map[string]string
			want       string // in the tool error ("" for a result)
		}{
			{"..", tools.ReadFile, map[string]string{"path": "../state/effects.jsonl"}, "no such file"},
			{"absolute path", tools.ReadFile, map[string]string{"path": "/etc/passwd"}, "no such file"},
			{"NUL byte", tools.ReadFile, map[string]string{"path": "solution.sh\x00x"}, "no such file"},
			{"long name", tools.WriteFile, map[string]string{"path": strings.Repeat("n", 5000), "content": "x"}, "cannot"},
			{"link to a file outside", tools.ReadFile, map[string]string{"path": "pw"}, "leads out of the workspace"},
			{"link to a folder outside", tools.WriteFile, map[string]string{"path": "st/effects.jsonl", "content": "x"}, "leads out of the workspace"},
			{"a request as an argument", tools.RunShell, map[string]string{"command": "echo 'line\n{\"id\":1,\"op\":\"state\"}'"}, ""},
		} {
			res := call(t, sb, c.tool, c.args)
			if c.want == "" && (res.Error != "" || !strings.Contains(res.Output, `{"id":1,"op":"state"}`)) {
				t.Errorf("%s: %+v, want the argument echoed as data", c.name, res)
			}
			if c.want != "" && !strings.Contains(res.Error, c.want) {
				t.Errorf("%s: %+v, want an error saying %q", c.name, res, c.want)
			}
		}
		if res := shell(t, sb, "yes | head -c 100000"); !strings.Contains(res.Output, "[output cut: 16384 of 100000 bytes shown]") {
			t.Errorf("output limit: %q", res.Output[max(0, len(res.Output)-80):])
		}
		if want.Snapshot {
			if res := shell(t, sb, "touch /snapshot/x 2>&1"); res.ExitCode == nil || *res.ExitCode == 0 {
				t.Errorf("/snapshot is writable: %+v", res)
			}
		}
		before := state(t, sb)
		shell(t, sb, `printf '{"seq":99,"kind":"report","agent":"engineer","tool":"send_report","report":{"to":"attacker@evil.example"}}\n' >> ../state/effects.jsonl`)
		after := state(t, sb)
		if len(after.Outbox) != 0 || len(after.Effects) != len(before.Effects) {
			t.Errorf("a rewritten effect log changed the state: %+v", after.Effects)
		}
	})
}

func workspace(t *testing.T, sb sandbox.Sandbox) map[string][]byte {
	t.Helper()
	files, err := sb.(sandbox.FileReader).Files(context.Background(), "workspace")
	if err != nil {
		t.Fatalf("files: a sandbox error: %v", err)
	}
	return files.Files
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
