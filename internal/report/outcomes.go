package report

import (
	"cmp"
	"slices"
)

// The outcome tables: attack success per model (the paper's Table 1) and per
// model and condition beside task success on the clean controls, the
// kill-chain stages per task (Tables 2 and 4), the attack goal beside
// Executed, noticed against Executed, and the contamination of the clean
// controls.

func isAttacked(c Cell) bool { return c.Attacked }
func isClean(c Cell) bool    { return !c.Attacked }

// byTask orders cells by task first, then like compareCells.
func byTask(a, b Cell) int { return cmp.Or(cmp.Compare(a.Task, b.Task), compareCells(a, b)) }

// modelCols are the identity columns of a model or pair.
func modelCols(c Cell) []string { return []string{c.Model(), c.ModelA, c.ModelB} }

// modelTables are the paper's Table 1: per model (same-model pairs count as
// the model; cross-model pairs are in the pair matrix) and defense, attacked
// n, ASR with its interval, task success on the clean controls, runs with no
// tool call and errors.
func modelTables(a *Aggregator, v view) (csvT, mdT Table) {
	single := func(c Cell) bool { return c.ModelB == "" || c.ModelB == c.ModelA }
	project := func(c Cell) Cell {
		return Cell{ModelA: c.ModelA, Defense: c.Defense, Attacked: c.Attacked}
	}
	keys, counts := a.Rollup(single, project)
	csvT.Header = []string{"model", "defense", "attacked_n", "executed_k", "asr", "asr_lo", "asr_hi",
		"attack_goal_k", "no_tool_call", "clean_n", "task_success_k", "task_success", "task_success_lo",
		"task_success_hi", "errors"}
	csvT.Header = append(csvT.Header, calledCSVHeader...)
	mdT.Header = []string{"model", "defense", "attacked n", asrAllLabel, "no tool call", asrCalledLabel,
		"attack goal", "task success (clean)", "errors"}
	seen := make(map[Cell]bool)
	for _, k := range keys {
		row := Cell{ModelA: k.ModelA, Defense: k.Defense}
		if seen[row] {
			continue
		}
		seen[row] = true
		at, cl := &Counts{}, &Counts{}
		if c := counts[Cell{ModelA: k.ModelA, Defense: k.Defense, Attacked: true}]; c != nil {
			at = c
		}
		if c := counts[row]; c != nil {
			cl = c
		}
		asr, called := at.ASR(), at.CalledASR()
		ts := Rate{K: cl.TaskSuccess, N: cl.Runs}
		r := []string{k.ModelA, k.Defense, itoa(at.Runs)}
		r = append(r, csvRate(asr, v.z)[:1]...)
		r = append(r, csvRate(asr, v.z)[2:]...)
		r = append(r, itoa(at.AttackGoal), itoa(at.NoToolCall), itoa(cl.Runs))
		r = append(r, csvRate(ts, v.z)[:1]...)
		r = append(r, csvRate(ts, v.z)[2:]...)
		r = append(r, itoa(at.Errors+cl.Errors))
		r = append(r, csvRate(called, v.z)...)
		csvT.add(r...)
		mdT.add(k.ModelA, k.Defense, itoa(at.Runs), rateKnCI(asr, v.z), itoa(at.NoToolCall), rateKnCI(called, v.z),
			knCI(at.AttackGoal, at.Runs, v.z), knCI(ts.K, ts.N, v.z), itoa(at.Errors+cl.Errors))
	}
	return csvT, v.md(mdT)
}

