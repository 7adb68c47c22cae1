package defense

import (
	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/defense/kinds"
	"github.com/killchain/killchain/internal/tools"
)

// ToolPinning pins an MCP server's tools at an agent's first listing of
// it (the loop keeps a hash of each tool's name, description and input
// schema) and withholds from the model any tool whose description or
// schema changed since, or that was not listed then: the agent keeps the
// pinned version, and the loop records the withholding. It inspects
// kinds.ToolListing only, so a payload already in the first listing
// passes it: pinning trusts what it first saw.
type ToolPinning struct{}

var (
	_ agent.Defense       = ToolPinning{}
	_ agent.ListingFilter = ToolPinning{}
)

// Name implements agent.Defense.
func (ToolPinning) Name() string { return kinds.ToolPinning }

// Channel implements agent.Defense.
func (ToolPinning) Channel() string { return kinds.ToolListing }

// Withhold implements agent.ListingFilter: every change is withheld.
func (ToolPinning) Withhold(server string, pinned *tools.Spec, now tools.Spec) (bool, string) {
	if pinned == nil {
		return true, "tool " + now.Name + " of server " + server + " was not in its first listing"
	}
	return true, "the description of " + now.Name + " (server " + server + ") changed since its first listing"
}
