# SPDX-License-Identifier: MIT
# Shared by the tests that trace for real (test-record.sh, test-run-live.sh,
# test-record-v7.sh, test-pair.sh):
# TAP checks, a snapshot of every tracefs setting a recording or a live
# session could change, and running a command with its output kept.
# Sourced; the caller sets TFS (the tracefs mount), and before the checks
# T (a scratch directory), n=0 and fails=0.

# need_tracing WHAT [TOOL...]: exit 77 (skip) unless root, tracefs at $TFS
# (mounted if it can be) and the tools are there; then take the lock that
# keeps one test tracing at a time, across the release and ASan builds.
need_tracing() {
	local what=$1
	shift
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: $what need root (tracefs control files are root's)"
		exit 77
	fi
	[ -e $TFS/trace ] || mount -t tracefs nodev $TFS 2>/dev/null
	if [ ! -e $TFS/trace ]; then
		echo "SKIP: no tracefs at $TFS and it cannot be mounted"
		exit 77
	fi
	local tool
	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null; then
			echo "SKIP: $tool is needed (apt-get install $tool)"
			exit 77
		fi
	done
	exec 9>/tmp/trawl-record-tests.lock
	flock 9
}

check() { # check NAME CONDITION-COMMAND...
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		fails=$((fails + 1))
	fi
}

# Every setting trawl record may touch, top level and per CPU, every event's
# enable, filter and trigger that is not the default, and the instances.
# Buffer sizes in pages: a buffer never allocated since boot ("7
# (expanded: 1408)") cannot be put back as it was; trawl record gives it
# the size of its first use (1408), which reads 1410 (whole pages).
snapshot() {
	(
		cd $TFS || exit 1
		for f in tracing_on current_tracer trace_clock buffer_size_kb \
			buffer_percent options/overwrite events/enable set_event \
			saved_cmdlines_size; do
			[ -e "$f" ] && printf '%s: %s\n' "$f" "$(cat "$f")"
		done
		for c in per_cpu/cpu*; do
			printf '%s: %s\n' "$c" "$(cat "$c/buffer_size_kb")"
		done
		grep -H -v '^none$' events/*/*/filter
		grep -H -v '^#' events/*/*/trigger
		grep -H -v '^0$' events/*/*/enable
		ls instances
	) 2>/dev/null | awk '
		# a buffer size as the pages it takes (the kernel rounds the kB
		# it is given up to 4080-byte pages); "N (expanded: M)", never
		# allocated since boot, as M, the size trawl puts back
		/buffer_size_kb: |^per_cpu[^:]*: / && $2 ~ /^[0-9]+$/ {
			kb = $2
			if ($3 == "(expanded:") { kb = $4; sub(/\)/, "", kb) }
			print $1 " " int((kb * 1024 + 4079) / 4080) " pages"; next
		}
		{ print }'
}

# Taken again before each group of tests, so the window in which someone
# else changing tracefs could show up here stays short.
begin() { snapshot >"$T/state.before"; }
same_state() {
	snapshot >"$T/state.after"
	diff -u "$T/state.before" "$T/state.after" >&2
}

status() { # status WANT CMD... : run, keep stdout/stderr in $T/out $T/err
	local want=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	local got=$?
	[ "$got" = "$want" ] || { echo "  exit $got, wanted $want: $*" >&2; cat "$T/err" >&2; return 1; }
}
