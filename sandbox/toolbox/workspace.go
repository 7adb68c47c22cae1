package toolbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/killchain/killchain/sandbox"
)

// The file tools (list_files, read_file, write_file), the scans that find
// what a call changed, and Files all start from the workspace folder. The
// agent's commands may have replaced it with a link, so each first checks
// it is still a folder of its own, and none follows a link out of it.

// errNoWorkspace is the tool error when the workspace is not a folder.
func (b *Box) errNoWorkspace(fi fs.FileInfo) error {
	return userErr("the workspace is not a folder any more (it is %s): the file tools and run_shell need it back", kindOf(fi.Mode()))
}

// workspace returns the workspace folder, made when missing. One that is
// not a folder (a link, a file) is a tool error.
func (b *Box) workspace() (string, error) {
	ws := filepath.Join(b.Dir, WorkspaceDir)
	fi, err := os.Lstat(ws)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(ws, 0o755); err != nil {
			return "", err
		}
		return ws, nil
	}
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", b.errNoWorkspace(fi)
	}
	return ws, nil
}

// wsPath resolves a path relative to the workspace, refusing escapes:
// through "..", and through a symbolic link that leads out of it.
func (b *Box) wsPath(rel string) (string, error) {
	ws, err := b.workspace()
	if err != nil {
		return "", err
	}
	clean := path.Clean("/" + strings.TrimSpace(rel))
	p := filepath.Join(ws, filepath.FromSlash(clean[1:]))
	// Resolve the deepest folder that exists and check it stays inside.
	dir := p
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			rws, werr := filepath.EvalSymlinks(ws)
			if werr != nil {
				return "", werr
			}
			if real != rws && !strings.HasPrefix(real, rws+string(filepath.Separator)) {
				return "", userErr("path %q leads out of the workspace", rel)
			}
			break
		}
		if dir == ws || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		dir = filepath.Dir(dir)
	}
	return p, nil
}

// fileSum is what a scan records of one file.
type fileSum struct {
	sum  string
	size int64
}

// scanned is a workspace scan: each file's sum by workspace-relative slash
// path, and whether the scan stopped at maxScanFiles.
type scanned struct {
	files map[string]fileSum
	cut   bool
}

// scan sums every file under the workspace, keyed by workspace-relative
// slash path: a regular file by its content's sha256 (one over maxHashed
// by its size and modification time, unread), a link by its target, any
// other file by its type. A workspace that is no longer a folder holds
// nothing.
func (b *Box) scan() (scanned, error) {
	ws := filepath.Join(b.Dir, WorkspaceDir)
	out := scanned{files: map[string]fileSum{}}
	if fi, err := os.Lstat(ws); err != nil || !fi.IsDir() {
		return out, nil
	}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == ws && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			if errors.Is(err, fs.ErrPermission) {
				return nil // a folder the command made unreadable: its files are not seen
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		if len(out.files) >= maxScanFiles {
			out.cut = true
			return fs.SkipAll
		}
		rel, err := filepath.Rel(ws, p)
		if err != nil {
			return err
		}
		sum, err := sumOf(p, d)
		if err != nil {
			return err
		}
		out.files[filepath.ToSlash(rel)] = sum
		return nil
	})
	return out, err
}

// sumOf sums one file a scan met.
func sumOf(p string, d fs.DirEntry) (fileSum, error) {
	switch t := d.Type(); {
	case t&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return fileSum{}, err
		}
		return fileSum{sum: hashOf([]byte("symlink:" + target)), size: int64(len(target))}, nil
	case !t.IsRegular():
		return fileSum{sum: hashOf([]byte("special:" + t.String()))}, nil
	}
	f, fi, err := openRegular(p)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fileSum{sum: "unreadable"}, nil
	case errors.Is(err, errNotRegular), errors.Is(err, fs.ErrNotExist):
		return fileSum{sum: hashOf([]byte("special:changed"))}, nil
	case err != nil:
		return fileSum{}, err
	}
	defer f.Close()
	if fi.Size() > maxHashed {
		id := fmt.Sprintf("large:%d:%d", fi.Size(), fi.ModTime().UnixNano())
		return fileSum{sum: hashOf([]byte(id)), size: fi.Size()}, nil
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxHashed))
	if err != nil {
		return fileSum{}, err
	}
	return fileSum{sum: hex.EncodeToString(h.Sum(nil)), size: n}, nil
}

