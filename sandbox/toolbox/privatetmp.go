package toolbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// PrivateTmpCommand is the toolbox command that runs a host-shell command
// in a mount namespace of its own (Confine.Helper): the local backend
// starts the toolbox binary so, as the first process of new mount and pid
// namespaces, and it mounts a fresh tmpfs on /tmp, /var/tmp and /dev/shm
// and a /proc of the new pid namespace, becomes the user the command runs
// as, and executes the shell. What the command writes there is gone when
// its last process is: no file outlives the call to become a channel
// between runs, and it sees no process but its own.
//
// The run's own folder, where it lies under those (its workspace, the
// command's TMPDIR), is bound back at its path, so the command works
// where it always did.
//
//	toolbox private-tmp UID GID [-keep PATH]… -- SHELL ARGS…   (UID, GID -1: keep)
const PrivateTmpCommand = "private-tmp"

// privateDirs are the folders every user may write on a host.
var privateDirs = []string{"/tmp", "/var/tmp", "/dev/shm"}

// PrivateTmp is the private-tmp command; it returns only on failure (the
// exit status to use), having executed the shell otherwise.
func PrivateTmp(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "killchain host shell: "+format+"\n", a...)
		return 126
	}
	usage := func() int {
		return fail("usage: toolbox %s UID GID [-keep PATH]… -- SHELL ARGS…", PrivateTmpCommand)
	}
	if len(args) < 4 {
		return usage()
	}
	uid, err1 := strconv.Atoi(args[0])
	gid, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil {
		return fail("bad UID or GID %q %q", args[0], args[1])
	}
	var keep []string
	rest := args[2:]
	for len(rest) > 1 && rest[0] == "-keep" {
		keep, rest = append(keep, rest[1]), rest[2:]
	}
	if len(rest) < 2 || rest[0] != "--" {
		return usage()
	}
	argv := rest[1:]
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fail("make the mounts private: %v", err)
	}
	// Hold each kept folder open before the tmpfs hides its path.
	fds := make([]int, len(keep))
	for i, k := range keep {
		fd, err := unix.Open(k, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fail("keep %s: %v", k, err)
		}
		fds[i] = fd
	}
	for _, d := range privateDirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=256m"); err != nil {
			return fail("mount a private %s: %v", d, err)
		}
	}
	for i, k := range keep {
		if err := os.MkdirAll(k, 0o711); err != nil {
			return fail("keep %s: %v", k, err)
		}
		if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(fds[i]), k, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fail("keep %s: %v", k, err)
		}
		unix.Close(fds[i])
	}
	if wd, err := os.Getwd(); err == nil {
		_ = os.Chdir(wd) // the working folder by its path again, through the bind
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fail("mount /proc of the command's pid namespace: %v", err)
	}
	if gid >= 0 {
		if err := syscall.Setgroups(nil); err != nil {
			return fail("drop groups: %v", err)
		}
		if err := syscall.Setresgid(gid, gid, gid); err != nil {
			return fail("become gid %d: %v", gid, err)
		}
	}
	if uid >= 0 {
		if err := syscall.Setresuid(uid, uid, uid); err != nil {
			return fail("become uid %d: %v", uid, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail("no new privileges: %v", err)
	}
	shell, err := exec.LookPath(argv[0])
	if err != nil {
		return fail("%v", err)
	}
	err = syscall.Exec(shell, argv, os.Environ())
	return fail("exec %s: %v", shell, err)
}

// command is the process a Confine starts for shell -c command in dir
// with env: the shell itself, or the private-tmp helper around it (which
// becomes the command's user itself, after mounting, and keeps dir and
// the command's TMPDIR where they lie under a folder it makes private).
func (c Confine) command(shell, command, dir string, env []string) (*exec.Cmd, *syscall.SysProcAttr) {
	attr := c.attr()
	if c.Helper == "" {
		return exec.Command(shell, "-c", command), attr
	}
	uid, gid := -1, -1
	if cr := attr.Credential; cr != nil {
		uid, gid = int(cr.Uid), int(cr.Gid)
		attr.Credential = nil
	}
	attr.Cloneflags |= syscall.CLONE_NEWNS
	argv := []string{PrivateTmpCommand, strconv.Itoa(uid), strconv.Itoa(gid)}
	// The run's folder (the workspace's parent: the workspace, its temp
	// folder, the held-out inputs the verifier lays beside it), and TMPDIR
	// where it lies elsewhere.
	keep := []string{filepath.Dir(filepath.Clean(dir))}
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "TMPDIR="); ok && !strings.HasPrefix(filepath.Clean(v)+"/", keep[0]+"/") {
			keep = append(keep, v)
		}
	}
	for _, k := range keep {
		if underPrivate(k) {
			argv = append(argv, "-keep", k)
		}
	}
	return exec.Command(c.Helper, append(argv, "--", shell, "-c", command)...), attr
}

// underPrivate reports whether an absolute path lies under a folder the
// helper makes private.
func underPrivate(p string) bool {
	p = filepath.Clean(p)
	for _, d := range privateDirs {
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
