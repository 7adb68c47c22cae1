package cli

import (
	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/killchain/killchain/probes/probescli"
)

// newProbesCmd is the probes command: tiny-model, train and score run
// here; extract, devices and bench run in killchain-probes, which links
// the cgo engine.
func newProbesCmd(g *globals) *cobra.Command {
	return probescli.Command(func() hclog.Logger { return g.logger(nil) }, nil)
}
