package images

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

func TestDebianTags(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, repo string
		tag        func(context.Context) (string, error)
	}{
		{name: "base", repo: DebianBaseRepo, tag: debianBaseTag},
		{name: "image", repo: DebianRepo, tag: debianTag},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first, err := tc.tag(ctx)
			if err != nil {
				t.Fatal(err)
			}
			second, err := tc.tag(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if first != second {
				t.Errorf("tag changed without a content change: %s then %s", first, second)
			}
			if !strings.HasPrefix(first, tc.repo+":") || len(first) != len(tc.repo)+1+16 {
				t.Errorf("tag %q is not %s:<16 hex digits>", first, tc.repo)
			}
		})
	}
}

func TestSlimDockerfileInstallsEveryPackage(t *testing.T) {
	df := string(slimDockerfile())
	if !strings.HasPrefix(df, "FROM "+SlimImage+"\n") {
		t.Errorf("Dockerfile does not start FROM %s:\n%s", SlimImage, df)
	}
	for _, p := range DebianPackages {
		if !strings.Contains(df, " "+p) {
			t.Errorf("package %s missing from:\n%s", p, df)
		}
	}
}

// TestBuildDebian builds the Debian image when missing (bootstrapping its
// base where debian:bookworm-slim cannot be pulled) and checks its labels
// and user.
func TestBuildDebian(t *testing.T) {
	cli := dockertest.Require(t)
	if testing.Short() {
		t.Skip("image build in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var progress bytes.Buffer
	start := time.Now()
	id, err := BuildDebian(ctx, cli, &progress)
	t.Logf("progress:\n%s", progress.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("debian image %s ready in %s", id, time.Since(start).Round(time.Second))
	res, err := cli.ImageInspect(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Config.Labels[LabelImage]; got != Debian {
		t.Errorf("label %s = %q, want %q", LabelImage, got, Debian)
	}
	if res.Config.User == "" || strings.HasPrefix(res.Config.User, "0") || res.Config.User == "root" {
		t.Errorf("image user %q is root", res.Config.User)
	}
	t.Logf("size %d MB", res.Size>>20)
}
