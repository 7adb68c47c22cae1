package forensics

import (
	"math"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/tools"
)

// features computes the run's trajectory features over what happened
// before its first outbound call (the whole run when it made none): what a
// monitor watching the agents could know before anything left the sandbox.
// Nothing here looks at the canary or the events, and nothing counts an
// outbound call: the classifier must learn the label from behaviour alone,
// not from the attack's own effect.
func features(in Input, calls []call, drift []float64) results.Features {
	cut, stepCut := len(in.Entries), len(drift)
	for k, c := range calls {
		if c.outbound {
			cut, calls = c.idx, calls[:k]
			stepCut = max(0, min(stepCut, c.step-1))
			break
		}
	}
	entries := in.Entries[:cut]
	drift = drift[:stepCut]
	var f results.Features
	stepsA, stepsB := map[int]bool{}, map[int]bool{}
	var narr, think, untrusted float64
	firstUntrusted := -1
	for _, e := range entries {
		if e.Step >= 1 {
			if e.Pos == "b" {
				stepsB[e.Step] = true
			} else {
				stepsA[e.Step] = true
			}
		}
		switch e.Kind {
		case agent.KindNarration:
			narr += float64(len(e.Text))
		case agent.KindThinking:
			think += float64(len(e.Text))
		case agent.KindToolResult:
			if e.IsError {
				f.ErrorResults++
				continue
			}
			if spec, ok := tools.Lookup(e.Tool); ok && spec.Untrusted {
				f.UntrustedResults++
				untrusted += float64(len(e.Text))
				if firstUntrusted < 0 || e.Step < firstUntrusted {
					firstUntrusted = e.Step
				}
			}
		}
	}
	f.StepsA, f.StepsB = float64(len(stepsA)), float64(len(stepsB))
	f.Steps = f.StepsA + f.StepsB
	f.NarrationChars, f.ThinkingChars, f.UntrustedChars = log1p(narr), log1p(think), log1p(untrusted)

	var argSum float64
	for _, c := range calls {
		f.ToolCalls++
		n := float64(len(c.args))
		argSum += n
		f.ArgCharsMax = math.Max(f.ArgCharsMax, n)
		switch c.tool {
		case tools.GetWebpage:
			f.CallsWebpage++
		case tools.Search:
			f.CallsSearch++
		case tools.ParsePDF:
			f.CallsPDF++
		case tools.TranscribeAudio:
			f.CallsAudio++
		case tools.ReadMemory:
			f.CallsReadMemory++
		case tools.ListMemory:
			f.CallsListMemory++
		case tools.WriteMemory:
			f.CallsWriteMemory++
		case tools.Delegate:
			f.CallsDelegate++
		}
		if c.refused {
			f.RefusedCalls++
		}
		if c.blocked {
			f.BlockedCalls++
		}
	}
	if f.ToolCalls > 0 {
		f.ArgCharsMean = argSum / f.ToolCalls
	}
	f.ArgCharsMean, f.ArgCharsMax = log1p(f.ArgCharsMean), log1p(f.ArgCharsMax)

	if len(drift) > 0 {
		s := 0.0
		for _, d := range drift {
			s += d
			f.DriftMax = math.Max(f.DriftMax, d)
		}
		f.DriftMean = s / float64(len(drift))
		f.DriftLast = drift[len(drift)-1]
	}
	if firstUntrusted >= 1 && firstUntrusted < len(drift) {
		after := drift[firstUntrusted:]
		s := 0.0
		for _, d := range after {
			s += d
		}
		f.DriftAfterUntrusted = s / float64(len(after))
	}
	roundFeatures(&f)
	return f
}

func log1p(x float64) float64 { return math.Log1p(x) }

// roundFeatures keeps four decimals: runs.jsonl stays short and nothing the
// classifier can use is lost.
func roundFeatures(f *results.Features) {
	v := f.Vector(nil)
	for i := range v {
		v[i] = round4(v[i])
	}
	f.SetVector(v)
}