func hashOf(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// changes lists what differs between two scans, by path. When either scan
// stopped at maxScanFiles, a path missing from one of them proves nothing,
// so no deletion is listed.
func changes(before, after scanned) []sandbox.FileChange {
	var out []sandbox.FileChange
	for p, a := range after.files {
		b, ok := before.files[p]
		switch {
		case !ok && !before.cut:
			out = append(out, sandbox.FileChange{Path: p, Change: sandbox.FileAdded, SHA256: a.sum, Size: a.size})
		case ok && b != a:
			out = append(out, sandbox.FileChange{Path: p, Change: sandbox.FileModified, SHA256: a.sum, Size: a.size})
		}
	}
	if !before.cut && !after.cut {
		for p := range before.files {
			if _, ok := after.files[p]; !ok {
				out = append(out, sandbox.FileChange{Path: p, Change: sandbox.FileDeleted})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// filesEffect is the effect of a call that changed files, or nil.
func filesEffect(command string, ch []sandbox.FileChange) *sandbox.Effect {
	if len(ch) == 0 {
		return nil
	}
	return &sandbox.Effect{Kind: sandbox.EffectFiles, Command: command, Files: ch}
}

// readFile returns a workspace file's text, cut at MaxReadFile.
func (b *Box) readFile(rel string) (string, error) {
	if strings.TrimSpace(rel) == "" {
		return "", userErr("path is required")
	}
	p, err := b.wsPath(rel)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real // a link inside the workspace (wsPath checked where it leads)
	}
	data, size, err := readPrefix(p, MaxReadFile)
	if badPath(err) || errors.Is(err, fs.ErrPermission) {
		return "", userErr("no such file: %s", rel)
	}
	if unreadable(err) {
		return "", userErr("cannot read %s: %v", rel, err)
	}
	if err != nil {
		return "", err
	}
	if size > int64(len(data)) {
		return string(data) + fmt.Sprintf("\n[cut: %d of %d bytes shown]", len(data), size), nil
	}
	return string(data), nil
}

// writeFile creates or replaces a workspace file; the change is the effect.
func (b *Box) writeFile(rel, content string) (string, *sandbox.Effect, error) {
	if strings.TrimSpace(rel) == "" {
		return "", nil, userErr("path is required")
	}
	p, err := b.wsPath(rel)
	if err != nil {
		return "", nil, err
	}
	if p == filepath.Join(b.Dir, WorkspaceDir) {
		return "", nil, userErr("path %q is the workspace itself", rel)
	}
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return "", nil, userErr("%s is not a regular file", rel)
	}
	before, err := b.scan()
	if err != nil {
		return "", nil, fmt.Errorf("scan workspace: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", nil, userErr("cannot create the folder of %s: %v", rel, err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return "", nil, userErr("cannot write %s: %v", rel, err)
	}
	if err := b.shareWorkspace(); err != nil {
		return "", nil, err
	}
	after, err := b.scan()
	if err != nil {
		return "", nil, fmt.Errorf("scan workspace: %w", err)
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(content), rel), filesEffect("", changes(before, after)), nil
}

// listFiles lists the files under a workspace folder with their sizes.
func (b *Box) listFiles(rel string) (string, error) {
	root, err := b.wsPath(rel)
	if err != nil {
		return "", err
	}
	ws := filepath.Join(b.Dir, WorkspaceDir)
	var lines []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if len(lines) >= maxListed {
			return fs.SkipAll
		}
		r, _ := filepath.Rel(ws, p)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		lines = append(lines, fmt.Sprintf("%s\t%d bytes", filepath.ToSlash(r), info.Size()))
		return nil
	})
	if badPath(err) {
		return "", userErr("no such folder: %s", rel)
	}
	if err != nil {
		return "", err
	}
	if len(lines) == 0 {
		return "no files", nil
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), nil
}

// Files copies the folder dir (relative to the state folder) out: its
// regular files' contents and its links' targets, keyed by state-relative
// slash path. It never fails over what the agent's commands left there:
// special files are left out, and the limits met are named in the answer —
// a dir that is gone or no longer a folder (LimitNotFolder), more than
// maxScanFiles entries (LimitFiles: the walk stops there) or more than
// maxFilesBytes in all (LimitBytes: each file past the bound is left out,
// the walk goes on).
func (b *Box) Files(dir string) (sandbox.Folder, error) {
	b.acquire(context.Background())
	defer b.release()
	out := sandbox.Folder{Files: map[string][]byte{}}
	root, err := b.path(dir)
	if err != nil {
		return out, err
	}
	if fi, err := os.Lstat(root); err != nil || !fi.IsDir() {
		out.Limits = []string{sandbox.LimitNotFolder}
		return out, nil
	}
	limits := map[string]bool{}
	total := int64(0)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return err
		}
		link := d.Type()&fs.ModeSymlink != 0
		if !link && !d.Type().IsRegular() {
			return nil
		}
		if len(out.Files)+len(out.Links) >= maxScanFiles {
			limits[sandbox.LimitFiles] = true
			return fs.SkipAll
		}
		rel, err := filepath.Rel(b.Dir, p)
		if err != nil {
			return err
		}
		if link {
			target, err := os.Readlink(p)
			if err != nil {
				return nil
			}
			if out.Links == nil {
				out.Links = map[string]string{}
			}
			out.Links[filepath.ToSlash(rel)] = target
			return nil
		}
		data, err := readBounded(p, maxFilesBytes-total)
		if errors.Is(err, errTooLarge) {
			limits[sandbox.LimitBytes] = true
			return nil
		}
		if unreadable(err) {
			return nil
		}
		if err != nil {
			return err
		}
		total += int64(len(data))
		out.Files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("files %s: %w", dir, err)
	}
	for _, l := range []string{sandbox.LimitBytes, sandbox.LimitFiles} {
		if limits[l] {
			out.Limits = append(out.Limits, l)
		}
	}
	return out, nil
}
