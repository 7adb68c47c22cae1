package imagebuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/moby/moby/client"

	toolboximage "github.com/killchain/killchain/images/toolbox"
)

// Toolbox is the registry name of the toolbox image.
const Toolbox = "toolbox"

// ToolboxRepo is the repository the toolbox image is tagged in.
const ToolboxRepo = "killchain/toolbox"

// modulePath is the module whose cmd/toolbox is compiled.
const modulePath = "github.com/killchain/killchain"

// SourceEnv names the environment variable that points at the killchain
// source tree when the current folder is not inside it.
const SourceEnv = "KILLCHAIN_SRC"

func init() {
	Register(Image{
		Name: Toolbox,
		Tag: func(ctx context.Context) (string, error) {
			bin, err := ToolboxBinary(ctx)
			if err != nil {
				return "", err
			}
			return ToolboxRepo + ":" + contentHash(bin.Data, toolboximage.Dockerfile), nil
		},
		Build: buildToolbox,
	})
}

// Binary is the compiled static toolbox.
type Binary struct {
	Data []byte
	Hash string // sha256 of Data, hex
}

var (
	binMu   sync.Mutex
	binMemo *Binary
)

// ToolboxBinary compiles cmd/toolbox as a static linux binary
// (CGO_ENABLED=0, -trimpath) with the go toolchain, once per process. Other
// images copy it in to serve the same protocol.
func ToolboxBinary(ctx context.Context) (Binary, error) {
	binMu.Lock()
	defer binMu.Unlock()
	if binMemo != nil {
		return *binMemo, nil
	}
	src, err := SourceDir()
	if err != nil {
		return Binary{}, err
	}
	tmp, err := os.MkdirTemp("", "killchain-toolbox-")
	if err != nil {
		return Binary{}, fmt.Errorf("compile toolbox: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "toolbox")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", out, "./cmd/toolbox")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return Binary{}, fmt.Errorf("compile toolbox: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return Binary{}, fmt.Errorf("compile toolbox: %w", err)
	}
	sum := sha256.Sum256(data)
	binMemo = &Binary{Data: data, Hash: hex.EncodeToString(sum[:])}
	return *binMemo, nil
}

// SourceDir finds the killchain source tree: $KILLCHAIN_SRC, else the
// nearest folder above the current one whose go.mod declares the module.
func SourceDir() (string, error) {
	if d := os.Getenv(SourceEnv); d != "" {
		return d, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find source: %w", err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(data, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find source: not inside the killchain source tree; set " + SourceEnv)
		}
		dir = parent
	}
}

// contentHash is the first 16 hex digits of the sha256 of parts.
func contentHash(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func buildToolbox(ctx context.Context, cli *client.Client, ref string, w io.Writer) error {
	bin, err := ToolboxBinary(ctx)
	if err != nil {
		return err
	}
	tarCtx, err := TarContext(map[string]File{
		"Dockerfile": {Data: toolboximage.Dockerfile},
		"toolbox":    {Data: bin.Data, Mode: 0o755},
	})
	if err != nil {
		return err
	}
	return BuildContext(ctx, cli, ref, Toolbox, bytes.NewReader(tarCtx), map[string]string{"killchain.toolbox.sha256": bin.Hash}, w)
}
