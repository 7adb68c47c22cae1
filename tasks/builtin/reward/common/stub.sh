#!/bin/sh
# Not written yet.
echo "not implemented" >&2
exit 1
