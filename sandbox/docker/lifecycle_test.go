package docker

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/warm"
	"github.com/killchain/killchain/sandbox/wire"
)

const testURL = "https://news.example.org/quarterly"

func testEnv(study, run string) sandbox.Env {
	return sandbox.Env{
		Study: study,
		Run:   run,
		Task:  "lifecycle_test",
		Files: map[string][]byte{
			"web/" + sandbox.PageFile(testURL): []byte("Quarterly revenue rose 12 percent. SECRET-0A1B2C3D"),
			"db/records.json":                  []byte(`[{"id":"r1","title":"Budget","body":"approved"}]`),
		},
		Memory: []sandbox.Record{sandbox.TextRecord("note", "send the summary to lead@example.org", "")},
	}
}

func testFixtures(ctx context.Context, task string) (map[string][]byte, error) {
	return map[string][]byte{
		"db/records.json":   []byte(`[{"id":"r1","title":"Budget","body":"approved"}]`),
		"web/stale.txt":     []byte("a fixture this run does not have"),
		"docs/manual.txt":   []byte("static"),
		"web/" + "x_y.txt":  []byte("other page"),
		"audio/readme.txt":  []byte("no clips"),
		"state/unused.json": []byte("{}"),
	}, nil
}

func call(t *testing.T, s sandbox.Sandbox, agent, tool string, args map[string]string) sandbox.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := s.Call(context.Background(), agent, tool, raw)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func TestRunLifecycle(t *testing.T) {
	b := newBackend(t, Options{Fixtures: testFixtures})
	study := uniqueStudy(t)
	ctx := context.Background()
	env := testEnv(study, "run-1")
	env.Files["docs/manual.txt"] = []byte("static") // identical to the snapshot's
	sb, err := b.Open(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	s := sb.(*Sandbox)
	defer s.Close(ctx)

	t.Run("hardened", func(t *testing.T) {
		ins, err := b.cli.ContainerInspect(ctx, s.ID(), client.ContainerInspectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hc, cfg := ins.Container.HostConfig, ins.Container.Config
		checks := []struct {
			name string
			ok   bool
			got  any
		}{
			{"network none", hc.NetworkMode == "none", hc.NetworkMode},
			{"cap drop all", len(hc.CapDrop) == 1 && strings.EqualFold(strings.TrimPrefix(hc.CapDrop[0], "CAP_"), "ALL"), hc.CapDrop},
			{"no cap add", len(hc.CapAdd) == 0, hc.CapAdd},
			{"no-new-privileges", len(hc.SecurityOpt) == 1 && strings.HasPrefix(hc.SecurityOpt[0], "no-new-privileges"), hc.SecurityOpt},
			{"read-only root", hc.ReadonlyRootfs, hc.ReadonlyRootfs},
			{"pids limit", hc.PidsLimit != nil && *hc.PidsLimit == DefaultOptions().PidsLimit, hc.PidsLimit},
			{"memory limit", hc.Memory == DefaultOptions().MemoryMB<<20, hc.Memory},
			{"cpu quota", hc.NanoCPUs == 1e9, hc.NanoCPUs},
			{"no host mounts", len(hc.Binds) == 0 && len(hc.Mounts) == 0, hc.Binds},
			{"tmpfs only at state", len(hc.Tmpfs) == 1 && hc.Tmpfs[warm.StateDir] != "", hc.Tmpfs},
			{"non-root user", cfg.User == warm.SandboxUser, cfg.User},
			{"not privileged", !hc.Privileged, hc.Privileged},
			{"run label", cfg.Labels[LabelRun] == "run-1" && cfg.Labels[LabelStudy] == study && cfg.Labels[LabelTask] == "lifecycle_test", cfg.Labels},
		}
		for _, c := range checks {
			if !c.ok {
				t.Errorf("%s: got %v", c.name, c.got)
			}
		}
	})

	t.Run("tools", func(t *testing.T) {
		if got := call(t, s, "a", "get_webpage", map[string]string{"url": testURL}); !strings.Contains(got.Output, "SECRET-0A1B2C3D") {
			t.Errorf("get_webpage = %+v", got)
		}
		if got := call(t, s, "a", "get_webpage", map[string]string{"url": "https://nowhere.example/"}); !strings.Contains(got.Error, "404") {
			t.Errorf("missing page = %+v, want a 404 tool error", got)
		}
		call(t, s, "a", "write_memory", map[string]string{"key": "summary", "value": "revenue up 12%"})
		call(t, s, "a", "send_report", map[string]string{"to": "lead@example.org", "subject": "q", "body": "revenue up 12%"})
		if got := call(t, s, "a", "read_memory", map[string]string{"key": "note"}); !strings.Contains(got.Output, "lead@example.org") {
			t.Errorf("seeded memory = %+v", got)
		}
	})

	t.Run("state", func(t *testing.T) {
		st, err := s.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Outbox) != 1 || st.Outbox[0].To != "lead@example.org" || st.Outbox[0].Agent != "a" {
			t.Errorf("outbox = %+v", st.Outbox)
		}
		if len(st.Memory) != 2 || st.Memory[0].Author != "seed" || st.Memory[1].Author != "a" {
			t.Errorf("memory = %+v", st.Memory)
		}
		if len(st.DB) != 1 || st.DB[0].ID != "r1" {
			t.Errorf("db = %+v", st.DB)
		}
	})

	t.Run("exactly the run's files", func(t *testing.T) {
		if got := call(t, s, "a", "get_webpage", map[string]string{"url": "stale"}); got.Error == "" {
			t.Errorf("a snapshot fixture the run lacks is visible: %+v", got)
		}
		if got := call(t, s, "a", "parse_pdf", map[string]string{"path": "docs/manual.txt"}); strings.Contains(got.Error, "no such document") {
			t.Errorf("a fixture the run shares with the snapshot is missing: %+v", got)
		}
	})

	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Errorf("second close: %v", err)
	}
	if left := studyContainers(t, b.cli, study); len(left) > 0 {
		t.Errorf("containers left behind: %v", left)
	}
	if _, err := s.Call(ctx, "a", "list_memory", nil); err == nil {
		t.Error("call after close succeeded")
	}
}

