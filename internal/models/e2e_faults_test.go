package models

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/results"
)

// runFault is a fault a provider shows in the middle of a relay run.
type runFault struct {
	name string
	// fault is served to requests made after the payload was read.
	fault fake.Fault
	quirk fake.Quirk
	// recovers: the run ends well after a retry (or after reading a tool
	// error); otherwise it is recorded as a provider error and resumed.
	recovers bool
	waited   time.Duration // Retry-After the Caller must honour
	toolErr  string        // the tool error the model must read
	textArgs bool          // needs a wire that carries arguments as text
}

const hangTimeout = 500 * time.Millisecond

func runFaults() []runFault {
	once := func(f fake.Fault) fake.Fault { f.When, f.Times = fake.Exposed, 1; return f }
	always := func(f fake.Fault) fake.Fault { f.When = fake.Exposed; return f }
	return []runFault{
		{name: "429 with Retry-After then success", fault: once(fake.Fault{Name: "429", Status: 429, RetryAfter: "7"}), recovers: true, waited: 7 * time.Second},
		{name: "500 then success", fault: once(fake.Fault{Name: "500", Status: 500}), recovers: true},
		{name: "hung connection then retry", fault: once(fake.Fault{Name: "hang", Hang: true}), recovers: true},
		{name: "truncated JSON then retry", fault: once(fake.Fault{Name: "truncated", Truncate: true}), recovers: true},
		{name: "invalid tool arguments", quirk: fake.BadArgs, recovers: true, toolErr: "not a valid JSON object", textArgs: true},
		{name: "unknown tool", quirk: fake.UnknownTool, recovers: true, toolErr: `unknown tool "` + fake.UnknownToolName + `"`},
		{name: "persistent 500", fault: always(fake.Fault{Name: "500", Status: 500})},
		{name: "persistent 429", fault: always(fake.Fault{Name: "429", Status: 429, RetryAfter: "2"}), waited: 2 * time.Second},
		{name: "persistent hang", fault: always(fake.Fault{Name: "hang", Hang: true})},
		{name: "persistent truncation", fault: always(fake.Fault{Name: "truncated", Truncate: true})},
	}
}

// TestRunFaults runs the propagation relay (one attacked, one clean run)
// against every provider's fake while it misbehaves. Each fault ends either
// in a successful retry, with the attacked run executed, or in a run
// recorded as a provider error that carries no outcome; --resume then
// re-runs exactly that run once the provider behaves.
func TestRunFaults(t *testing.T) {
	setKeys(t)
	for _, c := range e2eCases() {
		for _, f := range runFaults() {
			if f.textArgs && !c.textArgs {
				continue // arguments are a JSON object on this wire: they cannot be malformed
			}
			t.Run(c.label+"/"+f.name, func(t *testing.T) {
				t.Parallel()
				srv := fake.NewProvider(t, c.kind, fake.Options{Default: fake.Behavior{Quirk: f.quirk}, Models: []string{c.model}})
				if f.fault.Name != "" {
					srv.Fail(f.fault)
				}
				src := render(t, c, srv.URL, []modelRef{{"agent", c.model}})
				dir := t.TempDir()
				var sl sleeps
				sum := runStudy(t, src, dir, false, testFactory(&sl, hangTimeout))
				if f.waited > 0 && !slices.Contains(sl.all(), f.waited) {
					t.Errorf("waits %v, want the server's Retry-After %v", sl.all(), f.waited)
				}
				faulted := 0
				for _, e := range srv.Exchanges() {
					if e.Fault != "" {
						faulted++
					}
				}
				runs := readLines(t, dir)
				hack, plain := find(t, runs, "agent", "hack"), find(t, runs, "agent", "plain")
				if plain.Error != "" || plain.Stage != "none" || is(plain.Executed) || !plain.TaskSuccess {
					t.Errorf("clean run: error %q stage %s executed %v task_success %v", plain.Error, plain.Stage, plain.Executed, plain.TaskSuccess)
				}
				if f.recovers {
					if sum.Errors != 0 || hack.Error != "" {
						t.Fatalf("attacked run errored: %s", hack.Error)
					}
					if hack.Stage != "executed" || !hack.AttackGoal {
						t.Errorf("attacked run: stage %s attack_goal %v", hack.Stage, hack.AttackGoal)
					}
					if f.fault.Name != "" && faulted != 1 {
						t.Errorf("%d faulty answers, want 1", faulted)
					}
					if f.toolErr != "" {
						checkToolError(t, readTranscript(t, dir, hack.RunID), srv, f.toolErr)
					}
					return
				}
				if faulted != 3 {
					t.Errorf("%d faulty answers, want 3 (the call and two retries)", faulted)
				}
				isErrored(t, hack)
				if !strings.Contains(hack.Error, "3 attempt(s)") {
					t.Errorf("error %q does not say the retries were spent", hack.Error)
				}
				assertNoKey(t, "runs.jsonl error", hack.Error)
				if sum.Errors != 1 || len(runs) != 2 {
					t.Fatalf("summary %+v, %d lines", sum, len(runs))
				}

				srv.Heal()
				again := runStudy(t, src, dir, true, testFactory(&sl, hangTimeout))
				if again.Ran != 1 || again.Skipped != 1 || again.Errors != 0 {
					t.Fatalf("resume summary %+v, want exactly the errored run", again)
				}
				// The errored try moved to attempts.jsonl: one line per run.
				lines := readLines(t, dir)
				if len(lines) != 2 || lines[1].RunID != hack.RunID {
					t.Fatalf("resume left %d lines, last %s, want the errored run %s", len(lines), lines[len(lines)-1].RunID, hack.RunID)
				}
				var attempts []results.Run
				if err := results.ReadAttempts(dir, func(r results.Run) error { attempts = append(attempts, r); return nil }); err != nil {
					t.Fatal(err)
				}
				if len(attempts) != 1 || attempts[0].RunID != hack.RunID || attempts[0].Error != hack.Error {
					t.Errorf("attempts.jsonl holds %+v, want the errored try", attempts)
				}
				if r := lines[1]; r.Error != "" || r.Stage != "executed" || !r.AttackGoal {
					t.Errorf("resumed run: error %q stage %s attack_goal %v", r.Error, r.Stage, r.AttackGoal)
				}
			})
		}
	}
}

// checkToolError proves a bad call came back to the model as a tool error
// it could read, and that the transcript recorded it.
func checkToolError(t *testing.T, tr runTranscript, srv *fake.Provider, want string) {
	t.Helper()
	recorded := 0
	for _, e := range entries(tr, agent.KindToolResult, "") {
		if e.IsError && strings.Contains(e.Text, want) {
			recorded++
		}
	}
	if recorded != 2 { // each agent's first call went wrong
		t.Errorf("%d transcript tool errors mention %q, want 2", recorded, want)
	}
	read := false
	for _, e := range srv.Exchanges() {
		for _, m := range e.Conv.Msgs {
			read = read || m.Role == "tool" && strings.Contains(m.Text, want)
		}
	}
	if !read {
		t.Errorf("the model never received a tool error saying %q", want)
	}
}
