// Package jsonscan holds the low-level primitives of the hand-written
// decoders of results.Decoder (runs.jsonl) and the report's events.jsonl
// reader: walking the keys of a JSON
// object, skipping values, and decoding strings, booleans, integers and
// floats in place, without reflection.
//
// The primitives work on a line and a position in it: each returns the
// position after what it read. They take the JSON that results.Writer
// produces and refuse, with ErrFallback, anything they are not sure to
// decode exactly as encoding/json would (escaped or upper-case keys left to
// the caller, lone surrogates, invalid UTF-8, numbers that are not JSON
// numbers); the caller then decodes the line with encoding/json, which also
// reports real errors. None of them accepts null: callers decide what null
// means for each field.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ErrFallback means the fast path does not take the input: decode it with
// encoding/json instead.
var ErrFallback = errors.New("jsonscan: fall back to encoding/json")

// SkipWS returns the position of the first byte at or after p that is not
// JSON white space.
func SkipWS(data []byte, p int) int {
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

// Object walks the keys of the JSON object that is the whole of data (white
// space aside), calling field with each key and the position of its value;
// field returns the position after the value.
func Object(data []byte, field func(key []byte, p int) (int, error)) error {
	q, err := ObjectAt(data, SkipWS(data, 0), field)
	if err != nil {
		return err
	}
	if SkipWS(data, q) != len(data) {
		return ErrFallback
	}
	return nil
}

// ObjectAt walks the object starting at p, as Object does, and returns the
// position after its closing brace. A key with an escape or a control
// character is refused.
func ObjectAt(data []byte, p int, field func(key []byte, p int) (int, error)) (int, error) {
	if p >= len(data) || data[p] != '{' {
		return p, ErrFallback
	}
	p = SkipWS(data, p+1)
	if p < len(data) && data[p] == '}' {
		return p + 1, nil
	}
	for {
		if p >= len(data) || data[p] != '"' {
			return p, ErrFallback
		}
		keyStart := p + 1
		keyEnd := bytes.IndexByte(data[keyStart:], '"')
		if keyEnd < 0 {
			return p, ErrFallback
		}
		key := data[keyStart : keyStart+keyEnd]
		for _, c := range key {
			if c == '\\' || c < 0x20 {
				return p, ErrFallback
			}
		}
		p = SkipWS(data, keyStart+keyEnd+1)
		if p >= len(data) || data[p] != ':' {
			return p, ErrFallback
		}
		p = SkipWS(data, p+1)
		var err error
		if p, err = field(key, p); err != nil {
			return p, err
		}
		p = SkipWS(data, p)
		if p >= len(data) {
			return p, ErrFallback
		}
		switch data[p] {
		case ',':
			p = SkipWS(data, p+1)
		case '}':
			return p + 1, nil
		default:
			return p, ErrFallback
		}
	}
}

// SkipUnknown skips the value of a key the caller does not decode. A key
// with an upper-case letter or a non-ASCII byte is refused: encoding/json
// matches keys case-insensitively, with Unicode folding ("ſ" is an "s"),
// so it must decide. A nested value is checked in full, as encoding/json
// would check it.
func SkipUnknown(data []byte, p int, key []byte) (int, error) {
	for _, c := range key {
		if c >= 'A' && c <= 'Z' || c == '\\' || c >= 0x80 {
			return p, ErrFallback
		}
	}
	q, err := Skip(data, p)
	if err == nil && (data[p] == '{' || data[p] == '[') && !json.Valid(data[p:q]) {
		return p, ErrFallback // rare: Writer writes no unknown keys
	}
	return q, err
}

// Skip returns the position after the JSON value at p. Scalars are checked;
// nested objects and arrays only for brackets that balance outside strings.
func Skip(data []byte, p int) (int, error) {
	if p >= len(data) {
		return p, ErrFallback
	}
	switch c := data[p]; {
	case c == '{' || c == '[':
		depth := 0
		for q := p; q < len(data); q++ {
			switch data[q] {
			case '"':
				_, n, _, err := RawString(data, q)
				if err != nil {
					return p, err
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
		return p, ErrFallback
	case c == '"':
		_, q, _, err := RawString(data, p)
		return q, err
	case c == 't' || c == 'f':
		_, q, err := Bool(data, p)
		return q, err
	case c == 'n':
		if IsNull(data, p) {
			return p + 4, nil
		}
	case c == '-' || (c >= '0' && c <= '9'):
		if q, ok := numberEnd(data, p); ok {
			return q, nil
		}
	}
	return p, ErrFallback
}

// IsNull reports whether the value at p is null.
func IsNull(data []byte, p int) bool {
	return len(data)-p >= 4 && string(data[p:p+4]) == "null"
}

// Bool decodes the JSON boolean at p.
func Bool(data []byte, p int) (bool, int, error) {
	switch {
	case bytes.HasPrefix(data[p:], []byte("true")):
		return true, p + 4, nil
	case bytes.HasPrefix(data[p:], []byte("false")):
		return false, p + 5, nil
	}
	return false, p, ErrFallback
}
