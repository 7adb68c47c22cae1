package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// guard makes the serving toolbox the only owner of its protocol stream
// before any agent command runs, and returns the stream's two ends:
//
//   - non-dumpable: /proc/<pid>/fd, mem and environ of the toolbox become
//     root's, so a command of the same uid with no capabilities can neither
//     reopen its stdin and stdout nor read its memory (nor ptrace it);
//   - stdin and stdout moved to fresh close-on-exec descriptors, with
//     /dev/null on 0 and 1, so no child can inherit the stream by accident;
//   - a child subreaper: a command's orphans (setsid, double forks) become
//     the toolbox's children, to be killed and reaped with their call
//     (sandbox/toolbox.Confine);
//   - every signal that can be caught caught and dropped (dropSignals): a
//     command cannot end the toolbox with one, and in Docker, where the
//     toolbox is its container's init, the kernel keeps SIGKILL and
//     SIGSTOP from its namespace (the host removes the container with
//     SIGKILL).
func guard() (in, out *os.File, err error) {
	defer func() { guarded = err == nil }()
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return nil, nil, fmt.Errorf("non-dumpable: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, nil, fmt.Errorf("child subreaper: %w", err)
	}
	dropSignals()
	if in, err = moveFD(0, "stdin"); err != nil {
		return nil, nil, err
	}
	if out, err = moveFD(1, "stdout"); err != nil {
		return nil, nil, err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	defer null.Close()
	for _, fd := range []int{0, 1} {
		if err := unix.Dup2(int(null.Fd()), fd); err != nil {
			return nil, nil, fmt.Errorf("replace fd %d: %w", fd, err)
		}
	}
	return in, out, nil
}

// guarded is set once guard succeeded: the toolbox is then its sandbox's
// subreaper and may end every other process after a command
// (toolbox.Confine.KillAll). Tests that call run in-process never are.
var guarded bool

// moveFD duplicates fd to a fresh close-on-exec descriptor.
func moveFD(fd int, name string) (*os.File, error) {
	nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("move %s: %w", name, err)
	}
	return os.NewFile(uintptr(nfd), name), nil
}

// dropSignals catches every signal in caught and drops it. Caught, not
// ignored: an ignored signal stays ignored across exec, so every command
// would inherit it (a `timeout` could not stop its child), while a caught
// one is back to its default in the child.
func dropSignals() {
	ch := make(chan os.Signal, 16)
	signal.Notify(ch, caught...)
	go func() {
		for range ch {
		}
	}()
}

// caught are the signals a command could otherwise end the toolbox with.
// SIGKILL and SIGSTOP cannot be caught; SIGCHLD and SIGURG must be left
// alone (os/exec waits for children, the runtime preempts with SIGURG), and
// so must the synchronous ones the runtime turns into panics (a SIGSEGV
// sent with kill is already dropped).
var caught = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGABRT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGPIPE, syscall.SIGTSTP,
	syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGVTALRM, syscall.SIGPROF, syscall.SIGXCPU,
	syscall.SIGXFSZ, syscall.SIGPWR, syscall.SIGSTKFLT,
}

// reapOrphans waits for every child the process inherits as its
// namespace's init, so none stays a zombie against the pids limit.
func reapOrphans() {
	for {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(-1, &ws, 0, nil); errors.Is(err, syscall.ECHILD) {
			time.Sleep(time.Second)
		}
	}
}
