# SPDX-License-Identifier: MIT
# bash completion for trawl. The commands and options come from the program
# itself (`trawl --help`, `trawl COMMAND --help`), so they follow it; event
# names for `record -e` / `--trigger` and clocks for `--clock` come from the
# local tracefs (readable as root), files for everything else.

# tracefs: where the kernel's event list is (TRAWL_TRACEFS for tests)
_trawl_tracefs()
{
	local d
	for d in ${TRAWL_TRACEFS:-} /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[[ -r $d/available_events ]] && { printf '%s\n' "$d"; return 0; }
	done
	return 1
}

# the commands of `trawl --help`, one per line
_trawl_commands()
{
	"$1" --help 2>/dev/null |
		awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }'
}

# the options of `trawl COMMAND --help`: "--name" or "-x", then " ARG" when
# the option takes one (its metavariable)
_trawl_options()
{
	# (an option line starts a block after a blank line or goes on one;
	# a line of prose may also begin with an option's name)
	"$1" "$2" --help 2>/dev/null | awk '
		/^$/ { blank = 1; inopt = 0; next }
		/^(  | )?-/ && (blank || inopt) {
			line = $0; sub(/^ +/, "", line)
			split(line, w, /  +/)
			m = split(w[1], o, /, */)
			for (i = 1; i <= m; i++) {
				split(o[i], p, / /)
				arg = (p[2] != "") ? " " p[2] : ""
				print p[1] arg
			}
			blank = 0; inopt = 1; next
		}
		/^   / && inopt { next }
		{ blank = 0; inopt = 0 }'
	# options that only the usage lines name ([--json|--csv])
	"$1" "$2" --help 2>/dev/null | awk '/^usage:/ { on = 1 } on && /^$/ { exit } on' |
		grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}

# choices written in the usage as "NAME a|b" (latency wakeup|preempt,
# export --to perfetto|csv)
_trawl_choices()
{
	"$1" "$2" --help 2>/dev/null | awk '/^usage:/ { on = 1 } on && /^$/ { exit } on' |
		grep -o -- "$3 [a-z][a-z|]*|[a-z|]*" | head -n 1 | cut -d' ' -f2 | tr '|' ' '
}

_trawl_events()
{
	local fs
	fs=$(_trawl_tracefs) || return 0
	# sched:sched_switch, and the systems alone (sched, sched:*)
	awk -F: '{ print $1 ":" $2; s[$1] = 1 } END { for (k in s) { print k; print k ":*" } }' \
		"$fs/available_events" 2>/dev/null
}

_trawl_clocks()
{
	local fs
	fs=$(_trawl_tracefs) || return 0
	tr -d '[]' <"$fs/trace_clock" 2>/dev/null | tr ' ' '\n'
}

_trawl()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n := || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	local prog=${words[0]}
	COMPREPLY=()

	if ((cword == 1)); then
		COMPREPLY=($(compgen -W "$(_trawl_commands "$prog") --help --version" -- "$cur"))
		return
	fi
	local cmd=${words[1]} i
	# after `record ... --`: a command to run
	for ((i = 2; i < cword; i++)); do
		if [[ $cmd == record && ${words[i]} == -- ]]; then
			if declare -F _command_offset >/dev/null; then
				_command_offset $((i + 1))
			else
				COMPREPLY=($(compgen -c -- "$cur"))
			fi
			return
		fi
	done

	local opts
	opts=$(_trawl_options "$prog" "$cmd")
	# the argument of the option before
	local arg
	arg=$(printf '%s\n' "$opts" | awk -v o="$prev" '$1 == o && NF > 1 { print $2; exit }')
	if [[ -n $arg ]]; then
		case $arg in
		EVENT | "'SYSTEM:EVENT")
			local IFS=$'\n'
			COMPREPLY=($(compgen -W "$(_trawl_events)" -- "$cur"))
			# the words were split at ':'; give back what follows it
			declare -F __ltrim_colon_completions >/dev/null &&
				__ltrim_colon_completions "$cur"
			;;
		CLOCK) COMPREPLY=($(compgen -W "$(_trawl_clocks)" -- "$cur")) ;;
		FILE | OUT | P | DIR | trace.dat | *.dat)
			COMPREPLY=($(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
			;;
		*)
			local choices
			choices=$(_trawl_choices "$prog" "$cmd" "$prev")
			[[ -n $choices ]] && COMPREPLY=($(compgen -W "$choices" -- "$cur"))
			;;
		esac
		return
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(printf '%s\n' "$opts" | awk '{ print $1 }' | sort -u)" -- "$cur"))
		return
	fi
	# `trawl latency <TAB>`: its kinds first
	if ((cword == 2)); then
		local kinds
		kinds=$(_trawl_choices "$prog" "$cmd" "$cmd")
		if [[ -n $kinds ]]; then
			COMPREPLY=($(compgen -W "$kinds" -- "$cur"))
			return
		fi
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
	compopt -o filenames 2>/dev/null
	return 0
}
complete -F _trawl trawl
