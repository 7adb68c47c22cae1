package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/killchain/killchain/internal/stats"
)

// Sample is the classifier's data: one feature vector per run, its label
// (Executed) and its task.
type Sample struct {
	Names []string
	X     [][]float64
	Y     []bool
	Task  []string
}

// Eval is one evaluation of the classifier.
type Eval struct {
	Name     string  // "5-fold CV" or "leave-one-task-out"
	N        int     // predictions made
	AUC      float64 // over all out-of-sample predictions pooled; NaN if undefined
	Accuracy float64
	// Folds lists each held-out part: for leave-one-task-out, each task.
	Folds []FoldEval
}

// FoldEval is one held-out part.
type FoldEval struct {
	Name     string
	N, Pos   int
	AUC      float64 // NaN when the part holds one class only
	Accuracy float64
}

// Importance is one feature's weight in the classifier.
type Importance struct {
	Feature string
	// Permutation is the mean drop of the held-out AUC over the CV folds
	// when the feature's column is shuffled.
	Permutation float64
	// Coefficient is the standardized coefficient of a fit on all rows.
	Coefficient float64
}

// ClassifierResult holds both evaluations side by side and the importances,
// most important first.
type ClassifierResult struct {
	Runs, Executed int
	CV, LOTO       Eval
	Importance     []Importance
}

