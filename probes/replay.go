package probes

import (
	"encoding/json"
	"fmt"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/tools"
	"github.com/killchain/killchain/tasks"
)

// Call is one model call of a run, rebuilt from its transcript: the exact
// request the agent loop handed the model at that step.
type Call struct {
	RunID string
	Agent string // role name
	Pos   string // "a" or "b"
	Model string // model block name
	Step  int    // run-wide step of the turn this call produced
	// Turn counts the agent's own calls from 0.
	Turn    int
	Request agent.Request
	// ToolCalls are the calls the model made in reply, by tool name.
	ToolCalls []string
}

// Calls rebuilds every model call of a run, in order, the way agent.Run
// builds its requests: the system prompt and the user prompt, then each
// turn's assistant message and one tool message per call, holding what the
// model was shown (errors, refusals and blocks included).
//
// The tools each agent was offered come from the transcript (its tools
// entry holds their specs as the model was given them); a transcript
// written before those entries were kept falls back to the built-in task's
// roles.
func Calls(t *results.Transcript) ([]Call, error) {
	var calls []Call
	for i, ag := range t.Agents {
		specs, err := offered(t, i, ag.Position)
		if err != nil {
			return nil, err
		}
		cs, err := agentCalls(t, ag.Position, ag.Model, specs)
		if err != nil {
			return nil, err
		}
		calls = append(calls, cs...)
	}
	return calls, nil
}

// offered returns the tool specs agent i (at position pos) was offered.
func offered(t *results.Transcript, i int, pos string) ([]tools.Spec, error) {
	for _, e := range t.Entries {
		if e.Pos == pos && e.Kind == agent.KindTools && len(e.Raw) > 0 {
			var specs []tools.Spec
			if err := json.Unmarshal(e.Raw, &specs); err != nil {
				return nil, fmt.Errorf("run %s: tools of agent %s: %w", t.RunID, pos, err)
			}
			return specs, nil
		}
	}
	task, ok := tasks.Builtin().Get(t.Task)
	if !ok {
		return nil, fmt.Errorf("run %s: unknown task %q and no tools recorded", t.RunID, t.Task)
	}
	if i >= len(task.Roles) {
		return nil, fmt.Errorf("run %s: agent %s has no role in task %s", t.RunID, pos, t.Task)
	}
	var specs []tools.Spec
	for _, name := range task.Roles[i].Tools {
		if s, ok := tools.Lookup(name); ok {
			specs = append(specs, s)
		}
	}
	return specs, nil
}

// agentCalls rebuilds one agent's calls.
func agentCalls(t *results.Transcript, pos, modelName string, specs []tools.Spec) ([]Call, error) {
	var (
		system, role string
		msgs         []agent.Message
		calls        []Call
		cur          *agent.Message // the assistant message of the step being read
		curStep      = -1
	)
	// flush closes the step being read: its call saw msgs as they were
	// before the step's assistant message.
	flush := func() {
		if cur == nil {
			return
		}
		calls[len(calls)-1].ToolCalls = names(cur.ToolCalls)
		cur = nil
	}
	toolMsg := func(e agent.Entry, content string, isErr bool) {
		msgs = append(msgs, agent.Message{Role: agent.RoleTool, Content: content, ToolCallID: e.CallID, ToolName: e.Tool, IsError: isErr})
	}
	for _, e := range t.Entries {
		if e.Pos != pos {
			continue
		}
		role = e.Agent
		switch e.Kind {
		case agent.KindSystem:
			system = e.Text
		case agent.KindPrompt:
			msgs = append(msgs, agent.Message{Role: agent.RoleUser, Content: e.Text})
		case agent.KindThinking, agent.KindNarration:
			if e.Step != curStep {
				flush()
				curStep = e.Step
				calls = append(calls, Call{
					RunID: t.RunID, Agent: role, Pos: pos, Model: modelName, Step: e.Step, Turn: len(calls),
					Request: agent.Request{System: system, Messages: append([]agent.Message(nil), msgs...), Tools: specs},
				})
				msgs = append(msgs, agent.Message{Role: agent.RoleAssistant})
				cur = &msgs[len(msgs)-1]
			}
			if e.Kind == agent.KindThinking {
				cur.Thinking = e.Text
			} else {
				cur.Content = e.Text
			}
		case agent.KindToolCall:
			if cur == nil || e.Step != curStep {
				return nil, fmt.Errorf("run %s: tool call at step %d outside a turn", t.RunID, e.Step)
			}
			// Tool messages follow the assistant message: re-point cur
			// at it, since msgs may have grown.
			idx := assistantIndex(msgs)
			msgs[idx].ToolCalls = append(msgs[idx].ToolCalls, agent.ToolCall{ID: e.CallID, Name: e.Tool, Arguments: e.Args})
			cur = &msgs[idx]
		case agent.KindToolResult, agent.KindRefused, agent.KindDefense:
			if text, isErr, ok := agent.ToolMessage(e); ok {
				toolMsg(e, text, isErr)
			}
		}
		if cur != nil {
			cur = &msgs[assistantIndex(msgs)]
		}
	}
	flush()
	return calls, nil
}

// assistantIndex is the index of the last assistant message.
func assistantIndex(msgs []agent.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == agent.RoleAssistant {
			return i
		}
	}
	return -1
}

func names(tcs []agent.ToolCall) []string {
	var out []string
	for _, tc := range tcs {
		out = append(out, tc.Name)
	}
	return out
}
