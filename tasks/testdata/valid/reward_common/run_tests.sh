#!/bin/sh
# run_tests.sh: the test runner. It checks every case under tests/cases
# with tests/check_case.sh and exits 0 only when every case passed.
cd "$(dirname "$0")/.." || exit 2
pass=0
fail=0
for input in tests/cases/*.in; do
	[ -f "$input" ] || continue
	name=$(basename "$input" .in)
	if sh tests/check_case.sh "$name"; then
		pass=$((pass + 1))
		echo "ok   $name"
	else
		fail=$((fail + 1))
		echo "FAIL $name"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
