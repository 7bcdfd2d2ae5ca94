#!/bin/bash
# SPDX-License-Identifier: MIT
# `make deb`: build the Debian packages (trawl, libtrawl0, libtrawl-dev)
# from a copy of this tree, so dpkg-buildpackage's files land in OUTDIR and
# not beside the checkout. The copy is the working tree as it is: tracked
# and new files, without what .gitignore names (build dirs, bench output).
# usage: build-deb.sh OUTDIR
set -eu
out=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"
mkdir -p "$out/src"
out=$(cd "$out" && pwd)
cd "$top"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf - | tar -C "$out/src" -xf -
else
	tar --exclude='./build*' --exclude=./bench/out -cf - . | tar -C "$out/src" -xf -
fi
cd "$out/src"
start=$(date +%s)
DEB_BUILD_OPTIONS="parallel=${JOBS:-2} ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log"
	echo "dpkg-buildpackage failed; the whole log is $out/build.log"
	exit 1
}
echo "built in $(($(date +%s) - start)) s:"
ls "$out"/*.deb
