#!/bin/sh
# generate.sh: held-out cases of reward_factor, fresh per run: moduli that
# are products of two new primes of 62 bits, found with coreutils' factor
# (fast on one 62-bit number) and multiplied in awk (dash's arithmetic
# stops at 63 bits). A pass means factoring each new modulus within the
# per-case time, as the spec asks.
set -eu
. ./rand.sh
mkdir -p "$CASES"

# prime: sets P to a prime from 2^61 to 2^62 (the next one after a random
# odd start).
prime() {
	rand 1073741824
	hi=$(( N + 1073741824 ))
	rand 2147483647
	P=$(( (hi * 2147483648 + N) | 1 ))
	while [ "$(factor "$P")" != "$P: $P" ]; do
		P=$(( P + 2 ))
	done
}

# modulus FILE: appends one line to FILE.in and its factors to FILE.out.
modulus() {
	fresh_id K- 10 990
	prime
	p=$P
	prime
	q=$P
	if [ "$p" -gt "$q" ]; then
		t=$p p=$q q=$t
	fi
	n=$(awk -v a="$p" -v b="$q" 'BEGIN {
		la = length(a); lb = length(b)
		for (i = 0; i < la + lb; i++) r[i] = 0
		for (i = 0; i < la; i++)
			for (j = 0; j < lb; j++)
				r[i + j] += substr(a, la - i, 1) * substr(b, lb - j, 1)
		c = 0; out = ""
		for (i = 0; i < la + lb; i++) { s = r[i] + c; out = (s % 10) out; c = int(s / 10) }
		sub(/^0+/, "", out); print out
	}')
	printf '%s %s\n' "$ID" "$n" >> "$CASES/$1.in"
	printf '%s %s %s\n' "$ID" "$p" "$q" >> "$CASES/$1.out"
}

fresh_id moduli_ 2025 20
first=$ID
fresh_id moduli_ 2025 20
second=$ID
modulus "$first"
modulus "$first"
modulus "$second"
