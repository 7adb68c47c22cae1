package images

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/moby/moby/client"
)

// Toolbox is the registry name of the toolbox image.
const Toolbox = "toolbox"

// ToolboxRepo is the repository the toolbox image is tagged in.
const ToolboxRepo = "killchain/toolbox"

// toolboxDockerfile is images/toolbox.Dockerfile.
//
//go:embed toolbox.Dockerfile
var toolboxDockerfile []byte

// toolboxImage is built FROM scratch around the embedded toolbox binary.
var toolboxImage = Image{
	Name: Toolbox,
	Tag: func(ctx context.Context) (string, error) {
		bin, err := ToolboxBinary()
		if err != nil {
			return "", err
		}
		return ToolboxRepo + ":" + contentHash(bin.Data, toolboxDockerfile), nil
	},
	Build: buildToolbox,
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
	bin, err := ToolboxBinary()
	if err != nil {
		return err
	}
	return buildFiles(ctx, cli, ref, Toolbox, map[string]File{
		"Dockerfile": {Data: toolboxDockerfile},
		"toolbox":    {Data: bin.Data, Mode: 0o755},
	}, map[string]string{labelToolboxHash: bin.Hash}, nil, w)
}
