# SPDX-License-Identifier: MIT
# Shared by the tests that record with perf here, now (test-perf-record.sh,
# test-perf-script-text.sh): skip (77) without perf or root, take the lock
# that keeps one test tracing at a time (across the release and ASan
# builds), a scratch directory T and a fails count, and record FILE
# OPTIONS... (perf record -a), which skips where perf may not record.
# Sourced.
if ! command -v perf >/dev/null; then
	echo "SKIP: perf is needed (apt-get install linux-perf)"
	exit 77
fi
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: system-wide tracepoints (perf record -a) need root"
	exit 77
fi
exec 9>/tmp/trawl-record-tests.lock
flock 9
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
record() {
	local out=$1
	shift
	if ! perf record -q -a -o "$out" "$@" >"$T/perf.log" 2>&1; then
		if grep -qi 'permission\|paranoid\|not supported\|tracefs\|debugfs' "$T/perf.log"; then
			echo "SKIP: perf cannot record here:"
			cat "$T/perf.log"
			exit 77
		fi
		echo "FAIL: perf record $*"
		cat "$T/perf.log"
		exit 1
	fi
}
