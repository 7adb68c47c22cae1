package docker

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox/warm"
)

// containerGone reports whether the container id no longer exists.
func containerGone(t *testing.T, cli *client.Client, id string) bool {
	t.Helper()
	_, err := cli.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
	if err != nil && !cerrdefs.IsNotFound(err) {
		t.Fatal(err)
	}
	return cerrdefs.IsNotFound(err)
}

// poolLabelled counts the containers of study the warm pool started,
// taken by a run or not (labels cannot change).
func poolLabelled(t *testing.T, cli *client.Client, study string) int {
	t.Helper()
	f := client.Filters{}.Add("label", LabelStudy+"="+study).Add("label", LabelPool+"=true")
	list, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

// TestWarmPoolNeverShared opens runs through a warm pool, one after another
// and side by side: each gets a container of its own that no other run
// ever had, planted with its own environment only, removed when it closes;
// the pool's unused containers go when the backend closes.
func TestWarmPoolNeverShared(t *testing.T) {
	const size = 2
	b := newBackend(t, Options{Options: warm.Options{WarmPool: size}, Fixtures: testFixtures})
	study := uniqueStudy(t)
	ctx := context.Background()
	var mu sync.Mutex
	ids := map[string]string{} // container → run
	run := func(t *testing.T, name string) {
		sb, err := b.Open(ctx, testEnv(study, name))
		if err != nil {
			t.Error(err)
			return
		}
		s := sb.(*Sandbox)
		mu.Lock()
		if other, dup := ids[s.ID()]; dup {
			t.Errorf("container %s served %s and %s", shortID(s.ID()), other, name)
		}
		ids[s.ID()] = name
		mu.Unlock()
		// What the run finds is the snapshot and its own planting: no
		// record another run wrote.
		st, err := s.State(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		for _, r := range st.Memory {
			if r.Author != "" && r.Author != "seed" {
				t.Errorf("%s found record %q by %s", name, r.Key, r.Author)
			}
		}
		if _, err := s.Call(ctx, "a", "write_memory", json.RawMessage(fmt.Sprintf(`{"key":"mark","value":%q}`, name))); err != nil {
			t.Error(err)
		}
		if err := s.Close(ctx); err != nil {
			t.Error(err)
		}
		if !containerGone(t, b.cli, s.ID()) {
			t.Errorf("%s: container %s still exists after Close", name, shortID(s.ID()))
		}
	}
	t.Run("one after another", func(t *testing.T) {
		for i := range 4 {
			run(t, fmt.Sprintf("seq-%d", i))
		}
	})
	t.Run("side by side", func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() { run(t, fmt.Sprintf("par-%d", i)) })
		}
		wg.Wait()
	})
	if len(ids) != 10 {
		t.Errorf("%d distinct containers for 10 runs", len(ids))
	}
	t.Run("bounded and removed at the end", func(t *testing.T) {
		if err := b.WarmSettle(ctx); err != nil {
			t.Fatal(err)
		}
		// The runs' containers are gone: what is left is the pool.
		if n, r := poolLabelled(t, b.cli, study), b.WarmReady(); n != size || r != size {
			t.Errorf("%d pool containers exist and %d stand ready, want %d", n, r, size)
		}
		if err := b.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if left := studyContainers(t, b.cli, study); len(left) > 0 {
			t.Errorf("containers left after Close: %v", left)
		}
	})
}

// TestWarmPoolCancel cancels runs while they wait for a warm container and
// while the pool starts more, as Ctrl-C does: the runs fail with the
// cancellation, and closing the backend leaves nothing behind.
func TestWarmPoolCancel(t *testing.T) {
	b := newBackend(t, Options{Options: warm.Options{WarmPool: 3}})
	study := uniqueStudy(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		wg.Go(func() {
			sb, err := b.Open(ctx, testEnv(study, fmt.Sprintf("run-%d", i)))
			if err == nil {
				_, err = sb.State(ctx)
				sb.Close(ctx)
			}
			errs <- err
		})
	}
	time.Sleep(150 * time.Millisecond) // creations under way
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Logf("run ended with %v", err)
	}
	if err := b.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left := studyContainers(t, b.cli, study); len(left) > 0 {
		t.Errorf("containers left after a cancelled study: %v", left)
	}
}

// warmHelperEnv names the study a helper process opens a warm pool for.
const warmHelperEnv = "KILLCHAIN_TEST_WARM_HELPER"

// TestWarmPoolHelperProcess is the process TestWarmPoolGCAfterKill kills: it
// opens a run through a warm pool, says so, and waits to be killed.
func TestWarmPoolHelperProcess(t *testing.T) {
	study := os.Getenv(warmHelperEnv)
	if study == "" {
		t.Skip("helper process of TestWarmPoolGCAfterKill")
	}
	b := newBackend(t, Options{Options: warm.Options{WarmPool: 2}})
	ctx := context.Background()
	sb, err := b.Open(ctx, testEnv(study, "killed-run"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WarmSettle(ctx); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ready %s\n", sb.(*Sandbox).ID())
	select {}
}

// TestWarmPoolGCAfterKill kills (SIGKILL) a process holding a run's
// container and a warm pool: gc removes all it left, taken and warm alike.
func TestWarmPoolGCAfterKill(t *testing.T) {
	cli := requireDocker(t)
	study := uniqueStudy(t)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWarmPoolHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), warmHelperEnv+"="+study)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer GC(context.Background(), cli, GCStudy(study))
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				ready <- id
				return
			}
		}
		close(ready)
	}()
	var taken string
	select {
	case id, ok := <-ready:
		if !ok {
			cmd.Wait()
			t.Fatal("helper ended without opening its run")
		}
		taken = id
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("helper did not get ready")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	left := studyContainers(t, cli, study)
	if len(left) < 3 {
		t.Fatalf("before gc, %d containers of the killed process (want its run's and 2 warm): %v", len(left), left)
	}
	// Every one was started by the pool: the run's (taken) and 2 warm.
	if n := poolLabelled(t, cli, study); n != 3 {
		t.Errorf("%d pool containers left by the killed process, want 3", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := GC(ctx, cli, GCStudy(study))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Containers) != len(left) {
		t.Errorf("gc removed %v, want the %d left", rep.Containers, len(left))
	}
	if !containerGone(t, cli, taken) {
		t.Errorf("the killed run's container %s survived gc", shortID(taken))
	}
	if left := studyContainers(t, cli, study); len(left) > 0 {
		t.Errorf("containers left after gc: %v", left)
	}
}
