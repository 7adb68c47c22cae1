package jsonscan

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// RawString returns the bytes between the quotes of the JSON string at p,
// the position after it, and whether it holds escapes. A raw control
// character or an escape JSON does not define is refused.
func RawString(data []byte, p int) (raw []byte, next int, escaped bool, err error) {
	if p >= len(data) || data[p] != '"' {
		return nil, p, false, ErrFallback
	}
	for i := p + 1; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return data[p+1 : i], i + 1, escaped, nil
		case c == '\\':
			escaped = true
			n, ok := escapeLen(data, i+1)
			if !ok {
				return nil, p, false, ErrFallback
			}
			i += n
		case c < 0x20:
			return nil, p, false, ErrFallback
		}
	}
	return nil, p, false, ErrFallback
}

// escapeLen returns the length of the escape whose letter is at i (after
// the backslash) and whether JSON defines it.
func escapeLen(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1, true
	case 'u':
		if i+5 > len(data) {
			return 0, false
		}
		for _, c := range data[i+1 : i+5] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return 0, false
			}
		}
		return 5, true
	}
	return 0, false
}

// Strings decodes JSON strings, reusing a scratch buffer for unescaping and
// interning the values asked for: the few distinct values of a study's
// identity fields (task, model, condition, …) are then allocated once. A
// Strings is for one goroutine.
type Strings struct {
	intern map[string]string
	buf    []byte
	// recent holds interned values by a cheap hash of their bytes: most
	// identity values are found there, without a map lookup or a UTF-8
	// check (they were checked when they first came).
	recent [256]string
}

// MaxInterned bounds the intern table of a Strings.
const MaxInterned = 4096

// NewStrings returns an empty Strings.
func NewStrings() *Strings { return &Strings{intern: make(map[string]string)} }

// String decodes the JSON string at p, interned if intern is set.
func (s *Strings) String(data []byte, p int, intern bool) (string, int, error) {
	raw, q, escaped, err := RawString(data, p)
	if err != nil {
		return "", p, err
	}
	slot := -1
	if intern && !escaped && len(raw) > 0 {
		slot = int(byte(len(raw))^raw[0]^raw[len(raw)/2]<<1^raw[len(raw)-1]<<2) & (len(s.recent) - 1)
		if v := s.recent[slot]; v == string(raw) {
			return v, q, nil
		}
	}
	if escaped {
		if raw, err = s.unescape(raw); err != nil {
			return "", p, err
		}
	} else if !utf8.Valid(raw) {
		return "", p, ErrFallback // encoding/json replaces invalid bytes; let it
	}
	if !intern {
		return string(raw), q, nil
	}
	v, ok := s.intern[string(raw)]
	if !ok {
		v = string(raw)
		if len(s.intern) < MaxInterned {
			s.intern[v] = v
		}
	}
	if slot >= 0 {
		s.recent[slot] = v
	}
	return v, q, nil
}

// unescape decodes the escapes of a JSON string body.
func (s *Strings) unescape(raw []byte) ([]byte, error) {
	b := s.buf[:0]
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		if i >= len(raw) {
			return nil, ErrFallback
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
				return nil, ErrFallback
			}
			i = n - 1
			if utf16.IsSurrogate(r) {
				r2, n2, ok := rune(0), 0, false
				if n+1 < len(raw) && raw[n] == '\\' && raw[n+1] == 'u' {
					r2, n2, ok = hex4(raw, n+2)
				}
				if !ok {
					return nil, ErrFallback // lone surrogate: leave it to encoding/json
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return nil, ErrFallback
				}
				i = n2 - 1
			}
			b = utf8.AppendRune(b, r)
		default:
			return nil, ErrFallback
		}
	}
	if !utf8.Valid(b) {
		return nil, ErrFallback
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

// Int decodes the JSON integer at p. Fractions and exponents, and integers
// of more than 18 digits, are refused: encoding/json decides them.
func Int(data []byte, p int) (int64, int, error) {
	q := p
	neg := q < len(data) && data[q] == '-'
	if neg {
		q++
	}
	start := q
	var n int64
	for q < len(data) && data[q] >= '0' && data[q] <= '9' {
		n = n*10 + int64(data[q]-'0')
		q++
	}
	digits := q - start
	if digits == 0 || digits > 18 || (digits > 1 && data[start] == '0') {
		return 0, p, ErrFallback
	}
	if q < len(data) && (data[q] == '.' || data[q] == 'e' || data[q] == 'E') {
		return 0, p, ErrFallback
	}
	if neg {
		n = -n
	}
	return n, q, nil
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// numberEnd returns the end of the JSON number at p and whether one is
// there, by the JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(data []byte, p int) (int, bool) {
	q := p
	if q < len(data) && data[q] == '-' {
		q++
	}
	digits := func() int {
		s := q
		for q < len(data) && data[q] >= '0' && data[q] <= '9' {
			q++
		}
		return q - s
	}
	start := q
	switch n := digits(); {
	case n == 0, n > 1 && data[start] == '0':
		return p, false
	}
	if q < len(data) && data[q] == '.' {
		q++
		if digits() == 0 {
			return p, false
		}
	}
	if q < len(data) && (data[q] == 'e' || data[q] == 'E') {
		q++
		if q < len(data) && (data[q] == '+' || data[q] == '-') {
			q++
		}
		if digits() == 0 {
			return p, false
		}
	}
	return q, true
}

// Float decodes the JSON number at p. Plain decimals of up to 15 digits take
// an exact fast path (an integer mantissa below 2^53 divided by a power of
// ten is correctly rounded, as strconv would round); anything else goes
// through strconv. Out-of-range numbers are refused.
func Float(data []byte, p int) (float64, int, error) {
	q, ok := numberEnd(data, p)
	if !ok {
		return 0, p, ErrFallback
	}
	var mant uint64
	digits, frac := 0, -1
	fast := true
	for _, c := range data[p:q] {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == '.':
			frac = 0
		case c == '-':
		default: // an exponent
			fast = false
		}
	}
	if fast && digits <= 15 {
		x := float64(mant)
		if frac > 0 {
			x /= pow10[frac]
		}
		if data[p] == '-' {
			x = -x
		}
		return x, q, nil
	}
	x, err := strconv.ParseFloat(unsafe.String(&data[p], q-p), 64)
	if err != nil {
		return 0, p, ErrFallback
	}
	return x, q, nil
}

// Floats decodes the JSON array of numbers at p into dst[:0]. An empty
// array gives an empty, non-nil slice, as encoding/json does.
func Floats(data []byte, p int, dst []float64) ([]float64, int, error) {
	if p >= len(data) || data[p] != '[' {
		return dst, p, ErrFallback
	}
	out := dst[:0]
	if out == nil {
		out = []float64{}
	}
	q := SkipWS(data, p+1)
	if q < len(data) && data[q] == ']' {
		return out, q + 1, nil
	}
	for q < len(data) {
		v, n, err := Float(data, q)
		if err != nil {
			return dst, p, err
		}
		out = append(out, v)
		q = SkipWS(data, n)
		if q >= len(data) {
			break
		}
		switch data[q] {
		case ',':
			q = SkipWS(data, q+1)
		case ']':
			return out, q + 1, nil
		default:
			return dst, p, ErrFallback
		}
	}
	return dst, p, ErrFallback
}
