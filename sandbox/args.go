package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// CheckArgs is the one rule for a tool call's raw JSON arguments that
// decoding alone would hide: no object, at any depth, may repeat a key.
// encoding/json keeps the last of two equal keys, so a filter that reads
// the decoded value would inspect one text while the raw arguments carry
// another ({"summary":"…directive…","summary":"ok"}). The agent loop
// refuses such a call before any defense sees it, and the toolbox refuses
// it too, so nothing stores a record that was inspected in another form.
// Invalid JSON is left to the caller's own decoding: CheckArgs reports
// repeated keys only.
func CheckArgs(raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	err := checkValue(dec, "$")
	if dup, ok := err.(duplicateKey); ok {
		return dup
	}
	return nil
}

// duplicateKey is the error of a repeated key.
type duplicateKey struct{ key, at string }

func (d duplicateKey) Error() string {
	return fmt.Sprintf("the key %q appears twice in %s: send each key once", d.key, d.at)
}

// checkValue reads one JSON value from dec, recursing into objects and
// arrays; path names the value for the error.
func checkValue(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			if seen[k] {
				return duplicateKey{key: k, at: path}
			}
			seen[k] = true
			if err := checkValue(dec, path+"."+k); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := checkValue(dec, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}