// Classify evaluates a logistic-regression classifier of Executed over the
// sample by stratified k-fold cross-validation and by leave-one-task-out,
// and ranks the features. Fits run on up to two goroutines.
func Classify(s Sample, folds int, seed uint64) (*ClassifierResult, error) {
	if folds < 2 {
		folds = 5
	}
	res := &ClassifierResult{Runs: len(s.Y)}
	for _, b := range s.Y {
		if b {
			res.Executed++
		}
	}
	if res.Executed < folds || len(s.Y)-res.Executed < folds {
		return nil, fmt.Errorf("classifier: %d executed of %d runs: too few of one class for %d folds", res.Executed, len(s.Y), folds)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	// Stratified folds for cross-validation; the tasks, by name, for
	// leave-one-task-out.
	fold := stats.StratifiedFolds(s.Y, folds, rng)
	cvParts := make([]part, folds)
	for k := range folds {
		cvParts[k].name = fmt.Sprintf("fold %d", k+1)
	}
	for i, f := range fold {
		cvParts[f].test = append(cvParts[f].test, i)
	}
	tasks := stats.GroupBy(s.Task).Sorted()
	lotoParts := make([]part, len(tasks.Names))
	for k, t := range tasks.Names {
		lotoParts[k] = part{name: t, test: tasks.Rows[k]}
	}
	names := len(s.Names)
	perm := make([][]float64, folds) // per fold, per feature AUC drop
	permSeed := make([]uint64, folds)
	for k := range permSeed {
		permSeed[k] = rng.Uint64()
	}
	var err error
	res.CV, err = evaluate("5-fold CV", s, cvParts, func(k int, m *stats.Logistic, test []int, auc float64) {
		perm[k] = permutationDrops(m, s, test, auc, permSeed[k])
	})
	if err != nil {
		return nil, err
	}
	if folds != 5 {
		res.CV.Name = fmt.Sprintf("%d-fold CV", folds)
	}
	res.LOTO, err = evaluate("leave-one-task-out", s, lotoParts, nil)
	if err != nil {
		return nil, err
	}
	full, err := fitLogit(s.rows(s.all()), s.Y)
	if err != nil {
		return nil, fmt.Errorf("classifier: fit all rows: %w", err)
	}
	for j := range names {
		imp := Importance{Feature: s.Names[j], Coefficient: full.Coef[j+1]}
		n := 0
		for k := range perm {
			if perm[k] != nil && !math.IsNaN(perm[k][j]) {
				imp.Permutation += perm[k][j]
				n++
			}
		}
		if n > 0 {
			imp.Permutation /= float64(n)
		}
		res.Importance = append(res.Importance, imp)
	}
	slices.SortStableFunc(res.Importance, func(a, b Importance) int {
		// AUC drops come in steps of 1/(positives·negatives): drops that
		// differ by rounding only are a tie, decided by the coefficient.
		if math.Abs(a.Permutation-b.Permutation) > permTie {
			return -cmpFloat(a.Permutation, b.Permutation)
		}
		return -cmpFloat(math.Abs(a.Coefficient), math.Abs(b.Coefficient))
	})
	return res, nil
}

// permTie is how close two permutation drops are to count as a tie.
const permTie = 1e-12

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// part is one held-out set of row indices.
type part struct {
	name string
	test []int
}

// evaluate fits on the complement of each part and predicts the part;
// after is called with each part's model and AUC (from the fitting goroutine).
func evaluate(name string, s Sample, parts []part, after func(k int, m *stats.Logistic, test []int, auc float64)) (Eval, error) {
	ev := Eval{Name: name, Folds: make([]FoldEval, len(parts))}
	pred := make([]float64, len(s.Y))
	have := make([]bool, len(s.Y))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ferr error
	)
	sem := make(chan struct{}, 2)
	for k, p := range parts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			inTest := make([]bool, len(s.Y))
			for _, i := range p.test {
				inTest[i] = true
			}
			var train []int
			for i := range s.Y {
				if !inTest[i] {
					train = append(train, i)
				}
			}
			fe := FoldEval{Name: p.name, N: len(p.test), AUC: math.NaN(), Accuracy: math.NaN()}
			if len(train) == 0 {
				mu.Lock()
				ev.Folds[k] = fe
				mu.Unlock()
				return
			}
			m, err := fitLogit(s.rows(train), s.labels(train))
			if err != nil {
				mu.Lock()
				ferr = fmt.Errorf("classifier: %s %s: %w", name, p.name, err)
				mu.Unlock()
				return
			}
			ys := s.labels(p.test)
			for _, y := range ys {
				if y {
					fe.Pos++
				}
			}
			ps := stats.Probs(m, s.rows(p.test))
			fe.AUC, fe.Accuracy = stats.AUC(ps, ys), stats.Accuracy(ps, ys)
			if after != nil {
				after(k, m, p.test, fe.AUC)
			}
			mu.Lock()
			ev.Folds[k] = fe
			for j, i := range p.test {
				pred[i], have[i] = ps[j], true
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if ferr != nil {
		return ev, ferr
	}
	var ps []float64
	var ys []bool
	for i := range pred {
		if have[i] {
			ps = append(ps, pred[i])
			ys = append(ys, s.Y[i])
		}
	}
	ev.N = len(ps)
	ev.AUC, ev.Accuracy = stats.AUC(ps, ys), stats.Accuracy(ps, ys)
	return ev, nil
}

// permutationDrops returns, per feature, the held-out AUC minus the AUC with
// that feature's column shuffled among the held-out rows.
func permutationDrops(m *stats.Logistic, s Sample, test []int, base float64, seed uint64) []float64 {
	if math.IsNaN(base) {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	d := len(s.Names)
	xs, ys := s.rows(test), s.labels(test)
	out := make([]float64, d)
	col := make([]float64, len(test))
	for f := range d {
		for j := range test {
			col[j] = xs[j*d+f]
		}
		order := rng.Perm(len(test))
		for j := range test {
			xs[j*d+f] = col[order[j]]
		}
		out[f] = base - stats.AUC(stats.Probs(m, xs), ys)
		for j := range test {
			xs[j*d+f] = col[j]
		}
	}
	return out
}

// ridge is the classifier's L2 penalty on the standardised coefficients
// (on the summed log-loss); it keeps the fit finite on separable runs.
const ridge = 1.0

// fitLogit fits the classifier on rows x (row-major, one per run, as wide
// as the sample's features) with labels y.
func fitLogit(x []float64, y []bool) (*stats.Logistic, error) {
	if len(y) == 0 {
		return nil, errors.New("no rows")
	}
	return stats.FitLogistic(x, len(x)/len(y), y, ridge)
}

// rows returns the feature rows idx of the sample, row-major.
func (s Sample) rows(idx []int) []float64 {
	out := make([]float64, 0, len(idx)*len(s.Names))
	for _, i := range idx {
		out = append(out, s.X[i]...)
	}
	return out
}

// labels returns the labels of rows idx.
func (s Sample) labels(idx []int) []bool {
	out := make([]bool, len(idx))
	for j, i := range idx {
		out[j] = s.Y[i]
	}
	return out
}

// all is every row index of the sample.
func (s Sample) all() []int {
	idx := make([]int, len(s.Y))
	for i := range idx {
		idx[i] = i
	}
	return idx
}
