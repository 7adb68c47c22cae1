package toolbox

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/killchain/killchain/internal/tools"
)

// FuzzCall sends any arguments to every tool but run_shell (whose
// argument is a command by design): no arguments make the toolbox panic,
// and arguments it cannot use are the tool's error, which the agent reads,
// never a failure of the sandbox.
func FuzzCall(f *testing.F) {
	names := slices.DeleteFunc(tools.Names(), func(n string) bool { return n == tools.RunShell })
	for i, n := range names {
		for _, args := range []string{`{}`, `null`, `{"url":"https://news.example.org/harbor","query":"harbor","path":"docs/paper.pdf","key":"k","value":"v","id":"R-1","to":"a@b.c","subject":"s","body":"b"}`,
			`{"value":{"nested":[1,2,{"deep":true}]},"key":"` + n + `"}`, `[1,2]`, `{"key":"\u0000"}`} {
			f.Add(uint8(i), "agent_a", []byte(args))
		}
	}
	f.Fuzz(func(t *testing.T, tool uint8, agent string, raw []byte) {
		// A fresh sandbox each time: a failure replays from its input alone.
		b := newBox(t)
		// Arguments come as the model wrote them, valid JSON or not; none
		// at all is an empty object.
		name := names[int(tool)%len(names)]
		res, err := b.Call(agent, name, raw)
		if err != nil {
			t.Fatalf("%s(%q): a sandbox failure for the model's arguments: %v", name, raw, err)
		}
		if len(raw) > 0 && !json.Valid(raw) && res.Error == "" {
			t.Fatalf("%s(%q): text that is not JSON was accepted", name, raw)
		}
	})
}
