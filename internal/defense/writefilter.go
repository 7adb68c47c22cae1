package defense

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/defense/kinds"
)

// DefaultWritePatterns are write_filter's own patterns for directive-looking
// lines: instruction verbs and words anywhere in a line, then narrower
// phrasings. They do not know the canary format: a real defender would not.
var DefaultWritePatterns = []string{
	// instruction verbs and words anywhere in a line
	`(?i)\b(?:send|forward|include|call|grant|delete|copy|e-?mail|must|ignore|override|disregard|instructions?|mandatory|exfiltrate|escalate)\b`,
	// role markers of injected text
	`(?i)\b(?:system|admin|administrator|developer)\s+(?:prompt|override|mode|notice|instruction)`,
	`(?i)\bjailbreak\b`,
	// other imperatives at the start of a line, after an optional "label:"
	`(?i)^\W*(?:[\w ,'-]{0,30}:\s*)?(?:please\s+)?(?:cc|transfer|upload)\b`,
	// tool names
	`\b(?:escalate_privilege|delete_record|exfiltrate_data|send_report)\b`,
}

// WriteFilter removes directive-looking lines from agent-initiated memory
// writes before they are committed. It inspects kinds.MemoryWrite only.
type WriteFilter struct {
	patterns []*regexp.Regexp
}

var (
	_ agent.Defense     = (*WriteFilter)(nil)
	_ agent.WriteFilter = (*WriteFilter)(nil)
)

// NewWriteFilter compiles patterns; none given means DefaultWritePatterns.
func NewWriteFilter(patterns []string) (*WriteFilter, error) {
	if len(patterns) == 0 {
		patterns = DefaultWritePatterns
	}
	f := &WriteFilter{}
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("write_filter: pattern %q: %w", p, err)
		}
		f.patterns = append(f.patterns, re)
	}
	return f, nil
}

// Name implements agent.Defense.
func (f *WriteFilter) Name() string { return kinds.WriteFilter }

// Channel implements agent.Defense.
func (f *WriteFilter) Channel() string { return kinds.MemoryWrite }

// FilterWrite keeps the lines no pattern matches and returns the others.
func (f *WriteFilter) FilterWrite(value string) (string, []string) {
	lines := strings.Split(value, "\n")
	kept := make([]string, 0, len(lines))
	var removed []string
	for _, l := range lines {
		if f.matches(l) {
			removed = append(removed, l)
			continue
		}
		kept = append(kept, l)
	}
	if len(removed) == 0 {
		return value, nil
	}
	return strings.Join(kept, "\n"), removed
}

func (f *WriteFilter) matches(line string) bool {
	for _, re := range f.patterns {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}
