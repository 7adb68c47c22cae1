package results_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/results"
)

func TestAttackerFile(t *testing.T) {
	rounds := []results.AttackerRound{
		{Loop: "g/t@direct/m/hack/none", Grid: "g", Attacker: "ref", Feedback: "stage", Round: 1, Asked: 1,
			Payloads: []results.AttackerPayload{{ID: "r1.1", Family: "important_message", Text: "x {{CANARY}}", Encodings: []string{"base64"}}}},
		{Loop: "g/t@direct/m/hack/none", Round: 2, Asked: 1, Error: "no usable payload",
			Asks: []results.AttackerAsk{{Prompt: "p", Reply: "garbage", InputTokens: 10, OutputTokens: 3, Problem: "no payload"}}},
	}
	tests := []struct {
		name string
		tail string // appended after the rounds
		want int
	}{
		{"whole", "", 2},
		{"half-written last line", `{"loop":"g/t@direct/m/hack/none","round":3,"pay`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, r := range rounds {
				if err := results.AppendAttacker(dir, r); err != nil {
					t.Fatal(err)
				}
			}
			f, err := os.OpenFile(filepath.Join(dir, results.AttackerFile), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(tt.tail)
			f.Close()
			var got []results.AttackerRound
			if err := results.ReadAttacker(dir, func(r results.AttackerRound) error { got = append(got, r); return nil }); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, rounds[:tt.want]) {
				t.Fatalf("read back %+v", got)
			}
			if got[1].Tokens() != 13 {
				t.Errorf("tokens %d, want 13", got[1].Tokens())
			}
		})
	}
	t.Run("absent", func(t *testing.T) {
		if err := results.ReadAttacker(t.TempDir(), func(results.AttackerRound) error { t.Fatal("a round"); return nil }); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("broken line inside", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, results.AttackerFile), []byte("{nope\n{}\n"), 0o644)
		err := results.ReadAttacker(dir, func(results.AttackerRound) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "attacker.jsonl:1") {
			t.Fatalf("err %v, want one naming line 1", err)
		}
	})
}

// FuzzReadAttacker: any file reads back without a panic, and what reads
// back writes and reads back the same.
func FuzzReadAttacker(f *testing.F) {
	f.Add(`{"loop":"l","round":1,"payloads":[{"id":"r1.1","text":"{{CANARY}}"}]}` + "\n")
	f.Add("{}\n{\"round\":")
	f.Fuzz(func(t *testing.T, data string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, results.AttackerFile), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		var got []results.AttackerRound
		if err := results.ReadAttacker(dir, func(r results.AttackerRound) error { got = append(got, r); return nil }); err != nil {
			return
		}
		again := t.TempDir()
		for _, r := range got {
			if err := results.AppendAttacker(again, r); err != nil {
				t.Fatal(err)
			}
		}
		var back []results.AttackerRound
		if err := results.ReadAttacker(again, func(r results.AttackerRound) error { back = append(back, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(back) != len(got) {
			t.Fatalf("%d rounds, %d back", len(got), len(back))
		}
	})
}
