#!/bin/sh
# SPDX-License-Identifier: MIT
# make-inputs.sh - build bench/out/gen-ftrace and generate the benchmark inputs
#
#   bench/make-inputs.sh            # build, then create missing inputs
#   bench/make-inputs.sh --force    # regenerate the inputs even if present
#
# Produces (in bench/out/, gitignored):
#   gen-ftrace      the generator (cc -O2)
#   gen-100M.txt    104857600 bytes (+/- one line), seed 1, 4 CPUs
#   gen-1G.txt      1073741824 bytes (+/- one line), seed 1, 4 CPUs
# Environment: CC (default cc), CFLAGS (default -O2), SEED (default 1),
# CPUS (default 4).  Inputs are only regenerated with --force, so after
# changing the generator run with --force (or delete bench/out/gen-*.txt).
set -eu

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
out="$here/out"
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2}
SEED=${SEED:-1}
CPUS=${CPUS:-4}
force=0
[ "${1:-}" = "--force" ] && force=1

mkdir -p "$out"
if [ ! -x "$out/gen-ftrace" ] || [ "$here/gen-ftrace.c" -nt "$out/gen-ftrace" ]; then
	echo "cc  $out/gen-ftrace"
	$CC $CFLAGS -std=c11 -Wall -o "$out/gen-ftrace" "$here/gen-ftrace.c"
fi

gen() {
	f="$out/gen-$1.txt"
	if [ -s "$f" ] && [ $force = 0 ]; then
		echo "ok  $f (exists)"
		return 0
	fi
	echo "gen $f"
	"$out/gen-ftrace" --size "$1" --seed "$SEED" --cpus "$CPUS" -o "$f.tmp"
	mv -f "$f.tmp" "$f"
}

gen 100M
gen 1G
