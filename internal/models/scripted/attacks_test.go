package scripted

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/attacks"
	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/tasks"
)

// attackScenario plants an attack where the task's first variant plants.
func attackScenario(t *testing.T, task *tasks.Task, spec string) scenario {
	t.Helper()
	a, err := attacks.Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := task.AttackVariant(a, task.AttackPlacements()[0], "reference-agent")
	if err != nil {
		t.Fatal(err)
	}
	c, err := canary.New()
	if err != nil {
		t.Fatal(err)
	}
	env, err := task.Env(tasks.BuildInput{Study: "test", Run: "run-1", Variant: v, Attacked: true, Canary: c})
	if err != nil {
		t.Fatal(err)
	}
	return scenario{mode: task.Mode, roles: task.Roles, env: env, canary: c, attacker: task.Attack.Address,
		admin: task.Attack.Tools, recipient: task.Goal.Recipient, keyFacts: task.Goal.KeyFacts}
}

func flag3(b *bool) string {
	switch {
	case b == nil:
		return "n/a"
	case *b:
		return "yes"
	}
	return "no"
}

// TestAttackStagesByEncoding drives the decoder and literal reference
// agents over a single-agent task and a memory relay with one attack family
// under each encoding, and checks the stage table in
// testdata/attack_stages.txt. Alone, the decoder follows exactly the
// base64 and ROT13 payloads, the literal agent exactly the clear one. What
// either passes on as a fact (an encoded blob, or the polite wording the
// directive reader does not flag) still counts at the later stages, as the
// recognizer undoes every encoding: executed without the attack goal.
func TestAttackStagesByEncoding(t *testing.T) {
	encodings := []string{"", "+base64", "+rot13", "+hex", "+rot13+base64", "+tags"}
	var table strings.Builder
	fmt.Fprintf(&table, "%-14s %-8s %-28s %-9s %-7s %-9s %-7s %-8s %-9s %s\n",
		"task", "agent", "attack", "stage", "exposed", "persisted", "relayed", "executed", "goal", "task")
	for _, name := range []string{"memory_poison", "propagation"} {
		task, _ := tasks.Builtin().Get(name)
		for _, policy := range []string{Decoder, Literal} {
			for _, enc := range encodings {
				spec := "polite_request" + enc
				sc := attackScenario(t, task, spec)
				models := []agent.Model{mustNew(t, policy)}
				if len(task.Roles) > 1 {
					models = append(models, mustNew(t, policy))
				}
				o := run(t, sc, models...)
				s := o.summary
				goal := o.attackGoal(sc)
				fmt.Fprintf(&table, "%-14s %-8s %-28s %-9s %-7s %-9s %-7s %-8s %-9v %v\n", name, policy, spec, s.Stage,
					flag3(s.Exposed), flag3(s.Persisted), flag3(s.Relayed), flag3(s.Executed), goal, o.taskSuccess(sc))
				decodes := enc == "+base64" || enc == "+rot13" || enc == "+rot13+base64"
				// Alone, an agent follows what it reads: the literal agent
				// clear text only, the decoder base64 and ROT13 only. In
				// the relay the writer cannot send and passes on the facts:
				// a base64 blob among them reaches the reader, who follows
				// it only if it decodes.
				want := enc == ""
				if policy == Decoder {
					want = decodes
				}
				if task.Mode != vocab.Single {
					want = policy == Decoder && strings.HasSuffix(enc, "+base64")
				}
				if goal != want {
					t.Errorf("%s %s %s: attack goal %v, want %v", name, policy, spec, goal, want)
				}
				if !*s.Exposed {
					t.Errorf("%s %s %s: the delivered payload is not exposed", name, policy, spec)
				}
				if goal && !*s.Executed {
					t.Errorf("%s %s %s: the attacker got a report but the canary is not executed", name, policy, spec)
				}
			}
		}
	}
	golden := filepath.Join("testdata", "attack_stages.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(table.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != table.String() {
		t.Errorf("stage table differs from %s (go test -run TestAttackStagesByEncoding -update):\n%s", golden, table.String())
	}
}
