package benchdata

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/vocab"
)

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	const n = 5000
	if err := Generate(dir, n, 7); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	attacked, executed, errored, withForensics := 0, 0, 0, 0
	exposedIDs := map[string]bool{}
	err := results.ReadRuns(filepath.Join(dir, "runs.jsonl"), func(r results.Run) error {
		if ids[r.RunID] {
			t.Errorf("duplicate run id %s", r.RunID)
		}
		ids[r.RunID] = true
		if r.Error != "" {
			errored++
			return nil
		}
		mode := vocab.Mode(r.Mode)
		for s, b := range []*bool{r.Exposed, r.Persisted, r.Relayed, r.Executed} {
			if (b == nil) == mode.Applies(vocab.Stage(s+1)) {
				t.Fatalf("%s: stage %d flag %v in mode %s", r.RunID, s+1, b, mode)
			}
		}
		if r.Attacked {
			attacked++
			if results.Is(r.Executed) {
				executed++
				if r.Lag == nil || !results.Is(r.Exposed) {
					t.Errorf("%s executed without lag or exposure", r.RunID)
				}
			}
			if results.Is(r.Exposed) {
				exposedIDs[r.RunID] = true
			}
		} else if r.Stage != "none" || r.Canary != "" {
			t.Errorf("clean run %s: stage %s canary %q", r.RunID, r.Stage, r.Canary)
		}
		if r.Forensics != nil {
			withForensics++
			if len(r.Forensics.Drift) != r.StepsA+r.StepsB {
				t.Errorf("%s: %d drift values for %d steps", r.RunID, len(r.Forensics.Drift), r.StepsA+r.StepsB)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != n {
		t.Fatalf("%d runs, want %d", len(ids), n)
	}
	// Shape: about three attacked runs in four, a small error share, and an
	// executed share between the compliant and the resistant models'.
	if f := float64(attacked) / n; f < 0.7 || f > 0.8 {
		t.Errorf("attacked share %.3f", f)
	}
	if f := float64(executed) / float64(attacked); f < 0.05 || f > 0.4 {
		t.Errorf("executed share %.3f", f)
	}
	if errored == 0 || errored > n/50 || withForensics != n-errored {
		t.Errorf("errored %d, with forensics %d", errored, withForensics)
	}

	f, err := os.Open(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	seen := map[string]bool{}
	for sc.Scan() {
		var e vocab.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if !exposedIDs[e.RunID] {
			t.Fatalf("event for run %s, which was not exposed", e.RunID)
		}
		seen[e.RunID] = true
	}
	if len(seen) != len(exposedIDs) {
		t.Errorf("events for %d runs, %d exposed", len(seen), len(exposedIDs))
	}
	var man map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil || json.Unmarshal(b, &man) != nil || man["planned_runs"] != float64(n) {
		t.Errorf("manifest %s (%v)", b, err)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := Generate(d, 300, 11); err != nil {
			t.Fatal(err)
		}
	}
	x, _ := os.ReadFile(filepath.Join(a, "runs.jsonl"))
	y, _ := os.ReadFile(filepath.Join(b, "runs.jsonl"))
	if string(x) != string(y) || len(x) == 0 {
		t.Error("same seed, different studies")
	}
}
