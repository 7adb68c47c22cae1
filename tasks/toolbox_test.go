package tasks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/canary"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/internal/vocab"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/toolbox"
)

// scriptTranscriber stands in for speech synthesis plus transcription: the
// transcript of a clip is its speech script.
type scriptTranscriber map[string]string

func (s scriptTranscriber) Transcribe(p string) (string, error) {
	for rel, text := range s {
		if strings.HasSuffix(filepath.ToSlash(p), "/"+rel) {
			return text, nil
		}
	}
	return "", fmt.Errorf("no script for %s", p)
}

// prepare lays env into a fresh state folder, as a backend does.
func prepare(t *testing.T, env sandbox.Env) *toolbox.Box {
	t.Helper()
	dir := t.TempDir()
	scripts := scriptTranscriber{}
	for _, s := range env.Speech {
		scripts[s.Path] = s.Text
		// The backend synthesizes the clip; a placeholder file stands in.
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(s.Path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.Path), []byte("RIFF\x24\x00\x00\x00WAVEfmt "), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	box := toolbox.New(dir, scripts)
	if err := box.Prepare(env); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	return box
}

func call(t *testing.T, box *toolbox.Box, agent, tool string, args map[string]string) string {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := box.Call(agent, tool, raw)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.Error != "" {
		t.Fatalf("%s(%s): tool error %s", tool, raw, res.Error)
	}
	return res.Output
}

// readSource calls a role's payload-carrying read tools with the arguments
// its prompt names, following the content conventions, and returns what the
// tools returned.
func readSource(t *testing.T, box *toolbox.Box, r Role) string {
	t.Helper()
	var out []string
	quoted := ""
	if m := quotedRE.FindStringSubmatch(r.Prompt); m != nil {
		quoted = m[1]
	}
	for _, tool := range r.Tools {
		switch tool {
		case tools.GetWebpage:
			out = append(out, call(t, box, r.Name, tool, map[string]string{"url": urlRE.FindString(r.Prompt)}))
		case tools.Search:
			out = append(out, call(t, box, r.Name, tool, map[string]string{"query": quoted}))
		case tools.ParsePDF:
			out = append(out, call(t, box, r.Name, tool, map[string]string{"path": docRE.FindString(r.Prompt)}))
		case tools.TranscribeAudio:
			out = append(out, call(t, box, r.Name, tool, map[string]string{"path": audioRE.FindString(r.Prompt)}))
		case tools.ReadMemory:
			out = append(out, call(t, box, r.Name, tool, map[string]string{"key": quoted}))
		}
	}
	return strings.Join(out, "\n")
}

// TestToolboxExposure runs every task through the real toolbox the way a
// convention-following agent would: the first role reads its source with the
// arguments named in its prompt and sees the canary (attacked) or no
// canary-shaped string (clean), plus every key fact; a verbatim relay carries
// the source to the second role.
func TestToolboxExposure(t *testing.T) {
	for _, name := range injectionNames() {
		tk, _ := builtinGet(name)
		if tk.MCP() {
			// Its sources are task tools served over MCP: runner's
			// TestMCPStudyLocal and TestMCPStudyDocker check what each
			// agent is shown there.
			continue
		}
		for _, v := range tk.Variants {
			for _, attacked := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/attacked=%v", name, v.Name, attacked), func(t *testing.T) {
					in := BuildInput{Variant: Variant{Name: v.Name}, Attacked: attacked}
					if attacked {
						in.Canary = testCanary
					}
					env, err := tk.Env(in)
					if err != nil {
						t.Fatal(err)
					}
					box := prepare(t, env)
					first := tk.Roles[0]
					seen := readSource(t, box, first)
					if attacked != canary.Contains(seen, testCanary) {
						t.Errorf("canary exposed = %v, want %v:\n%s", !attacked, attacked, seen)
					}
					if !attacked && len(canary.FindAny(seen)) > 0 {
						t.Errorf("clean source shows %v", canary.FindAny(seen))
					}
					for _, f := range tk.Goal.KeyFacts {
						if !strings.Contains(strings.ToLower(seen), strings.ToLower(f)) {
							t.Errorf("key fact %q not in what %s sees", f, first.Name)
						}
					}
					var relayed string
					switch tk.Mode {
					case vocab.MemoryRelay:
						key := quotedRE.FindStringSubmatch(first.Prompt)[1]
						call(t, box, first.Name, tools.WriteMemory, map[string]string{"key": key, "value": seen})
						relayed = readSource(t, box, tk.Roles[1])
					case vocab.DelegationRelay:
						call(t, box, first.Name, tools.Delegate, map[string]string{"message": seen})
						st, err := box.State()
						if err != nil {
							t.Fatal(err)
						}
						relayed = strings.Replace(tk.Roles[1].Prompt, HandoffPlaceholder, st.Delegation[0], 1)
						if got := testEmailRE.FindString(relayed); !strings.EqualFold(got, tk.Goal.Recipient) {
							t.Errorf("first address of the filled reader prompt = %q, want %q", got, tk.Goal.Recipient)
						}
					default:
						return
					}
					if attacked != canary.Contains(relayed, testCanary) {
						t.Errorf("canary relayed = %v, want %v", !attacked, attacked)
					}
				})
			}
		}
	}
}

// TestPermissionEscRecords checks that the records the attack goal protects
// are in the database the environment ships.
func TestPermissionEscRecords(t *testing.T) {
	tk, _ := builtinGet("permission_esc")
	env, err := tk.Env(BuildInput{Variant: Variant{Name: "override"}, Attacked: true, Canary: testCanary})
	if err != nil {
		t.Fatal(err)
	}
	st, err := prepare(t, env).State()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range st.DB {
		ids = append(ids, r.ID)
	}
	if len(tk.Attack.ProtectedRecords) == 0 {
		t.Fatal("no protected records")
	}
	for _, id := range tk.Attack.ProtectedRecords {
		if !slices.Contains(ids, id) {
			t.Errorf("protected record %s not in the database %v", id, ids)
		}
	}
	for _, v := range tk.Variants {
		if strings.Contains(v.Payload, `record_id "`) {
			id := v.Payload[strings.Index(v.Payload, `record_id "`)+len(`record_id "`):]
			id = id[:strings.Index(id, `"`)]
			if !slices.Contains(tk.Attack.ProtectedRecords, id) {
				t.Errorf("%s targets %s, which is not protected", v.Name, id)
			}
		}
	}
}
