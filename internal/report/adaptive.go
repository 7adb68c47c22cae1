package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/errkind"
	"github.com/killchain/killchain/internal/report/plot"
	"github.com/killchain/killchain/internal/results"
	"github.com/killchain/killchain/internal/stats"
)

// CSV files and the figure of the adaptive-attack sections.
const (
	AdaptiveRoundsFile = "adaptive_rounds.csv"
	AdaptiveCellsFile  = "adaptive_cells.csv"
	AdaptiveModesFile  = "adaptive_modes.csv"
	FigAdaptive        = "adaptive_rounds"
)

// feedbackModes are the attacker's feedback modes in the order the
// comparison shows them.
var feedbackModes = []string{"none", "outcome", "stage"}

// adaptiveKey is one adaptive cell: an attacker's rounds on one task,
// model or pair, condition and defense.
type adaptiveKey struct{ grid, task, models, condition, defense string }

func (k adaptiveKey) target() string {
	return k.task + " · " + k.models + " · " + k.condition + " · " + k.defense
}

// roundCounts are one round's counters; errored runs are in no rate.
type roundCounts struct {
	runs, goals, errors, attackerErrs int
	reached                           [4]int // exposed, persisted, relayed, executed
	applies                           [4]int // runs where the stage applies
}

type payloadStat struct {
	id, attack, parent string
	round, runs, goals int
}

type adaptiveCell struct {
	attacker, feedback string
	rounds             map[int]*roundCounts
	payloads           map[string]*payloadStat
	tokens             int
	cost               float64 // the attacker's own calls at its price
	stopped            string
	texts              map[string]string // a proposed payload's text by id, from attacker.jsonl
}

// adaptiveTally counts the runs of grids with an attacker.
type adaptiveTally struct {
	cells map[adaptiveKey]*adaptiveCell
}

func newAdaptiveTally() *adaptiveTally { return &adaptiveTally{cells: map[adaptiveKey]*adaptiveCell{}} }

func (t *adaptiveTally) cell(k adaptiveKey, attacker, feedback string) *adaptiveCell {
	c := t.cells[k]
	if c == nil {
		c = &adaptiveCell{attacker: attacker, feedback: feedback, rounds: map[int]*roundCounts{}, payloads: map[string]*payloadStat{}, texts: map[string]string{}}
		t.cells[k] = c
	}
	return c
}

// add counts one run; runs without adaptive fields are ignored.
func (t *adaptiveTally) add(r *results.Run) {
	a := r.Adaptive
	if a == nil {
		return
	}
	c := t.cell(adaptiveKey{r.Grid, r.Task, modelLabel(Cell{ModelA: r.ModelA, ModelB: r.ModelB}), r.Condition, r.Defense}, a.Attacker, a.Feedback)
	rc := c.rounds[a.Round]
	if rc == nil {
		rc = &roundCounts{}
		c.rounds[a.Round] = rc
	}
	switch {
	case r.ErrorKind == errkind.Attacker:
		rc.attackerErrs++
		return
	case r.Error != "":
		rc.errors++
		return
	}
	rc.runs++
	if r.AttackGoal {
		rc.goals++
	}
	for i, s := range []*bool{r.Exposed, r.Persisted, r.Relayed, r.Executed} {
		if s != nil {
			rc.applies[i]++
			if *s {
				rc.reached[i]++
			}
		}
	}
	p := c.payloads[a.Payload]
	if p == nil {
		p = &payloadStat{id: a.Payload, attack: r.Attack, parent: a.Parent, round: a.Round}
		c.payloads[a.Payload] = p
	}
	p.runs++
	if r.AttackGoal {
		p.goals++
	}
}

// readAttacker adds what attacker.jsonl says: tokens spent, the proposed
// payloads' texts, and cells a budget stopped.
func (t *adaptiveTally) readAttacker(dir string) error {
	return results.ReadAttacker(dir, func(ar results.AttackerRound) error {
		parts := strings.Split(ar.Loop, "/")
		if len(parts) != 5 {
			return nil
		}
		task, _, _ := strings.Cut(parts[1], "@")
		a, b, _ := strings.Cut(parts[2], "→")
		c := t.cell(adaptiveKey{parts[0], task, modelLabel(Cell{ModelA: a, ModelB: b}), parts[3], parts[4]}, ar.Attacker, ar.Feedback)
		c.tokens += ar.Tokens()
		c.cost += ar.Cost
		for _, p := range ar.Payloads {
			c.texts[p.ID] = p.Text
		}
		if ar.Stopped != "" {
			c.stopped = fmt.Sprintf("%s before round %d", ar.Stopped, ar.Round)
		}
		return nil
	})
}

