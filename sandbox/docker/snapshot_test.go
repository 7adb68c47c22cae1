package docker

import (
	"slices"
	"sort"
	"testing"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/warm"
)

func TestSnapshotDiff(t *testing.T) {
	snap := &snapshot{fixtures: map[string]string{
		"db/records.json": sum([]byte("records")),
		"web/a.txt":       sum([]byte("clean page")),
		"web/gone.txt":    sum([]byte("old")),
	}}
	tests := []struct {
		name   string
		files  map[string][]byte
		plant  []string
		remove []string
	}{
		{name: "identical", files: map[string][]byte{"db/records.json": []byte("records"), "web/a.txt": []byte("clean page"), "web/gone.txt": []byte("old")}},
		{name: "payload replaces a page", files: map[string][]byte{"db/records.json": []byte("records"), "web/a.txt": []byte("page SECRET-0A1B2C3D"), "web/gone.txt": []byte("old")}, plant: []string{"web/a.txt"}},
		{name: "run lacks fixtures and adds a file", files: map[string][]byte{"db/records.json": []byte("records"), "docs/p.pdf": []byte("%PDF")}, plant: []string{"docs/p.pdf"}, remove: []string{"web/a.txt", "web/gone.txt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := sandbox.Env{Run: "r", Task: "t", Files: tc.files, Memory: []sandbox.Record{sandbox.TextRecord("k", "v", "")}}
			plant, remove := snap.diff(env)
			var got []string
			for p := range plant.Files {
				got = append(got, p)
			}
			sort.Strings(got)
			if !slices.Equal(got, tc.plant) {
				t.Errorf("planted %v, want %v", got, tc.plant)
			}
			if !slices.Equal(remove, tc.remove) {
				t.Errorf("removed %v, want %v", remove, tc.remove)
			}
			if len(plant.Memory) != 1 || plant.Run != "r" {
				t.Errorf("plant lost the run's memory or identity: %+v", plant)
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	if errs := DefaultOptions().Validate(); len(errs) != 0 {
		t.Errorf("defaults: %v", errs)
	}
	bad := Options{Options: warm.Options{MemoryMB: 1, CPUs: -1, StateMB: 0}, PidsLimit: 2, Audio: &Audio{}}
	if errs := bad.Validate(); len(errs) != 5 {
		t.Errorf("got %d problems %v, want 5", len(errs), errs)
	}
}
