package forensics

import (
	"math"
	"slices"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name string
		text string
		min  int
		want []string
	}{
		{"split and lower", "Send TO: bob@Example.org!", 1, []string{"send", "to", "bob", "example", "org"}},
		{"min length", "a bb ccc dddd", 3, []string{"ccc", "dddd"}},
		{"digits count", "SECRET-1A2B3C4D code 42", 4, []string{"secret", "1a2b3c4d", "code"}},
		{"unicode letters", "Zürich café", 4, []string{"zürich", "café"}},
		{"empty", "  --  ", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tokens(tt.text, tt.min); !slices.Equal(got, tt.want) {
				t.Errorf("Tokens(%q, %d) = %q, want %q", tt.text, tt.min, got, tt.want)
			}
		})
	}
}

// The expected values are worked by hand from the formula in Drift's doc:
// idf(t) = ln((1+N)/(1+df)) + 1 over the task and the steps.
func TestDrift(t *testing.T) {
	tests := []struct {
		name  string
		task  string
		steps []string
		want  []float64
	}{
		{
			// N=4; df alpha=3, beta=2, gamma=2. Step 3 shares only alpha:
			// cos = a²/(a²+b²) with a=ln(5/4)+1, b=ln(5/3)+1.
			name:  "identical, disjoint, half",
			task:  "alpha beta",
			steps: []string{"alpha beta", "gamma", "alpha gamma"},
			want:  []float64{0, 1, 1 - sq(math.Log(5.0/4)+1)/(sq(math.Log(5.0/4)+1)+sq(math.Log(5.0/3)+1))},
		},
		{
			// N=3; alpha and beta both df=2, so equal idf: cos = 3/√10.
			name:  "term frequency counts",
			task:  "alpha beta",
			steps: []string{"alpha alpha beta", "gamma"},
			want:  []float64{1 - 3/math.Sqrt(10), 1},
		},
		{
			name:  "empty step and short tokens",
			task:  "alpha beta",
			steps: []string{"", "an of alpha"},
			want:  []float64{1, 1 - (math.Log(4.0/3)+1)/math.Hypot(math.Log(4.0/3)+1, math.Log(4.0/2)+1)},
		},
		{"empty task", "", []string{"alpha"}, []float64{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Drift(tt.task, tt.steps)
			if len(got) != len(tt.want) {
				t.Fatalf("Drift = %v, want %v", got, tt.want)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-9 {
					t.Errorf("step %d: drift %.6f, want %.6f", i+1, got[i], tt.want[i])
				}
			}
		})
	}
}

func sq(x float64) float64 { return x * x }

func TestAttributed(t *testing.T) {
	tests := []struct {
		name           string
		shared, tokens int
		want           bool
	}{
		{"exactly three shared of many", 3, 100, true},
		{"two shared of many", 2, 100, false},
		{"two shared is 20 percent", 2, 10, true},
		{"two shared under 20 percent", 2, 11, false},
		{"one of five is 20 percent", 1, 5, true},
		{"one of six", 1, 6, false},
		{"nothing shared", 0, 3, false},
		{"empty argument", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Attributed(tt.shared, tt.tokens); got != tt.want {
				t.Errorf("Attributed(%d, %d) = %v, want %v", tt.shared, tt.tokens, got, tt.want)
			}
		})
	}
}
