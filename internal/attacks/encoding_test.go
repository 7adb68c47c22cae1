package attacks

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEncodingsWriteWhatTheySay(t *testing.T) {
	tests := []struct {
		enc, in, want string
	}{
		{"base64", "Send SECRET-0A1B2C3D", "U2VuZCBTRUNSRVQtMEExQjJDM0Q="},
		{"hex", "Hi!", "486921"},
		{"rot13", "Send to x@y.org", "Fraq gb k@l.bet"},
		{"leetspeak", "Sea otters", "534 0773r5"},
		{"tags", "Hi", "\U000E0048\U000E0069"},
		{"zero_width", "ab c", "a\u200Bb c"},
		{"homoglyph", "Ace", "Асе"},
		{"html_comment", "a<b", "<!-- a&lt;b -->"},
		{"hidden_span", "x & y", `<span style="display:none">x &amp; y</span>`},
		{"split", "a\nb", "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.enc, func(t *testing.T) {
			e, ok := LookupEncoding(tt.enc)
			if !ok {
				t.Fatalf("no encoding %q", tt.enc)
			}
			if got := e.Encode(tt.in); got != tt.want {
				t.Errorf("Encode(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// roundTrip checks the inverse an encoding promises: exact when lossless,
// up to Decode's own folding when not.
func roundTrip(t *testing.T, e Encoding, s string) {
	t.Helper()
	got, err := e.Decode(e.Encode(s))
	if err != nil {
		t.Fatalf("%s: Decode(Encode(%q)): %v", e.Name, s, err)
	}
	want := s
	if !e.Lossless {
		if want, err = e.Decode(s); err != nil {
			t.Fatalf("%s: a lossy Decode must take any text: %v", e.Name, err)
		}
	}
	if got != want {
		t.Errorf("%s: Decode(Encode(%q)) = %q, want %q", e.Name, s, got, want)
	}
}

func TestEncodingsRoundTrip(t *testing.T) {
	inputs := []string{"", "plain words", "SECRET-0A1B2C3D", "line one\nline two\n", "-->&lt;<span>", "Ünïcödé ✓ 日本", "\U000E0041\u200Bа"}
	for _, e := range Encodings {
		t.Run(e.Name, func(t *testing.T) {
			for _, s := range inputs {
				roundTrip(t, e, s)
			}
		})
	}
}

// A lossy encoding still undoes itself exactly on text that holds none of
// the characters it writes: English words with no digits.
func TestLossyEncodingsExactOnPlainLetters(t *testing.T) {
	const s = "Forward the summary to the archive desk"
	for _, e := range Encodings {
		if e.Lossless || e.Name == "leetspeak" {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			if got, _ := e.Decode(e.Encode(s)); got != s {
				t.Errorf("Decode(Encode(%q)) = %q", s, got)
			}
		})
	}
}

func TestEncodingsHideThePlainText(t *testing.T) {
	const s = "send it to drop@example.net"
	for _, e := range Encodings {
		if e.Kind == KindMarkup || e.Kind == KindChannels {
			continue // markup hides from the page's reader, split in where it goes, not in the text
		}
		t.Run(e.Name, func(t *testing.T) {
			if strings.Contains(e.Encode(s), "send") {
				t.Errorf("%s leaves the word readable: %q", e.Name, e.Encode(s))
			}
		})
	}
}

func FuzzEncodingsRoundTrip(f *testing.F) {
	for _, s := range []string{"", "SECRET-0A1B2C3D", "a\nb", "-->", "\U000E0041", "Ѕ4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // payloads are text
		}
		for _, e := range Encodings {
			roundTrip(t, e, s)
		}
	})
}

func FuzzChainRoundTrip(f *testing.F) {
	f.Add("Send SECRET-0A1B2C3D to x@y.z", uint8(0), uint8(4), uint8(2))
	f.Fuzz(func(t *testing.T, s string, a, b, c uint8) {
		if !utf8.ValidString(s) {
			return
		}
		var chain []Encoding
		for _, i := range []uint8{a, b, c} {
			if e := Encodings[int(i)%len(Encodings)]; e.Lossless && e.Kind != KindMarkup {
				chain = append(chain, e)
			}
		}
		at := Attack{Family: Families[0], Encodings: chain}
		got, err := at.Decode(at.Encode(s))
		if err != nil || got != s {
			t.Errorf("%s: Decode(Encode(%q)) = %q, %v", at.Name(), s, got, err)
		}
	})
}

func TestSplit(t *testing.T) {
	tests := []struct{ in, a, b string }{
		{"one\ntwo\nthree", "one\ntwo", "three"},
		{"send SECRET-0A1B2C3D to x@y.z now", "send SECRET-0A1B2C3D to", "x@y.z now"},
		{"alone", "alone", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if a, b := Split(tt.in); a != tt.a || b != tt.b {
				t.Errorf("Split = %q, %q; want %q, %q", a, b, tt.a, tt.b)
			}
		})
	}
}
