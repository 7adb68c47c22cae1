package pdfdoc

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// FuzzExtract: no PDF, however hostile (cut off, a cross-reference table
// pointing anywhere, objects that refer to themselves), makes Extract
// panic or hang; what it cannot read is an error. The seeds are the
// documents the tasks plant and broken forms of them.
func FuzzExtract(f *testing.F) {
	for _, d := range []Doc{
		{Title: "Survey", Abstract: "Counts rose.", WhiteText: "hidden line", Keywords: "birds", Subject: "a subject"},
		{Title: "Empty"},
		{Title: "Long", Abstract: strings.Repeat("A sentence of the abstract. ", 40)},
	} {
		pdf, err := Generate(d)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(pdf)
		f.Add(pdf[:len(pdf)/2])
		f.Add(bytes.Replace(pdf, []byte("/Root"), []byte("/Root 1 0 R /Prev 0"), 1))
	}
	// A page tree whose kid is its own parent.
	f.Add([]byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[2 0 R]/Count 1>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF"))
	f.Add([]byte("%PDF-"))
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan error, 1)
		go func() {
			_, err := Extract(data)
			done <- err
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("Extract hung on %d bytes", len(data))
		}
	})
}
