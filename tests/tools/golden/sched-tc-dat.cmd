sched tc.dat
