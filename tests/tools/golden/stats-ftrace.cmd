stats ftrace-irqinfo.txt
