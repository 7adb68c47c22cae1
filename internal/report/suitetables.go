package report

import (
	"slices"
	"strconv"

	"github.com/killchain/killchain/internal/report/plot"
)

// CSV files and the figure of the suite section.
const (
	SuitesFile          = "suites.csv"
	SuiteTasksFile      = "suite_user_tasks.csv"
	SuiteInjectionsFile = "suite_injections.csv"
	SuiteKindsFile      = "suite_injection_kinds.csv"
	SuiteVectorsFile    = "suite_vectors.csv"
	SuiteHelpfulFile    = "suite_helpful.csv"
	SuiteDepthFile      = "suite_relay_depth.csv"
	FigSuiteStages      = "suite_stages"
)

// Column labels of the suite metrics in Markdown and HTML.
const (
	utilityLabel     = "utility"
	underAttackLabel = "utility under attack"
	targetedLabel    = "targeted ASR"
)

// suiteMetric is one metric column: its Markdown label ("" for CSV only),
// its CSV name, and its rate on a row.
type suiteMetric struct {
	md, csv string
	rate    func(suiteRow) Rate
	stage   bool // n/a where it applies to no attacked run
}

// stageRate reads a stage's rate from the row's attacked counters.
func stageRate(f func(*suiteCounts) Rate) func(suiteRow) Rate {
	return func(r suiteRow) Rate { return f(r.att()) }
}

var (
	metricUtility     = suiteMetric{md: utilityLabel, csv: "utility", rate: suiteRow.utility}
	metricUnderAttack = suiteMetric{md: underAttackLabel, csv: "utility_under_attack", rate: suiteRow.underAttack}
	metricTargeted    = suiteMetric{md: targetedLabel, csv: "targeted_asr", rate: suiteRow.targeted}
	metricExposed     = suiteMetric{md: "Exposed", csv: "exposed", stage: true, rate: stageRate(func(c *suiteCounts) Rate { return c.exposed })}
	metricPersisted   = suiteMetric{md: "Persisted", csv: "persisted", stage: true, rate: stageRate(func(c *suiteCounts) Rate { return c.persisted })}
	metricRelayed     = suiteMetric{md: "Relayed", csv: "relayed", stage: true, rate: stageRate(func(c *suiteCounts) Rate { return c.relayed })}
	metricExecuted    = suiteMetric{md: "Executed", csv: "executed", stage: true, rate: stageRate(func(c *suiteCounts) Rate { return c.executed })}
	// suiteMetrics are every metric, the CSV files' columns in order.
	suiteMetrics = []suiteMetric{metricUtility, metricUnderAttack, metricTargeted, metricExposed, metricPersisted, metricRelayed, metricExecuted}
)

// mdCell is a metric's Markdown cell: k/n · rate (Wilson), "—" without
// runs to divide, "n/a" for a stage that applies to none of the row's
// attacked runs.
func (m suiteMetric) mdCell(r suiteRow, z float64) string {
	if m.stage && r.att().runs > 0 {
		return stageCI(m.rate(r), z)
	}
	return rateKnCI(m.rate(r), z)
}

