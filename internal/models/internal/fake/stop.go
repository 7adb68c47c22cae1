package fake

import "strings"

// Stop is a way a model's turn can end other than finishing it. A Fault
// with a Stop answers 200 with the model's next turn ended that way, in the
// provider's own wire format:
//
//	           length                 refusal                     filter                      pause
//	chat       finish_reason length   message.refusal, stop (1)   finish_reason content_filter finish_reason abort (2)
//	deepseek   finish_reason length   content_filter (1)          content_filter              insufficient_system_resource
//	responses  incomplete:            refusal content part,       incomplete: content_filter  incomplete: max_messages
//	           max_output_tokens      status completed
//	anthropic  max_tokens             refusal                     refusal                     pause_turn
//	ollama     done_reason length     refusing text, stop (3)     refusing text, stop (3)     done_reason load, empty
//
// (1) Only OpenAI's chat sends message.refusal; other chat servers can only
// say content_filter. (2) vLLM's reason for an aborted generation; OpenAI
// has no such reason. (3) Ollama has no refusal signal: the model just says
// it will not help.
type Stop string

// Stops.
const (
	NoStop      Stop = ""
	StopLength  Stop = "length"  // the output token limit cut the turn
	StopRefusal Stop = "refusal" // the model refused
	StopFilter  Stop = "filter"  // the provider's content filter stopped the turn
	StopPause   Stop = "pause"   // the provider left the turn unfinished for another reason
)

// Refusal is what a fake model says when it refuses.
const Refusal = "I'm sorry, but I can't help with that request."

// stopped returns t ended by s. A turn cut by the token limit loses its
// calls and the second half of its output: with thinking on, a reasoning
// model spent the budget thinking and says nothing; otherwise its
// narration stops mid-sentence. A refused turn says only Refusal; a
// filtered or paused one keeps its thinking and half its narration
// (Ollama's paused turn, a model load, is empty).
func (t Turn) stopped(k Kind, s Stop, thinking bool) Turn {
	if s == NoStop {
		return t
	}
	if k == Ollama && s == StopFilter {
		s = StopRefusal
	}
	t.Stop = s
	t.Calls = nil
	if k == Ollama && s == StopPause {
		// Ollama's "load" answer carries no message at all.
		t.Thinking, t.Narration = "", ""
		return t
	}
	switch s {
	case StopLength:
		if thinking && t.Thinking != "" {
			t.Thinking = half(t.Thinking)
			t.Narration = ""
			break
		}
		t.Narration = half(t.Narration)
	case StopRefusal:
		t.Narration = Refusal
	default:
		t.Narration = half(t.Narration)
	}
	return t
}

// half is the first half of s, cut at a space as a token stream would be.
func half(s string) string {
	return strings.TrimSpace(halves(s)[0])
}

// chatFinish is a chat turn's finish_reason.
func chatFinish(k Kind, t Turn) string {
	switch t.Stop {
	case StopLength:
		return "length"
	case StopRefusal:
		if k == OpenAIChat {
			return "stop"
		}
		return "content_filter"
	case StopFilter:
		return "content_filter"
	case StopPause:
		if k == DeepSeek {
			return "insufficient_system_resource"
		}
		return "abort"
	}
	if len(t.Calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// responsesStatus is a Responses turn's status and incomplete_details.
func responsesStatus(t Turn) (string, any) {
	reason := ""
	switch t.Stop {
	case StopLength:
		reason = "max_output_tokens"
	case StopFilter:
		reason = "content_filter"
	case StopPause:
		reason = "max_messages"
	default:
		return "completed", nil
	}
	return "incomplete", map[string]any{"reason": reason}
}

// anthropicStop is an Anthropic turn's stop_reason.
func anthropicStop(t Turn) string {
	switch t.Stop {
	case StopLength:
		return "max_tokens"
	case StopRefusal, StopFilter:
		return "refusal"
	case StopPause:
		return "pause_turn"
	}
	if len(t.Calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// ollamaDone is an Ollama turn's done_reason.
func ollamaDone(t Turn) string {
	switch t.Stop {
	case StopLength:
		return "length"
	case StopPause:
		return "load"
	}
	return "stop"
}
