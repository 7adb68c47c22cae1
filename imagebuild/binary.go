package imagebuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// Binary is a compiled static linux binary an image copies in.
type Binary struct {
	Data []byte
	Hash string // sha256 of Data, hex
}

// staticBinary compiles one package of the source tree as a static linux
// binary, once per process.
type staticBinary struct {
	name string // file name, used in temp folders and errors
	pkg  string // package path relative to SourceDir

	mu   sync.Mutex
	memo *Binary
}

// get returns the binary, compiling it on the first call.
func (s *staticBinary) get(ctx context.Context) (Binary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.memo != nil {
		return *s.memo, nil
	}
	b, err := compileStatic(ctx, s.name, s.pkg)
	if err != nil {
		return Binary{}, err
	}
	s.memo = &b
	return b, nil
}

// compileStatic builds pkg with the go toolchain (CGO_ENABLED=0,
// -trimpath, stripped) for linux on the host's architecture.
func compileStatic(ctx context.Context, name, pkg string) (Binary, error) {
	src, err := SourceDir()
	if err != nil {
		return Binary{}, err
	}
	tmp, err := os.MkdirTemp("", "killchain-"+name+"-")
	if err != nil {
		return Binary{}, fmt.Errorf("compile %s: %w", name, err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return Binary{}, fmt.Errorf("compile %s: %w: %s", name, err, bytes.TrimSpace(stderr.Bytes()))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return Binary{}, fmt.Errorf("compile %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	return Binary{Data: data, Hash: hex.EncodeToString(sum[:])}, nil
}
