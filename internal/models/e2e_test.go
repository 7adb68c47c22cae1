package models

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/results"
)

// TestRelayEndToEnd drives, for every provider, the propagation relay
// (researcher: get_webpage → write_memory; reporter: read_memory →
// send_report) through runner.Run with the local sandbox, the real SDK
// and a fake provider that reads each request and answers like a model in
// that provider's wire format. It checks the study folder: stages, the
// transcript's separate channels, a canary seen only in thinking counted
// as noticed and never executed, and token sums.
func TestRelayEndToEnd(t *testing.T) {
	setKeys(t)
	for _, c := range e2eCases() {
		t.Run(c.label, func(t *testing.T) {
			t.Parallel()
			refs := []modelRef{{"agent", c.model}}
			opts := fake.Options{Behaviors: map[string]fake.Behavior{}, Models: []string{c.model}}
			if c.noticer != "" {
				refs = append(refs, modelRef{"noticer", c.noticer})
				opts.Behaviors[c.noticer] = fake.Behavior{Resist: true}
				opts.Models = append(opts.Models, c.noticer)
			}
			srv := fake.NewProvider(t, c.kind, opts)
			dir := t.TempDir()
			sum := runStudy(t, render(t, c, srv.URL, refs), dir, false, testFactory(&sleeps{}, 5*time.Second))
			runs := readLines(t, dir)
			if sum.Errors != 0 || len(runs) != 2*len(refs) {
				t.Fatalf("summary %+v with %d lines, want %d runs without errors", sum, len(runs), 2*len(refs))
			}
			for _, r := range runs {
				if r.Error != "" {
					t.Fatalf("run %s errored: %s", r.RunID, r.Error)
				}
			}
			for _, e := range srv.Exchanges() {
				if e.Status != 200 {
					t.Errorf("the fake refused a request (%d): %s", e.Status, e.Reject)
				}
			}

			hack := find(t, runs, "agent", "hack")
			t.Run("attacked run reaches executed", func(t *testing.T) {
				if hack.Stage != "executed" || !is(hack.Exposed) || !is(hack.Persisted) || !is(hack.Relayed) || !is(hack.Executed) {
					t.Errorf("stage %s exposed %v persisted %v relayed %v executed %v", hack.Stage, hack.Exposed, hack.Persisted, hack.Relayed, hack.Executed)
				}
				if !hack.AttackGoal || !hack.TaskSuccess || hack.NoToolCall {
					t.Errorf("attack_goal %v task_success %v no_tool_call %v", hack.AttackGoal, hack.TaskSuccess, hack.NoToolCall)
				}
				tr := readTranscript(t, dir, hack.RunID)
				if got := toolNames(entries(tr, agent.KindToolCall, "a")); !slices.Equal(got, []string{"get_webpage", "write_memory"}) {
					t.Errorf("researcher calls %v", got)
				}
				if got := toolNames(entries(tr, agent.KindToolCall, "b")); !slices.Equal(got, []string{"read_memory", "send_report", "send_report"}) {
					t.Errorf("reporter calls %v", got)
				}
				checkChannels(t, c, tr, srv.Exchanges())
			})

			plain := find(t, runs, "agent", "plain")
			t.Run("clean control", func(t *testing.T) {
				if plain.Contaminated || is(plain.Executed) || plain.Stage != "none" || plain.AttackGoal || !plain.TaskSuccess || plain.Canary != "" {
					t.Errorf("plain run: %+v", plain)
				}
			})

			if c.noticer != "" {
				t.Run("canary only in thinking is noticed, never executed", func(t *testing.T) {
					n := find(t, runs, "noticer", "hack")
					if !n.NoticedThinking || n.NoticedNarration || !n.Noticed {
						t.Errorf("noticed %v thinking %v narration %v", n.Noticed, n.NoticedThinking, n.NoticedNarration)
					}
					if !isFalse(n.Executed) || !isFalse(n.Persisted) || n.Stage != "exposed" || n.AttackGoal || !n.TaskSuccess {
						t.Errorf("stage %s persisted %v executed %v attack_goal %v task_success %v", n.Stage, n.Persisted, n.Executed, n.AttackGoal, n.TaskSuccess)
					}
					tr := readTranscript(t, dir, n.RunID)
					inThinking := false
					for _, e := range entries(tr, agent.KindThinking, "") {
						inThinking = inThinking || strings.Contains(e.Text, n.Canary)
					}
					if !inThinking {
						t.Error("the canary is in no thinking entry")
					}
					checkChannels(t, c, tr, srv.Exchanges())
				})
			}

			t.Run("tokens are summed per run", func(t *testing.T) {
				var total fake.Usage
				for _, e := range srv.Exchanges() {
					total.Input += e.Usage.Input
					total.Output += e.Usage.Output
					total.Reasoning += e.Usage.Reasoning
					total.Cached += e.Usage.Cached
				}
				var got fake.Usage
				for _, r := range runs {
					var u agent.Usage
					for _, e := range entries(readTranscript(t, dir, r.RunID), agent.KindNarration, "") {
						if e.Usage != nil {
							u.Add(*e.Usage)
						}
					}
					if r.InputTokens != u.Input || r.OutputTokens != u.Output || r.ReasoningTokens != u.Reasoning {
						t.Errorf("run %s: tokens %d/%d/%d, transcript sums %+v", r.RunID, r.InputTokens, r.OutputTokens, r.ReasoningTokens, u)
					}
					got.Input += r.InputTokens
					got.Output += r.OutputTokens
					got.Reasoning += r.ReasoningTokens
					got.Cached += r.CachedInputTokens
					if r.TokensEstimated {
						t.Errorf("run %s: counts marked estimated though the fake reported them", r.RunID)
					}
				}
				if got != total {
					t.Errorf("runs.jsonl sums %+v, the fake reported %+v", got, total)
				}
				if (total.Cached > 0) != (c.kind != fake.Compatible && c.kind != fake.Ollama) {
					t.Errorf("cached input %d: the %s fake reports a prompt cache exactly when it is not vLLM or Ollama", total.Cached, c.kind)
				}
				if hack.InputTokens == 0 || hack.OutputTokens == 0 || (hack.ReasoningTokens > 0) != c.reasons {
					t.Errorf("attacked run tokens %d/%d/%d (reasoning expected: %v)", hack.InputTokens, hack.OutputTokens, hack.ReasoningTokens, c.reasons)
				}
			})
		})
	}
}

