#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerate kernel-formats.zst, the event formats bundled in libtrawl for
# text traces that carry none, from the running kernel's tracefs:
#   sudo lib/formats/gen-kernel-formats.sh [OUT]
# OUT defaults to kernel-formats.zst next to this script. The container is
# text: a first line naming the kernel and the date, then for every
# events/SYSTEM/EVENT/format (sorted, ftrace's own events included) a line
# "#system SYSTEM" and the format file verbatim. lib/formats/parse.c reads it.
# TRACEFS names another tracing directory; SOURCE_DATE_EPOCH fixes the date.
set -eu
T=${TRACEFS:-/sys/kernel/tracing}
out=${1:-$(dirname "$0")/kernel-formats.zst}

if [ ! -d "$T/events" ] && [ "$T" = /sys/kernel/tracing ] &&
	[ "$(id -u)" = 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing
fi
[ -d "$T/events" ] || {
	echo "$0: no $T/events (mount tracefs, run as root)" >&2
	exit 1
}
command -v zstd >/dev/null || {
	echo "$0: zstd is needed (apt-get install zstd)" >&2
	exit 1
}

if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
else
	date=$(date -u +%Y-%m-%d)
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
# Byte order (LC_ALL=C) of the system, then of the event, as tree.c reads
# a tree: the same kernel gives the same file. A format that cannot be read is left out, with a warning.
(cd "$T/events" && find . -mindepth 3 -maxdepth 3 -name format) |
	sed 's|^\./||' | LC_ALL=C sort -t/ -k1,1 -k2,2 >"$tmp/list"
while IFS= read -r f; do
	if cat "$T/events/$f" >"$tmp/one" 2>/dev/null && [ -s "$tmp/one" ]; then
		echo "#system ${f%%/*}" >>"$tmp/body"
		cat "$tmp/one" >>"$tmp/body"
		n=$((n + 1))
	else
		echo "$0: skipped $f (unreadable)" >&2
	fi
done <"$tmp/list"
[ "$n" -gt 0 ] || {
	echo "$0: no formats under $T/events" >&2
	exit 1
}
{
	echo "#trawl-formats linux $(uname -r) date $date formats $n"
	cat "$tmp/body"
} >"$tmp/all"
zstd -q -19 -f --no-progress "$tmp/all" -o "$out"
echo "$out: $n formats, $(wc -c <"$tmp/all") bytes, $(wc -c <"$out") compressed" >&2
