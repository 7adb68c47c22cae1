package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// gradient is the gradient of FitLogistic's objective at m, computed
// plainly from the definition, for checking the optimum independently of
// the optimizer.
func gradient(m *Logistic, x []float64, d int, y []bool, ridge float64) []float64 {
	n := len(y)
	g := make([]float64, d+1)
	s := Logits(m, x)
	for i := range n {
		r := 1 / (1 + math.Exp(-s[i]))
		if y[i] {
			r--
		}
		g[0] += r
		for j := range d {
			if m.Std[j] > 0 {
				g[j+1] += r * (x[i*d+j] - m.Mean[j]) / m.Std[j]
			}
		}
	}
	for a := range g {
		if a > 0 {
			g[a] += ridge * m.Coef[a]
		}
		g[a] /= float64(n)
	}
	return g
}

func logit(p float64) float64 { return math.Log(p / (1 - p)) }

func TestFitLogisticNonSeparable(t *testing.T) {
	// One binary feature, half the rows each way: 3 of 10 positive at 0,
	// 8 of 10 at 1. Standardised, the feature is ±1, so without a penalty
	// the optimum is b ± w = logit(0.8), logit(0.3).
	var x []float64
	var y []bool
	for i := range 20 {
		v := float64(i / 10)
		x = append(x, v)
		y = append(y, (v == 0 && i%10 < 3) || (v == 1 && i%10 < 8))
	}
	tests := []struct {
		name  string
		ridge float64
		b, w  float64 // NaN: checked by the gradient only
	}{
		{"no penalty is the maximum likelihood", 0, (logit(0.8) + logit(0.3)) / 2, (logit(0.8) - logit(0.3)) / 2},
		{"a penalty shrinks the slope", 4, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := FitLogistic(x, 1, y, tt.ridge)
			if err != nil {
				t.Fatal(err)
			}
			if !math.IsNaN(tt.b) && (math.Abs(m.Coef[0]-tt.b) > 1e-5 || math.Abs(m.Coef[1]-tt.w) > 1e-5) {
				t.Errorf("Coef = %v, want [%v %v]", m.Coef, tt.b, tt.w)
			}
			if tt.ridge > 0 && !(m.Coef[1] > 0 && m.Coef[1] < (logit(0.8)-logit(0.3))/2-0.05) {
				t.Errorf("slope %v with ridge %v is not shrunk below the unpenalised %v", m.Coef[1], tt.ridge, (logit(0.8)-logit(0.3))/2)
			}
			for a, g := range gradient(m, x, 1, y, tt.ridge) {
				if math.Abs(g) > 1e-6 {
					t.Errorf("gradient[%d] = %v at the fit, want 0", a, g)
				}
			}
		})
	}
}

func TestFitLogisticSeparable(t *testing.T) {
	// Negatives at −2, −1 and positives at 1, 2: without a penalty the
	// slope runs to infinity; each ridge stops it at a finite optimum, the
	// smaller ridge further out, and every row lands on its side.
	var x []float64
	var y []bool
	for range 5 {
		for _, v := range []float64{-2, -1, 1, 2} {
			x, y = append(x, v), append(y, v > 0)
		}
	}
	prev := 0.0
	for _, ridge := range []float64{10, 1, 0.1, 0.01} {
		m, err := FitLogistic(x, 1, y, ridge)
		if err != nil {
			t.Fatalf("ridge %v: %v", ridge, err)
		}
		w := m.Coef[1]
		if math.IsInf(w, 0) || math.IsNaN(w) || w <= prev {
			t.Errorf("ridge %v: slope %v, want finite and above %v (the larger ridge's)", ridge, w, prev)
		}
		prev = w
		for i, p := range Probs(m, x) {
			if (p > 0.5) != y[i] {
				t.Errorf("ridge %v: row %d (x %v) has p %v on the wrong side", ridge, i, x[i], p)
			}
		}
		for a, g := range gradient(m, x, 1, y, ridge) {
			if math.Abs(g) > 1e-6 {
				t.Errorf("ridge %v: gradient[%d] = %v at the fit, want 0", ridge, a, g)
			}
		}
		if a := AUC(Logits(m, x), y); a != 1 {
			t.Errorf("ridge %v: AUC %v on separable rows, want 1", ridge, a)
		}
	}
}

