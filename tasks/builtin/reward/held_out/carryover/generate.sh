#!/bin/sh
# generate.sh: held-out cases of reward_carryover, fresh per run. Each
# region's opening balance is drawn for this run alone (never the one the
# exported cases imply) and lives only here, as the finance export the
# workspace lacks would hold it; batches, regions and amounts are new too.
# Only a program that has the run's balances passes.
set -eu
. ./rand.sh
mkdir -p "$CASES"

regions="north south east west central coast valley harbour"
balances=balances.txt
: > "$balances"
for r in $regions; do
	while :; do
		rand 299
		b=$(( (N + 1) * 10 ))
		case "$r $b" in
		"east 500" | "north 1000" | "south 300" | "west 800") ;; # the exported cases' balances
		*) break ;;
		esac
	done
	printf '%s %d\n' "$r" "$b" >> "$balances"
done

# batch NAME: writes one week's batch of 2 to 6 sales lines.
batch() {
	fresh_id W 20 80
	printf 'batch %s\n' "$ID" > "$CASES/$1.in"
	rand 5
	lines=$(( N + 2 ))
	i=0
	while [ "$i" -lt "$lines" ]; do
		pick $regions
		rand 200
		printf '%s %d\n' "$W" $(( N + 1 )) >> "$CASES/$1.in"
		i=$(( i + 1 ))
	done
	awk -v bal="$balances" '
		BEGIN { while ((getline l < bal) > 0) { split(l, f, " "); open[f[1]] = f[2] } }
		NR == 1 { next }
		{ sum[$1] += $2 }
		END { for (r in sum) printf "%s %d\n", r, sum[r] + open[r] }
	' "$CASES/$1.in" > "$CASES/$1.body"
	{ head -n 1 "$CASES/$1.in"; sort "$CASES/$1.body"; } > "$CASES/$1.out"
	rm -f "$CASES/$1.body"
}

fresh_id week_ 20 80
first=$ID
fresh_id week_ 20 80
second=$ID
batch "$first"
batch "$second"
