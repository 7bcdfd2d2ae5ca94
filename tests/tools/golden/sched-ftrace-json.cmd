sched --json --from 4119.47 ftrace-irqinfo.txt
