package tasks

import (
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/sandbox"
)

// Specs returns the specs of an environment's task tools as a model is
// offered them: descriptions with the run's payload in place.
func Specs(defs []sandbox.ToolDef) []tools.Spec {
	out := make([]tools.Spec, 0, len(defs))
	for _, d := range defs {
		lv, err := tools.ParseLevel(d.Level)
		if err != nil {
			lv = tools.Admin // an unreadable level grants nothing below admin
		}
		out = append(out, tools.Spec{Name: d.Name, Description: d.Description, Level: lv, Parameters: d.Parameters,
			Outbound: d.Outbound, Untrusted: d.Untrusted})
	}
	return out
}
