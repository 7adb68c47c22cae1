package toolbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Confine says how run_shell holds a command's processes to its call: when
// the shell exits, its time limit passes or its context ends, every process
// the command started must be gone, whatever session or process group it
// made for itself. A process group alone (the zero Confine, always used)
// is escaped by setsid, so each backend adds what its platform allows.
type Confine struct {
	// Credential runs commands as another user (the local backend as root:
	// nobody); nil keeps the toolbox's own.
	Credential *syscall.Credential
	// PidNamespace starts each command as the first process of a pid
	// namespace of its own: when that process ends, the kernel kills every
	// other one in the namespace. It needs CAP_SYS_ADMIN, or UserNamespace.
	PidNamespace bool
	// UserNamespace makes the pid namespace inside a user namespace that
	// maps only the caller's own uid and gid (no capability survives the
	// shell's exec), for a caller without CAP_SYS_ADMIN where the kernel
	// lets users make one.
	UserNamespace bool
	// KillAll is for the toolbox serving inside a sandbox, a child
	// subreaper where nothing runs but it and the agent's commands: when a
	// command ends, every process the toolbox may signal, but itself and
	// its namespace's init, is killed (kill(-1, SIGKILL)) and the orphans it
	// inherited are reaped. Never on a host: there it would kill every
	// process of the user.
	KillAll bool
	// Helper is the path of a toolbox binary that runs each command in a
	// mount namespace of its own, with a private /tmp, /var/tmp and
	// /dev/shm (privatetmp.go); it needs PidNamespace. The local backend
	// sets it; inside a sandbox those folders are the sandbox's already.
	Helper string
}

// errSurvivors: a command's processes did not die of SIGKILL in time; the
// sandbox can no longer say its commands end with their call.
var errSurvivors = errors.New("processes of the command survived SIGKILL")

// killWait bounds how long KillAll waits for the last process to die.
const killWait = 5 * time.Second

// attr is the command's process attributes.
func (c Confine) attr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Credential: c.Credential}
	if c.PidNamespace {
		a.Cloneflags |= syscall.CLONE_NEWPID
	}
	if c.PidNamespace && c.UserNamespace {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
	return a
}

// run runs shell -c command in dir with env alone, stdin /dev/null and
// stdout and stderr into out. When the shell exits or ctx ends, its
// process group (and its pid namespace) is killed, and under KillAll every
// other process of the sandbox; out is complete once the last writer is
// gone.
func (c Confine) run(ctx context.Context, shell, command, dir string, env []string, out io.Writer) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd, attr := c.command(shell, command, dir, env)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return err
	}
	w.Close()
	copied := make(chan struct{})
	go func() {
		io.Copy(out, r)
		close(copied)
	}()
	kill := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill() // a pid namespace's first process: the whole namespace
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var runErr error
	select {
	case runErr = <-waited:
		kill()
	case <-ctx.Done():
		kill()
		runErr = <-waited
	}
	if c.KillAll {
		if err := killAll(); err != nil {
			runErr = err
		}
	}
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
	}
	r.Close()
	return runErr
}

// killAll kills every process the caller may signal but itself and pid 1,
// reaps the children it inherited, and waits until none of its uid is left
// alive. It refuses to unless the caller is a child subreaper (what toolbox
// serve makes itself) and not root: on a host it would end every process.
func killAll() error {
	var reaper int
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&reaper)), 0, 0, 0); err != nil || reaper == 0 || os.Getuid() == 0 {
		return fmt.Errorf("%w: refusing kill(-1) outside a sandbox's toolbox (subreaper %d, uid %d)", errSurvivors, reaper, os.Getuid())
	}
	deadline := time.Now().Add(killWait)
	for {
		_ = syscall.Kill(-1, syscall.SIGKILL)
		reapChildren()
		left, err := othersAlive()
		if err != nil {
			return fmt.Errorf("%w: %w", errSurvivors, err)
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w after %s: pids %v", errSurvivors, killWait, left)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// reapChildren waits for every child that has ended.
func reapChildren() {
	for {
		var ws syscall.WaitStatus
		if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
			return
		}
	}
}

// othersAlive lists the live processes of the caller's uid in its pid
// namespace but itself and pid 1 (zombies are dead).
func othersAlive() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self, uid := os.Getpid(), strconv.Itoa(os.Getuid())
	var left []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || pid == 1 {
			continue
		}
		state, owner, ok := procStatus(pid)
		if ok && owner == uid && state != "Z" && state != "X" {
			left = append(left, pid)
		}
	}
	return left, nil
}

