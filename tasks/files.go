package tasks

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/killchain/killchain/internal/rooted"
)

// The reads of a task's own files: file(PATH), a workspace file's source
// and a workspace or held_out dir, every one relative to the folder of the
// task file. A task file may come from anyone, so its reads are rooted in
// that folder (Go's os.Root, through package rooted): no path leaves it,
// and a symbolic link inside it is refused with an error naming it, never
// followed, so a link cannot pull an outside file into a task's text, a
// transcript, task_defs/ or a sandbox.

// DirOrigin is the Origin of a task file (named file in diagnostics) whose
// relative paths resolve in the folder dir on disk.
func DirOrigin(dir, file string) Origin {
	return Origin{FS: rooted.FS(dir), File: file}
}

// ReadTaskFile reads the task file (or study file) at p, refusing a link:
// a study's task_files may name a file in a folder shared with others.
func ReadTaskFile(p string) ([]byte, error) {
	data, err := fs.ReadFile(rooted.FS(filepath.Dir(p)), filepath.Base(p))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return data, nil
}

// readLocal reads a file below the task file's folder.
func readLocal(fsys fs.FS, p string) ([]byte, error) {
	clean, err := localPath(p)
	if err != nil {
		return nil, err
	}
	if fsys == nil {
		return nil, fmt.Errorf("no folder to read %s from", p)
	}
	data, err := fs.ReadFile(fsys, clean)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return nil, err // it names the path
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return data, nil
}

// localPath checks that p is a relative path that stays inside its folder
// and returns it cleaned.
func localPath(p string) (string, error) {
	clean := path.Clean(strings.TrimSpace(p))
	if p == "" || path.IsAbs(p) || !fs.ValidPath(clean) || clean == "." {
		return "", fmt.Errorf("%q is not a path inside the task's folder", p)
	}
	return clean, nil
}

// readTree reads every regular file under dir (relative to the task's
// folder), in path order, keyed relative to dir. A link anywhere under it
// (or dir itself a link) is an error naming it, not a file skipped or
// followed.
func readTree(fsys fs.FS, dir string) ([]File, error) {
	root, err := localPath(dir)
	if err != nil {
		return nil, err
	}
	if fsys == nil {
		return nil, fmt.Errorf("no folder to read %s from", dir)
	}
	var out []File
	err = fs.WalkDir(fsys, root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: "read", Path: p, Err: rooted.ErrLink}
		}
		if !e.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		out = append(out, File{Path: strings.TrimPrefix(p, root+"/"), Text: string(data)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	return out, nil
}
