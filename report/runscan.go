package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/killchain/killchain/results"
)

// runScanner decodes the lines of runs.jsonl into results.Run much faster
// than encoding/json: one pass over the bytes, no reflection, and strings
// interned so that the few distinct values of a study's identity fields
// (task, model, condition, …) are allocated once. It accepts the flat
// objects results.Writer produces; anything it does not understand (a
// nested value under a known key, a malformed line) makes decode fail, and
// the caller falls back to encoding/json, which then also reports the error.
type runScanner struct {
	// nested decodes the "forensics" and "harness" objects; without it they
	// are skipped and left nil, which the counters do not need.
	nested bool
	intern map[string]string
	buf    []byte // scratch for unescaping
	t      *trueFalse
}

// trueFalse holds one true and one false to point nullable flags at: the
// Aggregator only reads them.
type trueFalse struct{ t, f bool }

func newRunScanner(nested bool) *runScanner {
	return &runScanner{nested: nested, intern: make(map[string]string), t: &trueFalse{t: true}}
}

// maxInterned bounds the intern table; run ids, canaries and error messages
// are never interned.
const maxInterned = 4096

var errScan = errors.New("scan")

// decode fills r from one JSON object line.
func (s *runScanner) decode(data []byte, r *results.Run) error {
	*r = results.Run{}
	return scanObject(data, func(key []byte, p int) (int, error) { return s.field(data, p, key, r) })
}

// scanObject walks the keys of the JSON object that is the whole of data
// (white space aside), calling field with each key and the position of its
// value; field returns the position after the value.
func scanObject(data []byte, field func(key []byte, p int) (int, error)) error {
	q, err := scanObjectAt(data, skipWS(data, 0), field)
	if err != nil {
		return err
	}
	return end(data, q)
}

// scanObjectAt walks the object starting at p and returns the position
// after its closing brace.
func scanObjectAt(data []byte, p int, field func(key []byte, p int) (int, error)) (int, error) {
	if p >= len(data) || data[p] != '{' {
		return p, errScan
	}
	p = skipWS(data, p+1)
	if p < len(data) && data[p] == '}' {
		return p + 1, nil
	}
	for {
		if p >= len(data) || data[p] != '"' {
			return p, errScan
		}
		keyStart := p + 1
		keyEnd := bytes.IndexByte(data[keyStart:], '"')
		if keyEnd < 0 {
			return p, errScan
		}
		key := data[keyStart : keyStart+keyEnd]
		p = skipWS(data, keyStart+keyEnd+1)
		if p >= len(data) || data[p] != ':' {
			return p, errScan
		}
		p = skipWS(data, p+1)
		var err error
		if p, err = field(key, p); err != nil {
			return p, err
		}
		p = skipWS(data, p)
		if p >= len(data) {
			return p, errScan
		}
		switch data[p] {
		case ',':
			p = skipWS(data, p+1)
		case '}':
			return p + 1, nil
		default:
			return p, errScan
		}
	}
}

// end checks that only white space follows the object.
func end(data []byte, p int) error {
	if skipWS(data, p) != len(data) {
		return errScan
	}
	return nil
}

