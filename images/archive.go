package images

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/moby/moby/client"
)

// Save writes the registered images (names, or all when names is empty) to
// a tar archive at path, in the format `docker save` writes, building any
// that are missing first. A CI cache restores them with Load instead of
// rebuilding. The file is written beside path and renamed into place, so a
// cut-off save never leaves a truncated archive.
func Save(ctx context.Context, cli *client.Client, path string, names []string, progress io.Writer) ([]Built, error) {
	if len(names) == 0 {
		names = Names()
	}
	done := map[string]Built{}
	var built []Built
	refs := map[string]bool{}
	var list []string
	for _, n := range names {
		if _, err := ensure(ctx, cli, n, progress, done, nil); err != nil {
			return nil, err
		}
	}
	// Dependencies ensure built are saved too: they are what a rebuild
	// would start from.
	for _, n := range Names() {
		b, ok := done[n]
		if !ok || refs[b.Ref] {
			continue
		}
		refs[b.Ref] = true
		built = append(built, b)
		list = append(list, b.Ref)
	}
	res, err := cli.ImageSave(ctx, list)
	if err != nil {
		return nil, fmt.Errorf("save images: %w", err)
	}
	defer res.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("save images: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("save images: %w", err)
	}
	_, cerr := io.Copy(tmp, res)
	if err := errors.Join(cerr, tmp.Chmod(0o644), tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("save images: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("save images: %w", err)
	}
	return built, nil
}

// Load loads an archive written by Save (or `docker save`) into the Docker
// daemon, copying the daemon's messages ("Loaded image: …") to progress.
func Load(ctx context.Context, cli *client.Client, path string, progress io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("load images: %w", err)
	}
	defer f.Close()
	res, err := cli.ImageLoad(ctx, f, client.ImageLoadWithQuiet(true))
	if err != nil {
		return fmt.Errorf("load images: %w", err)
	}
	defer res.Close()
	if progress == nil {
		progress = io.Discard
	}
	if err := readBuildStream(res, progress); err != nil {
		return fmt.Errorf("load images: %w", err)
	}
	return nil
}