func TestFitLogisticRecoversDirection(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var x []float64
	var y []bool
	for range 2000 {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		p := 1 / (1 + math.Exp(-(2*a - 1*b + 0.5)))
		x = append(x, a, b, 3)
		y = append(y, rng.Float64() < p)
	}
	m, err := FitLogistic(x, 3, y, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Standardised coefficients near 2 and −1 (the features have unit
	// variance); a ridge of 1 over 2000 rows barely shrinks them; the
	// constant feature carries nothing.
	if math.Abs(m.Coef[1]-2) > 0.3 || math.Abs(m.Coef[2]+1) > 0.3 || m.Coef[3] != 0 || m.Std[2] != 0 {
		t.Errorf("coefficients %v (std %v), want about [_, 2, -1, 0]", m.Coef, m.Std)
	}
	// The same rows as float32 give the same fit to float32's precision.
	x32 := make([]float32, len(x))
	for i, v := range x {
		x32[i] = float32(v)
	}
	m32, err := FitLogistic(x32, 3, y, 1)
	if err != nil {
		t.Fatal(err)
	}
	for a := range m.Coef {
		if math.Abs(m.Coef[a]-m32.Coef[a]) > 1e-4 {
			t.Errorf("float32 Coef %v, float64 %v", m32.Coef, m.Coef)
			break
		}
	}
}

func TestFitLogisticNearConstantFeature(t *testing.T) {
	// Feature 0 moves by 1e-12 and only on positives: standardised it would
	// separate the classes perfectly, but a spread that small is rounding
	// in an activation, not signal, and is held at 0. Feature 1 is exactly
	// constant.
	x := []float32{0, 2, 1e-12, 2, 0, 2, 1e-12, 2, 1e-12, 2, 0, 2}
	y := []bool{false, true, false, true, true, false}
	m, err := FitLogistic(x, 2, y, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m.Std[0] != 0 || m.Coef[1] != 0 || m.Std[1] != 0 || m.Coef[2] != 0 {
		t.Errorf("std %v, coefficients %v: want both features held at 0", m.Std, m.Coef)
	}
	if a, b := Logits(m, []float32{5, 1})[0], Logits(m, []float32{0, 2})[0]; a != b {
		t.Errorf("a feature held at 0 moved the log-odds: %v against %v", a, b)
	}
}

func TestFitLogisticRefuses(t *testing.T) {
	tests := []struct {
		name  string
		x     []float64
		d     int
		y     []bool
		ridge float64
		want  string
	}{
		{"no rows", nil, 1, nil, 1, "no rows"},
		{"short rows", []float64{1, 2, 3}, 2, []bool{true, false}, 1, "3 values for 2 rows of 2"},
		{"no features", nil, 0, []bool{true}, 1, "0 values for 1 rows of 0"},
		{"negative ridge", []float64{1, 2}, 1, []bool{true, false}, -1, "ridge -1"},
		{"NaN ridge", []float64{1, 2}, 1, []bool{true, false}, math.NaN(), "ridge NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FitLogistic(tt.x, tt.d, tt.y, tt.ridge)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// BenchmarkFitLogistic times one fit of 4,000 rows of 34 features, the
// shape of a report's run classifier.
func BenchmarkFitLogistic(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 4000, 34
	x := make([]float64, n*d)
	y := make([]bool, n)
	for i := range n {
		y[i] = rng.Float64() < 0.4
		for j := range d {
			x[i*d+j] = rng.NormFloat64()
		}
		if y[i] {
			x[i*d] += 1
			x[i*d+1] -= 0.5
		}
	}
	for b.Loop() {
		if _, err := FitLogistic(x, d, y, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzFitLogistic fits small matrices drawn from the input and checks the
// fit is finite and stationary: the gradient of its objective is 0.
func FuzzFitLogistic(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, uint8(2), uint8(0b1010))
	f.Add([]byte{0, 0, 0, 0}, uint8(1), uint8(0b01))
	f.Add([]byte{200, 3, 17, 99, 4, 250, 31, 8, 77, 1, 0, 128}, uint8(3), uint8(0b110))
	f.Fuzz(func(t *testing.T, raw []byte, width, mask uint8) {
		d := int(width%4) + 1
		n := min(len(raw)/d, 40)
		if n == 0 {
			t.Skip()
		}
		x := make([]float64, n*d)
		y := make([]bool, n)
		for i := range n {
			for j := range d {
				x[i*d+j] = float64(int(raw[i*d+j])-128) / 16
			}
			y[i] = (mask>>(i%8))&1 == 1 != (raw[i*d]&1 == 1)
		}
		m, err := FitLogistic(x, d, y, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Coef {
			if math.IsNaN(c) || math.IsInf(c, 0) {
				t.Fatalf("coefficients %v", m.Coef)
			}
		}
		for a, g := range gradient(m, x, d, y, 1) {
			if math.Abs(g) > 1e-6 {
				t.Fatalf("gradient[%d] = %v at the fit of %v / %v", a, g, x, y)
			}
		}
	})
}
