package docker

import (
	"context"
	"testing"
)

// BenchmarkSnapshotLookup times the path every run takes once its task's
// snapshot is built: the lookup, from parallel runs.
func BenchmarkSnapshotLookup(b *testing.B) {
	be := &Backend{snaps: map[string]*snapshot{}}
	be.snaps["t\x00toolbox"] = &snapshot{task: "t"}
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := be.snapshot(ctx, "t", "toolbox"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
