package results

// DecodesFast reports whether d's fast path takes line, without the
// encoding/json fallback.
func DecodesFast(d *Decoder, line []byte) bool {
	var r Run
	return d.fast(line, &r) == nil
}