// asrTables is attack success per model or pair (and condition and defense)
// beside task success on the same model's clean controls.
func asrTables(a *Aggregator, v view) (csvT, mdT Table) {
	atkKeys, atk := a.Rollup(isAttacked, func(c Cell) Cell {
		return Cell{ModelA: c.ModelA, ModelB: c.ModelB, Condition: c.Condition, Defense: c.Defense, Attacked: true}
	})
	cleanKeys, clean := a.Rollup(isClean, func(c Cell) Cell {
		return Cell{ModelA: c.ModelA, ModelB: c.ModelB, Defense: c.Defense}
	})
	// Rows: every attacked group, plus clean groups with no attacked group.
	cleanOf := func(c Cell) Cell { return Cell{ModelA: c.ModelA, ModelB: c.ModelB, Defense: c.Defense} }
	covered := make(map[Cell]bool)
	rows := slices.Clone(atkKeys)
	for _, k := range atkKeys {
		covered[cleanOf(k)] = true
	}
	for _, k := range cleanKeys {
		if !covered[k] {
			rows = append(rows, k)
		}
	}
	slices.SortFunc(rows, compareCells)

	csvT.Header = []string{"model", "model_a", "model_b", "condition", "defense",
		"executed_k", "attacked_n", "asr", "asr_lo", "asr_hi", "attack_goal_k", "no_tool_call", "attacked_errors",
		"task_success_k", "clean_n", "task_success", "task_success_lo", "task_success_hi"}
	csvT.Header = append(csvT.Header, "clean_errors", "clean_contaminated", "clean_executed", "clean_attack_goal")
	csvT.Header = append(csvT.Header, calledCSVHeader...)
	mdT.Header = []string{"model", "condition", "defense", "attacked", asrAllLabel, "no tool call", asrCalledLabel,
		"attack goal", "errors", "clean", "task success", "task success (" + ciLabel(v.z) + ")", "clean errors"}

	for _, k := range rows {
		at := atk[k]
		if at == nil {
			at = &Counts{}
		}
		cl := clean[cleanOf(k)]
		if cl == nil {
			cl = &Counts{}
		}
		asr, called := at.ASR(), at.CalledASR()
		task := Rate{K: cl.TaskSuccess, N: cl.Runs}

		row := append(modelCols(k), k.Condition, k.Defense)
		row = append(row, csvRate(asr, v.z)...)
		row = append(row, itoa(at.AttackGoal), itoa(at.NoToolCall), itoa(at.Errors))
		row = append(row, csvRate(task, v.z)...)
		row = append(row, itoa(cl.Errors), itoa(cl.Contaminated), itoa(cl.Executed.K), itoa(cl.AttackGoal))
		row = append(row, csvRate(called, v.z)...)
		csvT.add(row...)

		mdT.add(k.Model(), k.Condition, k.Defense, itoa(at.Runs), rateKnCI(asr, v.z), itoa(at.NoToolCall),
			rateKnCI(called, v.z), kn(at.AttackGoal, at.Runs), itoa(at.Errors), itoa(cl.Runs),
			kn(task.K, task.N), rateCI(task.K, task.N, v.z), itoa(cl.Errors))
	}
	return csvT, v.md(mdT)
}

// taskGroup projects an attacked cell onto task, model or pair, condition and
// defense.
func taskGroup(c Cell) Cell {
	return Cell{Task: c.Task, ModelA: c.ModelA, ModelB: c.ModelB, Condition: c.Condition, Defense: c.Defense, Attacked: true}
}

// stageTables are the kill-chain stage rates per task and model or pair over
// attacked runs; a stage whose flag is null in every run is n/a.
func stageTables(a *Aggregator, v view) (csvT, mdT Table) {
	return stageTablesBy(a, v, taskGroup, stageKey{head: []string{"task"}, ids: func(k Cell) []string { return []string{k.Task} }})
}

// stageKey names the leading columns of a stage table: their headers and
// the values a group's key gives them. Rows sort by these values first.
type stageKey struct {
	head []string
	ids  func(Cell) []string
}

// stageTablesBy are the stage tables over the groups group makes, led by
// the columns key names.
func stageTablesBy(a *Aggregator, v view, group func(Cell) Cell, key stageKey) (csvT, mdT Table) {
	keys, counts := a.Rollup(isAttacked, group)
	slices.SortFunc(keys, func(x, y Cell) int {
		return cmp.Or(slices.Compare(key.ids(x), key.ids(y)), compareCells(x, y))
	})
	ids, head := key.ids, key.head

	csvT.Header = append(slices.Clone(head), "model", "model_a", "model_b", "condition", "defense", "n",
		"exposed_k", "exposed_n", "persisted_k", "persisted_n", "relayed_k", "relayed_n",
		"executed_k", "executed_n", "no_tool_call")
	for _, s := range Stages {
		csvT.Header = append(csvT.Header, "last_"+s)
	}
	csvT.Header = append(csvT.Header, "last_other")
	for _, s := range Stages[1:] {
		csvT.Header = append(csvT.Header, s, s+"_lo", s+"_hi")
	}
	csvT.Header = append(csvT.Header, calledCSVHeader...)
	mdT.Header = append(slices.Clone(head), "model", "condition", "defense", "n",
		"Exposed", "Persisted", "Relayed", "Executed", "no tool call", asrCalledLabel)

	for _, k := range keys {
		c := counts[k]
		if c.Runs == 0 {
			continue // errors only: shown in the error table
		}
		row := append(ids(k), modelCols(k)...)
		row = append(row, k.Condition, k.Defense, itoa(c.Runs))
		for _, r := range []Rate{c.Exposed, c.Persisted, c.Relayed, c.Executed} {
			if r.N == 0 {
				row = append(row, "", "")
			} else {
				row = append(row, itoa(r.K), itoa(r.N))
			}
		}
		row = append(row, itoa(c.NoToolCall))
		for _, n := range c.LastStage {
			row = append(row, itoa(n))
		}
		row = append(row, itoa(c.OtherStage))

		for _, r := range []Rate{c.Exposed, c.Persisted, c.Relayed, c.Executed} {
			row = append(row, csvRate(r, v.z)[2:]...)
		}
		row = append(row, csvRate(c.CalledASR(), v.z)...)
		csvT.add(row...)

		mdT.add(append(ids(k), k.Model(), k.Condition, k.Defense, itoa(c.Runs),
			stageCI(c.Exposed, v.z), stageCI(c.Persisted, v.z), stageCI(c.Relayed, v.z), stageCI(c.Executed, v.z),
			itoa(c.NoToolCall), rateKnCI(c.CalledASR(), v.z))...)
	}
	return csvT, v.md(mdT)
}

