package images

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/moby/moby/client"
)

// Registry names and repositories of the Debian images.
const (
	DebianBase     = "debian-base"
	DebianBaseRepo = "killchain/debian-base"
	// SlimImage is the upstream base used where it is present or can be
	// pulled; otherwise the base is bootstrapped with debootstrap.
	SlimImage = "debian:bookworm-slim"
)

// DebianPackages are installed into the Debian base on either path.
var DebianPackages = []string{"espeak-ng", "pocketsphinx", "pocketsphinx-en-us", "sox", "poppler-utils"}

// pullTimeout bounds the attempt to pull SlimImage on a machine that may
// have no registry access.
const pullTimeout = 45 * time.Second

// rootfsScript is images/debian-rootfs.sh: it makes the bootstrapped root
// filesystem (run as root).
//
//go:embed debian-rootfs.sh
var rootfsScript []byte

// debianBaseImage is debian:bookworm-slim with the packages, or a
// debootstrapped root filesystem with them where nothing can be pulled.
var debianBaseImage = Image{
	Name:  DebianBase,
	Tag:   debianBaseTag,
	Build: buildDebianBase,
}

// debianBaseTag hashes the recipe: the rootfs script, the package list and
// the slim path's Dockerfile.
func debianBaseTag(ctx context.Context) (string, error) {
	return DebianBaseRepo + ":" + contentHash(rootfsScript, []byte(strings.Join(DebianPackages, " ")), slimDockerfile()), nil
}

// slimDockerfile installs the packages on top of SlimImage (needs the
// network inside the build, which a machine that can pull has).
func slimDockerfile() []byte {
	return []byte("FROM " + SlimImage + "\n" +
		"RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends " +
		strings.Join(DebianPackages, " ") + " && apt-get clean && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/*\n")
}

// buildDebianBase builds ref from SlimImage when it is present or can be
// pulled, else from a debootstrapped root filesystem.
func buildDebianBase(ctx context.Context, cli *client.Client, ref string, w io.Writer) error {
	if haveSlim(ctx, cli, w) {
		fmt.Fprintf(w, "debian base: installing %s on %s\n", strings.Join(DebianPackages, " "), SlimImage)
		if err := buildFiles(ctx, cli, ref, DebianBase, map[string]File{"Dockerfile": {Data: slimDockerfile()}}, nil, nil, w); err == nil {
			return nil
		} else {
			fmt.Fprintf(w, "debian base: %v; bootstrapping instead\n", err)
		}
	}
	return bootstrapBase(ctx, cli, ref, w)
}

// haveSlim reports whether SlimImage is present locally or pullable now.
func haveSlim(ctx context.Context, cli *client.Client, w io.Writer) bool {
	if _, err := cli.ImageInspect(ctx, SlimImage); err == nil {
		return true
	}
	fmt.Fprintf(w, "debian base: pulling %s\n", SlimImage)
	pctx, cancel := context.WithTimeout(ctx, pullTimeout)
	defer cancel()
	res, err := cli.ImagePull(pctx, SlimImage, client.ImagePullOptions{})
	if err == nil {
		err = res.Wait(pctx)
		res.Close()
	}
	if err != nil {
		fmt.Fprintf(w, "debian base: cannot pull %s (%v); bootstrapping with debootstrap\n", SlimImage, firstLine(err.Error()))
		return false
	}
	return true
}

// bootstrapBase runs RootfsScript (through sudo -n when not root) and
// imports the root filesystem it writes through the Docker API.
func bootstrapBase(ctx context.Context, cli *client.Client, ref string, w io.Writer) error {
	work, err := os.MkdirTemp("", "killchain-debian-")
	if err != nil {
		return fmt.Errorf("debian base: %w", err)
	}
	defer func() {
		// The rootfs belongs to root; remove it the way it was made.
		if os.Geteuid() == 0 {
			os.RemoveAll(work)
		} else {
			exec.Command("sudo", "-n", "rm", "-rf", work).Run()
		}
	}()
	script := filepath.Join(work, "debian-rootfs.sh")
	if err := os.WriteFile(script, rootfsScript, 0o755); err != nil {
		return fmt.Errorf("debian base: %w", err)
	}
	argv := []string{"bash", script, filepath.Join(work, "out")}
	if os.Geteuid() != 0 {
		argv = append([]string{"sudo", "-n"}, argv...)
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	tail := &tailWriter{}
	cmd.Stdout, cmd.Stderr = io.MultiWriter(w, tail), io.MultiWriter(w, tail)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C")
	if err := cmd.Run(); err != nil {
		return bootstrapError(err, tail.lines(3), os.Geteuid() == 0)
	}
	fmt.Fprintf(w, "debian base: root filesystem made in %s; importing\n", time.Since(start).Round(time.Second))
	f, err := os.Open(filepath.Join(work, "out", "rootfs.tar"))
	if err != nil {
		return fmt.Errorf("debian base: %w", err)
	}
	defer f.Close()
	res, err := cli.ImageImport(ctx, client.ImageImportSource{Source: f, SourceName: "-"}, ref, client.ImageImportOptions{
		Message: "killchain debian base: debootstrap --variant=minbase bookworm + " + strings.Join(DebianPackages, " "),
		Changes: []string{
			"LABEL " + LabelImage + "=" + DebianBase,
			"ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			`CMD ["/bin/bash"]`,
		},
	})
	if err != nil {
		return fmt.Errorf("debian base: import: %w", err)
	}
	defer res.Close()
	return readBuildStream(res, w)
}

// bootstrapError names why the root filesystem could not be made: the
// script's last words (apt-get's own message, a lock it gave up on), and
// the hint about root only to a user who is not root.
func bootstrapError(err error, last []string, root bool) error {
	msg := fmt.Sprintf("debian base: debian-rootfs.sh: %v", err)
	if len(last) > 0 {
		msg += ": " + strings.Join(last, " / ")
	}
	if !root {
		msg += " (it runs as root: run killchain as root or with passwordless sudo)"
	}
	return errors.New(msg)
}

// tailWriter keeps the last few KiB written to it.
type tailWriter struct{ buf []byte }

func (t *tailWriter) Write(p []byte) (int, error) {
	const keep = 4 << 10
	t.buf = append(t.buf, p...)
	if len(t.buf) > keep {
		t.buf = t.buf[len(t.buf)-keep:]
	}
	return len(p), nil
}

// lines returns the last n non-empty lines written.
func (t *tailWriter) lines(n int) []string {
	var out []string
	all := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	for i := len(all) - 1; i >= 0 && len(out) < n; i-- {
		if l := strings.TrimSpace(all[i]); l != "" {
			out = append([]string{l}, out...)
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
