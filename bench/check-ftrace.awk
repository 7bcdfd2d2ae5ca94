#!/usr/bin/awk -f
# SPDX-License-Identifier: MIT
# check-ftrace.awk - sanity checks for ftrace text (e.g. gen-ftrace output).
#
#   awk -f bench/check-ftrace.awk bench/out/gen-100M.txt
#
# Prints the event mix (count and share per event and per class) and checks:
#   - every event line matches the kernel layout "%16s-%-7d [%03d] flags ts: "
#   - timestamps are non-decreasing over the whole file
#   - per CPU: the task column is the task switched in by the previous
#     sched_switch on that CPU, and sched_switch prev_pid matches it
#   - a task is switched in only after it was woken (or preempted: R/R+)
#   - irq_handler_entry/exit and softirq_entry/exit pair up per CPU
#   - tracing_mark_write B/E nest per thread (E never without an open B);
#     S/F carry a cookie, other print text is allowed
#   - workqueue: queue -> activate -> execute_start -> execute_end per work
#   - sys_enter/sys_exit alternate per task with the same NR (rt_sigreturn
#     exits as NR -1; exit_group and exit do not return)
#   - block_rq_complete only for a request issued earlier (dev, sector, size)
#   - timer_expire_entry/exit pair up per CPU
#   - a task whose sched_process_exit was seen switches out as Z or X
# Exit status 1 if any check failed.  Checks that need history (per-CPU
# current task, wakeups) start once a CPU's first sched_switch was seen.

function err(msg) {
	nerr++
	if (nerr <= 20) printf("line %d: %s\n    %s\n", NR, msg, $0) > "/dev/stderr"
}

BEGIN { nerr = 0; lastts = -1 }

/^#/ { next }

{
	line = $0
	# layout: 16-char right-aligned comm, '-', pid left-aligned in 7, ' [', cpu, '] '
	if (substr(line, 25, 2) != " [" || substr(line, 30, 2) != "] " || substr(line, 37, 1) != " ") {
		# long pid or comm: fall back to a regex
		if (line !~ /^ *.+-[0-9]+ +\[[0-9][0-9][0-9]\] [.dDbN][.NnpBLb][.hHsSzZ][.0-9a-f][.0-9] +[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]: /)
			err("bad line layout")
	}
	task = substr(line, 1, 24)
	sub(/^ +/, "", task)
	tpid = task; sub(/^.*-/, "", tpid); tpid = tpid + 0
	sub(/ +$/, "", tpid)
	cpu = substr(line, 27, 3) + 0
	flags = substr(line, 32, 5)
	rest = substr(line, 38)
	match(rest, /^ *[0-9]+\.[0-9]+: /)
	tsstr = substr(rest, 1, RLENGTH - 2); gsub(/ /, "", tsstr)
	body = substr(rest, RLENGTH + 1)
	split(tsstr, tp, ".")
	ts = tp[1] * 1000000 + tp[2]
	if (ts < lastts) err("timestamp goes backwards")
	lastts = ts
	ev = body; sub(/:.*/, "", ev)
	n++; cnt[ev]++

	if (cpu in cur && cur[cpu] != tpid) err("task column pid " tpid " but cpu " cpu " runs " cur[cpu])

	if (ev == "sched_switch") {
		match(body, /prev_pid=[0-9]+/); ppid = substr(body, RSTART + 9, RLENGTH - 9) + 0
		match(body, /next_pid=[0-9]+/); npid = substr(body, RSTART + 9, RLENGTH - 9) + 0
		match(body, /prev_state=[^ ]+/); pst = substr(body, RSTART + 11, RLENGTH - 11)
		if (ppid != tpid) err("prev_pid " ppid " != task column " tpid)
		if (cpu in cur && ppid != cur[cpu]) err("prev_pid " ppid " but cpu runs " cur[cpu])
		if (ppid != 0) {
			if (pst == "R" || pst == "R+") runnable[ppid] = 1
			else { delete runnable[ppid]; sleeping[ppid] = 1 }
			states[pst]++
		}
		if (npid != 0) {
			if (npid in sleeping) err("switch to sleeping task " npid)
			if (npid in running && running[npid] != cpu) err("task " npid " already running on cpu " running[npid])
			delete runnable[npid]
		}
		if (ppid != 0) delete running[ppid]
		if (npid != 0) running[npid] = cpu
		cur[cpu] = npid
	} else if (ev == "sched_waking") {
		match(body, / pid=[0-9]+/); wpid = substr(body, RSTART + 5, RLENGTH - 5) + 0
		if (!(wpid in sleeping) && (wpid in seen_switch)) err("waking a task that is not asleep: " wpid)
		delete sleeping[wpid]
	} else if (ev == "irq_handler_entry") {
		if (inirq[cpu]) err("nested irq_handler_entry")
		inirq[cpu] = 1; irqts[cpu] = ts
		if (flags !~ /^d.[hH]/) err("irq entry without d.h or d.H flags")
	} else if (ev == "irq_handler_exit") {
		if (!inirq[cpu]) err("irq_handler_exit without entry")
		inirq[cpu] = 0
		d = ts - irqts[cpu]; if (d > 1000) longirq++
		if (d > maxirq) maxirq = d
	} else if (ev == "softirq_entry") {
		if (insirq[cpu]) err("nested softirq_entry")
		insirq[cpu] = 1
		if (substr(flags, 3, 1) != "s") err("softirq entry without s flag")
	} else if (ev == "softirq_exit") {
		if (!insirq[cpu]) err("softirq_exit without entry")
		insirq[cpu] = 0
	} else if (ev == "tracing_mark_write") {
		m = body; sub(/^tracing_mark_write: /, "", m)
		k = substr(m, 1, 1)
		if (substr(m, 2, 1) != "|" && m != "E") k = "text"
		if (k == "B") depth[tpid]++
		else if (k == "E") { if (depth[tpid] <= 0) err("E without B"); else depth[tpid]-- }
		else if (k != "C" && k != "S" && k != "F" && k != "text") err("bad marker")
		if (k == "S" || k == "F") {
			nf = split(m, mf, "|")
			if (nf != 4 || mf[4] !~ /^[0-9]+$/) err("S/F marker without cookie")
		}
	} else if (ev == "workqueue_queue_work") {
		match(body, /struct=[0-9a-f]+/); w = substr(body, RSTART + 7, RLENGTH - 7)
		if (wq[w] == 1 || wq[w] == 2) err("work queued twice " w)
		wq[w] = 1
	} else if (ev == "workqueue_activate_work") {
		w = body; sub(/^.*work struct /, "", w); sub(/ .*/, "", w)
		if (wq[w] != 1) err("activate without queue " w)
		wq[w] = 2
	} else if (ev == "workqueue_execute_start") {
		w = body; sub(/^.*work struct /, "", w); sub(/:.*/, "", w)
		if (wq[w] != 2) err("execute_start of work not activated " w)
		wq[w] = 3
	} else if (ev == "workqueue_execute_end") {
		w = body; sub(/^.*work struct /, "", w); sub(/:.*/, "", w)
		if (wq[w] != 3) err("execute_end without start " w)
		wq[w] = 0
	}
	if (ev == "sys_enter") {
		nr = body; sub(/^sys_enter: NR /, "", nr); sub(/ .*/, "", nr)
		if (tpid in insys) err("sys_enter while in syscall " insys[tpid])
		insys[tpid] = nr
		if (nr == 231 || nr == 60) delete insys[tpid]
		if (body !~ /^sys_enter: NR [0-9]+ \([0-9a-f]+, [0-9a-f]+, [0-9a-f]+, [0-9a-f]+, [0-9a-f]+, [0-9a-f]+\)$/) err("bad sys_enter args")
	} else if (ev == "sys_exit") {
		nr = body; sub(/^sys_exit: NR /, "", nr); sub(/ .*/, "", nr)
		if (tpid in insys && insys[tpid] != nr && !(nr == -1 && insys[tpid] == 15))
			err("sys_exit NR " nr " after sys_enter NR " insys[tpid])
		delete insys[tpid]
	} else if (ev == "block_rq_issue" || ev == "block_rq_complete") {
		split(body, bf, " ")
		if (ev == "block_rq_issue") { key = bf[2] " " bf[6] " " bf[8]; issued[key]++ }
		else {
			key = bf[2] " " bf[5] " " bf[7]
			if (issued[key] <= 0) err("block_rq_complete of a request not issued")
			else issued[key]--
		}
	} else if (ev == "timer_expire_entry") {
		if (intimer[cpu]) err("nested timer_expire_entry")
		intimer[cpu] = 1
	} else if (ev == "timer_expire_exit") {
		if (!intimer[cpu]) err("timer_expire_exit without entry")
		intimer[cpu] = 0
	} else if (ev == "sched_process_exit") {
		exited[tpid] = 1
		delete insys[tpid]
	}
	if (ev == "sched_switch" && (ppid in exited)) {
		if (pst != "Z" && pst != "X") err("exited task " ppid " switched out as " pst)
		delete exited[ppid]
	}
	if (ev == "sched_switch") { seen_switch[ppid] = 1; seen_switch[npid] = 1 }
}