// render renders one grouping: the key columns (suite, the
// breakdown's columns, model, condition, defense), the Markdown metrics
// md, and in CSV every metric with its k, n, rate and interval, the
// furthest stages and the errors. by gives the breakdown's columns of a
// row (none for the headline) under the headers byHeader.
func (t *suiteTable) render(rows []suiteRow, byHeader []string, by func(suiteRow) []string, md []suiteMetric, extra []mdExtra) (csvT, mdT Table) {
	keys := append(append([]string{"suite"}, byHeader...), "model", "condition", "defense")
	csvT.Header = slices.Clone(keys)
	for _, m := range suiteMetrics {
		csvT.Header = append(csvT.Header, m.csv+"_k", m.csv+"_n", m.csv, m.csv+"_lo", m.csv+"_hi")
	}
	csvT.Header = append(csvT.Header, "executed_na")
	for _, s := range Stages {
		csvT.Header = append(csvT.Header, "last_"+s)
	}
	csvT.Header = append(csvT.Header, "clean_errors", "attacked_errors")
	mdT.Header = slices.Clone(keys)
	for _, m := range md {
		mdT.Header = append(mdT.Header, m.md)
	}
	for _, e := range extra {
		mdT.Header = append(mdT.Header, e.header)
	}
	mdT.Header = append(mdT.Header, "errors")
	for _, r := range rows {
		key := append(append([]string{r.key.suite}, by(r)...), r.key.model, r.key.condition, r.key.defense)
		row := slices.Clone(key)
		for _, m := range suiteMetrics {
			row = append(row, csvRate(m.rate(r), t.z)...)
		}
		a := r.att()
		row = append(row, itoa(a.noExecuted))
		for _, n := range a.last {
			row = append(row, itoa(n))
		}
		cleanErr := 0
		if r.clean != nil {
			cleanErr = r.clean.errors
		}
		csvT.add(append(row, itoa(cleanErr), itoa(a.errors))...)
		cells := slices.Clone(key)
		for _, m := range md {
			cells = append(cells, m.mdCell(r, t.z))
		}
		for _, e := range extra {
			cells = append(cells, e.cell(r))
		}
		mdT.add(append(cells, itoa(r.errors()))...)
	}
	return csvT, t.md(mdT)
}

// mdExtra is a Markdown column beside the metrics.
type mdExtra struct {
	header string
	cell   func(suiteRow) string
}

// suiteTable holds what every suite table needs besides its rows.
type suiteTable struct {
	z                            float64
	splitCondition, splitDefense bool
}

// md drops the condition and defense columns that split no row.
func (t *suiteTable) md(tb Table) Table {
	var drop []string
	if !t.splitCondition {
		drop = append(drop, "condition")
	}
	if !t.splitDefense {
		drop = append(drop, "defense")
	}
	return tb.drop(drop...)
}

// suiteIntro is what the suite tables' rates mean, in the first one;
// suiteSee points the others to it.
const suiteIntro = "Utility is the user task's check (task_success) over the clean controls, utility under attack the " +
	"same check over the attacked runs, targeted ASR the injection's check (attack_goal) over the attacked runs; " +
	"the stages are over the attacked runs where each applies: Persisted and Relayed in pipelines (two or more roles " +
	"over one state) only, n/a elsewhere; Executed only for injections whose effect carries free text, n/a where " +
	"none does: there the attack goal (targeted ASR) decides. Each rate is k/n · rate (Wilson "

const suiteSee = "Rates as in the first suite table: k/n · rate (Wilson "

