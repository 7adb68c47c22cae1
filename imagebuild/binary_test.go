package imagebuild

import (
	"context"
	"strings"
	"testing"
)

func TestStaticBinary(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, pkg, err string
	}{
		{name: "kcaudio", pkg: audioHelperPkg},
		{name: "missing", pkg: "./no/such/package", err: "compile missing: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &staticBinary{name: tc.name, pkg: tc.pkg}
			first, err := s.get(ctx)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("err = %v, want prefix %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(first.Data) == 0 || len(first.Hash) != 64 {
				t.Fatalf("binary of %d bytes, hash %q", len(first.Data), first.Hash)
			}
			again, err := s.get(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if &again.Data[0] != &first.Data[0] || again.Hash != first.Hash {
				t.Error("second get compiled again instead of reusing the first binary")
			}
		})
	}
}
