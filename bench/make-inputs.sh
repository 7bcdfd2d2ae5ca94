#!/bin/sh
# SPDX-License-Identifier: MIT
# make-inputs.sh - build bench/out/gen-ftrace and generate the benchmark inputs
#
#   bench/make-inputs.sh                      # build, then create missing inputs
#   bench/make-inputs.sh --force              # regenerate the inputs even if present
#   bench/make-inputs.sh --mix sched 1G       # only the old (sched) mix, only 1G
#
# Produces (in bench/out/, gitignored):
#   gen-ftrace          the generator (cc -O2)
#   gen-100M.txt        104857600 bytes (+/- one line), seed 1, 4 CPUs, --mix real
#   gen-1G.txt          1073741824 bytes (+/- one line), seed 1, 4 CPUs, --mix real
#   gen-sched-100M.txt  the same sizes with --mix sched (the inputs before issue 9;
#   gen-sched-1G.txt    until then they were called gen-100M.txt and gen-1G.txt)
# Arguments: --force, --mix real|sched (default: real), then sizes (default:
# 100M 1G).  Environment: CC (default cc), CFLAGS (default -O2), SEED
# (default 1), CPUS (default 4).  An input older than the generator binary is
# made again, so a changed gen-ftrace.c never leaves stale inputs behind.
set -eu

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
out="$here/out"
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2}
SEED=${SEED:-1}
CPUS=${CPUS:-4}
force=0
mix=real
while [ $# -gt 0 ]; do
	case "$1" in
	--force) force=1; shift ;;
	--mix) mix=$2; shift 2 ;;
	*) break ;;
	esac
done
case "$mix" in
real) prefix=gen- ;;
sched) prefix=gen-sched- ;;
*) echo "make-inputs.sh: --mix real|sched" >&2; exit 2 ;;
esac
[ $# -gt 0 ] || set -- 100M 1G

mkdir -p "$out"
if [ ! -x "$out/gen-ftrace" ] || [ "$here/gen-ftrace.c" -nt "$out/gen-ftrace" ]; then
	echo "cc  $out/gen-ftrace"
	$CC $CFLAGS -std=c11 -Wall -o "$out/gen-ftrace" "$here/gen-ftrace.c"
fi

gen() {
	f="$out/$prefix$1.txt"
	if [ -s "$f" ] && [ $force = 0 ] && [ ! "$out/gen-ftrace" -nt "$f" ]; then
		echo "ok  $f (exists)"
		return 0
	fi
	echo "gen $f"
	"$out/gen-ftrace" --size "$1" --seed "$SEED" --cpus "$CPUS" --mix "$mix" -o "$f.tmp"
	mv -f "$f.tmp" "$f"
}

for size in "$@"; do
	gen "$size"
done
