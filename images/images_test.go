package images

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/sandbox/docker/dockertest"
)

func TestTarContext(t *testing.T) {
	files := map[string]File{
		"b/two.txt": {Data: []byte("two")},
		"a.bin":     {Data: []byte{0, 1, 2}, Mode: 0o755},
	}
	first, err := TarContext(files)
	if err != nil {
		t.Fatal(err)
	}
	second, err := TarContext(files)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("equal content gave different archives")
	}
	tr := tar.NewReader(bytes.NewReader(first))
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		got = append(got, h.Name+"="+string(data))
		if h.Name == "a.bin" && h.Mode != 0o755 {
			t.Errorf("a.bin mode = %o, want 755", h.Mode)
		}
	}
	if want := "a.bin=\x00\x01\x02 b/two.txt=two"; strings.Join(got, " ") != want {
		t.Errorf("entries = %q, want %q", strings.Join(got, " "), want)
	}
}

func TestReadBuildStream(t *testing.T) {
	tests := []struct {
		name, in, out, err string
	}{
		{name: "steps", in: `{"stream":"Step 1/2\n"}{"stream":"done\n"}`, out: "Step 1/2\ndone\n"},
		{name: "error", in: `{"stream":"Step 1/2\n"}{"errorDetail":{"message":"no such file"},"error":"no such file"}`, out: "Step 1/2\n", err: "build: no such file"},
		{name: "garbage", in: `{"stream":`, err: "build output"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w strings.Builder
			err := readBuildStream(strings.NewReader(tc.in), &w)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			if w.String() != tc.out {
				t.Errorf("output = %q, want %q", w.String(), tc.out)
			}
		})
	}
}

func TestEnsureToolbox(t *testing.T) {
	cli := dockertest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var log strings.Builder
	b, err := Ensure(ctx, cli, Toolbox, &log)
	if err != nil {
		t.Fatalf("ensure: %v\n%s", err, log.String())
	}
	if !strings.HasPrefix(b.Ref, ToolboxRepo+":") || !strings.HasPrefix(b.ID, "sha256:") {
		t.Fatalf("built = %+v", b)
	}
	img, err := cli.ImageInspect(ctx, b.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Config.Labels[LabelImage]; got != Toolbox {
		t.Errorf("label %s = %q, want %q", LabelImage, got, Toolbox)
	}
	if img.Config.User != "65534:65534" {
		t.Errorf("user = %q, want 65534:65534", img.Config.User)
	}
	log.Reset()
	again, err := Ensure(ctx, cli, Toolbox, &log)
	if err != nil {
		t.Fatal(err)
	}
	if again != b || !strings.Contains(log.String(), "up to date") {
		t.Errorf("second ensure = %+v (%q), want the same image up to date", again, log.String())
	}
}
