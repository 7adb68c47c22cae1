// Package images is the one place that builds killchain's sandbox images,
// offline, through the Docker API (never the docker CLI). Their Dockerfiles,
// the Debian root-filesystem script and the static binaries they copy in
// (the toolbox, the speech helper) are embedded in killchain, and each image
// is tagged by a hash of that content, so an image is built once and reused
// until its content changes, from any folder, without a Go toolchain.
//
// The images are listed in one place (all): the toolbox image, FROM scratch
// around cmd/toolbox; the Debian base (debian:bookworm-slim where it can be
// pulled, else a debootstrapped root filesystem); and the Debian image, the
// toolbox and cmd/kcaudio on that base, for speech and pdftotext.
package images

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// Labels every killchain image carries.
const (
	LabelImage = "killchain.image" // the registry name ("toolbox", "debian", …)
)

// labelToolboxHash is the sha256 of the toolbox binary an image carries.
const labelToolboxHash = "killchain.toolbox.sha256"

// Image is one buildable image.
type Image struct {
	// Name is the registry name, e.g. "toolbox".
	Name string
	// Deps are the names of images that must exist before this one builds.
	Deps []string
	// Tag returns the reference the image carries, e.g.
	// killchain/toolbox:<content hash>. It may do work (compile a binary)
	// but must not touch Docker; equal content gives an equal tag.
	Tag func(ctx context.Context) (string, error)
	// Build builds the image under ref, writing progress to w.
	Build func(ctx context.Context, cli *client.Client, ref string, w io.Writer) error
}

// Built is an image that exists locally.
type Built struct {
	Name string `json:"name"`
	Ref  string `json:"ref"` // repo:tag
	ID   string `json:"id"`  // image ID (sha256:…), the digest recorded in manifests
}

// all is every image killchain builds, in one list.
var all = []Image{toolboxImage, debianBaseImage, debianImage}

// Names lists the images, sorted.
func Names() []string {
	out := make([]string, 0, len(all))
	for _, img := range all {
		out = append(out, img.Name)
	}
	sort.Strings(out)
	return out
}

func lookup(name string) (Image, bool) {
	for _, img := range all {
		if img.Name == name {
			return img, true
		}
	}
	return Image{}, false
}

// NewClient returns a Docker client configured from the environment
// (DOCKER_HOST, …) that negotiates the API version with the daemon.
func NewClient() (*client.Client, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	return cli, nil
}

// EnsureAll builds every registered image that is missing, dependencies
// first, and returns them all by name.
func EnsureAll(ctx context.Context, progress io.Writer) (map[string]Built, error) {
	cli, err := NewClient()
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	out := map[string]Built{}
	for _, n := range Names() {
		if _, err := ensure(ctx, cli, n, progress, out, nil); err != nil {
			return out, err
		}
	}
	return out, nil
}

// Ensure builds one registered image (and its dependencies) when missing.
func Ensure(ctx context.Context, cli *client.Client, name string, progress io.Writer) (Built, error) {
	return ensure(ctx, cli, name, progress, map[string]Built{}, nil)
}

func ensure(ctx context.Context, cli *client.Client, name string, w io.Writer, done map[string]Built, stack []string) (Built, error) {
	if b, ok := done[name]; ok {
		return b, nil
	}
	for _, s := range stack {
		if s == name {
			return Built{}, fmt.Errorf("image %s: dependency cycle %s", name, strings.Join(append(stack, name), " -> "))
		}
	}
	img, ok := lookup(name)
	if !ok {
		return Built{}, fmt.Errorf("image %s: not registered", name)
	}
	for _, d := range img.Deps {
		if _, err := ensure(ctx, cli, d, w, done, append(stack, name)); err != nil {
			return Built{}, err
		}
	}
	if w == nil {
		w = io.Discard
	}
	ref, err := img.Tag(ctx)
	if err != nil {
		return Built{}, fmt.Errorf("image %s: %w", name, err)
	}
	id, err := imageID(ctx, cli, ref)
	if err == nil {
		fmt.Fprintf(w, "image %s: %s is up to date\n", name, ref)
	} else if cerrdefs.IsNotFound(err) {
		fmt.Fprintf(w, "image %s: building %s\n", name, ref)
		if err := img.Build(ctx, cli, ref, w); err != nil {
			return Built{}, fmt.Errorf("image %s: %w", name, err)
		}
		if id, err = imageID(ctx, cli, ref); err != nil {
			return Built{}, fmt.Errorf("image %s: after build: %w", name, err)
		}
		fmt.Fprintf(w, "image %s: built %s (%s)\n", name, ref, shortID(id))
	} else {
		return Built{}, fmt.Errorf("image %s: %w", name, err)
	}
	b := Built{Name: name, Ref: ref, ID: id}
	done[name] = b
	return b, nil
}

func imageID(ctx context.Context, cli *client.Client, ref string) (string, error) {
	res, err := cli.ImageInspect(ctx, ref)
	if err != nil {
		return "", err
	}
	return res.ID, nil
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// buildFiles builds ref from a build context of files (a Dockerfile among
// them) with the Dockerfile's build args set to args.
func buildFiles(ctx context.Context, cli *client.Client, ref, name string, files map[string]File, labels map[string]string, args map[string]*string, w io.Writer) error {
	tarCtx, err := TarContext(files)
	if err != nil {
		return err
	}
	return build(ctx, cli, ref, name, bytes.NewReader(tarCtx), labels, args, w)
}

// build builds ref from a tar build context through the Docker API,
// streaming the builder's output to w. labels are added to the image
// beside killchain.image.
func build(ctx context.Context, cli *client.Client, ref, name string, tarCtx io.Reader, labels map[string]string, args map[string]*string, w io.Writer) error {
	lbl := map[string]string{LabelImage: name}
	for k, v := range labels {
		lbl[k] = v
	}
	res, err := cli.ImageBuild(ctx, tarCtx, client.ImageBuildOptions{
		Tags:        []string{ref},
		Labels:      lbl,
		BuildArgs:   args,
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

// readBuildStream copies the builder's JSON messages to w and returns the
// first error message the builder sent.
func readBuildStream(r io.Reader, w io.Writer) error {
	dec := json.NewDecoder(r)
	for {
		var msg struct {
			Stream      string `json:"stream"`
			Status      string `json:"status"`
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&msg); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("build output: %w", err)
		}
		if msg.Error != "" || msg.ErrorDetail.Message != "" {
			m := msg.ErrorDetail.Message
			if m == "" {
				m = msg.Error
			}
			return fmt.Errorf("build: %s", strings.TrimSpace(m))
		}
		if msg.Stream != "" {
			io.WriteString(w, msg.Stream)
		} else if msg.Status != "" {
			fmt.Fprintln(w, msg.Status)
		}
	}
}
