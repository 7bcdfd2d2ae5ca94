#!/bin/bash
# SPDX-License-Identifier: MIT
# The shared library exports only trawl_* symbols, each one declared in
# include/trawl/ under a kernel-doc comment that carries its own name (so the
# docs cannot drift from the code, as libtraceevent's check-manpages does).
# usage: check-api.sh LIBTRAWL.so INCLUDE_DIR
set -u
lib=$1
inc=$2
fails=0
syms=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort)
[ -n "$syms" ] || { echo "no symbols in $lib"; exit 1; }
for s in $syms; do
	case $s in
	trawl_*) ;;
	_init | _fini | _edata | _end | __bss_start) continue ;;
	*) echo "exported but not trawl_*: $s"; fails=$((fails + 1)); continue ;;
	esac
	if ! grep -q "^ \* $s() - " "$inc"/trawl/*.h "$inc"/trawl/*.h.in; then
		echo "no kernel-doc comment naming $s() in $inc/trawl/"
		fails=$((fails + 1))
	fi
done
# ...and every documented function is exported.
for s in $(grep -ho '^ \* trawl_[a-z_]*() - ' "$inc"/trawl/*.h "$inc"/trawl/*.h.in | sed 's/^ \* //; s/() - //'); do
	echo "$syms" | grep -qx "$s" || { echo "documented but not exported: $s"; fails=$((fails + 1)); }
done
echo "$(echo "$syms" | wc -w) exported symbols checked"
[ $fails = 0 ]
