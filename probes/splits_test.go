package probes

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// lofoData is one row per run: clean controls, and attacked runs of the
// given families, half of them labelled positive; the label shows in the
// first feature (with noise) for every family alike.
func lofoData(families []string, perFamily int) ([]Row, []float32, []bool) {
	rng := rand.New(rand.NewPCG(4, 2))
	var rows []Row
	var x []float32
	var y []bool
	add := func(r Row, label bool) {
		v := float32(rng.NormFloat64()) * 0.3
		if label {
			v += 2
		}
		rows, x, y = append(rows, r), append(x, v, float32(rng.NormFloat64())), append(y, label)
	}
	for i := range perFamily {
		add(Row{RunID: fmt.Sprintf("clean-%d", i), Task: "t", Variant: "none"}, false)
	}
	for _, f := range families {
		for i := range perFamily {
			add(Row{RunID: fmt.Sprintf("%s-%d", f, i), Task: "t", Variant: f, Attack: f + "+base64", Attacked: true}, i%2 == 0)
		}
	}
	return rows, x, y
}

func TestLeaveOneFamilyOut(t *testing.T) {
	o := TrainOptions{Bootstrap: 20, Seed: 1, FPR: 0.05, Folds: 3}
	t.Run("several families", func(t *testing.T) {
		rows, x, y := lofoData([]string{"tool_knowledge", "ignore_previous", "direct"}, 12)
		ev, _, err := newSplits(rows, 3, 1).evaluate(x, 2, y, y, o)
		if err != nil {
			t.Fatal(err)
		}
		if ev.LOFO == nil {
			t.Fatal("no leave-one-family-out evaluation")
		}
		if a := ev.LOFO.AUROC; a.Value < 0.9 || a.N != 36 {
			t.Errorf("LOFO AUROC %.3f over %d rows, want above 0.9 over the 36 attacked rows", a.Value, a.N)
		}
	})
	t.Run("one family", func(t *testing.T) {
		rows, x, y := lofoData([]string{"tool_knowledge"}, 12)
		ev, _, err := newSplits(rows, 3, 1).evaluate(x, 2, y, y, o)
		if err != nil {
			t.Fatal(err)
		}
		if ev.LOFO != nil {
			t.Errorf("LOFO with one family: %+v", ev.LOFO)
		}
	})
	t.Run("a family the probe cannot see", func(t *testing.T) {
		rows, x, y := lofoData([]string{"a", "b", "c"}, 12)
		// In family c the label shows in the other direction: a probe
		// trained on a and b ranks c's rows backwards.
		for i, r := range rows {
			if r.AttackFamily() == "c" {
				x[2*i] = -x[2*i]
			}
		}
		ev, _, err := newSplits(rows, 3, 1).evaluate(x, 2, y, y, o)
		if err != nil {
			t.Fatal(err)
		}
		if ev.LOFO == nil || ev.LOFO.AUROC.Value > 0.8 {
			t.Errorf("LOFO AUROC %+v, want the held-out family c to pull it well below 1", ev.LOFO)
		}
	})
}
