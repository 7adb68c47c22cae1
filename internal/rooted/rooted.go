// Package rooted reads and writes the files of one folder through Go's own
// os.Root: a study folder, a report or export folder, a task's folder.
//
// Two guarantees, whatever the folder holds:
//
//   - nothing outside the folder is read, written or removed: every name is
//     a local path (no "..", not absolute), and the root confines every
//     operation to the folder even if a link appears while it runs;
//   - a symbolic link inside the folder is refused with ErrLink, never
//     followed: each folder on a name's path and the name itself are
//     checked first, so a study folder passed between researchers cannot
//     point a write (or a read of a task's files) anywhere else, in or out
//     of the folder.
//
// Every file a study writes goes through here, with one mode (FileMode, and
// DirMode for folders; the process's umask applies), and is written
// atomically: into a temporary file beside it, then renamed over it, which
// replaces a file without ever writing through it.
package rooted

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// The modes of what a study writes, before the umask.
const (
	FileMode fs.FileMode = 0o644
	DirMode  fs.FileMode = 0o755
)

// TempSuffix ends the name of a file being written; one a killed process
// left is never read (results.Compact removes those of a study folder).
const TempSuffix = ".tmp"

// ErrLink is the error (inside an *fs.PathError naming the path) for a
// symbolic link met inside a folder.
var ErrLink = errors.New("is a symbolic link, and killchain follows no link inside a folder it reads or writes")

// ErrPath is the error for a name that is not a path inside the folder.
var ErrPath = errors.New("is not a path inside the folder")

// Dir is a folder opened for reading and writing. It is safe for
// concurrent use.
type Dir struct {
	root *os.Root
	path string
	// dirs holds the folders inside the root already found to be folders
	// and no links, so a study's thousands of transcripts check theirs
	// once. A link made there later is still confined by the root.
	dirs sync.Map
}

// Open opens the folder dir, creating it (and its parents) when missing.
// dir itself is the caller's choice and may be reached through links; only
// what is inside it is checked.
func Open(dir string) (*Dir, error) {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("open folder: %w", err)
	}
	return OpenExisting(dir)
}

// OpenExisting opens the folder dir, which must exist.
func OpenExisting(dir string) (*Dir, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open folder: %w", err)
	}
	return &Dir{root: r, path: dir}, nil
}

// OpenOut opens the folder a command writes its output into: out when the
// caller names one (a --output or --out flag; made when missing), else the
// folder sub of the folder base, which must exist. sub is opened from
// base, so a sub that is a link (a report/ or inspect/ pointing elsewhere)
// is refused like every link inside it.
func OpenOut(base, sub, out string) (*Dir, error) {
	if out != "" {
		return Open(out)
	}
	b, err := OpenExisting(base)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.Sub(sub)
}

// Close closes the folder; files opened from it stay open.
func (d *Dir) Close() error { return d.root.Close() }

// Path is the folder's path as it was opened.
func (d *Dir) Path() string { return d.path }

// Join is the path of name inside the folder, for messages.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, name) }

// Sub opens the folder name inside d, creating it when missing, as a Dir of
// its own.
func (d *Dir) Sub(name string) (*Dir, error) {
	n, err := d.MkdirAll(name)
	if err != nil {
		return nil, err
	}
	r, err := d.root.OpenRoot(n)
	if err != nil {
		return nil, err
	}
	return &Dir{root: r, path: d.Join(n)}, nil
}

// MkdirAll creates the folder name and the folders above it inside d, and
// returns name cleaned.
func (d *Dir) MkdirAll(name string) (string, error) {
	n, err := local(name)
	if err != nil {
		return "", d.pathErr("mkdir", name, err)
	}
	if err := d.mkdirs(n); err != nil {
		return "", err
	}
	return n, nil
}

// WriteFile writes data to name atomically (see Create), creating the
// folders above it.
func (d *Dir) WriteFile(name string, data []byte) error {
	f, err := d.Create(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// Create starts writing name, creating the folders above it: the bytes go
// to a temporary file beside it (mode FileMode) that Commit renames over
// name, so a reader sees the old file or the new one, and a link at name
// is refused, never written through. Close without Commit drops the
// temporary file.
func (d *Dir) Create(name string) (*File, error) {
	n, err := local(name)
	if err != nil {
		return nil, d.pathErr("create", name, err)
	}
	if parent := filepath.Dir(n); parent != "." {
		if err := d.mkdirs(parent); err != nil {
			return nil, err
		}
	}
	if err := d.checkLeaf("create", n); err != nil {
		return nil, err
	}
	tmp := filepath.Join(filepath.Dir(n), "."+filepath.Base(n)+"."+strconv.FormatUint(rand.Uint64(), 36)+TempSuffix)
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	if err != nil {
		return nil, err
	}
	return &File{File: f, d: d, name: n, tmp: tmp}, nil
}

// OpenFile opens name with flag and perm (os.OpenFile's), after checking
// that neither it nor a folder above it is a link; O_CREATE makes no
// missing folder. Use it to append to a file or to change one in place.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	n, err := d.checked("open", name)
	if err != nil {
		return nil, err
	}
	return d.root.OpenFile(n, flag, perm)
}

// OpenAppend opens name for appending, creating it (mode FileMode) when
// missing.
func (d *Dir) OpenAppend(name string) (*os.File, error) {
	return d.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, FileMode)
}

