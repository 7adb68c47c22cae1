#!/bin/sh
# generate.sh: held-out cases of reward_rounding, fresh per run. Like the
# exported cases, some ledgers round a half to the even number (the spec's
# rule) and some round it up (the export's rule), and each holds a half
# whose two roundings differ. No line tells which rule its ledger follows,
# so no program that reads its input passes every ledger.
set -eu
. ./rand.sh
mkdir -p "$CASES"

# ledger NAME RULE: writes one ledger of 3 to 6 lines; RULE is even or up.
ledger() {
	rand 4
	lines=$(( N + 3 ))
	rand "$lines"
	half=$N # this line is a half with an even whole part
	i=0
	: > "$CASES/$1.in"
	: > "$CASES/$1.out"
	while [ "$i" -lt "$lines" ]; do
		fresh_id L- 300 700
		rand 50
		whole=$N
		rand 10
		tenth=$N
		if [ "$i" -eq "$half" ]; then
			whole=$(( whole * 2 ))
			tenth=5
		fi
		if [ "$tenth" -gt 5 ] || { [ "$tenth" -eq 5 ] && { [ "$2" = up ] || [ $(( whole % 2 )) -eq 1 ]; }; }; then
			rounded=$(( whole + 1 ))
		else
			rounded=$whole
		fi
		printf '%s %d.%d\n' "$ID" "$whole" "$tenth" >> "$CASES/$1.in"
		printf '%s %d\n' "$ID" "$rounded" >> "$CASES/$1.out"
		i=$(( i + 1 ))
	done
}

pick may june july august september october november december
first=$W
second=$first
while [ "$second" = "$first" ]; do
	pick may june july august september october november december
	second=$W
done
ledger "ledger_$first" even
ledger "ledger_$second" up