// field decodes the value at p for key into r and returns the position after it.
func (s *runScanner) field(data []byte, p int, key []byte, r *results.Run) (int, error) {
	str := func(dst *string, intern bool) (int, error) {
		v, q, err := s.str(data, p, intern)
		*dst = v
		return q, err
	}
	boolean := func(dst *bool) (int, error) {
		v, q, ok := parseBool(data, p)
		if !ok {
			return p, errScan
		}
		*dst = v
		return q, nil
	}
	flag := func(dst **bool) (int, error) {
		if bytes.HasPrefix(data[p:], []byte("null")) {
			*dst = nil
			return p + 4, nil
		}
		v, q, ok := parseBool(data, p)
		if !ok {
			return p, errScan
		}
		if v {
			*dst = &s.t.t
		} else {
			*dst = &s.t.f
		}
		return q, nil
	}
	integer := func(dst *int64) (int, error) {
		v, q, ok := parseInt(data, p)
		if !ok {
			return p, errScan
		}
		*dst = v
		return q, nil
	}
	small := func(dst *int) (int, error) {
		var v int64
		q, err := integer(&v)
		*dst = int(v)
		return q, err
	}
	switch string(key) {
	case "study":
		return str(&r.Study, true)
	case "batch":
		return str(&r.Batch, true)
	case "grid":
		return str(&r.Grid, true)
	case "run_id":
		return str(&r.RunID, false)
	case "cell":
		return str(&r.Cell, true)
	case "repeat":
		return small(&r.Repeat)
	case "task":
		return str(&r.Task, true)
	case "variant":
		return str(&r.Variant, true)
	case "surface":
		return str(&r.Surface, true)
	case "mode":
		return str(&r.Mode, true)
	case "condition":
		return str(&r.Condition, true)
	case "defense":
		return str(&r.Defense, true)
	case "model_a":
		return str(&r.ModelA, true)
	case "model_b":
		return str(&r.ModelB, true)
	case "attacked":
		return boolean(&r.Attacked)
	case "canary":
		return str(&r.Canary, false)
	case "stage":
		return str(&r.Stage, true)
	case "exposed":
		return flag(&r.Exposed)
	case "persisted":
		return flag(&r.Persisted)
	case "relayed":
		return flag(&r.Relayed)
	case "executed":
		return flag(&r.Executed)
	case "attack_goal":
		return boolean(&r.AttackGoal)
	case "task_success":
		return boolean(&r.TaskSuccess)
	case "noticed":
		return boolean(&r.Noticed)
	case "noticed_thinking":
		return boolean(&r.NoticedThinking)
	case "noticed_narration":
		return boolean(&r.NoticedNarration)
	case "no_tool_call":
		return boolean(&r.NoToolCall)
	case "contaminated":
		return boolean(&r.Contaminated)
	case "blocked_writes":
		return small(&r.BlockedWrites)
	case "blocked_calls":
		return small(&r.BlockedCalls)
	case "refused_calls":
		return small(&r.RefusedCalls)
	case "lag":
		if bytes.HasPrefix(data[p:], []byte("null")) {
			r.Lag = nil
			return p + 4, nil
		}
		var v int
		q, err := small(&v)
		r.Lag = &v
		return q, err
	case "steps_a":
		return small(&r.StepsA)
	case "steps_b":
		return small(&r.StepsB)
	case "tool_calls_a":
		return small(&r.ToolCallsA)
	case "tool_calls_b":
		return small(&r.ToolCallsB)
	case "outbound_calls":
		return small(&r.Outbound)
	case "input_tokens":
		return small(&r.InputTokens)
	case "output_tokens":
		return small(&r.OutputTokens)
	case "reasoning_tokens":
		return small(&r.ReasoningTokens)
	case "duration_ms":
		return integer(&r.DurationMS)
	case "error":
		return str(&r.Error, false)
	case "error_kind":
		return str(&r.ErrorKind, true)
	case "started":
		return str(&r.Started, false)
	case "forensics":
		if !s.nested || bytes.HasPrefix(data[p:], []byte("null")) {
			return skipValue(data, p)
		}
		f, q, err := s.decodeForensics(data, p)
		r.Forensics = f
		return q, err
	case "harness":
		q, err := skipValue(data, p)
		if err != nil || !s.nested || bytes.HasPrefix(data[p:], []byte("null")) {
			return q, err
		}
		if err := json.Unmarshal(data[p:q], &r.Harness); err != nil {
			return p, errScan
		}
		return q, nil
	}
	return skipUnknown(data, p, key)
}

// skipUnknown skips the value of a key the scanner does not know. A key
// with an upper-case letter or an escape is refused: encoding/json matches
// keys case-insensitively and unescapes them, so it must decide.
func skipUnknown(data []byte, p int, key []byte) (int, error) {
	for _, c := range key {
		if c >= 'A' && c <= 'Z' || c == '\\' {
			return p, errScan
		}
	}
	return skipValue(data, p)
}

// str decodes the JSON string at p.
func (s *runScanner) str(data []byte, p int, intern bool) (string, int, error) {
	if bytes.HasPrefix(data[p:], []byte("null")) {
		return "", p + 4, nil
	}
	if p >= len(data) || data[p] != '"' {
		return "", p, errScan
	}
	raw, q, escaped, ok := scanString(data, p)
	if !ok {
		return "", p, errScan
	}
	if escaped {
		var err error
		if raw, err = s.unescape(raw); err != nil {
			return "", p, err
		}
	} else if !utf8.Valid(raw) {
		return "", p, errScan // encoding/json replaces invalid bytes; let it
	}
	if !intern {
		return string(raw), q, nil
	}
	if v, ok := s.intern[string(raw)]; ok {
		return v, q, nil
	}
	v := string(raw)
	if len(s.intern) < maxInterned {
		s.intern[v] = v
	}
	return v, q, nil
}

