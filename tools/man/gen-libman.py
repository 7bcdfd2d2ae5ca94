#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write libtrawl(3) from its template, the public headers and the example.

FUNCTIONS lists, per header, every function that has a kernel-doc comment
("* trawl_x() - summary"; tests/tools/check-api.sh makes sure every exported
symbol has one), with the header's own opening comment; EXAMPLE is
examples/count-events.c as it is (the install test compiles and runs it).

usage: gen-libman.py TEMPLATE VERSION EXAMPLE.c OUT HEADER...
"""
import datetime
import os
import re
import sys

DOC = re.compile(r"^/\*\*\n \* (trawl_[a-z0-9_]+)\(\) - (.*(?:\n \*   .*)*)", re.M)


def esc(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def opening(src):
    """The header's first comment, without the SPDX line, as one paragraph."""
    m = re.search(r"/\*\n((?: \*.*\n)+?) \*/", src)
    if not m:
        return ""
    lines = []
    for l in m.group(1).splitlines():
        l = l[2:].strip()
        if not l:
            break  # the first paragraph only
        lines.append(l)
    return " ".join(lines)


def main():
    template, version, example, out = sys.argv[1:5]
    # opening and running first, then the event and its fields, then the rest
    first = ["trace.h", "event.h", "field.h"]
    headers = sorted(sys.argv[5:], key=lambda h: first.index(os.path.basename(h))
                     if os.path.basename(h) in first else len(first))
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or None
    when = (datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)
            if epoch else datetime.datetime.now(datetime.timezone.utc))
    funcs = []
    for h in headers:
        src = open(h, encoding="utf-8").read()
        docs = DOC.findall(src)
        if not docs:
            continue
        name = os.path.basename(h).replace(".h.in", ".h")
        funcs += [".SS <trawl/%s>" % name, esc(opening(src))]
        for fn, summary in docs:
            summary = " ".join(s.strip(" *") for s in summary.split("\n"))
            funcs += [".TP", "\\fB%s\\fR()" % esc(fn), esc(summary)]
    # groff's tab stops do not follow the indentation: four spaces a level
    code = [esc(l.rstrip("\n").replace("\t", "    "))
            for l in open(example, encoding="utf-8")]
    page = open(template, encoding="utf-8").read()
    page = page.replace("@VERSION@", version)
    page = page.replace("@MAJOR@", version.split(".")[0])
    page = page.replace("@DATE@", when.strftime("%Y-%m-%d"))
    page = page.replace("@FUNCTIONS@", "\n".join(funcs))
    page = page.replace("@EXAMPLE@", "\n".join(code))
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)


if __name__ == "__main__":
    main()
