package tasks

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// PayloadPlaceholder marks where a payload goes in environment text, a tool
// result or a tool description: {{PAYLOAD}} is the task's placement named
// DefaultPlacement, {{PAYLOAD:name}} a named one. A clean run removes it (a
// line holding only the placeholder disappears).
const PayloadPlaceholder = "{{PAYLOAD}}"

// DefaultPlacement is the name of the placement {{PAYLOAD}} marks.
const DefaultPlacement = "default"

// placeholderRE matches {{PAYLOAD}} and {{PAYLOAD:name}}.
var placeholderRE = regexp.MustCompile(`\{\{PAYLOAD(?::([A-Za-z0-9_-]+))?\}\}`)

// Surfaces a placement may be on, in the order a variant's surface names
// them.
const (
	SurfaceWebPage         = "web_page"
	SurfaceMemory          = "memory"
	SurfaceToolResult      = "tool_result"
	SurfacePDFVisible      = "pdf_visible"
	SurfacePDFWhite        = "pdf_white"
	SurfacePDFMetadata     = "pdf_metadata"
	SurfaceAudio           = "audio"
	SurfaceToolDescription = "tool_description"
	SurfaceWorkspace       = "workspace"
)

// Surfaces lists every surface in order.
var Surfaces = []string{SurfaceWebPage, SurfaceMemory, SurfaceToolResult, SurfacePDFVisible, SurfacePDFWhite,
	SurfacePDFMetadata, SurfaceAudio, SurfaceToolDescription, SurfaceRugPull, SurfaceShadowing, SurfaceMCPResult, SurfaceWorkspace, SurfaceState}

// Placement is one place a payload can go: a placeholder in one text of
// the environment.
type Placement struct {
	Name    string // DefaultPlacement for {{PAYLOAD}}
	Surface string
	Where   string // the item and field, as a task file names them
	Tool    string // the tool that reads the text to an agent ("" when none does)
}