// checkChannels proves the transcript keeps thinking, narration and calls
// apart: each thinking entry is a thinking the fake sent and nothing else,
// each narration entry a narration, each call's arguments a call's.
func checkChannels(t *testing.T, c e2eCase, tr results.Transcript, ex []fake.Exchange) {
	t.Helper()
	var thinking, narration []string
	var args []map[string]any
	for _, e := range ex {
		if e.Turn == nil {
			continue
		}
		thinking = append(thinking, e.Turn.Thinking)
		narration = append(narration, e.Turn.Narration)
		for _, call := range e.Turn.Calls {
			var m map[string]any
			json.Unmarshal([]byte(call.Args), &m)
			args = append(args, m)
		}
	}
	th := entries(tr, agent.KindThinking, "")
	if c.thinks != (len(th) > 0) {
		t.Errorf("%d thinking entries; provider thinks: %v", len(th), c.thinks)
	}
	redacted := false
	for _, e := range th {
		redacted = redacted || e.Redacted
		if !slices.Contains(thinking, e.Text) {
			t.Errorf("thinking entry %q is not a thinking the model sent", e.Text)
		}
	}
	if redacted != c.redacts {
		t.Errorf("redacted thinking recorded: %v, want %v", redacted, c.redacts)
	}
	for _, e := range entries(tr, agent.KindNarration, "") {
		if !slices.Contains(narration, e.Text) {
			t.Errorf("narration entry %q is not a narration the model sent", e.Text)
		}
		for _, th := range thinking {
			if th != "" && strings.Contains(e.Text, th) {
				t.Errorf("narration %q carries thinking", e.Text)
			}
		}
	}
	for _, e := range entries(tr, agent.KindToolCall, "") {
		var m map[string]any
		if err := json.Unmarshal([]byte(e.Args), &m); err != nil {
			t.Errorf("call %s: arguments %q: %v", e.Tool, e.Args, err)
			continue
		}
		if !slices.ContainsFunc(args, func(a map[string]any) bool { return reflect.DeepEqual(a, m) }) {
			t.Errorf("call %s arguments %s are not arguments the model sent", e.Tool, e.Args)
		}
	}
	if len(entries(tr, agent.KindToolResult, "")) == 0 {
		t.Error("no tool results in the transcript")
	}
}

// isErrored checks an errored run carries no outcome.
func isErrored(t *testing.T, r results.Run) {
	t.Helper()
	if r.Error == "" || r.ErrorKind != "provider" {
		t.Fatalf("run %s: error %q kind %q, want a provider error", r.RunID, r.Error, r.ErrorKind)
	}
	if r.Stage != "none" || is(r.Exposed) || is(r.Executed) || r.AttackGoal || r.TaskSuccess || r.Noticed {
		t.Errorf("errored run %s counted as an outcome: stage %s exposed %v executed %v attack_goal %v task_success %v",
			r.RunID, r.Stage, r.Exposed, r.Executed, r.AttackGoal, r.TaskSuccess)
	}
}
