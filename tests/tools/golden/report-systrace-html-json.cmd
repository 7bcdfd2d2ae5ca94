report --json --events 'print' systrace.html