function cls(e) {
	if (e ~ /^sched_/) return "sched"
	if (e ~ /^(irq_handler|softirq)/) return "irq/softirq"
	if (e ~ /^(hr)?timer_/ || e == "tick_stop") return "timer"
	if (e ~ /^workqueue_/) return "workqueue"
	if (e == "tracing_mark_write") return "markers"
	if (e ~ /^sys_/) return "raw_syscalls"
	if (e ~ /^(kmem_|kmalloc|kfree|mm_page|rss_stat)/) return "kmem"
	if (e ~ /^rcu_/) return "rcu"
	if (e ~ /^block_/) return "block"
	if (e ~ /^(writeback_|sb_|track_foreign|global_dirty|folio_wait)/) return "writeback"
	if (e ~ /^ipi_/) return "ipi"
	if (e ~ /^signal_/) return "signal"
	if (e ~ /^task_/) return "task"
	return "bprint"
}

END {
	printf("%d event lines\n", n)
	for (e in cnt) { c = cls(e); ccnt[c] += cnt[e] }
	printf("\n%-28s %10s %7s\n", "event", "count", "share")
	for (e in cnt) printf("%-28s %10d %6.2f%%\n", e, cnt[e], 100 * cnt[e] / n) | "sort -k2,2nr"
	close("sort -k2,2nr")
	printf("\n%-28s %10s %7s\n", "class", "count", "share")
	for (c in ccnt) printf("%-28s %10d %6.2f%%\n", c, ccnt[c], 100 * ccnt[c] / n) | "sort -k2,2nr"
	close("sort -k2,2nr")
	printf("\nprev_state:")
	for (s in states) printf(" %s=%d", s, states[s])
	printf("\nirq handlers > 1 ms: %d (max %d us)\n", longirq, maxirq)
	printf("errors: %d\n", nerr)
	exit(nerr ? 1 : 0)
}
