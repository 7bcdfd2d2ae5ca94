#!/usr/bin/env bash
# Run every libFuzzer target of a -Dfuzz=true build for FUZZ_SECONDS each.
#
#   fuzz/run-fuzzers.sh BUILD_DIR [TARGET...]
#
# Each target works on a scratch copy of its seed corpus (fuzz/corpus/NAME)
# in a temporary directory, so nothing new lands in the repository. Crash,
# leak, timeout and out-of-memory inputs are kept in
# BUILD_DIR/fuzz-artifacts/NAME/ (or $FUZZ_ARTIFACTS/NAME/) and their paths
# printed. Exit status: 0 when every target ran clean, 1 otherwise.
#
# Environment: FUZZ_SECONDS (default 10), FUZZ_ARTIFACTS, FUZZ_ARGS (extra
# libFuzzer flags, e.g. "-jobs=4 -workers=4" or "-dict=...").
set -euo pipefail

usage() {
	echo "usage: $0 BUILD_DIR [fuzz-text|fuzz-line|fuzz-compressed|fuzz-dat|fuzz-perf|fuzz-analyses|fuzz-formats|fuzz-pfmt|fuzz-script|fuzz-view|fuzz-ring|fuzz-bpf ...]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
build=$(cd "$1" && pwd) || usage
shift
here=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_SECONDS:-10}
artifacts_root=${FUZZ_ARTIFACTS:-$build/fuzz-artifacts}

# name, -max_len
declare -A max_len=(
	[fuzz-text]=65536
	[fuzz-line]=4096
	[fuzz-compressed]=16384
	[fuzz-dat]=262144
	[fuzz-perf]=262144
	[fuzz-analyses]=65536
	[fuzz-formats]=32768
	[fuzz-pfmt]=16384
	[fuzz-script]=4096
	[fuzz-view]=8192
	[fuzz-ring]=4096
	[fuzz-bpf]=1024
)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz-text fuzz-line fuzz-compressed fuzz-dat fuzz-perf fuzz-analyses fuzz-formats fuzz-pfmt fuzz-script fuzz-view fuzz-ring fuzz-bpf)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/trawl-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Leaks are failures; UBSan already aborts (built -fno-sanitize-recover).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# libtraceevent's own leak (tests/lsan.supp), also when run by hand
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/../tests/lsan.supp}

failed=0
for name in "${targets[@]}"; do
	exe=$build/fuzz/$name
	if [ -z "${max_len[$name]:-}" ] || [ ! -x "$exe" ]; then
		echo "$name: FAIL (no such target: $exe)"
		failed=1
		continue
	fi
	corpus=$scratch/$name/corpus
	mkdir -p "$corpus"
	if [ -d "$here/corpus/$name" ]; then
		cp -R "$here/corpus/$name/." "$corpus/"
	fi
	seeds=$(find "$corpus" -type f | wc -l)
	art=$artifacts_root/$name
	mkdir -p "$art"
	# Only what this run finds counts.
	find "$art" -maxdepth 1 -type f \
		\( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
		-o -name 'oom-*' \) -delete
	log=$scratch/$name.log
	rc=0
	# shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
	"$exe" -max_total_time="$seconds" -rss_limit_mb=2048 \
		-max_len="${max_len[$name]}" -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$art/" \
		-entropic_scale_per_exec_time=1 \
		${FUZZ_ARGS:-} "$corpus" >"$log" 2>&1 || rc=$?

	# The last status line: "#N DONE cov: C ft: F corp: ... exec/s: E ..."
	status=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
	corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$status")
	found=$(find "$art" -maxdepth 1 -type f \
		\( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
		-o -name 'oom-*' \) | sort)
	line="runs ${runs:-?} (${execs:-?} exec/s) cov ${cov:-?} ft ${ft:-?}"
	line="$line corpus $seeds->${corp:-?} in ${seconds}s"
	if [ $rc -eq 0 ] && [ -z "$found" ]; then
		echo "$name: ok: $line"
		continue
	fi
	failed=1
	echo "$name: FAIL (exit $rc): $line"
	# The report: the sanitizer or check message, then the first stack
	# without the frames of libFuzzer, libc and the signal handler.
	grep -m 1 -A 1 -E 'fuzz check failed' "$log" | sed 's/^/    /' || true
	grep -m 1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|out-of-memory' "$log" |
		sed 's/^/    /' || true
	awk '/^ +#[0-9]+ /{ if (seen && $1 == "#0") exit; seen = 1; print }' "$log" |
		grep -v -E 'fuzzer::|__sanitizer_print_stack_trace|libc\.so|__libc_start|nptl/|stdlib/abort|signal/|in main |in _start ' |
		head -n 20 | sed 's/^/    /' || true
	for f in $found; do
		echo "    input: $f"
		echo "    reproduce: $exe $f"
	done
	[ -n "$found" ] || tail -n 20 "$log" | sed 's/^/    /'
	cp "$log" "$art/last.log"
	echo "    full log: $art/last.log"
done
exit $failed
