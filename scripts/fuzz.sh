#!/usr/bin/env bash
# fuzz.sh — run every native Go fuzz target of the repository for a short
# while each (FUZZTIME, default 2s): make test runs it after the tests. Each
# target first replays its seed corpus (the repository's own files and
# testdata/fuzz), then mutates for FUZZTIME. A failing input is written to
# the package's testdata/fuzz/<Target>/ and the script exits non-zero.
#
#   scripts/fuzz.sh               every target
#   FUZZTIME=30s scripts/fuzz.sh  longer
#   scripts/fuzz.sh ./internal/study/   the targets of some packages
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-2s}
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
	# Every package with a fuzz target; the cgo probe engine is left to its own tests.
	mapfile -t dirs < <(grep -rl --include='*_test.go' --exclude-dir=.git -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . |
		xargs -n1 dirname | grep -v '^\./probes/engine' | sort -u)
fi
failed=()
n=0
for d in "${dirs[@]}"; do
	d=${d%/}
	for target in $(grep -h -o -E '^func Fuzz[A-Za-z0-9_]*' "$d"/*_test.go | sed 's/^func //' | sort -u); do
		n=$((n + 1))
		echo "fuzz $d $target ($FUZZTIME)"
		log="${TMPDIR:-/tmp}/fuzz.$$.log"
		for try in 1 2 3; do
			if $GO test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$d/" >"$log" 2>&1; then
				break
			fi
			# The fuzzing engine itself sometimes ends a run whose time is up
			# with "context deadline exceeded" and no failing input: that is
			# the engine's shutdown, not a finding, so the target runs again.
			# Any failing input, a crash or a hang fails at once.
			if [ "$try" -lt 3 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written to' "$log"; then
				echo "fuzz $d $target: the engine stopped with 'context deadline exceeded' and no failing input; again"
				continue
			fi
			cat "$log"
			failed+=("$d $target")
			break
		done
	done
done
rm -f "${TMPDIR:-/tmp}/fuzz.$$.log"
if [ ${#failed[@]} -gt 0 ]; then
	printf 'fuzz: %d of %d targets failed:\n' "${#failed[@]}" "$n"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "fuzz: $n targets passed"