// sections returns the suite tables, or none when no run belongs to a
// suite.
func (t *suiteTally) sections(z float64) []section {
	if len(t.groups[suiteHeadline]) == 0 {
		return nil
	}
	tt := &suiteTable{z: z, splitCondition: len(t.conditions) > 1, splitDefense: len(t.defenses) > 1}
	ci := ciLabel(z) + ")"
	none := func(suiteRow) []string { return nil }
	attackedOnly := []suiteMetric{metricUnderAttack, metricTargeted, metricExposed, metricPersisted, metricRelayed, metricExecuted}
	var out []section
	add := func(id, title, intro, file string, csvT, mdT Table) {
		out = append(out, section{ID: id, Title: title, Intro: intro, CSVName: file, CSV: csvT, Table: mdT})
	}

	naCol := mdExtra{"Executed n/a", func(r suiteRow) string { return itoa(r.att().noExecuted) }}
	c, m := tt.render(t.rows(suiteHeadline), nil, none, suiteMetrics, []mdExtra{naCol})
	add("suites", "Suites: utility and targeted attack success", "Per suite and model (or writer→reader pair). "+
		suiteIntro+ci+"; Executed n/a counts the attacked runs whose injection's effect carries no free text. "+
		"Errored runs are in no rate and counted apart; when a row has several attacked conditions, its clean "+
		"controls repeat on each.", SuitesFile, c, m)

	c, m = tt.render(t.rows(suiteByTask), []string{"user task", "helpful"}, func(r suiteRow) []string {
		return []string{r.key.by, strconv.FormatBool(t.helpful[[2]string{r.key.suite, r.key.by}])}
	}, []suiteMetric{metricUtility, metricUnderAttack, metricTargeted, metricExecuted}, nil)
	add("suite-user-tasks", "Suites by user task", "Per suite, user task and model; helpful marks a user task "+
		"whose data carries a benign instruction the task needs followed. "+suiteSee+ci+"; n/a where a stage applies to none of the row's attacked runs, the attack goal deciding where Executed does not apply; errored runs in no rate.", SuiteTasksFile, c, m)

	c, m = tt.render(t.rows(suiteByInjection), []string{"injection", "kind"},
		func(r suiteRow) []string { return []string{r.key.by, t.kinds[[2]string{r.key.suite, r.key.by}]} }, attackedOnly, nil)
	add("suite-injections", "Suites by injection", "Per suite, injection task and model, over the attacked runs "+
		"(a clean control plants no injection, so utility is in the tables above). "+suiteSee+ci+"; n/a where a stage applies to none of the row's attacked runs, the attack goal deciding where Executed does not apply; errored runs in no rate.",
		SuiteInjectionsFile, c, m)

	c, m = tt.render(t.rows(suiteByKind), []string{"injection kind"}, func(r suiteRow) []string { return []string{r.key.by} },
		attackedOnly, nil)
	add("suite-kinds", "Suites by injection kind", "Per suite, kind of injection (exfiltration, sabotage, "+
		"financial, privilege, multi_step) and model, over the attacked runs. "+suiteSee+ci+"; n/a where a stage applies to none of the row's attacked runs, the attack goal deciding where Executed does not apply; errored runs in no rate.", SuiteKindsFile, c, m)

	c, m = tt.render(t.rows(suiteByVector), []string{"vector"}, func(r suiteRow) []string { return []string{r.key.by} },
		attackedOnly, nil)
	add("suite-vectors", "Suites by vector", "Per suite, vector (the run's surface: where in the state the "+
		"payload was planted) and model, over the attacked runs. "+suiteSee+ci+"; n/a where a stage applies to none of the row's attacked runs, the attack goal deciding where Executed does not apply; errored runs in no rate.", SuiteVectorsFile, c, m)

	if t.anyHelpful {
		c, m = tt.render(t.rows(suiteByHelpful), []string{"user tasks"}, func(r suiteRow) []string { return []string{r.key.by} },
			[]suiteMetric{metricUtility, metricUnderAttack, metricTargeted}, nil)
		add("suite-helpful", "Suites: utility on helpful tasks apart", "Helpful user tasks need a benign "+
			"instruction in the data they read followed (a page naming the form to use, a message moving a meeting); "+
			"the other user tasks do not. A defense that strips or refuses every instruction in data loses utility "+
			"on the helpful ones: compare its rows with defense none. "+suiteSee+ci+"; n/a where a stage applies to none of the row's attacked runs, the attack goal deciding where Executed does not apply; errored runs in no rate.", SuiteHelpfulFile, c, m)
	}
	if s, ok := t.depthSection(tt); ok {
		out = append(out, s)
	}
	return out
}

