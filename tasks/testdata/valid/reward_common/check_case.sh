#!/bin/sh
# check_case.sh NAME: run the solution on tests/cases/NAME.in and compare
# what it prints with tests/cases/NAME.out. {{TIMEOUT}} seconds per case.
name=$1
got=$(timeout {{TIMEOUT}} sh {{SOLUTION}} < "tests/cases/$name.in" 2>&1)
status=$?
want=$(cat "tests/cases/$name.out")
if [ "$status" -ne 0 ]; then
	echo "  $name: the solution exited with status $status"
	printf '%s\n' "$got" | sed 's/^/    /' | head -n 20
	exit 1
fi
if [ "$got" != "$want" ]; then
	echo "  $name: the output differs from tests/cases/$name.out"
	printf '%s\n' "$got" > "${TMPDIR:-/tmp}/got.$$"
	printf '%s\n' "$want" | diff "${TMPDIR:-/tmp}/got.$$" - | sed 's/^/    /' | head -n 20
	rm -f "${TMPDIR:-/tmp}/got.$$"
	exit 1
fi
