package images

import (
	"context"
	_ "embed"
	"io"

	"github.com/moby/moby/client"
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

// debianDockerfile is images/debian.Dockerfile.
//
//go:embed debian.Dockerfile
var debianDockerfile []byte

// debianImage is the toolbox and the speech helper on the Debian base.
var debianImage = Image{
	Name:  Debian,
	Deps:  []string{Toolbox, DebianBase},
	Tag:   debianTag,
	Build: buildDebian,
}

// debianInputs is what the Debian image is made of: its base image's tag,
// the toolbox and the speech helper.
type debianInputs struct {
	base    string
	toolbox Binary
	helper  Binary
}

func loadDebianInputs(ctx context.Context) (debianInputs, error) {
	base, err := debianBaseTag(ctx)
	if err != nil {
		return debianInputs{}, err
	}
	tb, err := ToolboxBinary()
	if err != nil {
		return debianInputs{}, err
	}
	helper, err := AudioHelperBinary()
	if err != nil {
		return debianInputs{}, err
	}
	return debianInputs{base: base, toolbox: tb, helper: helper}, nil
}

func debianTag(ctx context.Context) (string, error) {
	in, err := loadDebianInputs(ctx)
	if err != nil {
		return "", err
	}
	return DebianRepo + ":" + contentHash([]byte(in.base), debianDockerfile, []byte(in.toolbox.Hash), []byte(in.helper.Hash)), nil
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
	in, err := loadDebianInputs(ctx)
	if err != nil {
		return err
	}
	return buildFiles(ctx, cli, ref, Debian, map[string]File{
		"Dockerfile": {Data: debianDockerfile},
		"toolbox":    {Data: in.toolbox.Data, Mode: 0o755},
		"kcaudio":    {Data: in.helper.Data, Mode: 0o755},
	}, map[string]string{labelToolboxHash: in.toolbox.Hash}, map[string]*string{"BASE": &in.base}, w)
}
