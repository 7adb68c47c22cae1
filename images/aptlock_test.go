package images

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/testenv"
)

// TestAptWaitsForTheLock holds a lock the way dpkg does (an fcntl write
// lock on the lock file) and runs the script's apt_wait: it waits, says
// who holds the lock, and goes on once the lock is released; with a bound
// shorter than the hold it gives up and says why.
func TestAptWaitsForTheLock(t *testing.T) {
	_, err := exec.LookPath("lslocks")
	testenv.Need(t, err, "lslocks (util-linux)")
	tests := []struct {
		name     string
		hold     time.Duration
		limit    string
		wantOK   bool
		wantSaid string
	}{
		{name: "released", hold: 2 * time.Second, limit: "30", wantOK: true, wantSaid: "waiting for"},
		{name: "bounded", hold: 8 * time.Second, limit: "2", wantOK: false, wantSaid: "gave up after 2s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lock := filepath.Join(t.TempDir(), "lock-frontend")
			f, err := os.Create(lock)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fd := f.Fd()
			fl := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0}
			if err := syscall.FcntlFlock(fd, syscall.F_SETLK, &fl); err != nil {
				t.Fatal(err)
			}
			// The release runs on a timer's goroutine: it touches only
			// its own copy of the lock and the descriptor's number, and
			// the file is closed only once it is done (or never ran).
			released := make(chan struct{})
			timer := time.AfterFunc(tt.hold, func() {
				defer close(released)
				un := syscall.Flock_t{Type: syscall.F_UNLCK, Whence: 0}
				syscall.FcntlFlock(fd, syscall.F_SETLK, &un)
			})
			defer func() {
				if !timer.Stop() {
					<-released
				}
			}()
			script := `log() { printf 'debian-rootfs: %s\n' "$*" >&2; }
eval "$(sed -n '/^apt_wait() {/,/^}/p' debian-rootfs.sh)"
apt_wait`
			cmd := exec.Command("bash", "-c", script)
			cmd.Env = append(os.Environ(), "APT_LOCKS="+lock, "APT_WAIT="+tt.limit)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if ok := err == nil; ok != tt.wantOK || err != nil && !errors.As(err, &exit) {
				t.Fatalf("apt_wait: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), tt.wantSaid) || !strings.Contains(string(out), "images.test") {
				t.Fatalf("apt_wait said:\n%s\nwant %q naming the holder", out, tt.wantSaid)
			}
		})
	}
}

func TestBootstrapError(t *testing.T) {
	last := []string{"E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)"}
	tests := []struct {
		name     string
		root     bool
		wantHint bool
	}{
		{"as root", true, false},
		{"not root", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := bootstrapError(errors.New("exit status 100"), last, tt.root).Error()
			if !strings.Contains(msg, "held by process 4242") {
				t.Fatalf("the error must name apt-get's cause: %s", msg)
			}
			if got := strings.Contains(msg, "passwordless sudo"); got != tt.wantHint {
				t.Fatalf("root hint shown = %v, want %v: %s", got, tt.wantHint, msg)
			}
		})
	}
	w := &tailWriter{}
	w.Write([]byte("a\n\nb\nc\n"))
	if got := strings.Join(w.lines(2), "|"); got != "b|c" {
		t.Fatalf("lines = %q", got)
	}
}