// Open opens name for reading.
func (d *Dir) Open(name string) (*os.File, error) { return d.OpenFile(name, os.O_RDONLY, 0) }

// ReadFile reads name.
func (d *Dir) ReadFile(name string) ([]byte, error) {
	n, err := d.checked("read", name)
	if err != nil {
		return nil, err
	}
	return d.root.ReadFile(n)
}

// ReadDir lists the folder name ("." for d itself), sorted by name; links
// are listed as links.
func (d *Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// Lstat describes name without following it, after checking the folders
// above it.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	n, err := local(name)
	if err != nil {
		return nil, d.pathErr("lstat", name, err)
	}
	if err := d.checkParents("lstat", n); err != nil {
		return nil, err
	}
	return d.root.Lstat(n)
}

// Remove removes the file (or empty folder) name; a link is removed itself.
func (d *Dir) Remove(name string) error {
	n, err := local(name)
	if err != nil {
		return d.pathErr("remove", name, err)
	}
	if err := d.checkParents("remove", n); err != nil {
		return err
	}
	return d.root.Remove(n)
}

// Sync flushes the folder name's entries (the renames in it) to disk.
func (d *Dir) Sync(name string) error {
	f, err := d.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// File is a file being written by Create.
type File struct {
	*os.File
	d         *Dir
	name, tmp string
	done      bool
}

// Name is the name the file will have, inside its folder.
func (f *File) Name() string { return f.name }

// Commit closes the file and renames it over its name.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("commit %s: already closed", f.d.Join(f.name))
	}
	f.done = true
	err := f.File.Close()
	if err == nil {
		err = f.d.root.Rename(f.tmp, f.name)
	}
	if err != nil {
		f.d.root.Remove(f.tmp)
	}
	return err
}

// Close drops the file unless it was committed; it is safe to defer after
// Commit.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.File.Close()
	f.d.root.Remove(f.tmp)
	return err
}

// local checks that name is a local path and returns it cleaned.
func local(name string) (string, error) {
	n := filepath.Clean(name)
	if name == "" || n == "." || !filepath.IsLocal(n) {
		return "", ErrPath
	}
	return n, nil
}

// checked returns name cleaned once it, and every folder above it, is
// found to be no link.
func (d *Dir) checked(op, name string) (string, error) {
	if name == "." {
		return name, nil
	}
	n, err := local(name)
	if err != nil {
		return "", d.pathErr(op, name, err)
	}
	if err := d.checkParents(op, n); err != nil {
		return "", err
	}
	return n, d.checkLeaf(op, n)
}

// checkLeaf refuses name when it is a link; a missing name is fine.
func (d *Dir) checkLeaf(op, n string) error {
	fi, err := d.root.Lstat(n)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return d.pathErr(op, n, ErrLink)
	}
	return nil
}

// checkParents checks each folder above n: present ones must be folders
// and no links; a missing one is left to the operation to report.
func (d *Dir) checkParents(op, n string) error {
	if parent := filepath.Dir(n); parent != "." {
		return d.dirsOK(op, parent, false)
	}
	return nil
}

// mkdirs creates the folder n and those above it, refusing links.
func (d *Dir) mkdirs(n string) error { return d.dirsOK("mkdir", n, true) }

// dirsOK checks (with create, makes) the folders of the path n, once per
// Dir.
func (d *Dir) dirsOK(op, n string, create bool) error {
	if _, ok := d.dirs.Load(n); ok {
		return nil
	}
	bad, complete, err := walkDirs(d.root, n, create)
	if err != nil {
		if bad != "" {
			return d.pathErr(op, bad, err)
		}
		return err
	}
	if complete {
		d.dirs.Store(n, true)
	}
	return nil
}

var errNotDir = errors.New("is not a folder")

// walkDirs goes down the folders of the path n inside r, one component at
// a time (each Lstat is of one name in the folder above, so a deep path
// costs linear time): each must be a folder and no link. With create, a
// missing folder is made; without, the walk stops there and complete is
// false. On a link or a file, bad names the path that is one.
func walkDirs(r *os.Root, n string, create bool) (bad string, complete bool, err error) {
	parts := strings.Split(n, string(filepath.Separator))
	cur := r
	defer func() {
		if cur != r {
			cur.Close()
		}
	}()
	for i, c := range parts {
		fi, err := cur.Lstat(c)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err = cur.Mkdir(c, DirMode); err == nil || errors.Is(err, fs.ErrExist) {
				fi, err = cur.Lstat(c)
			}
		}
		p := strings.Join(parts[:i+1], string(filepath.Separator))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", false, nil
		case err != nil:
			return "", false, err
		case fi.Mode()&fs.ModeSymlink != 0:
			return p, false, ErrLink
		case !fi.IsDir():
			return p, false, errNotDir
		}
		if i == len(parts)-1 {
			break
		}
		next, err := cur.OpenRoot(c)
		if err != nil {
			return "", false, err
		}
		if cur != r {
			cur.Close()
		}
		cur = next
	}
	return "", true, nil
}

func (d *Dir) pathErr(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: d.Join(name), Err: err}
}
