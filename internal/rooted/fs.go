package rooted

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// FS is the folder dir as a read-only fs.FS for reading a task's files:
// each call opens dir as an os.Root, refuses a name that is a link or lies
// under one (an *fs.PathError wrapping ErrLink) and closes the root again,
// so an FS holds nothing open between calls. fs.WalkDir over it lists a
// link as a link (fs.ModeSymlink), which the walker must refuse or skip.
func FS(dir string) fs.FS { return dirFS(dir) }

type dirFS string

var (
	_ fs.ReadFileFS = dirFS("")
	_ fs.ReadDirFS  = dirFS("")
	_ fs.StatFS     = dirFS("")
)

// open opens the root and checks name, the root's caller closes it.
func (d dirFS) open(op, name string) (*os.Root, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	r, err := os.OpenRoot(string(d))
	if err != nil {
		return nil, err
	}
	if name == "." {
		return r, nil
	}
	if dir := path.Dir(name); dir != "." {
		bad, _, werr := walkDirs(r, filepath.FromSlash(dir), false)
		if werr != nil && bad != "" {
			werr = &fs.PathError{Op: op, Path: filepath.ToSlash(bad), Err: werr}
		}
		err = werr
	}
	if err == nil {
		if fi, lerr := r.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			err = &fs.PathError{Op: op, Path: name, Err: ErrLink}
		}
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Open opens name for reading.
func (d dirFS) Open(name string) (fs.File, error) {
	r, err := d.open("open", name)
	if err != nil {
		return nil, err
	}
	f, err := r.Open(name)
	r.Close() // the file stays open without its root
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ReadFile reads name.
func (d dirFS) ReadFile(name string) ([]byte, error) {
	r, err := d.open("read", name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(name)
}

// ReadDir lists the folder name, sorted by name.
func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.(*os.File).ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

// Stat describes name; a link is refused, not described.
func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	r, err := d.open("stat", name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Stat(name)
}