func (t *adaptiveTally) keys() []adaptiveKey {
	keys := make([]adaptiveKey, 0, len(t.cells))
	for k := range t.cells {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b adaptiveKey) int {
		return strings.Compare(a.grid+"\x00"+a.target(), b.grid+"\x00"+b.target())
	})
	return keys
}

// firstSuccess is the first round whose runs reached the goal, -1 for none.
func (c *adaptiveCell) firstSuccess() int {
	first := -1
	for r, rc := range c.rounds {
		if rc.goals > 0 && (first < 0 || r < first) {
			first = r
		}
	}
	return first
}

func (c *adaptiveCell) roundNumbers() []int {
	var rs []int
	for r := range c.rounds {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return rs
}

// best is the payload with the highest goal rate, the earliest on ties.
func (c *adaptiveCell) best() *payloadStat {
	var b *payloadStat
	for _, p := range c.payloads {
		if p.runs == 0 {
			continue
		}
		if b == nil || p.goals*b.runs > b.goals*p.runs ||
			p.goals*b.runs == b.goals*p.runs && (p.round < b.round || p.round == b.round && p.id < b.id) {
			b = p
		}
	}
	return b
}

// lineage is a payload and its ancestors, newest first.
func (c *adaptiveCell) lineage(id string) string {
	chain := []string{id}
	for seen := map[string]bool{id: true}; ; {
		p := c.payloads[id]
		if p == nil || p.parent == "" || seen[p.parent] {
			break
		}
		id = p.parent
		seen[id] = true
		chain = append(chain, id)
	}
	return strings.Join(chain, " ← ")
}

func roundsTo(first int) string {
	if first < 0 {
		return "not reached"
	}
	return itoa(first)
}

// sections are the adaptive-attack tables, none when no run had an
// attacker.
func (t *adaptiveTally) sections(z float64) []section {
	if len(t.cells) == 0 {
		return nil
	}
	keys := t.keys()
	stageNames := []string{"exposed", "persisted", "relayed", "executed"}
	var rCSV, rMD Table
	rCSV.Header = append([]string{"grid", "attacker", "feedback", "task", "models", "condition", "defense", "round", "goal", "runs", "asr", "asr_lo", "asr_hi"},
		append(stageNames, "attacker_errors", "errors")...)
	rMD.Header = append([]string{"attacker (feedback)", "cell", "round", "attack goal (Wilson " + ciLabel(z) + ")"}, append(stageNames, "attacker errors", "errors")...)
	var cCSV, cMD Table
	cCSV.Header = []string{"grid", "attacker", "feedback", "task", "models", "condition", "defense", "rounds", "rounds_to_success", "best_payload", "best_attack", "best_text", "best_goal", "best_runs", "lineage", "attacker_tokens", "attacker_cost", "stopped"}
	cMD.Header = []string{"attacker (feedback)", "cell", "rounds", "rounds to first success", "best payload", "its goal rate", "lineage", "attacker tokens (cost)", "stopped"}
	for _, k := range keys {
		c := t.cells[k]
		who := c.attacker + " (" + c.feedback + ")"
		rounds := c.roundNumbers()
		for _, r := range rounds {
			rc := c.rounds[r]
			row := []string{k.grid, c.attacker, c.feedback, k.task, k.models, k.condition, k.defense, itoa(r)}
			row = append(row, csvRate(Rate{K: rc.goals, N: rc.runs}, z)...)
			md := []string{who, k.target(), itoa(r), kn(rc.goals, rc.runs) + " · " + rateCI(rc.goals, rc.runs, z)}
			for i := range stageNames {
				if rc.applies[i] == 0 {
					row, md = append(row, ""), append(md, naCell)
					continue
				}
				row, md = append(row, itoa(rc.reached[i])), append(md, kn(rc.reached[i], rc.applies[i]))
			}
			row = append(row, itoa(rc.attackerErrs), itoa(rc.errors))
			md = append(md, itoa(rc.attackerErrs), itoa(rc.errors))
			rCSV.add(row...)
			rMD.add(md...)
		}
		last := 0
		if len(rounds) > 0 {
			last = rounds[len(rounds)-1]
		}
		bestID, bestAttack, bestText, bestRate, lineage, bg, br := "", "", "", noneCell, "", "0", "0"
		if b := c.best(); b != nil {
			bestID, bestAttack, bestText, lineage = b.id, b.attack, c.texts[b.id], c.lineage(b.id)
			bestRate, bg, br = kn(b.goals, b.runs)+" ("+pct(b.goals, b.runs)+")", itoa(b.goals), itoa(b.runs)
		}
		stopped := c.stopped
		cCSV.add(k.grid, c.attacker, c.feedback, k.task, k.models, k.condition, k.defense, itoa(last), roundsTo(c.firstSuccess()),
			bestID, bestAttack, bestText, bg, br, lineage, itoa(c.tokens), strconv.FormatFloat(cost.Round(c.cost), 'f', -1, 64), stopped)
		if stopped == "" {
			stopped = "–"
		}
		tokens := itoa(c.tokens)
		if c.cost > 0 {
			tokens += " (" + cost.Dollars(c.cost) + ")"
		}
		cMD.add(who, k.target(), itoa(last), roundsTo(c.firstSuccess()), bestID+" ("+bestAttack+")", bestRate, lineage, tokens, stopped)
	}
	out := []section{
		{ID: "adaptive-rounds", Title: "Adaptive attacks: attack goal per round",
			Intro: "Each cell of a grid with an attacker, round by round: round 0 plants the grid's attacks, each later round " +
				"the payloads the attacker proposed from its feedback. The attack goal is over the round's runs that finished " +
				"(Wilson " + ciLabel(z) + "); the stage columns count the runs whose canary reached each stage (n/a where the " +
				"task's mode has none). Attacker errors (no usable payload within the asks allowed) and other errors are in no rate.",
			Table: rMD, CSVName: AdaptiveRoundsFile, CSV: rCSV},
		{ID: "adaptive-cells", Title: "Adaptive attacks: rounds to first success and the best payload",
			Intro: "Per cell: the last round run, the first round whose runs reached the attack goal, the payload with the " +
				"highest goal rate (the earliest on ties) with its lineage (each payload's parent, back to round 0), the " +
				"attacker's own tokens, and whether its budget stopped the cell early.",
			Table: cMD, CSVName: AdaptiveCellsFile, CSV: cCSV},
	}
	if s, ok := t.modeSection(keys, z); ok {
		out = append(out, s)
	}
	return out
}

// modeSection compares the feedback modes on the same cells (task, models,
// condition, defense), when more than one mode ran on one.
func (t *adaptiveTally) modeSection(keys []adaptiveKey, z float64) (section, bool) {
	byTarget := map[string]map[string]modeStat{}
	var targets []string
	for _, k := range keys {
		c := t.cells[k]
		m := byTarget[k.target()]
		if m == nil {
			m = map[string]modeStat{}
			byTarget[k.target()] = m
			targets = append(targets, k.target())
		}
		if _, dup := m[c.feedback]; dup {
			continue // the first attacker of a mode on a cell stands for it
		}
		st := modeStat{first: c.firstSuccess()}
		if rs := c.roundNumbers(); len(rs) > 0 {
			st.last = rs[len(rs)-1]
		}
		for r, rc := range c.rounds {
			if r > 0 {
				st.goals += rc.goals
				st.runs += rc.runs
			}
		}
		m[c.feedback] = st
	}
	compared := false
	for _, m := range byTarget {
		compared = compared || len(m) > 1
	}
	if !compared {
		return section{}, false
	}
	var csvT, md Table
	csvT.Header = []string{"cell"}
	md.Header = []string{"cell"}
	for _, mode := range feedbackModes {
		csvT.Header = append(csvT.Header, mode+"_rounds_to_success", mode+"_goal", mode+"_runs")
		md.Header = append(md.Header, mode+": rounds to success", mode+": goal after round 0")
	}
	for _, tg := range targets {
		row, mrow := []string{tg}, []string{tg}
		for _, mode := range feedbackModes {
			st, ok := byTarget[tg][mode]
			if !ok {
				row, mrow = append(row, "", "", ""), append(mrow, noneCell, noneCell)
				continue
			}
			row = append(row, roundsTo(st.first), itoa(st.goals), itoa(st.runs))
			mrow = append(mrow, roundsTo(st.first), kn(st.goals, st.runs)+" · "+rateCI(st.goals, st.runs, z))
		}
		csvT.add(row...)
		md.add(mrow...)
	}
	if row, mrow, ok := modeMeans(targets, byTarget, z); ok {
		csvT.add(row...)
		md.add(mrow...)
	}
	return section{ID: "adaptive-modes", Title: "Adaptive attacks: feedback modes compared",
		Intro: "The same cells under each feedback mode: none (told nothing: random search), outcome (told whether each " +
			"payload reached the goal), stage (also how far each canary got and where it stopped). Rounds to the first " +
			"success, and the attack goal over every round after 0 (Wilson " + ciLabel(z) + "). The last row, over the " +
			"cells every compared mode ran on: the mean rounds to success (normal " + ciLabel(z) + "), a cell not reached " +
			"counted as its last round + 1, which flatters a mode that often misses, and the goal pooled.",
		Table: md, CSVName: AdaptiveModesFile, CSV: csvT}, true
}

// maxCellFigures bounds the per-cell figures; the pooled one is always drawn.
const maxCellFigures = 12

// figures draws the attack goal per round with its Wilson band, one curve
// per feedback mode: pooled over every cell, then for each cell (task,
// models, condition, defense) up to maxCellFigures, the modes side by side.
func (t *adaptiveTally) figures(z float64) ([]plot.Figure, error) {
	if len(t.cells) == 0 {
		return nil, nil
	}
	var out []plot.Figure
	all := make([]*adaptiveCell, 0, len(t.cells))
	byTarget := map[string][]*adaptiveCell{}
	var targets []string
	for _, k := range t.keys() {
		c := t.cells[k]
		all = append(all, c)
		if byTarget[k.target()] == nil {
			targets = append(targets, k.target())
		}
		byTarget[k.target()] = append(byTarget[k.target()], c)
	}
	f, ok, err := curves(FigAdaptive, "Adaptive attacks: attack goal per round",
		"The attack goal per round, pooled over the cells of each feedback mode, with its Wilson "+ciLabel(z)+" band.", all, z)
	if err != nil {
		return nil, err
	}
	if ok {
		out = append(out, f)
	}
	for i, tg := range targets {
		if i == maxCellFigures {
			break
		}
		f, ok, err := curves(fmt.Sprintf("%s_%02d", FigAdaptive, i+1), "Attack goal per round: "+tg,
			"One cell under each feedback mode that ran on it, with Wilson "+ciLabel(z)+" bands.", byTarget[tg], z)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, f)
		}
	}
	return out, nil
}

// curves draws the attack goal per round of cells, pooled per feedback
// mode, with Wilson bands.
func curves(name, title, caption string, cells []*adaptiveCell, z float64) (plot.Figure, bool, error) {
	var bands []plot.Band
	for _, mode := range feedbackModes {
		pooled := map[int]*[2]int{}
		for _, c := range cells {
			if c.feedback != mode {
				continue
			}
			for r, rc := range c.rounds {
				if pooled[r] == nil {
					pooled[r] = &[2]int{}
				}
				pooled[r][0] += rc.goals
				pooled[r][1] += rc.runs
			}
		}
		var rs []int
		for r, kn := range pooled {
			if kn[1] > 0 {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			continue
		}
		slices.Sort(rs)
		b := plot.Band{Name: mode}
		for _, r := range rs {
			k, n := pooled[r][0], pooled[r][1]
			lo, hi := stats.Wilson(k, n, z)
			b.X, b.Y = append(b.X, float64(r)), append(b.Y, float64(k)/float64(n))
			b.Lo, b.Hi = append(b.Lo, lo), append(b.Hi, hi)
		}
		bands = append(bands, b)
	}
	return plot.Bands(plot.Figure{Name: name, Title: title, Caption: caption}, "round", "attack goal", bands)
}
