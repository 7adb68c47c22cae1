package agent

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/killchain/killchain/internal/tools"
)

// countingChecker passes every listed tool, each check spending usage.
type countingChecker struct{ usage Usage }

func (countingChecker) Name() string    { return "counting" }
func (countingChecker) Channel() string { return "tool_listing" }
func (c countingChecker) CheckListing(context.Context, string, tools.Spec) (Verdict, error) {
	return Verdict{Usage: c.usage}, nil
}

// TestMCPListingCheckUsage: what a defense's classifier spends checking
// an untrusted server's listing is the defenses' usage, as what it spends
// checking calls is, so that it is priced at the classifier's price.
func TestMCPListingCheckUsage(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "ext"}, nil)
	srv.AddTool(&mcp.Tool{Name: "lookup", Description: "looks things up", InputSchema: objSchema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	cfg := mcpConfig(&seq{}, dialer(sdkServer(srv)))
	cfg.Defenses = []Defense{countingChecker{usage: Usage{Input: 7, Output: 3}}}
	res, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.DefenseUsage.Input != 7 || res.DefenseUsage.Output != 3 {
		t.Errorf("defense usage %+v, want the listing check's 7 in and 3 out", res.DefenseUsage)
	}
	if res.Usage.Input < 7 || res.Usage.Output < 3 {
		t.Errorf("usage %+v does not hold the listing check's", res.Usage)
	}
}
