package report

import (
	"slices"
	"strings"

	"github.com/killchain/killchain/internal/defense/kinds"
)

// The defense table: each defense beside the channels it inspects, against
// defense none.

// defenseChannels names the channels a defense inspects, for the table.
func defenseChannels(kind string) string {
	ch := kinds.Channels(kind)
	if len(ch) == 0 {
		if isBaseline(Cell{Defense: kind}) {
			return noneCell
		}
		return "?"
	}
	return strings.Join(ch, ", ")
}

// defenseTables set each defense beside the channel it inspects and against
// defense none of the same batch, task and model or pair: ASR, its change in
// percentage points, Persisted and the blocked writes and calls.
func defenseTables(a *Aggregator, v view) (csvT, mdT Table) {
	keys, counts := a.Rollup(isAttacked, func(c Cell) Cell {
		return Cell{Batch: c.Batch, Task: c.Task, ModelA: c.ModelA, ModelB: c.ModelB, Defense: c.Defense, Attacked: true}
	})
	// Only groups that ran more than one defense say anything about defenses.
	defs := make(map[Cell]int)
	for _, k := range keys {
		g := k
		g.Defense = ""
		defs[g]++
	}
	slices.SortFunc(keys, byTask)
	csvT.Header = []string{"batch", "task", "model", "defense", "channels", "n", "executed_k", "asr", "asr_lo",
		"asr_hi", "none_executed_k", "none_n", "none_asr", "delta_pp", "persisted_k", "persisted_n",
		"blocked_writes", "blocked_calls", "attack_goal_k", "task_success_k"}
	csvT.Header = append(csvT.Header, calledCSVHeader...)
	csvT.Header = append(csvT.Header, "classifier_errors", "classifier_error_runs", "failed_calls", "canary_attempts")
	mdT.Header = []string{"batch", "task", "model", "defense", "inspects", asrAllLabel, "vs none", "Δ (pp)",
		asrCalledLabel, "Persisted", "blocked writes", "blocked calls", "classifier errors (checks)",
		"classifier errors (runs)"}
	for _, k := range keys {
		g := k
		g.Defense = ""
		if defs[g] < 2 {
			continue
		}
		c := counts[k]
		base := &Counts{}
		hasBase := false
		for _, none := range []string{kinds.None, ""} {
			b := k
			b.Defense = none
			if p := counts[b]; p != nil {
				base, hasBase = p, true
				break
			}
		}
		delta := ""
		if hasBase && c.Executed.N > 0 && base.Executed.N > 0 {
			d := 100 * (float64(c.Executed.K)/float64(c.Executed.N) - float64(base.Executed.K)/float64(base.Executed.N))
			delta = signed(d)
		}
		asr := csvRate(c.ASR(), v.z)
		row := []string{k.Batch, k.Task, k.Model(), k.Defense, defenseChannels(k.Defense), itoa(c.Runs),
			asr[0], asr[2], asr[3], asr[4], itoa(base.Executed.K), itoa(base.Executed.N), frac(base.Executed.K, base.Executed.N),
			delta, itoa(c.Persisted.K), itoa(c.Persisted.N), itoa(c.BlockedWrites), itoa(c.BlockedCalls),
			itoa(c.AttackGoal), itoa(c.TaskSuccess)}
		row = append(row, csvRate(c.CalledASR(), v.z)...)
		row = append(row, itoa(c.ClassifierErrors), itoa(c.ClassifierErrorRuns), itoa(c.FailedCalls),
			itoa(c.CanaryAttempts))
		csvT.add(row...)
		vsNone, md := noneCell, delta
		if hasBase {
			vsNone = knCI(base.Executed.K, base.Executed.N, v.z)
		}
		if isBaseline(k) {
			vsNone, md = "(baseline)", ""
		}
		if md == "" {
			md = noneCell
		}
		mdT.add(k.Batch, k.Task, k.Model(), k.Defense, defenseChannels(k.Defense), rateKnCI(c.ASR(), v.z),
			vsNone, md, rateKnCI(c.CalledASR(), v.z), stageCI(c.Persisted, v.z), itoa(c.BlockedWrites),
			itoa(c.BlockedCalls), itoa(c.ClassifierErrors), kn(c.ClassifierErrorRuns, c.Runs))
	}
	return csvT, mdT
}
