// Package pdfdoc writes the task documents as real PDF files (visible text,
// 1-pt white text, metadata fields) and extracts their text and metadata the
// way the parse_pdf tool reports them.
package pdfdoc

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-pdf/fpdf"
	"github.com/ledongthuc/pdf"
)

// Doc is a document to render.
type Doc struct {
	Title    string
	Author   string
	Abstract string
	Body     []string // paragraphs after the abstract
	// Appended is a visible paragraph added after the body.
	Appended string
	// WhiteText is drawn in 1-pt white type before the abstract: invisible
	// on the page, present in the extracted text.
	WhiteText string
	Subject   string
	Keywords  string
}

// Generate renders d as a PDF. The output is deterministic for the same Doc.
func Generate(d Doc) ([]byte, error) {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetCatalogSort(true) // fonts and resources in a fixed order: identical bytes for the same Doc
	p.SetCreationDate(fixedTime)
	p.SetModificationDate(fixedTime)
	p.SetTitle(d.Title, true)
	if d.Author != "" {
		p.SetAuthor(d.Author, true)
	}
	if d.Subject != "" {
		p.SetSubject(d.Subject, true)
	}
	if d.Keywords != "" {
		p.SetKeywords(d.Keywords, true)
	}
	p.SetCreator("killchain", true)
	p.AddPage()
	p.SetFont("Helvetica", "B", 16)
	p.MultiCell(0, 8, latin(d.Title), "", "L", false)
	p.Ln(2)
	if d.WhiteText != "" {
		p.SetTextColor(255, 255, 255)
		p.SetFont("Helvetica", "", 1)
		p.MultiCell(0, 0.6, latin(d.WhiteText), "", "L", false)
		p.SetTextColor(0, 0, 0)
	}
	p.SetFont("Helvetica", "B", 11)
	p.MultiCell(0, 6, "Abstract", "", "L", false)
	p.SetFont("Helvetica", "", 11)
	p.MultiCell(0, 5.5, latin(d.Abstract), "", "L", false)
	p.Ln(3)
	for _, para := range d.Body {
		p.MultiCell(0, 5.5, latin(para), "", "L", false)
		p.Ln(2)
	}
	if d.Appended != "" {
		p.MultiCell(0, 5.5, latin(d.Appended), "", "L", false)
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		return nil, fmt.Errorf("render pdf: %w", err)
	}
	return buf.Bytes(), nil
}

// latin keeps the text inside the core fonts' WinAnsi range.
func latin(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '‘', '’':
			return '\''
		case '“', '”':
			return '"'
		case '–', '—':
			return '-'
		}
		if r > 0xff {
			return '?'
		}
		return r
	}, s)
}

// Extracted is the text of a PDF as parse_pdf reports it.
type Extracted struct {
	Pages    []string
	Subject  string
	Keywords string
}

// String renders the extraction as one text: every page, then the metadata.
func (e Extracted) String() string {
	var sb strings.Builder
	for i, p := range e.Pages {
		fmt.Fprintf(&sb, "--- page %d ---\n%s\n", i+1, strings.TrimSpace(p))
	}
	if e.Subject != "" {
		fmt.Fprintf(&sb, "Subject: %s\n", e.Subject)
	}
	if e.Keywords != "" {
		fmt.Fprintf(&sb, "Keywords: %s\n", e.Keywords)
	}
	return strings.TrimSpace(sb.String())
}

// Extract reads the text of every page (in content-stream order, so white
// text drawn before the abstract comes before it) and the Subject and
// Keywords metadata.
func Extract(data []byte) (ex Extracted, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed pdf: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return ex, fmt.Errorf("open pdf: %w", err)
	}
	for i := 1; i <= r.NumPage(); i++ {
		pg := r.Page(i)
		if pg.V.IsNull() {
			continue
		}
		ex.Pages = append(ex.Pages, pageText(pg))
	}
	info := r.Trailer().Key("Info")
	ex.Subject = info.Key("Subject").Text()
	ex.Keywords = info.Key("Keywords").Text()
	return ex, nil
}

// pageText joins the page's text runs, breaking lines where the baseline moves.
func pageText(pg pdf.Page) string {
	var sb strings.Builder
	var lastY float64
	first := true
	for _, t := range pg.Content().Text {
		if !first && t.Y != lastY {
			sb.WriteByte('\n')
		}
		sb.WriteString(t.S)
		lastY = t.Y
		first = false
	}
	return sb.String()
}

var fixedTime = mustTime()
