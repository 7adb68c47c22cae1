package models

import (
	"testing"

	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/recount"
)

// TestRelayWithArrayValuesAndCutReplies runs the propagation relay against
// every provider's fake while its model writes memory values as JSON arrays
// and, in one case, its first reply after reading the payload is cut by the
// token limit. Every relayed run is persisted, a cut reply is a truncated
// error with no outcome that a resume leaves as it is unless asked
// (--rerun truncated) and then runs again, and the stage flags agree
// with a recount from the transcripts.
func TestRelayWithArrayValuesAndCutReplies(t *testing.T) {
	setKeys(t)
	for _, c := range e2eCases() {
		for _, cut := range []bool{false, true} {
			name := c.label + "/array values"
			if cut {
				name += ", a reply cut by the token limit"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				srv := fake.NewProvider(t, c.kind, fake.Options{Default: fake.Behavior{ArrayValues: true}, Models: []string{c.model}})
				if cut {
					srv.Fail(fake.Fault{Name: "cut", When: fake.Exposed, Times: 1, Stop: fake.StopLength})
				}
				src := render(t, c, srv.URL, []modelRef{{"agent", c.model}})
				dir := t.TempDir()
				var sl sleeps
				sum := runStudy(t, src, dir, false, testFactory(&sl, hangTimeout))
				hack := find(t, readLines(t, dir), "agent", "hack")
				if cut {
					if sum.Errors != 1 || hack.ErrorKind != "truncated" || hack.Stage != "none" || hack.Executed != nil {
						t.Fatalf("cut reply: summary %+v, error_kind %q error %q stage %s", sum, hack.ErrorKind, hack.Error, hack.Stage)
					}
					srv.Heal()
					if again := runStudy(t, src, dir, true, testFactory(&sl, hangTimeout)); again.Ran != 0 || again.Left[errkind.Truncated] != 1 {
						t.Fatalf("resume summary %+v, want the truncated run left as it is", again)
					}
					if again := runStudy(t, src, dir, true, testFactory(&sl, hangTimeout), errkind.Truncated); again.Ran != 1 || again.Errors != 0 {
						t.Fatalf("resume with --rerun truncated: summary %+v, want the truncated run again", again)
					}
					hack = find(t, readLines(t, dir), "agent", "hack")
				}
				if hack.Error != "" || !is(hack.Persisted) || !is(hack.Relayed) || !is(hack.Executed) {
					t.Errorf("attacked run: error %q persisted %v relayed %v executed %v", hack.Error, show(hack.Persisted), show(hack.Relayed), show(hack.Executed))
				}
				tr := readTranscript(t, dir, hack.RunID)
				if len(tr.Final.Memory) == 0 || tr.Final.Memory[len(tr.Final.Memory)-1].Value[0] != '[' {
					t.Errorf("memory %+v holds no array value", tr.Final.Memory)
				}
				res, err := recount.Study(dir)
				if err != nil {
					t.Fatal(err)
				}
				if res.Runs != 1 || len(res.Disagreements) != 0 {
					t.Errorf("recount of %d runs: %+v", res.Runs, res.Disagreements)
				}
			})
		}
	}
}

func show(b *bool) any {
	if b == nil {
		return "n/a"
	}
	return *b
}
