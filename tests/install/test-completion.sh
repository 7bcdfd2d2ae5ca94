#!/bin/bash
# SPDX-License-Identifier: MIT
# The bash completion, run as bash runs it (COMP_WORDS, COMP_CWORD, _trawl),
# with bash-completion's helpers loaded when installed: commands, options of
# a command (taken from its --help), choices, files, and event names and
# clocks from a tracefs (a fake one, and the machine's when readable).
# usage: test-completion.sh COMPLETION_FILE TRAWL
set -u
comp_file=$1
trawl=$2
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -r /usr/share/bash-completion/bash_completion ] &&
	source /usr/share/bash-completion/bash_completion
source "$comp_file"

# complete LINE: the words of LINE (a trailing space starts an empty one)
complete_line() {
	COMP_LINE=$1
	COMP_POINT=${#COMP_LINE}
	read -ra COMP_WORDS <<<"$COMP_LINE"
	[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_trawl 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
# expect LINE WORD...: each WORD is offered
expect() {
	local line=$1 got w
	shift
	got=$(complete_line "$line")
	for w in "$@"; do
		grep -qxF -- "$w" <<<"$got" || {
			echo "FAIL: '$line<TAB>' does not offer '$w' (got: $(echo $got | head -c 300))"
			fails=$((fails + 1))
		}
	done
}
# expect_none LINE WORD...: none of WORD is offered
expect_none() {
	local line=$1 got w
	shift
	got=$(complete_line "$line")
	for w in "$@"; do
		if grep -qxF -- "$w" <<<"$got"; then
			echo "FAIL: '$line<TAB>' offers '$w'"
			fails=$((fails + 1))
		fi
	done
}

# every command of `trawl --help`, and every option of each command's --help
cmds=$("$trawl" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
# shellcheck disable=SC2086
expect "$trawl " $cmds --help --version
expect "$trawl st" stats
expect_none "$trawl st" report
for c in $cmds; do
	# shellcheck disable=SC2046
	expect "$trawl $c --" $("$trawl" $c --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
done
expect "$trawl record -" -e -f -o -b -d
expect "$trawl latency " wakeup preempt
expect "$trawl export x.dat --to " perfetto csv
expect "$trawl chart x.dat --format " svg png
expect_none "$trawl irq --pid " irq
# files for FILE and -o
mkdir -p "$tmp/d" && touch "$tmp/d/trace-a.dat" "$tmp/d/trace-b.txt.zst"
expect "$trawl stats $tmp/d/trace-" "$tmp/d/trace-a.dat" "$tmp/d/trace-b.txt.zst"
expect "$trawl record -o $tmp/d/tr" "$tmp/d/trace-a.dat"
expect "$trawl chart x.dat -o $tmp/d/tr" "$tmp/d/trace-a.dat"
expect "$trawl latency wakeup $tmp/d/trace-a" "$tmp/d/trace-a.dat"

# events and clocks from a tracefs
mkdir -p "$tmp/tracefs"
printf 'sched:sched_switch\nsched:sched_waking\nirq:irq_handler_entry\n' >"$tmp/tracefs/available_events"
echo '[local] global mono boot' >"$tmp/tracefs/trace_clock"
export TRAWL_TRACEFS=$tmp/tracefs
expect "$trawl record -e " sched:sched_switch sched:sched_waking irq:irq_handler_entry sched 'sched:*' irq 'irq:*'
expect "$trawl record -e sched:sched_sw" sched_switch
expect "$trawl record -e sch" sched sched:sched_switch
expect "$trawl record -e sched -f x -e i" irq irq:irq_handler_entry
expect "$trawl record --clock " local global mono boot
unset TRAWL_TRACEFS
if [ -r /sys/kernel/tracing/available_events ] &&
	grep -qx 'sched:sched_switch' /sys/kernel/tracing/available_events; then
	expect "$trawl record -e sched:sched_sw" sched_switch
else
	echo "(no readable tracefs here: the machine's events not checked)"
fi

[ $fails = 0 ] || { echo "completion: $fails failures"; exit 1; }
echo "completion: commands, options, choices, files, events and clocks offered"
