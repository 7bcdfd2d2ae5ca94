# SPDX-License-Identifier: MIT
# wakeup-latency.awk - examples/wakeup-latency.tw in awk, over an ftrace
# text trace, printing what `trawl run examples/wakeup-latency.tw` prints
# for it: the same rules (a wakeup counts only for a task that is off a
# CPU or not seen yet, and only the first one; a task switched out while
# "woken" was running all along), the same histogram of microseconds and
# the same per-task stats in nanoseconds, sorted the same way.
#
#   LC_ALL=C mawk -f bench/wakeup-latency.awk trace.txt
#
# The reference for bench/bench-script.py's "trawl run vs awk": it reads
# the four fields the script reads by searching for " name=", as an awk
# user would (the kernel's own text; not trace-cmd report's plugin forms). Times: the text's seconds.fraction, to ns; usecs rounds as
# trawl's usecs does. Written for POSIX awk (mawk 1.3.4, gawk).

# the time in ns of the event whose name starts at column at (the
# "SECONDS.FRACTION: " before it)
function stamp(line, at,    t, dot, frac, d, sc) {
	t = substr(line, 1, at - 3)
	match(t, /[0-9.]+$/)
	t = substr(t, RSTART)
	dot = index(t, ".")
	frac = substr(t, dot + 1)
	d = length(frac)
	sc = 1
	while (d < 9) { sc *= 10; d++ }
	return substr(t, 1, dot - 1) * 1000000000 + frac * sc
}

function usecs_of(ns) { return int((ns + 500) / 1000) }

# the value of the field named by needle (" name="): up to the next space
function field(p, needle,    i, v, e) {
	if (!(i = index(p, needle)))
		return ""
	v = substr(p, i + length(needle))
	e = index(v, " ")
	return e ? substr(v, 1, e - 1) : v
}

# the task's pid: the digits after the last '-' before " [CPU]"
function task_pid(line,    h) {
	if (!match(line, /-[0-9]+ +\[[0-9]+\]/))
		return -1
	h = substr(line, RSTART + 1, RLENGTH - 1)
	return substr(h, 1, index(h, " ") - 1) + 0
}

function hist_bucket(v,    b) {
	if (v < 0)
		return 0
	if (v == 0)
		return 1
	b = 2
	while (v >= 2) { v = int(v / 2); b++ }
	return b
}

# bpftrace's power-of-two labels: 1K is 1024
function pow_label(p,    s) {
	s = ""
	if (p >= 60) { s = "E"; p -= 60 }
	else if (p >= 50) { s = "P"; p -= 50 }
	else if (p >= 40) { s = "T"; p -= 40 }
	else if (p >= 30) { s = "G"; p -= 30 }
	else if (p >= 20) { s = "M"; p -= 20 }
	else if (p >= 10) { s = "K"; p -= 10 }
	return sprintf("%d%s", 2 ^ p, s)
}

function label(i) {
	if (i == 0) return "(..., 0)"
	if (i == 1) return "[0]"
	if (i == 2) return "[1]"
	return "[" pow_label(i - 2) ", " (i - 1 < 63 ? pow_label(i - 1) : "...") ")"
}

# the event's name starts at column at (0: not this event)
function event_at(line, name,    i) {
	i = index(line, ": " name ": ")
	return i ? i + 2 : 0
}

(at = event_at($0, "sched_waking")) || (at = event_at($0, "sched_wakeup")) ||
(at = event_at($0, "sched_wakeup_new")) {
	p = substr($0, index(substr($0, at), ":") + at)
	a = field(p, " pid=")
	if (a == "")
		next
	a += 0
	if (a > 0 && a != task_pid($0) && (state[a] == 0 || state[a] == 2)) {
		state[a] = 3
		woken[a] = stamp($0, at)
	}
	next
}

(at = event_at($0, "sched_switch")) {
	ts = stamp($0, at)
	p = substr($0, at + 13)
	pp = field(p, " prev_pid=") + 0
	if (pp > 0) {
		st = field(p, " prev_state=")
		# R and R+ (the low byte of prev_state is 0): runnable
		state[pp] = (st == "R" || st == "R+") ? 4 : 2
	}
	np = field(p, " next_pid=") + 0
	if (np > 0) {
		if (state[np] == 3) {
			w = woken[np]
			i = index(p, " next_comm=")
			j = index(p, " next_pid=")
			nc = substr(p, i + 11, j - i - 11)
			if (length(nc) > 64)
				nc = substr(nc, 1, 64)
			b = hist_bucket(usecs_of(ts) - usecs_of(w))
			hist[b]++
			if (b < hlo) hlo = b
			if (b > hhi) hhi = b
			k = np SUBSEP nc
			if (!(k in cnt)) { keys[++nkeys] = k; kpid[k] = np; kcomm[k] = nc }
			cnt[k]++
			tot[k] += ts - w
		}
		state[np] = 1
	}
}

BEGIN { hlo = 1000; hhi = -1 }

# by total, then pid, then comm (bytewise under LC_ALL=C), ascending
function before(a, b) {
	if (tot[a] != tot[b]) return tot[a] < tot[b]
	if (kpid[a] != kpid[b]) return kpid[a] < kpid[b]
	return kcomm[a] < kcomm[b]
}

END {
	# as trawl (and bpftrace 0.17) print at exit: two newlines, then the
	# maps by name, a stats map and a histogram each followed by a blank
	# line
	if (hhi >= 0 || nkeys)
		printf("\n\n")
	for (i = 2; i <= nkeys; i++) {
		k = keys[i]
		for (j = i - 1; j >= 1 && before(k, keys[j]); j--)
			keys[j + 1] = keys[j]
		keys[j + 1] = k
	}
	for (i = 1; i <= nkeys; i++) {
		k = keys[i]
		# %.0f: mawk's %d stops at 2^31 - 1; a double holds these
		# integers exactly (below 2^53)
		printf("@latency_ns[%d, %s]: count %.0f, average %.0f, total %.0f\n",
		       kpid[k], kcomm[k], cnt[k], int(tot[k] / cnt[k]), tot[k])
	}
	if (nkeys)
		print ""
	if (hhi >= 0) {
		print "@usecs: "
		max = 0
		for (i = hlo; i <= hhi; i++)
			if (hist[i] > max) max = hist[i]
		for (i = hlo; i <= hhi; i++) {
			n = hist[i] + 0
			wd = int(n * 52 / max)
			bar = ""
			for (c = 0; c < 52; c++) bar = bar (c < wd ? "@" : " ")
			printf("%-16s%8.0f |%s|\n", label(i), n, bar)
		}
		print ""
	}
}
