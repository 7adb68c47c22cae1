package imagebuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/moby/moby/client"

	debianimage "github.com/killchain/killchain/images/debian"
)

// Debian is the registry name of the Debian sandbox image: the toolbox plus
// espeak-ng, pocketsphinx (English), sox, pdftotext and a shell.
const Debian = "debian"

// DebianRepo is the repository the Debian image is tagged in.
const DebianRepo = "killchain/debian"

// The speech helper inside the Debian image and the toolbox argv that use
// it (sandbox/docker Audio.Synthesize and Audio.Transcribe).
const (
	AudioHelperPath = "/usr/local/bin/kcaudio"
	AudioSynthArgv  = AudioHelperPath + " speak {out} {text}"
	AudioASRArgv    = AudioHelperPath + " transcribe {in}"
)

// audioHelperPkg is compiled into AudioHelperPath.
const audioHelperPkg = "./sandbox/audio/cmd/kcaudio"

func init() {
	Register(Image{
		Name: Debian,
		Deps: []string{Toolbox, DebianBase},
		Tag:  debianTag,
		Build: func(ctx context.Context, cli *client.Client, ref string, w io.Writer) error {
			return buildDebian(ctx, cli, ref, w)
		},
	})
}

func debianTag(ctx context.Context) (string, error) {
	base, err := debianBaseTag(ctx)
	if err != nil {
		return "", err
	}
	tb, err := ToolboxBinary(ctx)
	if err != nil {
		return "", err
	}
	helper, err := audioHelperBinary(ctx)
	if err != nil {
		return "", err
	}
	return DebianRepo + ":" + contentHash([]byte(base), debianimage.Dockerfile, []byte(tb.Hash), []byte(helper.Hash)), nil
}

// BuildDebian builds the Debian image (and the base and toolbox it needs)
// when missing and returns its image ID.
func BuildDebian(ctx context.Context, cli *client.Client, progress io.Writer) (string, error) {
	b, err := Ensure(ctx, cli, Debian, progress)
	if err != nil {
		return "", err
	}
	return b.ID, nil
}

func buildDebian(ctx context.Context, cli *client.Client, ref string, w io.Writer) error {
	base, err := debianBaseTag(ctx)
	if err != nil {
		return err
	}
	tb, err := ToolboxBinary(ctx)
	if err != nil {
		return err
	}
	helper, err := audioHelperBinary(ctx)
	if err != nil {
		return err
	}
	tarCtx, err := TarContext(map[string]File{
		"Dockerfile": {Data: debianimage.Dockerfile},
		"toolbox":    {Data: tb.Data, Mode: 0o755},
		"kcaudio":    {Data: helper.Data, Mode: 0o755},
	})
	if err != nil {
		return err
	}
	res, err := cli.ImageBuild(ctx, bytes.NewReader(tarCtx), client.ImageBuildOptions{
		Tags:        []string{ref},
		Labels:      map[string]string{LabelImage: Debian, "killchain.toolbox.sha256": tb.Hash},
		BuildArgs:   map[string]*string{"BASE": &base},
		Remove:      true,
		ForceRemove: true,
		Dockerfile:  "Dockerfile",
	})
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	defer res.Body.Close()
	return readBuildStream(res.Body, w)
}

var (
	helperMu   sync.Mutex
	helperMemo *Binary
)

// audioHelperBinary compiles the kcaudio helper as a static linux binary,
// once per process.
func audioHelperBinary(ctx context.Context) (Binary, error) {
	helperMu.Lock()
	defer helperMu.Unlock()
	if helperMemo != nil {
		return *helperMemo, nil
	}
	src, err := SourceDir()
	if err != nil {
		return Binary{}, err
	}
	tmp, err := os.MkdirTemp("", "killchain-kcaudio-")
	if err != nil {
		return Binary{}, fmt.Errorf("compile kcaudio: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "kcaudio")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", out, audioHelperPkg)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return Binary{}, fmt.Errorf("compile kcaudio: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return Binary{}, fmt.Errorf("compile kcaudio: %w", err)
	}
	sum := sha256.Sum256(data)
	helperMemo = &Binary{Data: data, Hash: hex.EncodeToString(sum[:])}
	return *helperMemo, nil
}
