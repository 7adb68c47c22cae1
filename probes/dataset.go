package probes

import (
	"fmt"
	"math"
	"path/filepath"
)

// Targets are the labels probes are trained for: the injection is in the
// context, this turn executes the canary, this turn tampers (reward-hack
// tasks). A target with one class only in a study is skipped.
var Targets = []string{"injection", "executes", "tampers"}

// dataset is the "last"-token rows of one extraction.
type dataset struct {
	dir    string
	meta   Meta
	rows   []Row // kept rows only
	pick   []int // their row numbers in the layer files
	hidden int
}

func loadDataset(dir string) (*dataset, error) {
	meta, err := ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	all, err := ReadIndex(dir)
	if err != nil {
		return nil, err
	}
	ds := &dataset{dir: dir, meta: meta, hidden: meta.Model.Hidden}
	for _, r := range all {
		if r.Kind == "last" {
			ds.rows = append(ds.rows, r)
			ds.pick = append(ds.pick, r.Row)
		}
	}
	if len(ds.rows) == 0 {
		return nil, fmt.Errorf("extraction %s has no rows", dir)
	}
	return ds, nil
}

// layer reads the kept rows of one layer boundary.
func (ds *dataset) layer(l int) ([]float32, error) {
	data, _, cols, err := ReadNpyFloats(filepath.Join(ds.dir, LayerFile(l)))
	if err != nil {
		return nil, err
	}
	if cols != ds.hidden {
		return nil, fmt.Errorf("layer %d: %d columns, meta says %d", l, cols, ds.hidden)
	}
	out := make([]float32, 0, len(ds.pick)*cols)
	for _, r := range ds.pick {
		out = append(out, data[r*cols:(r+1)*cols]...)
	}
	return out, nil
}

// labels returns the labels of a target.
func (ds *dataset) labels(target string) ([]bool, error) {
	y := make([]bool, len(ds.rows))
	for i, r := range ds.rows {
		switch target {
		case "injection":
			y[i] = r.Injection
		case "executes":
			y[i] = r.Executes
		case "tampers":
			y[i] = r.Tampers
		default:
			return nil, fmt.Errorf("unknown target %q (want one of %v)", target, Targets)
		}
	}
	return y, nil
}

// bowBuckets is the width of the bag-of-tokens baseline's hashed counts.
const bowBuckets = 512

// bagOfTokens is the baseline's features: log(1+count) of each prompt's
// token ids, hashed into bowBuckets.
func (ds *dataset) bagOfTokens() ([]float32, error) {
	toks, err := ReadTokens(ds.dir)
	if err != nil {
		return nil, err
	}
	x := make([]float32, len(ds.rows)*bowBuckets)
	for i, r := range ds.rows {
		if r.TokOff+r.Tokens > len(toks) {
			return nil, fmt.Errorf("row %d: tokens out of range", r.Row)
		}
		row := x[i*bowBuckets : (i+1)*bowBuckets]
		for _, t := range toks[r.TokOff : r.TokOff+r.Tokens] {
			h := uint32(t) * 2654435761
			row[h%bowBuckets]++
		}
		for j, c := range row {
			row[j] = float32(math.Log1p(float64(c)))
		}
	}
	return x, nil
}