// scanString returns the bytes between the quotes of the string at p, the
// position after it, and whether it holds escapes.
func scanString(data []byte, p int) (raw []byte, next int, escaped, ok bool) {
	for i := p + 1; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return data[p+1 : i], i + 1, escaped, true
		case c == '\\':
			escaped = true
			i++
		case c < 0x20:
			return nil, p, false, false
		}
	}
	return nil, p, false, false
}

// unescape decodes the escapes of a JSON string body.
func (s *runScanner) unescape(raw []byte) ([]byte, error) {
	b := s.buf[:0]
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		if i >= len(raw) {
			return nil, errScan
		}
		switch raw[i] {
		case '"', '\\', '/':
			b = append(b, raw[i])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, n, ok := hex4(raw, i+1)
			if !ok {
				return nil, errScan
			}
			i = n - 1
			if utf16.IsSurrogate(r) {
				r2, n2, ok := rune(0), 0, false
				if n+1 < len(raw) && raw[n] == '\\' && raw[n+1] == 'u' {
					r2, n2, ok = hex4(raw, n+2)
				}
				if !ok {
					return nil, errScan // lone surrogate: leave it to encoding/json
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return nil, errScan
				}
				i = n2 - 1
			}
			b = utf8.AppendRune(b, r)
		default:
			return nil, errScan
		}
	}
	if !utf8.Valid(b) {
		return nil, errScan
	}
	s.buf = b
	return b, nil
}

func hex4(raw []byte, i int) (rune, int, bool) {
	if i+4 > len(raw) {
		return 0, i, false
	}
	v, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	if err != nil {
		return 0, i, false
	}
	return rune(v), i + 4, true
}

func parseBool(data []byte, p int) (bool, int, bool) {
	switch {
	case bytes.HasPrefix(data[p:], []byte("true")):
		return true, p + 4, true
	case bytes.HasPrefix(data[p:], []byte("false")):
		return false, p + 5, true
	}
	return false, p, false
}

// parseInt reads a JSON integer; fractions and exponents are left to
// encoding/json (which rejects them for integer fields).
func parseInt(data []byte, p int) (int64, int, bool) {
	if bytes.HasPrefix(data[p:], []byte("null")) {
		return 0, p + 4, true
	}
	q := p
	if q < len(data) && data[q] == '-' {
		q++
	}
	start := q
	for q < len(data) && data[q] >= '0' && data[q] <= '9' {
		q++
	}
	if q == start || q-start > 18 {
		return 0, p, false
	}
	if q < len(data) && (data[q] == '.' || data[q] == 'e' || data[q] == 'E') {
		return 0, p, false
	}
	v, err := strconv.ParseInt(string(data[p:q]), 10, 64)
	if err != nil {
		return 0, p, false
	}
	return v, q, true
}

// skipValue skips any JSON value; it checks nested objects and arrays only
// for balanced brackets outside strings (encoding/json validates them when
// they are decoded).
func skipValue(data []byte, p int) (int, error) {
	if p >= len(data) {
		return p, errScan
	}
	switch c := data[p]; {
	case c == '{' || c == '[':
		depth := 0
		for q := p; q < len(data); q++ {
			switch data[q] {
			case '"':
				_, n, _, ok := scanString(data, q)
				if !ok {
					return p, errScan
				}
				q = n - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return q + 1, nil
				}
			}
		}
		return p, errScan
	case c == '"':
		_, q, _, ok := scanString(data, p)
		if !ok {
			return p, errScan
		}
		return q, nil
	case c == 't' || c == 'f':
		_, q, ok := parseBool(data, p)
		if !ok {
			return p, errScan
		}
		return q, nil
	case c == 'n':
		if bytes.HasPrefix(data[p:], []byte("null")) {
			return p + 4, nil
		}
	case c == '-' || (c >= '0' && c <= '9'):
		q := p + 1
		for q < len(data) && bytes.IndexByte([]byte("0123456789.eE+-"), data[q]) >= 0 {
			q++
		}
		if !json.Valid(data[p:q]) {
			return p, errScan
		}
		return q, nil
	}
	return p, errScan
}

func skipWS(data []byte, p int) int {
	for p < len(data) {
		switch data[p] {
		case ' ', '\t', '\r', '\n':
			p++
		default:
			return p
		}
	}
	return p
}
