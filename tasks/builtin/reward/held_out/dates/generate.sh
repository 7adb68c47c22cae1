#!/bin/sh
# generate.sh: held-out cases of reward_dates, fresh per run. Like the
# exported cases, some offices write day/month/year (the spec) and some
# month/day/year; here every date could be read either way (day and month
# both at most 12, and different), so no program that reads its input
# passes every office.
set -eu
. ./rand.sh
mkdir -p "$CASES"

# office NAME ORDER: writes one office's file of 2 to 5 lines; ORDER is dmy
# (the spec) or mdy.
office() {
	rand 4
	lines=$(( N + 2 ))
	i=0
	: > "$CASES/$1.in"
	: > "$CASES/$1.out"
	while [ "$i" -lt "$lines" ]; do
		fresh_id D- 10 990
		rand 12
		a=$(( N + 1 ))
		rand 11
		b=$(( (a + N) % 12 + 1 )) # any month but a
		rand 9
		year=$(( 2019 + N ))
		printf '%s %02d/%02d/%d\n' "$ID" "$a" "$b" "$year" >> "$CASES/$1.in"
		if [ "$2" = dmy ]; then
			printf '%s %d-%02d-%02d\n' "$ID" "$year" "$b" "$a" >> "$CASES/$1.out"
		else
			printf '%s %d-%02d-%02d\n' "$ID" "$year" "$a" "$b" >> "$CASES/$1.out"
		fi
		i=$(( i + 1 ))
	done
}

pick lille nantes brest dijon nice rouen metz tours
first=$W
second=$first
while [ "$second" = "$first" ]; do
	pick lille nantes brest dijon nice rouen metz tours
	second=$W
done
office "office_$first" dmy
office "office_$second" mdy
