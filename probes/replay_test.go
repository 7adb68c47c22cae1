package probes

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/probes/internal/studytest"
)

// TestCallsMatchRecordedRequests checks the replay against the requests
// the agent loop really made: every call rebuilt from the transcripts of a
// study under every defense and condition equals one recorded request.
func TestCallsMatchRecordedRequests(t *testing.T) {
	rec := &studytest.Recorder{}
	dir := studytest.Run(t, studytest.Defenses, rec)
	files, err := filepath.Glob(filepath.Join(dir, "transcripts", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	var got []string
	for _, f := range files {
		tr, err := results.ReadTranscriptFile(f)
		if err != nil {
			t.Fatal(err)
		}
		calls, err := Calls(tr)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			b, err := json.Marshal(c.Request)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(b))
		}
	}
	want := rec.Requests
	slices.Sort(got)
	slices.Sort(want)
	if len(got) != len(want) {
		t.Fatalf("rebuilt %d calls, recorded %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("call %d differs:\nrebuilt  %s\nrecorded %s", i, got[i], want[i])
		}
	}
	t.Logf("%d calls of %d runs rebuilt exactly", len(got), len(files))
}
