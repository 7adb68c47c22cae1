package images

import (
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// The static linux binaries the images copy in are built into killchain
// itself: `make build` (or `go generate ./images`) compiles cmd/toolbox and
// cmd/kcaudio into images/bin before killchain is compiled, and the files
// are embedded here, gzipped (11 MB of binaries take 4.6 MB of killchain).
// Image tags hash the binaries' bytes, so no Go toolchain and no source
// tree is needed at run time.
//
//go:generate env CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false "-ldflags=-s -w" -o bin/toolbox ../cmd/toolbox
//go:generate env CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false "-ldflags=-s -w" -o bin/kcaudio ../cmd/kcaudio
//go:generate gzip -9 -n -f bin/toolbox bin/kcaudio
//go:embed all:bin
var binFS embed.FS

// ErrNoBinary is returned when this killchain was compiled without the
// binary an image needs.
var ErrNoBinary = errors.New("this killchain was built without its sandbox binaries")

// Binary is a static linux binary an image copies in.
type Binary struct {
	Name string
	Data []byte
	Hash string // sha256 of Data, hex
}

var (
	binMu   sync.Mutex
	binMemo = map[string]Binary{}
)

// embedded returns the embedded binary bin/name.
func embedded(name string) (Binary, error) {
	binMu.Lock()
	defer binMu.Unlock()
	if b, ok := binMemo[name]; ok {
		return b, nil
	}
	data, err := gunzip("bin/" + name + ".gz")
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(data) == 0) {
		return Binary{}, fmt.Errorf("%w (images/bin/%s.gz is missing): build it with `make build`, or run `go generate ./images` before `go build ./cmd/killchain`", ErrNoBinary, name)
	}
	if err != nil {
		return Binary{}, fmt.Errorf("embedded %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	b := Binary{Name: name, Data: data, Hash: hex.EncodeToString(sum[:])}
	binMemo[name] = b
	return b, nil
}

// gunzip reads the embedded gzipped file path.
func gunzip(path string) ([]byte, error) {
	f, err := binFS.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// ToolboxBinary is the embedded cmd/toolbox, the in-sandbox server every
// image runs.
func ToolboxBinary() (Binary, error) { return embedded("toolbox") }

// AudioHelperBinary is the embedded cmd/kcaudio, the Debian image's speech
// helper.
func AudioHelperBinary() (Binary, error) { return embedded("kcaudio") }

// toolboxFile is the path ToolboxFile wrote, once per process.
var toolboxFile = sync.OnceValues(writeToolboxFile)

// ToolboxFile is the embedded toolbox as an executable file: the local
// backend runs an agent's host-shell commands through it (its
// private-tmp command). It lives in the user's cache folder
// (killchain/bin/toolbox-<hash>, the folder the user's alone), written
// once and reused while its content is the same.
func ToolboxFile() (string, error) { return toolboxFile() }

func writeToolboxFile() (string, error) {
	b, err := ToolboxBinary()
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("toolbox file: %w", err)
	}
	dir := filepath.Join(cache, "killchain", "bin")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("toolbox file: %w", err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("toolbox file: %s must be writable by its owner alone", dir)
	}
	path := filepath.Join(dir, "toolbox-"+b.Hash[:16])
	if data, err := os.ReadFile(path); err == nil && sha256.Sum256(data) == sha256.Sum256(b.Data) {
		return path, nil
	}
	tmp, err := os.CreateTemp(dir, ".toolbox-*")
	if err != nil {
		return "", fmt.Errorf("toolbox file: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(b.Data)
	if err := errors.Join(werr, tmp.Chmod(0o755), tmp.Close()); err != nil {
		return "", fmt.Errorf("toolbox file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("toolbox file: %w", err)
	}
	return path, nil
}
