package images

import (
	"archive/tar"
	"bytes"
	"fmt"
	"sort"
	"time"
)

// File is one entry of a tar archive.
type File struct {
	Data []byte
	Mode int64 // 0o644 when zero
}

// TarContext returns a tar archive of files (by slash path), in sorted order
// with fixed times and owners so equal content gives equal bytes. It is the
// build context ImageBuild reads, and the archive CopyToContainer unpacks.
func TarContext(files map[string]File) ([]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		f := files[n]
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		hdr := &tar.Header{
			Name:     n,
			Mode:     mode,
			Size:     int64(len(f.Data)),
			ModTime:  time.Unix(0, 0),
			Typeflag: tar.TypeReg,
			Format:   tar.FormatPAX,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("tar %s: %w", n, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, fmt.Errorf("tar %s: %w", n, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("tar: %w", err)
	}
	return buf.Bytes(), nil
}