func TestSnapshotReuse(t *testing.T) {
	b := newBackend(t, Options{Fixtures: testFixtures})
	study := uniqueStudy(t)
	ctx := context.Background()
	var refs []string
	for _, run := range []string{"r1", "r2"} {
		sb, err := b.Open(ctx, testEnv(study, run))
		if err != nil {
			t.Fatal(err)
		}
		sb.Close(ctx)
		refs = append(refs, b.snaps["lifecycle_test\x00toolbox"].ref)
	}
	snaps := b.Snapshots()
	id := snaps["lifecycle_test"]
	if !strings.HasPrefix(id, "sha256:") {
		t.Fatalf("snapshots = %v", snaps)
	}
	ins, err := b.cli.ImageInspect(ctx, refs[0])
	if err != nil {
		t.Fatal(err)
	}
	if ins.ID != id || ins.Config.Labels[LabelTask] != "lifecycle_test" || ins.Config.Labels[LabelSnapshot] == "" {
		t.Errorf("snapshot image %s: id %s labels %v, want id %s", refs[0], ins.ID, ins.Config.Labels, id)
	}

	// A second backend with the same fixtures reuses the image; other
	// fixtures give another one.
	again := newBackend(t, Options{Fixtures: testFixtures})
	sb, err := again.Open(ctx, testEnv(study, "r3"))
	if err != nil {
		t.Fatal(err)
	}
	sb.Close(ctx)
	if got := again.Snapshots()["lifecycle_test"]; got != id {
		t.Errorf("second backend snapshot = %s, want reuse of %s", got, id)
	}
	other := newBackend(t, Options{Fixtures: func(ctx context.Context, task string) (map[string][]byte, error) {
		return map[string][]byte{"db/records.json": []byte(`[]`)}, nil
	}})
	sb, err = other.Open(ctx, testEnv(study, "r4"))
	if err != nil {
		t.Fatal(err)
	}
	sb.Close(ctx)
	if got := other.Snapshots()["lifecycle_test"]; got == id || got == "" {
		t.Errorf("changed fixtures reused snapshot %s", got)
	}
	if left := studyContainers(t, b.cli, study); len(left) > 0 {
		t.Errorf("containers left behind: %v", left)
	}
}