// placeholders returns the placement names of the placeholders in text, in
// order, each once.
func placeholders(text string) []string {
	var out []string
	for _, m := range placeholderRE.FindAllStringSubmatch(text, -1) {
		if name := placementName(m[1]); !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// placementName is the placement a placeholder's name part marks.
func placementName(s string) string {
	if s == "" {
		return DefaultPlacement
	}
	return s
}

// text is one text of a task that may hold placeholders.
type text struct {
	surface, where, tool string
	value                string
}

// texts lists every text of the task that may hold a payload placeholder,
// with its surface and the tool that shows it.
func (t *Task) texts() []text {
	var out []text
	for _, p := range t.Pages {
		out = append(out, text{SurfaceWebPage, `page "` + p.URL + `"`, "get_webpage", p.Text})
	}
	for _, n := range t.Notes {
		out = append(out, text{SurfaceMemory, `note "` + n.Key + `"`, "read_memory", n.Text})
	}
	for _, r := range t.Records {
		out = append(out, text{SurfaceToolResult, `record "` + r.ID + `"`, "search", r.Text})
	}
	for _, d := range t.Documents {
		w := `document "` + d.Path + `"`
		out = append(out,
			text{SurfacePDFVisible, w + " body", "parse_pdf", d.Body},
			text{SurfacePDFVisible, w + " abstract", "parse_pdf", d.Abstract},
			text{SurfacePDFVisible, w + " appended", "parse_pdf", d.Appended},
			text{SurfacePDFWhite, w + " white_text", "parse_pdf", d.WhiteText},
			text{SurfacePDFMetadata, w + " metadata", "parse_pdf", d.Metadata})
	}
	for _, c := range t.Clips {
		out = append(out, text{SurfaceAudio, `clip "` + c.Path + `"`, "transcribe_audio", c.Script})
	}
	for _, tl := range t.Tools {
		result, desc := SurfaceToolResult, SurfaceToolDescription
		if _, mcp := t.ServerOf(tl.Name); mcp {
			result = SurfaceMCPResult
			if tl.Shadows != "" {
				desc = SurfaceShadowing
			}
		}
		for i, r := range tl.Results {
			out = append(out, text{result, `tool "` + tl.Name + `" result ` + strconv.Itoa(i+1), tl.Name, r.Text})
		}
		out = append(out, text{desc, `tool "` + tl.Name + `" description`, tl.Name, tl.Description})
		if _, mcp := t.ServerOf(tl.Name); mcp {
			// A parameter's description reaches the model in the listing's
			// input schema (an MCP agent's tracker sees the schema).
			out = append(out, text{desc, `tool "` + tl.Name + `" parameters`, tl.Name, string(tl.Parameters)})
		}
		if tl.RugPull != "" {
			out = append(out, text{SurfaceRugPull, `tool "` + tl.Name + `" rug_pull`, tl.Name, tl.RugPull})
		}
	}
	if t.Reward != nil {
		for _, f := range t.Reward.Files {
			out = append(out, text{SurfaceWorkspace, `workspace file "` + f.Path + `"`, "read_file", f.Text})
		}
	}
	return out
}

// Placements lists the task's placements in the order their texts come;
// a user task's are its environment's vectors.
func (t *Task) Placements() []Placement {
	var out []Placement
	if t.Environment != nil {
		for _, v := range t.Environment.Vectors {
			out = append(out, Placement{Name: v.Name, Surface: SurfaceState, Where: `environment "` + t.Environment.Name + `" vector "` + v.Name + `"`})
		}
	}
	for _, tx := range t.texts() {
		for _, name := range placeholders(tx.value) {
			out = append(out, Placement{Name: name, Surface: tx.surface, Where: tx.where, Tool: tx.tool})
		}
	}
	return out
}

// PlacementNames lists the task's distinct placement names in order.
func (t *Task) PlacementNames() []string {
	var out []string
	for _, p := range t.Placements() {
		if !slices.Contains(out, p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}

// variantSurface is the surface of a variant: those of the placements it
// fills, in the order of Surfaces, joined with "+".
func (t *Task) variantSurface(v Variant) string {
	var got []string
	for _, p := range t.Placements() {
		if _, ok := v.Wording(p.Name); ok && !slices.Contains(got, p.Surface) {
			got = append(got, p.Surface)
		}
	}
	slices.SortFunc(got, func(a, b string) int { return slices.Index(Surfaces, a) - slices.Index(Surfaces, b) })
	return strings.Join(got, "+")
}

// payloadTools are the tools that read a variant's placements to an agent,
// in the order of Surfaces: the default payload tools of a task.
func (t *Task) payloadTools() []string {
	type st struct{ surface, tool string }
	var got []st
	for _, p := range t.Placements() {
		if p.Tool == "" || slices.ContainsFunc(got, func(x st) bool { return x.tool == p.Tool }) {
			continue
		}
		got = append(got, st{p.Surface, p.Tool})
	}
	slices.SortStableFunc(got, func(a, b st) int { return slices.Index(Surfaces, a.surface) - slices.Index(Surfaces, b.surface) })
	out := make([]string, len(got))
	for i, g := range got {
		out[i] = g.tool
	}
	return out
}

// fill replaces the placeholders of text with what wording returns for each
// placement name. A line that holds only a placeholder becomes the
// wording's lines, or disappears when the wording is empty; a placeholder
// inside a line is replaced in place.
func fill(text string, wording func(name string) string) string {
	if !strings.Contains(text, "{{PAYLOAD") {
		return text
	}
	lines := strings.Split(text, "\n")
	out := make([]string, 0, len(lines)+4)
	for _, l := range lines {
		if m := placeholderRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil && m[0] == strings.TrimSpace(l) {
			if w := wording(placementName(m[1])); w != "" {
				out = append(out, strings.Split(w, "\n")...)
			}
			continue
		}
		out = append(out, placeholderRE.ReplaceAllStringFunc(l, func(ph string) string {
			return wording(placementName(placeholderRE.FindStringSubmatch(ph)[1]))
		}))
	}
	return strings.Join(out, "\n")
}

// collapseBlank squeezes runs of blank lines left by an empty placement and
// ends the text with one newline.
func collapseBlank(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return strings.TrimSpace(s) + "\n"
}

// squeezed is a planted text collapsed and trimmed at both ends.
func squeezed(s string) string { return strings.TrimSpace(collapseBlank(s)) }
