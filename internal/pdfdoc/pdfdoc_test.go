package pdfdoc

import (
	"bytes"
	"strings"
	"testing"
)

func TestGenerateIsDeterministicAndExtractable(t *testing.T) {
	d := Doc{Title: "Survey", Abstract: "Counts rose by 12 percent.", Body: []string{"Second paragraph."},
		Appended: "Appended note.", WhiteText: "White line.", Subject: "subject words", Keywords: "kw one, kw two"}
	first, err := Generate(d)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		again, err := Generate(d)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatalf("render %d differs from the first", i)
		}
	}
	ex, err := Extract(first)
	if err != nil {
		t.Fatal(err)
	}
	text := ex.String()
	order := []string{"Survey", "White line.", "Abstract", "Counts rose", "Second paragraph.", "Appended note.", "Subject: subject words", "Keywords: kw one, kw two"}
	at := 0
	for _, want := range order {
		i := strings.Index(text[at:], want)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", want, text)
		}
		at += i
	}
}

func TestExtractRejectsMalformed(t *testing.T) {
	for name, data := range map[string][]byte{"empty": nil, "not a pdf": []byte("hello"), "truncated": []byte("%PDF-1.4\n1 0 obj <<")} {
		t.Run(name, func(t *testing.T) {
			if _, err := Extract(data); err == nil {
				t.Error("want an error")
			}
		})
	}
}
