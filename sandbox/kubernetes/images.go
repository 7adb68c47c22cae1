package kubernetes

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/moby/moby/api/types/registry"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/sandbox/warm"
)

// PodImage returns the reference pods start a snapshot from, moving the
// image to the nodes once per snapshot (and backend): pushed to the registry
// and pinned by digest, or imported by the import command and named by tag.
func (b *Backend) PodImage(ctx context.Context, p warm.Prepared) (string, error) {
	b.mu.Lock()
	ref, ok := b.pushed[p.ImageID]
	b.mu.Unlock()
	if ok {
		return ref, nil
	}
	v, err, _ := b.images.Do(p.ImageID, func() (any, error) {
		var ref string
		var err error
		switch b.opts.Images {
		case ImagesImport:
			ref, err = b.importImage(ctx, p.Image)
		default:
			ref, err = b.pushImage(ctx, p.Image)
		}
		if err != nil {
			return "", err
		}
		b.mu.Lock()
		b.pushed[p.ImageID] = ref
		b.mu.Unlock()
		return ref, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// RegistryRef is the name a snapshot image is pushed under in registry.
func RegistryRef(registry, snapshot string) string {
	return strings.TrimSuffix(registry, "/") + "/" + strings.TrimPrefix(snapshot, "killchain/")
}

// pushImage tags the snapshot under the registry, has the Docker daemon push
// it, and returns it by digest (repo@sha256:…), so every pod of the study
// runs the very image that was built.
func (b *Backend) pushImage(ctx context.Context, snapshot string) (string, error) {
	cli := b.opts.Docker.Client()
	target := RegistryRef(b.opts.Registry, snapshot)
	if _, err := cli.ImageTag(ctx, client.ImageTagOptions{Source: snapshot, Target: target}); err != nil {
		return "", fmt.Errorf("tag %s: %w", target, err)
	}
	auth, err := registryAuth(registryHost(b.opts.Registry))
	if err != nil {
		return "", err
	}
	resp, err := cli.ImagePush(ctx, target, client.ImagePushOptions{RegistryAuth: auth})
	if err != nil {
		return "", fmt.Errorf("push %s: %w", target, err)
	}
	err = resp.Wait(ctx)
	resp.Close()
	if err != nil {
		return "", fmt.Errorf("push %s: %w", target, err)
	}
	ins, err := cli.ImageInspect(ctx, target)
	if err != nil {
		return "", fmt.Errorf("inspect %s: %w", target, err)
	}
	repo := target[:strings.LastIndex(target, ":")] // the tag follows the last slash
	for _, d := range ins.RepoDigests {
		if strings.HasPrefix(d, repo+"@") {
			b.log.Info("snapshot pushed", "image", d)
			return d, nil
		}
	}
	return "", fmt.Errorf("push %s: the registry gave no digest (repo digests %v)", target, ins.RepoDigests)
}

// importImage saves the snapshot image (docker save) into the import
// command's stdin and returns its tag: pods start from it without pulling.
func (b *Backend) importImage(ctx context.Context, snapshot string) (string, error) {
	cli := b.opts.Docker.Client()
	rc, err := cli.ImageSave(ctx, []string{snapshot})
	if err != nil {
		return "", fmt.Errorf("save %s: %w", snapshot, err)
	}
	defer rc.Close()
	cmd := exec.CommandContext(ctx, "sh", "-c", b.opts.ImportCommand)
	cmd.Stdin = rc
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("import %s with %q: %w: %s", snapshot, b.opts.ImportCommand, err, strings.TrimSpace(out.String()))
	}
	b.log.Info("snapshot imported", "image", snapshot)
	// containerd names an image without a registry under docker.io/.
	return "docker.io/" + snapshot, nil
}

// registryHost is the host[:port] part of a repository prefix.
func registryHost(repo string) string {
	host, _, _ := strings.Cut(repo, "/")
	return host
}

// noAuth is an empty X-Registry-Auth value ({}), which the daemon needs
// even for a registry without authentication.
var noAuth = base64.URLEncoding.EncodeToString([]byte("{}"))

// registryAuth is the X-Registry-Auth value for host from the Docker
// client's config file (DOCKER_CONFIG or ~/.docker/config.json, plain
// "auth" entries): noAuth when none is stored.
func registryAuth(host string) (string, error) {
	dir := os.Getenv("DOCKER_CONFIG")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".docker")
	}
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return noAuth, nil
	}
	var cfg struct {
		Auths map[string]struct {
			Auth string `json:"auth"`
		} `json:"auths"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return "", fmt.Errorf("docker config %s: %w", filepath.Join(dir, "config.json"), err)
	}
	entry, ok := cfg.Auths[host]
	if !ok || entry.Auth == "" {
		return noAuth, nil
	}
	raw, err := base64.StdEncoding.DecodeString(entry.Auth)
	if err != nil {
		return "", fmt.Errorf("docker config: auth for %s: %w", host, err)
	}
	user, pass, _ := strings.Cut(string(raw), ":")
	enc, err := json.Marshal(registry.AuthConfig{Username: user, Password: pass, ServerAddress: host})
	if err != nil {
		return "", err
	}
	return base64.URLEncoding.EncodeToString(enc), nil
}
