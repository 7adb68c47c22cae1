package toolbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Every file a tool reads may have been made by the agent's commands: a
// FIFO that never answers, a link to /dev/zero, a sparse file of a
// terabyte. So no tool reads a path whole: each opens it without following
// a last link and without blocking, checks it is a regular file, and reads
// a bounded amount of it.

// Limits of what the tools read.
const (
	// maxStore bounds the memory store and the records database.
	maxStore = 16 << 20
	// maxDocument bounds a web page, a PDF and a recording.
	maxDocument = 32 << 20
	// maxHashed bounds a workspace file a scan hashes; a larger one is
	// known by its size and modification time.
	maxHashed = 64 << 20
)

// Errors of reading a file a tool names; tools show them to the model.
var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("too large")
)

// openRegular opens the regular file p for reading. A link as the last
// element of p, a folder, a FIFO, a socket or a device is errNotRegular;
// opening never blocks.
func openRegular(p string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, nil, fmt.Errorf("%w (a symbolic link)", errNotRegular)
	}
	if errors.Is(err, syscall.ENXIO) { // a socket, or a FIFO opened for writing
		return nil, nil, errNotRegular
	}
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%w (%s)", errNotRegular, kindOf(fi.Mode()))
	}
	return f, fi, nil
}

// kindOf names a file mode's type for messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// readBounded reads the regular file p whole when it holds at most limit
// bytes; a larger one is errTooLarge, and is not read.
func readBounded(p string, limit int64) ([]byte, error) {
	f, fi, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fmt.Errorf("%w (%d bytes, the limit is %d)", errTooLarge, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w (over %d bytes)", errTooLarge, limit)
	}
	return data, nil
}

// readPrefix reads at most limit bytes from the start of the regular file
// p and returns them with the file's size.
func readPrefix(p string, limit int64) ([]byte, int64, error) {
	f, fi, err := openRegular(p)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit))
	return data, max(fi.Size(), int64(len(data))), err
}

// unreadable reports whether a read failed because of what the file is
// (not regular, too large, a path the model got wrong, or a file the
// agent's commands made unreadable): a tool error the model is shown,
// never a broken sandbox.
func unreadable(err error) bool {
	return badPath(err) || errors.Is(err, errNotRegular) || errors.Is(err, errTooLarge) || errors.Is(err, fs.ErrPermission)
}
