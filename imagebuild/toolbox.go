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
	"path/filepath"

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

// toolboxBin is cmd/toolbox, compiled once per process.
var toolboxBin = staticBinary{name: "toolbox", pkg: "./cmd/toolbox"}

// ToolboxBinary compiles cmd/toolbox as a static linux binary
// (CGO_ENABLED=0, -trimpath) with the go toolchain, once per process. Other
// images copy it in to serve the same protocol.
func ToolboxBinary(ctx context.Context) (Binary, error) {
	return toolboxBin.get(ctx)
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
	return buildFiles(ctx, cli, ref, Toolbox, map[string]File{
		"Dockerfile": {Data: toolboximage.Dockerfile},
		"toolbox":    {Data: bin.Data, Mode: 0o755},
	}, map[string]string{labelToolboxHash: bin.Hash}, nil, w)
}
