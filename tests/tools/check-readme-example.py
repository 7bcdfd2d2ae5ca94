#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The README's library example is an excerpt of examples/count-events.c:
its lines ("..." skips) are lines of the program, in the same order, so the
README cannot show code that no longer compiles (the install test builds
and runs the program).

usage: check-readme-example.py README.md examples/count-events.c
"""
import re
import sys

readme, example = sys.argv[1:3]
text = open(readme, encoding="utf-8").read()
m = re.search(r"^## The library\n\n```c\n(.*?)^```", text, re.M | re.S)
if not m:
    sys.exit("README.md: no ```c block under '## The library'")
want = [l.strip() for l in m.group(1).splitlines() if l.strip() and l.strip() != "..."]
have = [l.strip() for l in open(example, encoding="utf-8")]
i = 0
for line in want:
    while i < len(have) and have[i] != line:
        i += 1
    if i == len(have):
        sys.exit("README.md's example: '%s' is not in %s (in this order)" % (line, example))
    i += 1
print("README example: %d lines, all in %s in order" % (len(want), example))
