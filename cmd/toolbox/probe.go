package main

// The probe op exists only for the Docker backend's hardening tests. It is
// answered only when the toolbox is started with -allow-probe, which the
// backend never passes to a run's container (its tests set it through an
// unexported option). Agents cannot reach it: they only ever reach the
// "call" op, which accepts tool names alone. Each probe looks at the
// sandbox from the inside and reports what it saw:
//
//	net     the interfaces listed in /sys/class/net (never contacts anything)
//	status  the Uid/Gid/Cap* lines of /proc/self/status, and the uid
//	write   tries to create a file in /, /etc, /tmp and the state folder; one line each
//	fork    starts child processes until the kernel refuses (at most Arg seconds), then kills them
//	alloc   allocates and touches Arg MiB
//	env     the process environment
//	sleep   sleeps Arg seconds (to test the host's call timeout)
//	flood   writes one response line of Arg MiB, over the host's limit
//	        (serve.go answers it: it is a stream, not a result)

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/killchain/killchain/sandbox/wire"
)

// probeChild is the hidden command the fork probe's children run.
const probeChild = "probe-child"

func runProbeChild() int {
	time.Sleep(20 * time.Second)
	return 0
}

func probe(cfg config, name string, arg int) (wire.ProbeResult, error) {
	res := wire.ProbeResult{UID: os.Getuid()}
	switch name {
	case "net":
		ents, err := os.ReadDir("/sys/class/net")
		if err != nil {
			return res, err
		}
		for _, e := range ents {
			res.Lines = append(res.Lines, e.Name())
		}
	case "status":
		f, err := os.Open("/proc/self/status")
		if err != nil {
			return res, err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			l := sc.Text()
			if strings.HasPrefix(l, "Cap") || strings.HasPrefix(l, "Uid:") || strings.HasPrefix(l, "Gid:") || strings.HasPrefix(l, "NoNewPrivs:") {
				res.Lines = append(res.Lines, l)
			}
		}
	case "write":
		for _, dir := range []string{"/", "/etc", "/tmp", cfg.state} {
			p := filepath.Join(dir, "probe-write")
			err := os.WriteFile(p, []byte("x"), 0o644)
			if err == nil {
				os.Remove(p)
				res.Lines = append(res.Lines, dir+": ok")
				continue
			}
			res.Lines = append(res.Lines, dir+": "+err.Error())
		}
	case "fork":
		res.Count, res.Err = forkUntilRefused(time.Duration(max(arg, 1)) * time.Second)
	case "alloc":
		res.Count = allocate(arg)
	case "env":
		res.Lines = os.Environ()
	case "secrets":
		// Every file where an orchestrator mounts credentials.
		for _, dir := range []string{"/var/run/secrets", "/run/secrets"} {
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					res.Lines = append(res.Lines, p)
				}
				return nil
			})
		}
	case "sleep":
		time.Sleep(time.Duration(arg) * time.Second)
	default:
		return res, fmt.Errorf("unknown probe %q", name)
	}
	return res, nil
}

// writeFlood writes a response line of mib MiB (then a newline), as a
// toolbox gone wrong would; the host must cut it off.
func writeFlood(w *bufio.Writer, mib int) error {
	if _, err := w.WriteString(`{"id":0,"result":"`); err != nil {
		return err
	}
	chunk := []byte(strings.Repeat("A", 1<<20))
	for range mib {
		if _, err := w.Write(chunk); err != nil {
			return err
		}
	}
	if _, err := w.WriteString("\"}\n"); err != nil {
		return err
	}
	return w.Flush()
}

// forkUntilRefused starts children until starting one fails or limit
// passes, then kills and reaps them all. It returns how many started and the
// error that stopped it ("" when the time limit did).
func forkUntilRefused(limit time.Duration) (int, string) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err.Error()
	}
	var kids []*os.Process
	defer func() {
		for _, p := range kids {
			p.Kill()
		}
		for _, p := range kids {
			p.Wait()
		}
	}()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && len(kids) < 10000 {
		p, err := os.StartProcess(exe, []string{exe, probeChild}, &os.ProcAttr{Env: []string{}})
		if err != nil {
			if errors.Is(err, syscall.EAGAIN) {
				return len(kids), "EAGAIN: " + err.Error()
			}
			return len(kids), err.Error()
		}
		kids = append(kids, p)
	}
	return len(kids), ""
}

// allocate touches mib MiB of memory and keeps it until it returns.
func allocate(mib int) int {
	var keep [][]byte
	for i := 0; i < mib; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		keep = append(keep, b)
	}
	n := len(keep)
	runtime.KeepAlive(keep)
	return n
}