// depthSection is the distribution of the relay depth in pipelines, per
// suite and model: attacked runs whose relay depth applies.
func (t *suiteTally) depthSection(tt *suiteTable) (section, bool) {
	maxDepth := -1
	rows := t.rows(suiteHeadline)
	var keep []suiteRow
	for _, r := range rows {
		a := r.att()
		if a.depthN == 0 {
			continue
		}
		keep = append(keep, r)
		for d := range a.depth {
			maxDepth = max(maxDepth, d)
		}
	}
	if len(keep) == 0 {
		return section{}, false
	}
	keys := []string{"suite", "model", "condition", "defense"}
	csvT := Table{Header: append(slices.Clone(keys), "pipeline_runs")}
	mdT := Table{Header: append(slices.Clone(keys), "pipeline runs")}
	for d := 0; d <= maxDepth; d++ {
		csvT.Header = append(csvT.Header, "depth_"+itoa(d))
		mdT.Header = append(mdT.Header, "depth "+itoa(d))
	}
	csvT.Header = append(csvT.Header, "relayed_k", "relayed_n", "relayed", "relayed_lo", "relayed_hi", "mean_depth")
	mdT.Header = append(mdT.Header, "reached a later role", "mean depth")
	for _, r := range keep {
		a := r.att()
		key := []string{r.key.suite, r.key.model, r.key.condition, r.key.defense}
		crow, mrow := append(slices.Clone(key), itoa(a.depthN)), append(slices.Clone(key), itoa(a.depthN))
		sum := 0
		for d := 0; d <= maxDepth; d++ {
			crow = append(crow, itoa(a.depth[d]))
			mrow = append(mrow, itoa(a.depth[d])+" ("+pct(a.depth[d], a.depthN)+")")
			sum += d * a.depth[d]
		}
		reached := Rate{K: a.depthN - a.depth[0], N: a.depthN}
		mean := strconv.FormatFloat(float64(sum)/float64(a.depthN), 'f', 2, 64)
		csvT.add(append(append(crow, csvRate(reached, tt.z)...), mean)...)
		mdT.add(append(mrow, rateKnCI(reached, tt.z), mean)...)
	}
	return section{ID: "suite-depth", Title: "Suites: hop depth in pipelines", CSVName: SuiteDepthFile, CSV: csvT,
		Table: tt.md(mdT), Intro: "Attacked runs of pipeline user tasks (two or more roles in sequence over one " +
			"state), per suite and model: the relay depth is the position of the deepest later role the canary " +
			"reached through what an earlier role wrote (1 the second role, 2 the third, …; 0 none). Single-role " +
			"user tasks have no relay depth and are not counted; errored runs are in no count. Reached a later role " +
			"is depth ≥ 1 as k/n · rate (Wilson " + ciLabel(tt.z) + ")."}, true
}

// figures draws the stage figure per suite: the furthest stage of the
// attacked suite runs, per suite and model (and defense, when the study
// has several), pooled per suite beyond maxBars bars.
func (t *suiteTally) figures() ([]plot.Figure, error) {
	rows := t.rows(suiteHeadline)
	label := func(r suiteRow) string {
		l := r.key.suite + " · " + r.key.model
		if len(t.defenses) > 1 {
			l += " · " + r.key.defense
		}
		if len(t.conditions) > 1 {
			l += " · " + r.key.condition
		}
		return l
	}
	var labels []string
	var counts [][5]int
	pooled := len(rows) > maxBars
	for _, r := range rows {
		a := r.att()
		if a.staged() == 0 {
			continue
		}
		l := label(r)
		if pooled {
			l = r.key.suite
		}
		if i := slices.Index(labels, l); i >= 0 {
			for s := range a.last {
				counts[i][s] += a.last[s]
			}
			continue
		}
		labels, counts = append(labels, l), append(counts, a.last)
	}
	if len(labels) == 0 || len(labels) > 4*maxBars {
		return nil, nil
	}
	shares := make([][]float64, len(Stages))
	for s := range Stages {
		shares[s] = make([]float64, len(labels))
		for i, c := range counts {
			n := 0
			for _, k := range c {
				n += k
			}
			shares[s][i] = float64(c[s]) / float64(n)
		}
	}
	f, err := plot.StageBars(plot.Figure{Name: FigSuiteStages, Title: "Where the canary stopped, by suite",
		Caption: "Furthest kill-chain stage per suite and model or pair, as a share of the attacked suite runs " +
			"without an error. An injection whose effect carries no free text cannot reach Executed: its targeted " +
			"ASR (the injection's check) is in the suite tables."}, Stages, labels, shares)
	if err != nil {
		return nil, err
	}
	return []plot.Figure{f}, nil
}
