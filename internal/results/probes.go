// The hidden-state probes' files of a study folder: train.json (ProbeTrain,
// written by probes train, read by the report) and the model facts every
// probes file carries (ProbeModel).

package results

import (
	"encoding/json"
	"math"
)

// ProbesTrainFile is where `probes train` writes train.json, relative to
// the study folder; the report shows it when the file exists.
const ProbesTrainFile = "probes/train.json"

// ProbeModel describes the model activations come from.
type ProbeModel struct {
	Path string `json:"path"`
	// Arch is the GGUF's general.architecture.
	Arch string `json:"arch"`
	// Adapter names the versioned layer loop that read the activations.
	Adapter string `json:"adapter"`
	// Layers is the number of decoder layers; activations have Layers+1
	// boundaries (0 = embeddings, i = after layer i).
	Layers int `json:"layers"`
	Hidden int `json:"hidden"`
}

// Interval is an estimate with a 95% interval.
type Interval struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	N     int     `json:"n"`
}

// ProbeEval is one probe's out-of-fold performance under one split.
type ProbeEval struct {
	AUROC Interval `json:"auroc"`
	// TPR is the share of positives above the threshold that lets through
	// FPR of the clean-control rows (rows of runs with no payload).
	TPR Interval `json:"tpr_at_fpr"`
}

// ProbeLayer is a probe's performance at one layer boundary.
type ProbeLayer struct {
	Layer int       `json:"layer"`
	LOSO  ProbeEval `json:"loso"`
	KFold ProbeEval `json:"kfold"`
	// LOFO is leave-one-attack-family-out: a probe trained without the
	// attacked rows of one family, tested on them (AUROC averaged over
	// the held-out families; no TPR, as the clean controls belong to no
	// family). Absent with fewer than two families.
	LOFO *ProbeEval `json:"lofo,omitempty"`
}

// ProbeLeadTime counts, for runs that reach Executed, how many turns before the
// executing call the probe first fired (0: at that call); Missed counts
// runs where it had not fired by then.
type ProbeLeadTime struct {
	Layer  int         `json:"layer"`
	Turns  map[int]int `json:"turns"`
	Missed int         `json:"missed"`
	Runs   int         `json:"runs"`
}

// ProbeTarget is everything trained for one target.
type ProbeTarget struct {
	Target    string       `json:"target"`
	Positives int          `json:"positives"`
	Negatives int          `json:"negatives"`
	Layers    []ProbeLayer `json:"layers"`
	// Controls: shuffled training labels, the same rows through random
	// weights (when given), and a bag-of-tokens logistic baseline.
	Shuffled    []ProbeLayer `json:"shuffled"`
	Random      []ProbeLayer `json:"random,omitempty"`
	BagOfTokens ProbeLayer   `json:"bag_of_tokens"`
	// Best is the layer with the highest leave-one-task-out AUROC.
	Best int `json:"best_layer"`
	// PerTask is the best layer's AUROC on each held-out task.
	PerTask map[string]float64 `json:"per_task"`
	Lead    ProbeLeadTime      `json:"lead_time"`
}

// ProbeTrain is train.json.
type ProbeTrain struct {
	Model   ProbeModel    `json:"model"`
	Study   string        `json:"study"`
	Rows    int           `json:"rows"`
	Runs    int           `json:"runs"`
	Tasks   []string      `json:"tasks"`
	FPR     float64       `json:"fpr"`
	Folds   int           `json:"folds"`
	Targets []ProbeTarget `json:"targets"`
	Seconds float64       `json:"seconds"`
}

// intervalJSON is Interval on the wire: NaN (a split with one class) is null.
type intervalJSON struct {
	Value *float64 `json:"value"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
	N     int      `json:"n"`
}

func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes NaN as null.
func (iv Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal(intervalJSON{Value: num(iv.Value), Lo: num(iv.Lo), Hi: num(iv.Hi), N: iv.N})
}

// UnmarshalJSON reads null as NaN.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var w intervalJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*iv = Interval{Value: val(w.Value), Lo: val(w.Lo), Hi: val(w.Hi), N: w.N}
	return nil
}
