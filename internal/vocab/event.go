package vocab

// Channel is where text was seen.
type Channel string

// Channels the agent loop reports.
const (
	ToolCall       Channel = "tool_call"   // arguments of any call as the model asked for it
	ToolResult     Channel = "tool_result" // a result delivered to an agent, after defenses
	MemoryRead     Channel = "memory_read" // a read_memory result delivered to an agent
	WriteRequested Channel = "memory_write_requested"
	// The three effect channels carry only what the sandbox's effect log
	// says it did, never a model's arguments: they alone decide Persisted,
	// the delegation relay and Executed.
	WriteCommitted Channel = "memory_write_committed" // a record as the sandbox committed it
	Delegation     Channel = "delegation"             // a hand-over the sandbox queued; it becomes the next agent's prompt
	Outbound       Channel = "outbound"               // an outbound effect: the fields that left
	// StateWrite is what an agent's call wrote into a stateful
	// environment's state, as the sandbox committed it (the strings of the
	// places it changed): it decides Persisted in a pipeline.
	StateWrite Channel = "state_write_committed"
	// ToolDescription is what an agent is told about the tools it is
	// offered; a payload placed in a tool's description reaches it there.
	ToolDescription Channel = "tool_description"
	// ToolListing is an MCP server's tool listing as an agent is handed it
	// (after tool_pinning and spotlighting): descriptions and input
	// schemas, at the first listing and at every one a
	// notifications/tools/list_changed brought.
	ToolListing Channel = "tool_listing"
	Thinking    Channel = "thinking"
	Narration   Channel = "narration"
	Prompt      Channel = "prompt"
)

// Signals written on events besides stage names.
const (
	SigSeen          = "seen"
	SigNoticed       = "noticed"
	SigBlockedWrite  = "blocked_write"
	SigBlockedCall   = "blocked_call"
	SigContamination = "contamination"
	// SigAttempt marks a call that carried out no effect (refused, blocked,
	// failed); Event.Canary says whether its arguments held the canary.
	SigAttempt = "attempt"
	// SigClassifierError marks a pi_detector check with no usable verdict.
	SigClassifierError = "classifier_error"
	// SigWithheld marks an MCP tool a defense withheld from a listing (a
	// description changed since the first listing); Event.Canary says
	// whether it held the canary.
	SigWithheld = "withheld"
)

// Event is one line of events.jsonl.
type Event struct {
	Study   string `json:"study,omitempty"`
	RunID   string `json:"run_id"`
	Agent   string `json:"agent"`
	Pos     string `json:"position"` // "a" or "b"
	Step    int    `json:"step"`
	Tool    string `json:"tool,omitempty"`
	Channel string `json:"channel"`
	Signal  string `json:"signal"`
	Excerpt string `json:"excerpt,omitempty"`
	// Canary is set on attempt events whose arguments held the canary.
	Canary bool `json:"canary,omitempty"`
	// Detail says why an attempt carried out nothing (refused, blocked, failed).
	Detail string `json:"detail,omitempty"`
}

// PosLabel names an agent's position: "a" for the first agent, "b" for the second.
func PosLabel(pos int) string { return string(rune('a' + pos)) }
