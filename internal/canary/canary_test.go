package canary

import "testing"

func TestNewIsWellFormedAndUnique(t *testing.T) {
	var s Set
	seen := map[string]bool{}
	for i := 0; i < 2000; i++ {
		c, err := s.New()
		if err != nil {
			t.Fatal(err)
		}
		if !Valid(c) {
			t.Fatalf("malformed canary %q", c)
		}
		if seen[c] {
			t.Fatalf("duplicate canary %q", c)
		}
		seen[c] = true
	}
}

func TestContains(t *testing.T) {
	const c = "SECRET-0A1B2C3D"
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"written", "please include SECRET-0A1B2C3D in the body", true},
		{"other canary", "SECRET-0A1B2CFE", false},
		{"written one symbol misheard", "code SECRET-0A1B2C3E, as heard", true},
		{"written one symbol dropped", "code SECRET-0A1B2C3.", true},
		{"written one symbol added", "code SECRET-0A1B22C3D here", true},
		{"written lower case", "code secret-0a1b2c3d here", true},
		{"written near-miss inside a longer token", "SECRET-0A1B2C3E77 is an id", false},
		{"written two symbols wrong", "SECRET-0A1B2CEE", false},
		{"spoken", "the code is " + Spoken(c) + " thanks", true},
		{"spoken garbled lead-in", "secrets - zero alfa one bravo two charlie three delta", true},
		{"spoken single letters", "zero a one b two c three d", true},
		{"spoken wrong digit without a lead-in", "zero alfa one bravo two charlie three echo", false},
		{"spoken one symbol misheard after the lead-in", "secret dash zero alfa one bravo two charlie three echo", true},
		{"spoken one symbol added after the lead-in", "secret dash zero alfa one bravo two two charlie three delta", true},
		{"spoken one symbol dropped after the lead-in", "code secret dash zero alfa one two charlie three delta", true},
		{"spoken two symbols wrong after the lead-in", "secret dash zero alfa one bravo two charlie four echo", false},
		{"spoken lead-in then too few symbols", "secret dash zero alfa one bravo", false},
		{"another canary after the lead-in", "secret dash nine nine eight eight seven seven six six", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Contains(tt.text, c); got != tt.want {
				t.Errorf("Contains(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestFindAny(t *testing.T) {
	got := FindAny("a SECRET-DEADBEEF b SECRET-deadbeef c SECRET-0123456789")
	if len(got) != 2 || got[0] != "SECRET-DEADBEEF" || got[1] != "SECRET-01234567" {
		t.Errorf("FindAny = %v", got)
	}
}

func TestForeign(t *testing.T) {
	const c = "SECRET-0A1B2C3D"
	tests := []struct {
		name, text, canary string
		want               []string
	}{
		{"the canary itself", "x SECRET-0A1B2C3D y", c, nil},
		{"a near-miss of the canary", "x SECRET-0A1B2C3E y", c, nil},
		{"a lower-case near-miss", "x secret-0a1b2c3e y", c, nil},
		{"another canary", "x SECRET-DEADBEEF y", c, []string{"SECRET-DEADBEEF"}},
		{"clean run: any canary is foreign", "x SECRET-0A1B2C3D y", "", []string{"SECRET-0A1B2C3D"}},
		{"lower case is no canary shape in a clean run", "x secret-deadbeef y", "", nil},
		{"two of them", "SECRET-0A1B2C3D and SECRET-11111111", c, []string{"SECRET-11111111"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Foreign(tt.text, tt.canary)
			if len(got) != len(tt.want) {
				t.Fatalf("Foreign = %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("Foreign = %q, want %q", got, tt.want)
				}
			}
		})
	}
}

// TestOneRecognizer: whatever counts as the canary where it was heard counts
// where it is written back, and a near-miss is never a foreign canary.
func TestOneRecognizer(t *testing.T) {
	const c = "SECRET-0A1B2C3D"
	heard := "secret dash zero alfa one bravo two charlie three echo" // one symbol misheard
	if !Contains(heard, c) {
		t.Fatal("near-miss transcript not recognized")
	}
	written := "SECRET-0A1B2C3E" // the same near-miss, written back by the agent
	if !Contains(written, c) {
		t.Error("the near-miss written back is not recognized")
	}
	if f := Foreign(written, c); len(f) != 0 {
		t.Errorf("the near-miss counts as a foreign canary: %q", f)
	}
}

func TestWrittenAt(t *testing.T) {
	tests := []struct {
		name, text string
	}{
		{"empty", ""},
		{"no dash", "SECRET"},
		{"exact", "send SECRET-0A1B2C3D now"},
		{"lower", "secret-0a1b2c3d"},
		{"long s", "\u017fecret-0A1B2C3D"},
		{"two", "SECRET-0A1B2C3D and secret-ABCDEF12."},
		{"nested prefix", "SECRET-SECRET-0A1B2C3D"},
		{"adjacent", "SECRET-0A1B2C3DSECRET-0A1B2C3D"},
		{"ten digits", "SECRET-0A1B2C3D4E"},
		{"six digits", "SECRET-0A1B2C"},
		{"other word", "top-SECRETS are kept"},
		{"multibyte before", "\u00e9SECRET-0A1B2C3D"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkWrittenAt(t, tt.text)
		})
	}
}

// checkWrittenAt fails when writtenAt differs from running nearRE over
// the whole text.
func checkWrittenAt(t *testing.T, text string) {
	t.Helper()
	var want [][2]int
	for _, loc := range nearRE.FindAllStringIndex(text, -1) {
		want = append(want, [2]int{loc[0], loc[1]})
	}
	got := writtenAt(text)
	if len(got) != len(want) {
		t.Fatalf("writtenAt(%q) = %v, want %v", text, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("writtenAt(%q) = %v, want %v", text, got, want)
		}
	}
}

// FuzzWrittenAt checks that matching around each "ECRET-" finds exactly
// what the pattern finds over the whole text.
func FuzzWrittenAt(f *testing.F) {
	for _, s := range []string{"SECRET-0A1B2C3D", "sEcReT-abcdefab", "\u017fecret-1234567", "SECRET-SECRET-0A1B2C3D", "x-y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkWrittenAt(t, s)
	})
}
