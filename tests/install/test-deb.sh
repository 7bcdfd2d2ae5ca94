#!/bin/bash
# SPDX-License-Identifier: MIT
# The Debian packages `make deb` built: lintian finds nothing at its default
# level (errors, warnings), they install with dpkg -i into a scratch root,
# and what they install works: trawl --version, the man pages (every
# command, every option of its --help), and examples/count-events.c built
# against libtrawl-dev with pkg-config and run with libtrawl0.
# usage: test-deb.sh DEBDIR SOURCE_DIR VERSION
set -eu
debs=$(cd "$1" && pwd)
src=$2
version=$3
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

cl=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
[ "$cl" = "$version" ] || fail "debian/changelog is at $cl, meson.build at $version (add a changelog entry)"
for p in trawl libtrawl0 libtrawl-dev; do
	[ -f "$debs/${p}_${version}_$arch.deb" ] || fail "no ${p}_${version}_$arch.deb"
done
[ $fails = 0 ] || exit 1

# lintian, as root: it says it would rather not be, and that is all it says
lintian --fail-on error,warning --info "$debs"/trawl_"${version}"_"$arch".changes 2>&1 |
	grep -v 'running with root privileges' | tee "$debs/lintian.txt"
[ "${PIPESTATUS[0]}" = 0 ] || fail "lintian: errors or warnings (above)"

# dpkg -i into a scratch root (its own dpkg database; the system's libraries
# stand in for the dependencies)
root=$debs/root
rm -rf "$root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-script-chrootless --log=/dev/null \
	-i "$debs"/trawl_"${version}"_"$arch".deb "$debs"/libtrawl0_"${version}"_"$arch".deb \
	"$debs"/libtrawl-dev_"${version}"_"$arch".deb >"$debs/dpkg.log" 2>&1 ||
	{ cat "$debs/dpkg.log"; fail "dpkg -i"; exit 1; }
for p in trawl libtrawl0 libtrawl-dev; do
	dpkg --root="$root" -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' ||
		fail "$p is not installed in the scratch root"
done

out=$("$root/usr/bin/trawl" --version) || fail "trawl --version from the package"
[ "$out" = "trawl $version" ] || fail "trawl --version says '$out'"
"$root/usr/bin/trawl" stats "$src/tests/fixtures/tc.dat" >/dev/null || fail "trawl stats from the package"
python3 "$src/tests/install/check-man.py" "$root/usr/bin/trawl" "$root/usr/share/man/man1" ||
	fail "the package's man pages"
LC_ALL=C.UTF-8 man --warnings -l "$root/usr/share/man/man3/libtrawl.3.gz" >/dev/null 2>"$debs/man3.err" &&
	[ ! -s "$debs/man3.err" ] || fail "libtrawl(3) from the package does not render cleanly"
[ -f "$root/usr/share/bash-completion/completions/trawl" ] || fail "no completion in the package"
# trawl chart's PNG writer, a module in /usr/lib/MULTIARCH/trawl (the
# scratch root is not /: $TRAWL_MODULE_DIR points to it)
"$root/usr/bin/trawl" chart --help | grep -qF "then /usr/lib/$multiarch/trawl" ||
	fail "trawl chart does not look for its module in /usr/lib/$multiarch/trawl"
TRAWL_MODULE_DIR=$root/usr/lib/$multiarch/trawl "$root/usr/bin/trawl" chart \
	"$src/tests/fixtures/tc.dat" -o "$debs/chart.png" --no-cache &&
	[ "$(head -c 4 "$debs/chart.png" | tail -c 3)" = PNG ] || fail "trawl chart -o x.png with the package's module"

# an outside program against libtrawl-dev, run with libtrawl0
lib=$root/usr/lib/$multiarch
ex=$root/usr/share/doc/libtrawl-dev/examples/count-events.c
[ -f "$ex" ] || fail "libtrawl-dev has no examples/count-events.c"
pc() { PKG_CONFIG_PATH=$lib/pkgconfig pkg-config --define-variable=prefix="$root/usr" "$@" trawl; }
# shellcheck disable=SC2046
${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$debs/count-events" "$ex" $(pc --cflags --libs) ||
	fail "count-events does not build against libtrawl-dev"
LD_LIBRARY_PATH=$lib ldd "$debs/count-events" | grep -q "libtrawl.so.0 => $lib/" ||
	fail "count-events does not use the packaged libtrawl.so.0"
got=$(LD_LIBRARY_PATH=$lib "$debs/count-events" "$src/tests/fixtures/tc.dat" | awk '$1 == "events" { print $2 }')
want=$("$root/usr/bin/trawl" stats --json "$src/tests/fixtures/tc.dat" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["total_events"])')
[ -n "$got" ] && [ "$got" = "$want" ] || fail "count-events counts '$got' events, trawl stats $want"

[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
echo "packages: lintian clean, installed into $root, trawl $version runs, man pages and libtrawl-dev work"
