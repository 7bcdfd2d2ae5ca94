stats --json lost-events.txt
