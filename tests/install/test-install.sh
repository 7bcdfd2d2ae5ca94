#!/bin/bash
# SPDX-License-Identifier: MIT
# `meson install` into a temporary DESTDIR, then use what was installed as
# a user would: the trawl command, its man pages and completion, and an
# outside C program (examples/count-events.c) built with pkg-config against
# libtrawl.so and against libtrawl.a, whose counts must be trawl stats'.
# usage: test-install.sh BUILD_DIR SOURCE_DIR VERSION
set -eu
build=$1
src=$2
version=$3
fixtures=$src/tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=$tmp/root
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

meson install -C "$build" --destdir "$D" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "meson install failed"; exit 1; }

# where Meson put things (prefix, libdir, ... as configured)
eval "$(meson introspect "$build" --buildoptions | python3 -c '
import json, sys
for o in json.load(sys.stdin):
    if o["name"] in ("prefix", "bindir", "libdir", "includedir", "mandir", "datadir"):
        print("%s=%s" % (o["name"], o["value"]))
')"
abs() { case $1 in /*) echo "$1" ;; *) echo "$prefix/$1" ;; esac; }
bin=$D$(abs "$bindir")
lib=$D$(abs "$libdir")
inc=$D$(abs "$includedir")
man=$D$(abs "$mandir")
share=$D$(abs "$datadir")
major=${version%%.*}

# --- the files
[ -x "$bin/trawl" ] || fail "no $bin/trawl"
[ -f "$lib/libtrawl.so.$version" ] && [ ! -L "$lib/libtrawl.so.$version" ] ||
	fail "no libtrawl.so.$version"
[ "$(readlink "$lib/libtrawl.so.$major")" = "libtrawl.so.$version" ] || fail "libtrawl.so.$major link"
[ "$(readlink "$lib/libtrawl.so")" = "libtrawl.so.$major" ] || fail "libtrawl.so link"
soname=$(readelf -d "$lib/libtrawl.so.$version" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libtrawl.so.$major" ] || fail "soname is '$soname', not libtrawl.so.$major"
[ -f "$lib/libtrawl.a" ] || fail "no libtrawl.a"
for h in "$src"/include/trawl/*.h version.h; do
	[ -f "$inc/trawl/$(basename "$h")" ] ||
		fail "header $(basename "$h") not installed (is it #included by the umbrella trawl.h?)"
done
pcfile=$lib/pkgconfig/trawl.pc
[ -f "$pcfile" ] || fail "no $pcfile"
for dep in libtraceevent libtracefs libzstd zlib; do
	grep -q "^Requires.private:.*\b$dep\b" "$pcfile" || fail "trawl.pc: $dep not in Requires.private"
done
[ -f "$share/bash-completion/completions/trawl" ] || fail "no bash completion"
bash -n "$share/bash-completion/completions/trawl" || fail "completion does not parse"

# --- the installed command: runs on its own (no path into the build tree)
out=$("$bin/trawl" --version) || fail "installed trawl --version failed"
[ "$out" = "trawl $version" ] || fail "trawl --version says '$out', not 'trawl $version'"
if readelf -d "$bin/trawl" | grep -E 'RPATH|RUNPATH' | grep -q "$build"; then
	fail "installed trawl has an rpath into the build tree"
fi
"$bin/trawl" stats "$fixtures/tc.dat" >/dev/null || fail "installed trawl stats failed"
# trawl chart's PNG writer: a module in libdir/trawl, where trawl looks
# (DESTDIR is not there yet: $TRAWL_MODULE_DIR points to it)
if [ -f "$build/tools/trawl/trawl-chart-png.so" ]; then
	[ -f "$lib/trawl/trawl-chart-png.so" ] || fail "no $lib/trawl/trawl-chart-png.so"
	"$bin/trawl" chart --help | grep -qF "then $(abs "$libdir")/trawl" ||
		fail "trawl chart does not look for its module in $(abs "$libdir")/trawl"
	TRAWL_MODULE_DIR=$lib/trawl "$bin/trawl" chart "$fixtures/tc.dat" -o "$tmp/chart.png" \
		--no-cache && [ "$(head -c 4 "$tmp/chart.png" | tail -c 3)" = PNG ] ||
		fail "installed trawl chart -o x.png with the installed module"
fi

# --- an outside program, through pkg-config only
export PKG_CONFIG_PATH=$lib/pkgconfig
pc() { pkg-config --define-variable=prefix="$D$prefix" "$@" trawl; }
[ "$(pc --modversion)" = "$version" ] || fail "pkg-config --modversion is not $version"
cc=${CC:-cc}
# shellcheck disable=SC2046
$cc -std=c11 -Wall -Wextra -Werror -o "$tmp/count-shared" \
	"$src/examples/count-events.c" $(pc --cflags --libs) || fail "example does not build (shared)"
# shellcheck disable=SC2046
$cc -std=c11 -Wall -Wextra -Werror -o "$tmp/count-static" \
	"$src/examples/count-events.c" $(pc --cflags) \
	$(pc --static --libs | sed 's/-ltrawl\b/-l:libtrawl.a/') || fail "example does not build (static)"
LD_LIBRARY_PATH=$lib ldd "$tmp/count-shared" | grep -q "libtrawl.so.$major => $lib/" ||
	fail "the shared example does not use the installed libtrawl.so.$major"
ldd "$tmp/count-static" | grep -q libtrawl && fail "the static example needs libtrawl.so"
for f in tc.dat ftrace-irqinfo.txt systrace.html; do
	LD_LIBRARY_PATH=$lib "$tmp/count-shared" "$fixtures/$f" >"$tmp/shared.out" ||
		{ fail "count-events (shared) $f"; continue; }
	"$tmp/count-static" "$fixtures/$f" >"$tmp/static.out" || fail "count-events (static) $f"
	cmp -s "$tmp/shared.out" "$tmp/static.out" || fail "$f: shared and static counts differ"
	"$bin/trawl" stats --json "$fixtures/$f" >"$tmp/stats.json" || fail "trawl stats $f"
	python3 - "$tmp/shared.out" "$tmp/stats.json" "$version" "$f" <<'EOF' || fail "$f: counts differ from trawl stats"
import json, sys
out, stats, version, name = sys.argv[1:]
lines = open(out).read().split("\n")
st = json.load(open(stats))
assert lines[0] == "libtrawl %s (compiled with %s)" % (version, version), lines[0]
kv = {}
types = {}
for l in lines[1:]:
    w = l.split()
    if len(w) == 2:
        kv[w[0]] = int(w[1])
    elif len(w) == 3 and w[0] == "type":
        types[w[1]] = int(w[2])
assert kv["events"] == st["total_events"], (kv["events"], st["total_events"])
assert types == st["events"], (types, st["events"])
assert kv["sched_switch"] == st["events"].get("sched_switch", 0)
print("%s: %d events, %d types, as trawl stats" % (name, kv["events"], len(types)))
EOF
done

# --- man pages: one per command, they render, they name every option
for c in $("$bin/trawl" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	[ -f "$man/man1/trawl-$c.1" ] || fail "no man page trawl-$c(1) for \`trawl $c\`"
done
[ -f "$man/man3/libtrawl.3" ] || fail "no libtrawl(3)"
python3 "$src/tests/install/check-man.py" "$bin/trawl" "$man/man1" || fail "man pages and --help disagree"
lib3=$(LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -l "$man/man3/libtrawl.3" 2>"$tmp/man3.err") ||
	fail "libtrawl(3) does not render"
[ -s "$tmp/man3.err" ] && fail "libtrawl(3) warnings: $(cat "$tmp/man3.err")"
for s in $(nm -D --defined-only "$lib/libtrawl.so.$version" | awk '$3 ~ /^trawl_/ { print $3 }'); do
	grep -q "$s()" <<<"$lib3" || fail "libtrawl(3) does not list $s()"
done
grep -q "trawl_open(argv\[1\]" <<<"$lib3" || fail "libtrawl(3) lacks the example"

# --- completion, as installed, driving the installed trawl
bash "$src/tests/install/test-completion.sh" "$share/bash-completion/completions/trawl" "$bin/trawl" ||
	fail "completion"

[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
echo "installed into $D: command, libtrawl.so.$major, libtrawl.a, headers, trawl.pc, man pages, completion: all used"
