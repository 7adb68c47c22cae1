package local

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// memoryRoot is the in-memory folder (a tmpfs) where the run folders of
// tasks without a shell are made when the backend has no Root and TMPDIR
// is unset: a run's folder is made and removed at every run, which on a
// disk costs more than the run's own work once hundreds are in flight.
// Without run_shell a run's folder holds only its task's files (and speech
// clips) and what its agents wrote through the tools, which its transcript
// holds in memory anyway; a shell task's commands may write anything, so
// its folders stay in the system's temporary folder. Docker's sandboxes
// are tmpfs too.
const memoryRoot = "/dev/shm"

// minMemoryRoot is the free space memoryRoot needs to be used: below it
// (a container's 64 MiB /dev/shm) the runs use the temporary folder.
const minMemoryRoot = 1 << 30

// tmpfsMagic is TMPFS_MAGIC, statfs's type of a tmpfs.
const tmpfsMagic = 0x01021994

// inMemory says whether memoryRoot is a tmpfs this process may write with
// minMemoryRoot bytes free now (what it is is read once per process, its
// free space at every call).
func inMemory() bool {
	return memoryTmpfs() && freeBytes(memoryRoot) >= minMemoryRoot
}

// memoryTmpfs says, once per process, whether memoryRoot is a tmpfs this
// process may write.
var memoryTmpfs = sync.OnceValue(func() bool { return isTmpfs(memoryRoot) })

// isTmpfs reports whether dir is a tmpfs this process may write.
func isTmpfs(dir string) bool {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil || int64(st.Type) != tmpfsMagic {
		return false
	}
	return unix.Access(dir, unix.W_OK|unix.X_OK) == nil
}

// freeBytes is what an unprivileged process may still write in dir's file
// system (0 when it cannot be read).
func freeBytes(dir string) uint64 {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return 0
	}
	return uint64(st.Bavail) * uint64(st.Bsize)
}

// root is the folder a run's folder is made in: Root when set; else, for a
// run without a shell and with TMPDIR unset, memoryRoot when usable; else
// the system's temporary folder.
func (b *Backend) root(shell bool) string {
	if b.Root != "" || shell {
		return b.Root
	}
	if os.Getenv("TMPDIR") != "" || !inMemory() {
		return ""
	}
	return memoryRoot
}
