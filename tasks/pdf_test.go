package tasks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/pdfdoc"
	"github.com/killchain/killchain/internal/testenv"
)

// buildPDF returns the cross_modal_relay document of one variant.
func buildPDF(t *testing.T, variant string, attacked bool) []byte {
	t.Helper()
	tk, _ := builtinGet("cross_modal_relay")
	in := BuildInput{Variant: Variant{Name: variant}, Attacked: attacked}
	if attacked {
		in.Canary = testCanary
	}
	env, err := tk.Env(in)
	if err != nil {
		t.Fatalf("Env: %v", err)
	}
	data, ok := env.Files["docs/sedgemoor-survey.pdf"]
	if !ok {
		t.Fatalf("no %s in the environment", "docs/sedgemoor-survey.pdf")
	}
	return data
}

// TestPDFPlacement checks, through pdfdoc.Extract, that each variant puts the
// payload where its surface says: after the body, before the abstract, or in
// the metadata only.
func TestPDFPlacement(t *testing.T) {
	tk, _ := builtinGet("cross_modal_relay")
	doc := tk.Documents[0]
	body := paragraphs(doc.Body)
	lastBody := body[len(body)-1]
	bodyEnd := lastBody[strings.LastIndex(lastBody, " ")+1:]
	tests := []struct {
		variant  string
		inPages  bool
		inMeta   bool
		position func(page string) bool
	}{
		{"pdf_append", true, false, func(p string) bool {
			return strings.Index(p, testCanary) > strings.LastIndex(p, bodyEnd)
		}},
		{"pdf_whitefont", true, false, func(p string) bool {
			return strings.Index(p, testCanary) < strings.Index(p, "Abstract") && strings.Index(p, doc.Title) < strings.Index(p, testCanary)
		}},
		{"pdf_metadata", false, true, func(string) bool { return true }},
	}
	for _, tt := range tests {
		t.Run(tt.variant, func(t *testing.T) {
			ex, err := pdfdoc.Extract(buildPDF(t, tt.variant, true))
			if err != nil {
				t.Fatal(err)
			}
			page := strings.Join(ex.Pages, "\n")
			if got := strings.Contains(page, testCanary); got != tt.inPages {
				t.Errorf("canary in pages = %v, want %v", got, tt.inPages)
			}
			for _, field := range []string{ex.Subject, ex.Keywords} {
				if got := strings.Contains(field, testCanary); got != tt.inMeta {
					t.Errorf("canary in metadata field %q = %v, want %v", field, got, tt.inMeta)
				}
			}
			if tt.inPages && !tt.position(page) {
				t.Errorf("payload in the wrong position:\n%s", page)
			}
			clean, err := pdfdoc.Extract(buildPDF(t, tt.variant, false))
			if err != nil {
				t.Fatal(err)
			}
			if !containsLines(page, strings.Join(clean.Pages, "\n")) {
				t.Error("attacked pages drop legitimate lines")
			}
			if clean.Subject != doc.Subject || clean.Keywords != doc.Keywords {
				t.Errorf("clean metadata = %q / %q", clean.Subject, clean.Keywords)
			}
		})
	}
}

// popplerTool returns the path of a poppler-utils binary, skipping the test
// when it is absent outside CI.
func popplerTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	testenv.Need(t, err, name+" (make deps installs poppler-utils)")
	return p
}

// TestPDFPoppler checks the generated PDFs with an independent parser: the
// white text and its canary come out of pdftotext, and pdfinfo shows the
// planted Subject and Keywords.
func TestPDFPoppler(t *testing.T) {
	pdftotext, pdfinfo := popplerTool(t, "pdftotext"), popplerTool(t, "pdfinfo")
	write := func(t *testing.T, variant string) string {
		p := filepath.Join(t.TempDir(), variant+".pdf")
		if err := os.WriteFile(p, buildPDF(t, variant, true), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(t *testing.T, bin string, args ...string) string {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", bin, err, out)
		}
		return string(out)
	}
	tk, _ := builtinGet("cross_modal_relay")

	t.Run("pdf_whitefont", func(t *testing.T) {
		out := run(t, pdftotext, write(t, "pdf_whitefont"), "-")
		v, _ := tk.Variant("pdf_whitefont")
		for _, line := range strings.Split(Render(v.Payload, testCanary, tk.Attack.Address), "\n") {
			if !strings.Contains(out, line) {
				t.Errorf("pdftotext output lacks white line %q:\n%s", line, out)
			}
		}
		if strings.Index(out, testCanary) > strings.Index(out, "Abstract") {
			t.Errorf("white text does not come before the abstract:\n%s", out)
		}
	})
	t.Run("pdf_metadata", func(t *testing.T) {
		p := write(t, "pdf_metadata")
		info := run(t, pdfinfo, p)
		fields := map[string]string{}
		for _, l := range strings.Split(info, "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok {
				fields[k] = strings.TrimSpace(v)
			}
		}
		for _, k := range []string{"Subject", "Keywords"} {
			if !strings.Contains(fields[k], testCanary) {
				t.Errorf("pdfinfo %s = %q, want the canary", k, fields[k])
			}
		}
		if strings.Contains(run(t, pdftotext, p, "-"), testCanary) {
			t.Error("metadata payload leaked into the page text")
		}
	})
}
