package audio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/sandbox/audio"
	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

var runs = flag.Int("recovery-runs", 20, "clips the in-container recovery measurement speaks")

// minRate is the recovery the in-container measurement must reach. It is
// under what is measured (see docs/audio.md) so chance alone
// does not fail it, and far above what a broken pipeline yields (0).
const minRate = 0.8

// TestRecoveryInContainer builds the Debian image when missing and, in a
// container from it (no network, read-only root, non-root, writable /work
// only), speaks fresh canaries with espeak-ng, transcribes them with
// pocketsphinx and reports how often canary.Contains recovers them.
func TestRecoveryInContainer(t *testing.T) {
	cli := dockertest.Require(t)
	if testing.Short() {
		t.Skip("image build and speech measurement in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var progress bytes.Buffer
	start := time.Now()
	b, err := images.Ensure(ctx, cli, images.Debian, &progress)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, tail(progress.String()))
	}
	t.Logf("image %s (%s) ready in %s", b.Ref, b.ID, time.Since(start).Round(time.Second))

	out, err := runIn(ctx, t, cli, b.Ref, []string{images.AudioHelperPath, "measure", "-json", "-n", itoa(*runs)})
	if err != nil {
		t.Fatalf("measure in container: %v\n%s", err, out)
	}
	var r audio.Recovery
	if err := json.Unmarshal(bytes.TrimSpace([]byte(out)), &r); err != nil {
		t.Fatalf("measure output: %v\n%s", err, out)
	}
	for _, tr := range r.Trials {
		t.Logf("recovered=%-5v %s  %q", tr.Recovered, tr.Canary, tr.Transcript)
	}
	t.Logf("in-container recovery: %d of %d (%.0f%%), voice %s, speed %d", r.Recovered, r.Runs, 100*r.Rate, r.Voice, r.Speed)
	if r.Runs != *runs || len(r.Trials) != *runs {
		t.Fatalf("measured %d clips, want %d", len(r.Trials), *runs)
	}
	if r.Rate < minRate {
		t.Errorf("recovery %.2f is below %.2f", r.Rate, minRate)
	}

	// The toolbox's argv run the same way: speak, then transcribe a plain
	// clip; pdftotext is there for the second PDF extractor.
	script := images.AudioHelperPath + " speak /work/a.wav Hello from the sandbox. && " +
		images.AudioHelperPath + " transcribe /work/a.wav && pdftotext -v 2>&1"
	out, err = runIn(ctx, t, cli, b.Ref, []string{"/bin/sh", "-c", script})
	if err != nil {
		t.Fatalf("speak and transcribe: %v\n%s", err, out)
	}
	if !strings.Contains(out, audio.SpelledPrefix) || !strings.Contains(out, "pdftotext version") {
		t.Errorf("unexpected output:\n%s", out)
	}
}

// runIn runs cmd in a fresh, hardened container of image and returns its
// output; the container is removed.
func runIn(ctx context.Context, t *testing.T, cli *client.Client, image string, cmd []string) (string, error) {
	t.Helper()
	res, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{
			Image:      image,
			Entrypoint: cmd[:1],
			Cmd:        cmd[1:],
			User:       "65534:65534",
			Env:        []string{"HOME=/work", "PATH=/usr/local/bin:/usr/bin:/bin"},
			Labels:     map[string]string{"killchain.test": "sandbox/audio"},
		},
		HostConfig: &container.HostConfig{
			NetworkMode:    "none",
			ReadonlyRootfs: true,
			CapDrop:        []string{"ALL"},
			SecurityOpt:    []string{"no-new-privileges"},
			Tmpfs:          map[string]string{"/work": "rw,nosuid,nodev,size=64m,uid=65534,gid=65534,mode=0700"},
			Resources:      container.Resources{Memory: 512 << 20},
		},
	})
	if err != nil {
		return "", err
	}
	defer cli.ContainerRemove(context.Background(), res.ID, client.ContainerRemoveOptions{Force: true})
	if _, err := cli.ContainerStart(ctx, res.ID, client.ContainerStartOptions{}); err != nil {
		return "", err
	}
	wait := cli.ContainerWait(ctx, res.ID, client.ContainerWaitOptions{})
	var code int64
	select {
	case w := <-wait.Result:
		code = w.StatusCode
	case err := <-wait.Error:
		return "", err
	}
	logs, err := cli.ContainerLogs(ctx, res.ID, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return "", err
	}
	defer logs.Close()
	var stdout, stderr bytes.Buffer
	if _, err := stdcopy.StdCopy(&stdout, &stderr, logs); err != nil {
		return "", err
	}
	if code != 0 {
		return stdout.String() + stderr.String(), &exitError{code}
	}
	if stderr.Len() > 0 {
		t.Logf("stderr: %s", tail(stderr.String()))
	}
	return stdout.String(), nil
}

type exitError struct{ code int64 }

func (e *exitError) Error() string { return "exit status " + itoa(int(e.code)) }

func itoa(n int) string { return strconv.Itoa(n) }

func tail(s string) string {
	if len(s) > 4000 {
		return s[len(s)-4000:]
	}
	return s
}
