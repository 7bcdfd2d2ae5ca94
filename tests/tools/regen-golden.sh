#!/bin/sh
# Regenerate the CLI golden files after an intended output change; review
# the diff (git diff tests/tools/golden) before committing.
# usage: tests/tools/regen-golden.sh [build/trawl]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TRAWL=$(cd "$(dirname "${1:-build/trawl}")" && pwd)/$(basename "${1:-build/trawl}")
cd "$HERE/../fixtures"
for g in "$HERE"/golden/*.cmd; do
	eval "\"$TRAWL\" $(cat "$g")" >"${g%.cmd}.out" 2>&1 || true
	echo "wrote ${g%.cmd}.out"
done
