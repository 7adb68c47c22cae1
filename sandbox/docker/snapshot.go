package docker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/killchain/killchain/images"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/toolbox"
	"github.com/killchain/killchain/sandbox/warm"
)

// SnapshotRepo is the repository snapshot images are tagged in.
const SnapshotRepo = "killchain/snapshot"

// snapshot is a task's committed, prepared environment.
type snapshot struct {
	task string
	ref  string // killchain/snapshot:<task>-<hash>
	id   string // image ID
	// fixtures maps each fixture path to the sha256 of its content: what
	// /snapshot holds beside the files Prepare generates.
	fixtures map[string]string
}

// diff returns the part of env that differs from the snapshot (files to
// plant, plus memory and speech, which are always per run) and the fixture
// paths the run does not have, so the run sees exactly its environment.
func (s *snapshot) diff(env sandbox.Env) (sandbox.Env, []string) {
	plant := env
	plant.Files = map[string][]byte{}
	for p, data := range env.Files {
		if s.fixtures[p] != sum(data) {
			plant.Files[p] = data
		}
	}
	var remove []string
	for p := range s.fixtures {
		if _, ok := env.Files[p]; !ok {
			remove = append(remove, p)
		}
	}
	sort.Strings(remove)
	return plant, remove
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// Snapshots returns the snapshot image ID of every task opened so far, for
// the study's manifest.
func (b *Backend) Snapshots() map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]string{}
	for _, s := range b.snaps {
		out[s.task] = s.id
	}
	return out
}

// snapshot returns the task's snapshot on base, building it once per
// backend: concurrent runs of the task share one build (singleflight), each
// waiting as long as its own ctx allows. A failed build is not kept, so a
// later run tries again.
func (b *Backend) snapshot(ctx context.Context, task, base string) (*snapshot, error) {
	key := task + "\x00" + base
	b.mu.Lock()
	s, ok := b.snaps[key]
	b.mu.Unlock()
	if ok {
		return s, nil
	}
	ch := b.snapBuilds.DoChan(key, func() (any, error) {
		b.mu.Lock()
		s, ok := b.snaps[key] // built by a flight that just ended
		b.mu.Unlock()
		if ok {
			return s, nil
		}
		s = &snapshot{task: task}
		if err := b.buildSnapshot(ctx, s, base); err != nil {
			return nil, err
		}
		b.mu.Lock()
		b.snaps[key] = s
		b.mu.Unlock()
		return s, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*snapshot), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// baseImage ensures the base image (toolbox or the audio image) exists.
func (b *Backend) baseImage(ctx context.Context, name string) (images.Built, error) {
	b.mu.Lock()
	bi, ok := b.bases[name]
	b.mu.Unlock()
	if ok {
		return bi, nil
	}
	bi, err := images.Ensure(ctx, b.cli, name, b.opts.Progress)
	if err != nil {
		return bi, err
	}
	b.mu.Lock()
	b.bases[name] = bi
	b.mu.Unlock()
	return bi, nil
}

// buildSnapshot prepares the task's fixtures with the toolbox code on the
// host, hashes them with the task name and the base image ID, and commits
// them under /snapshot in a container of the base image when no image with
// that hash exists yet. The container is never started.
func (b *Backend) buildSnapshot(ctx context.Context, s *snapshot, base string) error {
	bi, err := b.baseImage(ctx, base)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", s.task, err)
	}
	var fixtures map[string][]byte
	if b.opts.Fixtures != nil {
		if fixtures, err = b.opts.Fixtures(ctx, s.task); err != nil {
			return fmt.Errorf("snapshot %s: fixtures: %w", s.task, err)
		}
	}
	files, err := preparedFiles(fixtures)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", s.task, err)
	}
	s.fixtures = map[string]string{}
	for p, data := range fixtures {
		s.fixtures[p] = sum(data)
	}
	hash := snapshotHash(s.task, bi.ID, files)
	s.ref = SnapshotRepo + ":" + tagSafe(s.task) + "-" + hash
	log := b.log.With("task", s.task, "snapshot", s.ref)
	if ins, err := b.cli.ImageInspect(ctx, s.ref); err == nil {
		s.id = ins.ID
		log.Debug("snapshot reused", "id", shortID(s.id))
		return nil
	} else if !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("snapshot %s: %w", s.task, err)
	}
	entries := map[string]images.File{}
	for p, data := range files {
		entries[strings.TrimPrefix(warm.PristineDir, "/")+"/"+p] = images.File{Data: data}
	}
	archive, err := images.TarContext(entries)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", s.task, err)
	}
	name := containerName("snapshot-" + s.task)
	created, err := b.cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name:       name,
		Config:     &container.Config{Image: bi.Ref, Labels: map[string]string{LabelRun: "snapshot", LabelTask: s.task}},
		HostConfig: &container.HostConfig{NetworkMode: "none"},
	})
	if err != nil {
		b.removeByName(ctx, name)
		return fmt.Errorf("snapshot %s: create: %w", s.task, err)
	}
	defer b.remove(ctx, created.ID)
	if _, err := b.cli.CopyToContainer(ctx, created.ID, client.CopyToContainerOptions{DestinationPath: "/", Content: bytes.NewReader(archive)}); err != nil {
		return fmt.Errorf("snapshot %s: copy: %w", s.task, err)
	}
	committed, err := b.cli.ContainerCommit(ctx, created.ID, client.ContainerCommitOptions{
		Reference: s.ref,
		Comment:   "killchain snapshot of task " + s.task,
		Changes:   []string{"LABEL " + LabelTask + "=" + s.task, "LABEL " + LabelSnapshot + "=" + hash},
	})
	if err != nil {
		return fmt.Errorf("snapshot %s: commit: %w", s.task, err)
	}
	s.id = committed.ID
	log.Info("snapshot committed", "id", shortID(s.id), "files", len(files))
	return nil
}

// preparedFiles lays fixtures into a temporary state folder with the same
// toolbox code the sandbox runs, and returns every file it produced.
func preparedFiles(fixtures map[string][]byte) (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "killchain-snapshot-")
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := toolbox.New(dir, nil).Prepare(sandbox.Env{Files: fixtures}); err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	out := map[string][]byte{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	return out, nil
}

// snapshotHash hashes the task name, the base image ID and the prepared
// files (path and content, in order).
func snapshotHash(task, baseID string, files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	fmt.Fprintf(h, "task=%s\nbase=%s\n", task, baseID)
	for _, n := range names {
		fmt.Fprintf(h, "%s %s\n", n, sum(files[n]))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// tagSafe maps a task name onto the characters a tag allows.
func tagSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			return r
		}
		return '_'
	}, s)
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}
