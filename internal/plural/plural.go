// Package plural writes a count with its noun in agreement: "1 error",
// "2 errors", "0 grids", "1 stratum", "3 strata".
package plural

import "strconv"

// Count is n followed by noun, with an "s" unless n is 1.
func Count(n int, noun string) string {
	return CountAs(n, noun, noun+"s")
}

// CountAs is n followed by one when n is 1, else by many: for nouns whose
// plural is not noun+"s".
func CountAs(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
