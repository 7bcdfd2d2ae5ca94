#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The browser test of trawl view (test-browser.js) in Debian's chromium,
# driven by playwright-core pinned in package-lock.json and installed with
# `npm ci` into the build directory. Skipped (exit 77) with a message when
# node, npm or chromium is missing or npm's registry cannot be reached.
#
#   test-browser.sh TRAWL TRACE WORKDIR FOLLOW_TRACE
# (FOLLOW_TRACE: a text trace, copied and made to grow for --follow)
set -u
trawl=$1 trace=$2 work=$3 follow=$4
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
command -v node >/dev/null || skip "node is missing (make deps installs nodejs and npm)"
command -v npm >/dev/null || skip "npm is missing (make deps installs nodejs and npm)"
[ -x /usr/bin/chromium ] || skip "/usr/bin/chromium is missing (Debian package chromium)"
mkdir -p "$work/npm" "$work/screenshots"
# install again only when the lock file changed
if ! cmp -s "$here/package-lock.json" "$work/npm/package-lock.json" ||
	[ ! -d "$work/npm/node_modules/playwright-core" ]; then
	cp "$here/package.json" "$here/package-lock.json" "$work/npm/"
	if ! (cd "$work/npm" && timeout 300 npm ci --no-audit --no-fund \
		--loglevel=error >"$work/npm/npm-ci.log" 2>&1); then
		rm -f "$work/npm/package-lock.json"
		skip "npm ci could not install playwright-core (is the npm registry reachable?): $(tail -n 3 "$work/npm/npm-ci.log" | tr '\n' ' ')"
	fi
fi
NODE_PATH="$work/npm/node_modules" exec node "$here/test-browser.js" \
	"$trawl" "$trace" "$work/screenshots" "$follow"
