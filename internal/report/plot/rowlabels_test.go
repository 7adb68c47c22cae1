package plot

import (
	"html"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"
	"testing"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	svgText = regexp.MustCompile(`<text x="([-0-9.]+)" y="[-0-9.]+"[^>]*\n?[^>]*font-size:([0-9.]+)px">([^<]*)</text>`)
	svgFill = regexp.MustCompile(`<path d="M([-0-9.]+),[-0-9.]+L[^"]*" style="fill:#([0-9A-F]{6})"`)
)

// smokeFigures draws the stage bars, the surface heat map and the writer ×
// reader matrix with the rows and columns of the report's smoke study
// (internal/report/testdata/smoke): 4 single-agent tasks × 6 models and 3
// relay tasks × 4 pairs, 9 models or pairs × 8 surfaces, 3 writers × 2
// readers.
func smokeFigures(t *testing.T) map[string][]byte {
	t.Helper()
	models := []string{"compliant", "late", "paraphraser", "quoter", "resistant", "silent"}
	pairs := []string{"compliant→compliant", "compliant→resistant", "paraphraser→compliant", "resistant→compliant"}
	var bars []string
	for _, task := range []string{"audio_inject", "memory_poison", "multi_surface", "tool_poison"} {
		for _, m := range models {
			bars = append(bars, task+" · "+m)
		}
	}
	for _, task := range []string{"cross_modal_relay", "permission_esc", "propagation"} {
		for _, p := range pairs {
			bars = append(bars, task+" · "+p)
		}
	}
	slices.Sort(bars)
	stages := []string{"none", "exposed", "persisted", "relayed", "executed"}
	shares := make([][]float64, len(stages))
	for s := range shares {
		shares[s] = slices.Repeat([]float64{0.2}, len(bars))
	}
	grid := func(rows, cols []string) Grid {
		g := Grid{Rows: rows, Cols: cols}
		for i := range rows {
			var row []Cell
			for j := range cols {
				row = append(row, Cell{Rate: float64((i+j)%5) / 4, Text: []string{"1/4", "25.0%"}})
			}
			g.Cells = append(g.Cells, row)
		}
		return g
	}
	surfaces := []string{"audio", "memory", "pdf_metadata", "pdf_visible", "pdf_white", "tool_result", "web_page", "web_page+memory"}
	heatRows := append(slices.Clone(models[:4]), "paraphraser→compliant", "compliant→resistant", "resistant", "resistant→compliant", "silent")
	slices.Sort(heatRows)
	out := map[string][]byte{}
	for _, build := range []func() (Figure, error){
		func() (Figure, error) { return StageBars(Figure{Name: "stages"}, stages, bars, shares) },
		func() (Figure, error) { return Heat(Figure{Name: "asr_heatmap"}, "surface", grid(heatRows, surfaces)) },
		func() (Figure, error) {
			return WriterReader(Figure{Name: "pair_matrix"}, grid([]string{"compliant", "paraphraser", "resistant"}, []string{"compliant", "resistant"}))
		},
	} {
		f, err := build()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = f.SVG
	}
	return out
}

// TestRowLabelsFit renders the smoke study's figures and checks, in the
// SVG, that each row label starts inside the figure and that the data
// area starts right of it by its measured width with labelSlack to spare:
// a wider substitute font still ends before the bars. Before the labels
// were placed explicitly, the longest label started at the figure's edge
// and ended at the bars, with no room for any wider font.
func TestRowLabelsFit(t *testing.T) {
	figs := smokeFigures(t)
	sty := draw.TextStyle{Color: color.Black, Font: font.From(gplot.DefaultFont, vg.Points(10)), Handler: gplot.New().Title.TextStyle.Handler}
	tests := []struct {
		fig     string
		labels  int    // row labels expected
		longest string // must be among them, whole
	}{
		{"stages", 36, "cross_modal_relay · paraphraser→compliant"},
		{"asr_heatmap", 9, "paraphraser→compliant"},
		{"pair_matrix", 3, "paraphraser"},
	}
	for _, tt := range tests {
		t.Run(tt.fig, func(t *testing.T) {
			svg := figs[tt.fig]
			// The data area starts at the leftmost coloured rectangle.
			dataLeft := math.Inf(1)
			for _, m := range svgFill.FindAllSubmatch(svg, -1) {
				if string(m[2]) == "FFFFFF" {
					continue
				}
				x, _ := strconv.ParseFloat(string(m[1]), 64)
				dataLeft = min(dataLeft, x)
			}
			n, found := 0, false
			for _, m := range svgText.FindAllSubmatch(svg, -1) {
				x, _ := strconv.ParseFloat(string(m[1]), 64)
				label := html.UnescapeString(string(m[3]))
				if string(m[2]) != "10" || x >= dataLeft-labelMargin.Points() {
					continue // title, axis labels, x tick labels, cell text
				}
				w := float64(sty.Width(label))
				if x < 0 || x+labelSlack*w > dataLeft+1e-6 {
					t.Errorf("label %q at x=%.1f, width %.1f: ends past %.1f with slack, data area at %.1f", label, x, w, x+labelSlack*w, dataLeft)
				}
				if label == tt.longest {
					found = true
				}
				n++
			}
			if n < tt.labels || !found {
				t.Errorf("%d row labels left of the data area (want %d), %q among them: %v", n, tt.labels, tt.longest, found)
			}
		})
	}
}
