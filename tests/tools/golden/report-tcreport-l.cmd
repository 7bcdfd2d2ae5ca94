report --events 'sched_wakeup*,print' tcreport-l.txt