// procStatus reads a process's state letter and real uid from
// /proc/<pid>/status (readable for every process, dumpable or not).
func procStatus(pid int) (state, uid string, ok bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		switch fields := strings.Fields(v); {
		case len(fields) == 0:
		case k == "State":
			state = fields[0]
		case k == "Uid":
			uid = fields[0]
		}
	}
	return state, uid, state != "" && uid != ""
}

// shareWorkspace hands the workspace and the shell's temp folder to the
// user commands run as (Credential), and lets that user through the state
// folder to them; the rest of the state folder stays the toolbox's.
func (b *Box) shareWorkspace() error {
	cred := b.Confine.Credential
	if cred == nil {
		return nil
	}
	if fi, err := os.Stat(b.Dir); err == nil && fi.Mode().Perm()&0o001 == 0 {
		if err := os.Chmod(b.Dir, fi.Mode().Perm()|0o111); err != nil {
			return fmt.Errorf("share workspace: %w", err)
		}
	}
	for _, d := range []string{WorkspaceDir, shellTmpDir} {
		if err := lchownTree(filepath.Join(b.Dir, d), int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("share workspace: %w", err)
		}
	}
	return nil
}

// lchownTree hands everything under dir to uid and gid, through an
// os.Root: no link a command made leads the chown out of dir.
func lchownTree(dir string, uid, gid int) error {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer root.Close()
	return fs.WalkDir(root.FS(), ".", func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return root.Lchown(p, uid, gid)
	})
}

// NonDumpable makes the calling process non-dumpable: its /proc entries
// (environ, mem, fd) become root's, closed to a process of the same uid
// without capabilities. The toolbox serves so; killchain does so before
// run_shell commands run on its own host, so they cannot read its
// environment (the API keys).
func NonDumpable() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("non-dumpable: %w", err)
	}
	return nil
}

// HostConfine is how run_shell commands are held on this host (the local
// backend), and a sentence that says so. Each command runs through helper
// (a toolbox binary, see PrivateTmpCommand) in pid and mount namespaces of
// its own, with a private /tmp, /var/tmp and /dev/shm: as the user nobody
// when the process is root; as the user, inside a user namespace, where
// the kernel allows one. Where those namespaces cannot be had it is an
// error, and no command runs on this host: one that outlived its call
// could race the tools, and files it left in the shared temporary folders
// would be a channel between runs.
func HostConfine(helper string) (Confine, string, error) {
	hostMu.Lock()
	defer hostMu.Unlock()
	h, ok := hostFound[helper]
	if !ok {
		c, how, err := findHostConfine(helper)
		h = hostConfined{c, how, err}
		hostFound[helper] = h
	}
	return h.c, h.how, h.err
}

type hostConfined struct {
	c   Confine
	how string
	err error
}

var (
	hostMu    sync.Mutex
	hostFound = map[string]hostConfined{}
)

const privateHow = "pid and mount namespaces of their own (a private /tmp, /var/tmp and /dev/shm, gone with each command)"

func findHostConfine(helper string) (Confine, string, error) {
	if helper == "" {
		return Confine{}, "", errors.New("run_shell on this host needs the toolbox binary to give each command a private /tmp, and none was found")
	}
	if os.Getuid() == 0 {
		nobody := &syscall.Credential{Uid: NobodyID, Gid: NobodyID, Groups: []uint32{}}
		c := Confine{Credential: nobody, PidNamespace: true, Helper: helper}
		if err := c.try(); err != nil {
			return Confine{}, "", fmt.Errorf("as root, run_shell runs its commands as nobody in %s, and this machine refused them: %w", privateHow, err)
		}
		return c, fmt.Sprintf("as the user nobody (%d), in %s", NobodyID, privateHow), nil
	}
	c := Confine{PidNamespace: true, UserNamespace: true, Helper: helper}
	if err := c.try(); err != nil {
		return Confine{}, "", fmt.Errorf("not root, run_shell runs its commands as you in user, %s, and this machine refused a user namespace (%w): a command's files in /tmp would outlive it", privateHow, err)
	}
	return c, fmt.Sprintf("as you (uid %d: not root, so not as another user), in user, %s", os.Getuid(), privateHow), nil
}

// NobodyID is the uid and gid of nobody, whom commands run as on a host
// where killchain is root.
const NobodyID = 65534

// try runs a command under c here.
func (c Confine) try() error {
	cmd, attr := c.command(DefaultShell, "exit 0", "/", nil)
	cmd.Dir = "/"
	cmd.Env = []string{}
	cmd.SysProcAttr = attr
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
