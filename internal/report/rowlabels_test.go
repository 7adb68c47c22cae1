package report

import (
	"html"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	svgText = regexp.MustCompile(`<text x="([-0-9.]+)" y="[-0-9.]+"[^>]*\n?[^>]*font-size:([0-9.]+)px">([^<]*)</text>`)
	svgFill = regexp.MustCompile(`<path d="M([-0-9.]+),[-0-9.]+L[^"]*" style="fill:#([0-9A-F]{6})"`)
)

// TestRowLabelsFit renders the smoke study's figures and checks, in the
// SVG, that each row label starts inside the figure and that the data
// area starts right of it by its measured width with labelSlack to spare:
// a wider substitute font still ends before the bars. Before the labels
// were placed explicitly, the longest label started at the figure's edge
// and ended at the bars, with no room for any wider font.
func TestRowLabelsFit(t *testing.T) {
	dir := writeFixture(t, "smoke")
	sty := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(10)), Handler: plot.New().Title.TextStyle.Handler}
	tests := []struct {
		fig     string
		labels  int    // row labels expected
		longest string // must be among them, whole
	}{
		{FigStages, 36, "cross_modal_relay · paraphraser→compliant"},
		{FigSurface, 9, "paraphraser→compliant"},
		{FigPairs, 3, "paraphraser"},
	}
	for _, tt := range tests {
		t.Run(tt.fig, func(t *testing.T) {
			svg, err := os.ReadFile(filepath.Join(dir, "report", FiguresDir, tt.fig+".svg"))
			if err != nil {
				t.Fatal(err)
			}
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
