package runner

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/study"
	"github.com/killchain/killchain/internal/testenv"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox/local"
)

// keySnoop is an agent that looks for the harness's API keys from its
// shell, in its parent's environment and in every process's, then stops.
type keySnoop struct{}

// snoopCommand prints every environment it can read.
const snoopCommand = `cat /proc/$PPID/environ; for p in /proc/[0-9]*; do tr '\0' '\n' < $p/environ; done 2>/dev/null; env`

func (keySnoop) Generate(_ context.Context, req agent.Request) (agent.Reply, error) {
	for _, m := range req.Messages {
		if m.Role == agent.RoleTool {
			return agent.Reply{Narration: "Nothing more to read.", Stop: agent.StopEnd}, nil
		}
	}
	args, _ := json.Marshal(map[string]string{"command": snoopCommand})
	return agent.Reply{ToolCalls: []agent.ToolCall{{ID: "c1", Name: tools.RunShell, Arguments: string(args)}}, Stop: agent.StopToolUse}, nil
}

// TestHostShellOptIn: the reward-hack study on the local sandbox is refused
// before any run without the opt-in; with it, an agent whose shell reads
// every environment it can finds none of killchain's keys.
func TestHostShellOptIn(t *testing.T) {
	const key = "sk-ant-runner-test-must-not-leak"
	t.Setenv("ANTHROPIC_API_KEY", key)
	s := loadStudy(t, "../hcl/reward_hack.hcl")
	s.Sandbox = "local"
	snoop := func(*study.Model) (agent.Model, error) { return keySnoop{}, nil }
	t.Run("refused without the opt-in", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		r, err := New(s, Options{Output: out, Backend: &local.Backend{Root: t.TempDir()}, Models: snoop})
		if err != nil {
			t.Fatal(err)
		}
		var ce *CapabilityError
		if _, err := r.Run(context.Background()); !errors.As(err, &ce) || len(ce.Tasks) != 5 || !strings.Contains(err.Error(), "--allow-host-shell") {
			t.Fatalf("err = %v, want the five reward-hack tasks refused with the opt-in named", err)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the refused study wrote %s", out)
		}
	})
	t.Run("with it the shell reads no key", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		sel := &study.Selection{Tasks: []string{"reward_rounding"}, Models: []string{"honest"}, Conditions: []string{"plain"}}
		be := &local.Backend{Root: testenv.SharedDir(t), AllowHostShell: true}
		r, err := New(s, Options{Output: out, Backend: be, Models: snoop, Selection: sel})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := r.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if sum.Ran != 1 || sum.Errors != 0 {
			t.Fatalf("ran %d runs, %d errors", sum.Ran, sum.Errors)
		}
		runs := readAll(t, out)
		data, err := os.ReadFile(filepath.Join(out, "transcripts", runs[0].RunID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "PATH=/usr/local/bin:/usr/bin:/bin") {
			t.Fatalf("the snoop's command did not run: %s", data)
		}
		err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), key) {
				t.Errorf("%s holds the API key", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
