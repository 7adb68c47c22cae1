package images

import (
	"errors"
	"testing"
)

func TestEmbeddedBinaries(t *testing.T) {
	tests := []struct {
		name string
		get  func() (Binary, error)
	}{
		{"toolbox", ToolboxBinary},
		{"kcaudio", AudioHelperBinary},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.get()
			if err != nil {
				t.Fatalf("%v (make test builds them first)", err)
			}
			if len(b.Data) < 1<<16 || len(b.Hash) != 64 || string(b.Data[:4]) != "\x7fELF" {
				t.Fatalf("binary of %d bytes, hash %q: not a static ELF", len(b.Data), b.Hash)
			}
			again, _ := tc.get()
			if &again.Data[0] != &b.Data[0] {
				t.Error("second read copied the binary again")
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		if _, err := embedded("no-such-helper"); !errors.Is(err, ErrNoBinary) {
			t.Fatalf("err = %v, want ErrNoBinary", err)
		}
	})
}
