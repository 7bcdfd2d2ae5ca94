#!/usr/bin/env bash
# Check tests/ring/ring.pml with spin: the protocol in both modes must hold,
# and each deliberately broken variant (MUTANT=1..3, see the model) must be
# caught, so the check is not vacuous.
#
#   check-model.sh MODEL
set -euo pipefail
model=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/trawl-spin.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# run DEFINES...: prints pan's verdict line, returns pan's error count
run() {
	spin -a "$@" "$model" >/dev/null
	gcc -O2 -DSAFETY -w -o pan pan.c
	./pan -m1000000 >out.txt 2>&1 || true
	grep -q 'Search not completed' out.txt && ! grep -q 'errors: [1-9]' out.txt && {
		echo "spin $*: search incomplete"; cat out.txt; return 99; }
	local errors
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' out.txt)
	echo "spin $*: errors $errors, $(grep -o '[0-9]* states, stored' out.txt)"
	return "${errors:-99}"
}

fails=0
for mode in 1 0; do
	run -DOVERWRITE=$mode || { echo "FAIL: the protocol (OVERWRITE=$mode)"; grep violated out.txt || true; fails=$((fails + 1)); }
done
for mutant in 1 2 3; do
	if run -DOVERWRITE=1 -DMUTANT=$mutant >/dev/null; then
		echo "FAIL: MUTANT=$mutant passes: the model does not check what it says"
		fails=$((fails + 1))
	else
		echo "MUTANT=$mutant caught: $(grep violated out.txt | head -1)"
	fi
done
exit $((fails != 0))