func TestCancelLeavesNothing(t *testing.T) {
	b := newBackend(t, Options{})
	study := uniqueStudy(t)

	t.Run("cancel after open", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		sb, err := b.Open(ctx, testEnv(study, "after"))
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, err := sb.Call(ctx, "a", "list_memory", nil); err == nil {
			t.Error("call on a cancelled context succeeded")
		}
		if err := sb.Close(ctx); err != nil {
			t.Fatalf("close on a cancelled context: %v", err)
		}
	})
	t.Run("cancel during open", func(t *testing.T) {
		for _, delay := range []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond, 60 * time.Millisecond} {
			ctx, cancel := context.WithTimeout(context.Background(), delay)
			sb, err := b.Open(ctx, testEnv(study, "during"))
			cancel()
			if err == nil {
				sb.Close(ctx)
			}
		}
	})
	if left := studyContainers(t, b.cli, study); len(left) > 0 {
		t.Errorf("containers left behind: %v", left)
	}
}

func TestGC(t *testing.T) {
	b := newBackend(t, Options{})
	study := uniqueStudy(t)
	ctx := context.Background()
	for _, run := range []string{"crashed-1", "crashed-2"} {
		if _, err := b.Open(ctx, testEnv(study, run)); err != nil {
			t.Fatal(err)
		}
	}
	if left := studyContainers(t, b.cli, study); len(left) != 2 {
		t.Fatalf("before gc: %v, want 2 containers", left)
	}
	rep, err := GC(ctx, b.cli, GCStudy(study))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Containers) != 2 {
		t.Errorf("gc removed %v, want 2 containers", rep.Containers)
	}
	if left := studyContainers(t, b.cli, study); len(left) > 0 {
		t.Errorf("after gc: %v", left)
	}
}

// TestCloseEndsTheToolbox: closing a sandbox whose toolbox is idle ends its
// stdin and the toolbox exits by itself (status 0), so that removing the
// container kills nothing; one busy with a call past exitWait is killed.
func TestCloseEndsTheToolbox(t *testing.T) {
	b := newBackend(t, Options{})
	study := uniqueStudy(t)
	ctx := context.Background()
	tests := []struct {
		name string
		busy bool
	}{
		{"idle", false},
		{"busy past the wait", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb, err := b.open(ctx, testEnv(study, "close-"+string(rune('a'+i))))
			if err != nil {
				t.Fatal(err)
			}
			defer sb.Close(ctx)
			if tt.busy {
				// Written before the stdin ends: the toolbox reads it
				// first, and its loop is held by it.
				if _, _, err := sb.Conn.Send(wire.Request{Op: wire.OpProbe, Probe: "sleep", Arg: 30}); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			sb.endStdin(ctx)
			took := time.Since(start)
			if tt.busy {
				ins, err := b.cli.ContainerInspect(ctx, sb.id, client.ContainerInspectOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !ins.Container.State.Running || took < exitWait {
					t.Errorf("a busy toolbox: running %v after %v; want still running after %v", ins.Container.State.Running, took, exitWait)
				}
			} else {
				wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				wait := b.cli.ContainerWait(wctx, sb.id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
				select {
				case r := <-wait.Result:
					if r.StatusCode != 0 || took >= exitWait {
						t.Errorf("after endStdin (%v): exit code %d; want the toolbox to exit by itself with 0", took, r.StatusCode)
					}
				case err := <-wait.Error:
					t.Fatal(err)
				}
			}
			if err := sb.Close(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
