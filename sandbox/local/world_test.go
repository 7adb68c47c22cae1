package local

import (
	"context"
	"testing"

	"github.com/killchain/killchain/internal/sandboxtest"
	"github.com/killchain/killchain/sandbox"
)

func TestWorld(t *testing.T) {
	b := &Backend{Root: t.TempDir()}
	sandboxtest.WorldCalls(t, func(t *testing.T, env sandbox.Env) sandbox.Sandbox {
		sb, err := b.Open(context.Background(), env)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sb.Close(context.Background()) })
		return sb
	})
}