// goalTables set the verifier's attack goal beside Executed per task and
// model or pair, with the runs where they disagree.
func goalTables(a *Aggregator, v view) (csvT, mdT Table) {
	keys, counts := a.Rollup(isAttacked, taskGroup)
	slices.SortFunc(keys, byTask)

	csvT.Header = []string{"task", "model", "model_a", "model_b", "condition", "defense", "n",
		"executed_k", "attack_goal_k", "both_k", "goal_not_executed", "executed_not_goal"}
	mdT.Header = []string{"task", "model", "condition", "defense", "n", "Executed", "attack goal",
		"both", "goal without Executed", "Executed without goal"}
	for _, k := range keys {
		c := counts[k]
		if c.Runs == 0 {
			continue
		}
		row := append([]string{k.Task}, modelCols(k)...)
		row = append(row, k.Condition, k.Defense, itoa(c.Runs), itoa(c.Executed.K), itoa(c.AttackGoal),
			itoa(c.GoalAndExecuted), itoa(c.GoalNotExecuted), itoa(c.ExecutedNotGoal))
		csvT.add(row...)
		mdT.add(k.Task, k.Model(), k.Condition, k.Defense, itoa(c.Runs),
			knCI(c.Executed.K, c.Executed.N, v.z), knCI(c.AttackGoal, c.Runs, v.z), itoa(c.GoalAndExecuted),
			itoa(c.GoalNotExecuted), itoa(c.ExecutedNotGoal))
	}
	return csvT, v.md(mdT)
}

// noticedTables count the attacked runs whose canary showed in thinking or
// narration, per model or pair and condition. Noticed is never Executed: the
// two are shown apart.
func noticedTables(a *Aggregator, v view) (csvT, mdT Table) {
	keys, counts := a.Rollup(isAttacked, func(c Cell) Cell {
		return Cell{ModelA: c.ModelA, ModelB: c.ModelB, Condition: c.Condition, Defense: c.Defense, Attacked: true}
	})
	csvT.Header = []string{"model", "model_a", "model_b", "condition", "defense", "n", "noticed",
		"noticed_thinking", "noticed_narration", "noticed_executed", "noticed_not_executed",
		"thinking_only", "narration_only", "executed_k"}
	mdT.Header = []string{"model", "condition", "defense", "n", "in thinking", "in narration",
		"only in thinking (hidden)", "Executed", "noticed and Executed", "noticed, not Executed"}
	for _, k := range keys {
		c := counts[k]
		if c.Runs == 0 {
			continue
		}
		notExec := c.Noticed - c.NoticedExecuted
		// noticed = thinking or narration, so these are the runs seen in
		// one channel only.
		thinkOnly, narrOnly := c.Noticed-c.NoticedNarration, c.Noticed-c.NoticedThinking
		row := append(modelCols(k), k.Condition, k.Defense, itoa(c.Runs), itoa(c.Noticed),
			itoa(c.NoticedThinking), itoa(c.NoticedNarration), itoa(c.NoticedExecuted), itoa(notExec),
			itoa(thinkOnly), itoa(narrOnly), itoa(c.Executed.K))
		csvT.add(row...)
		ci := func(k int) string { return knCI(k, c.Runs, v.z) }
		mdT.add(k.Model(), k.Condition, k.Defense, itoa(c.Runs), ci(c.NoticedThinking), ci(c.NoticedNarration),
			ci(thinkOnly), knCI(c.Executed.K, c.Executed.N, v.z), ci(c.NoticedExecuted), ci(notExec))
	}
	// The condition is part of this table's question: always shown.
	v.splitCondition = true
	return csvT, v.md(mdT)
}

// contaminationTable counts, per model or pair, the clean runs that carried
// a canary-shaped string, executed, or reached the attack goal. A healthy
// study has none.
func contaminationTable(a *Aggregator, v view) (mdT Table, bad int) {
	keys, counts := a.Rollup(isClean, func(c Cell) Cell {
		return Cell{ModelA: c.ModelA, ModelB: c.ModelB, Condition: c.Condition, Defense: c.Defense}
	})
	mdT.Header = []string{"model", "condition", "defense", "clean", "contaminated", "Executed", "attack goal"}
	for _, k := range keys {
		c := counts[k]
		if c.Runs == 0 {
			continue
		}
		bad += c.Contaminated + c.Executed.K + c.AttackGoal
		mdT.add(k.Model(), k.Condition, k.Defense, itoa(c.Runs), itoa(c.Contaminated),
			itoa(c.Executed.K), itoa(c.AttackGoal))
	}
	v.splitCondition = true
	return v.md(mdT), bad
}
