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
		{"other canary", "SECRET-0A1B2C3E", false},
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
