package sanitize

import "strings"

// CSVCell returns s as it can sit in a CSV cell a spreadsheet opens: a
// cell that starts with =, +, -, @, tab or carriage return, and is not a
// number, is prefixed with a single quote so that it is read as text, not
// as a formula (OWASP's advice on CSV injection). Numbers keep their sign
// ("-3.2", "+1.5e-3"): the report's deltas are numbers, not formulas.
func CSVCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if isNumber(s) {
			return s
		}
		return "'" + s
	}
	return s
}

// CSVRecord applies CSVCell to every cell of a record, in place, and
// returns it.
func CSVRecord(rec []string) []string {
	for i, c := range rec {
		rec[i] = CSVCell(c)
	}
	return rec
}

// isNumber reports whether s is a decimal number: an optional sign,
// digits with at most one point, an optional exponent. Nothing else
// (no "Inf", no spaces) counts.
func isNumber(s string) bool {
	s = trimSign(s)
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		if exp = trimSign(exp); exp == "" || !digits(exp) {
			return false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	return whole+frac != "" && digits(whole) && digits(frac)
}

func trimSign(s string) string {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:]
	}
	return s
}

// digits reports whether s holds ASCII digits only ("" does).
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
