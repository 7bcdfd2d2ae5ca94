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
	neighbour_start
}

# neighbour_start: tracing beside this test's, as on a shared machine:
# another recorder's instance for the whole run (trawl-neighbour-PID, its
# PID alive, so no recorder takes it for a killed one's) and one that comes
# and goes every 0.3 s. Both go when the test's shell does.
# TRAWL_TEST_NEIGHBOUR=0 leaves them out.
neighbour_start() {
	[ "${TRAWL_TEST_NEIGHBOUR:-1}" = 0 ] && return
	local test_shell=$$
	(
		exec 9>&- >/dev/null 2>&1
		me=$TFS/instances/trawl-neighbour-$BASHPID
		churn=$TFS/instances/trawl-neighbour-churn-$BASHPID
		mkdir "$me"
		while kill -0 $test_shell; do
			mkdir "$churn"
			sleep 0.3
			rmdir "$churn"
			sleep 0.3
		done
		rmdir "$me"
	) &
	echo "# beside this test: $TFS/instances/trawl-neighbour-$! (and one that comes and goes)"
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

# The tracefs instances of this test's own trawl runs are named
# trawl-TAG-PID (TRAWL_INSTANCE_TAG), so that other tracing on the machine
# (another build's tests, a benchmark, a user's recording) can go on beside
# it: snapshot looks at this test's instances only.
export TRAWL_INSTANCE_TAG=${TRAWL_INSTANCE_TAG:-$(basename "$0" .sh)-$$}

# snapshot [DIR]: every setting trawl record may touch in the tracefs at DIR
# (default $TFS), top level and per CPU, every event's enable, filter and
# trigger that is not the default, the files named in $SNAPSHOT_MORE (a
# test whose tools touch more), and this test's instances.
#
# Buffer sizes are compared in pages (the kernel rounds the kB it is given
# up to 4080-byte pages). A buffer never allocated since boot reads "N
# (expanded: M)" at the top level and N per CPU; that state cannot be put
# back (the kernel never un-expands), and trawl record leaves it at the
# size of its first use, M (README), so it reads as M pages, at the top
# level and per CPU: a tracer leaving N, or any other size, still differs.
# tests/live/test-tracefs-state.sh checks this on stand-in trees of a
# fresh and a used machine.
snapshot() {
	local dir=${1:-$TFS}
	(
		cd "$dir" || exit 1
		for f in tracing_on current_tracer trace_clock buffer_size_kb \
			buffer_percent options/overwrite events/enable set_event \
			saved_cmdlines_size ${SNAPSHOT_MORE:-}; do
			[ -e "$f" ] && printf '%s: %s\n' "$f" "$(tr '\n' ' ' <"$f")"
		done
		for c in per_cpu/cpu*; do
			printf '%s: %s\n' "$c" "$(cat "$c/buffer_size_kb")"
		done
		grep -H -v '^none$' events/*/*/filter
		grep -H -v '^#' events/*/*/trigger
		grep -H -v '^0$' events/*/*/enable
		ls instances | while read -r i; do
			case $i in "trawl-$TRAWL_INSTANCE_TAG-"*) echo "instance: $i" ;; esac
		done
	) 2>/dev/null | awk '
		function pages(kb) { return int((kb * 1024 + 4079) / 4080) " pages" }
		$1 == "buffer_size_kb:" && $2 ~ /^[0-9]+$/ {
			if ($3 == "(expanded:") {
				unexpanded = $2; first_use = $4; sub(/\)/, "", first_use)
				print $1 " " pages(first_use); next
			}
			print $1 " " pages($2); next
		}
		/^per_cpu[^:]*: / && $2 ~ /^[0-9]+$/ {
			kb = $2
			if (unexpanded != "" && kb == unexpanded) kb = first_use
			print $1 " " pages(kb); next
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

# The kernel's BPF objects of trawl's (programs and maps are named so),
# for the tests of the BPF back end: begin_all and same_all are begin and
# same_state with them.
bpf_objects() {
	if command -v bpftool >/dev/null; then
		bpftool prog show 2>/dev/null | grep -c ' name trawl ' || true
		bpftool map show 2>/dev/null | grep -cE ' name (scratch|globals|faults|out|zeros|stacks) ' || true
	fi
}
begin_all() { begin; bpf_objects >"$T/bpf.before"; }
same_all() {
	same_state || return 1
	bpf_objects >"$T/bpf.after"
	diff -u "$T/bpf.before" "$T/bpf.after" >&2
}
