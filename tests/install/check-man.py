#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every option a --help names is in the rendered man page.

For trawl(1) and each trawl-COMMAND(1) of `trawl --help`: render the page
with `man -l` (as a reader sees it, hyphens and all) and look for every
option-like word of the matching --help text (`--json`, `-e`, wherever it is
written: option list, usage, prose) as a whole word. Then the check is run
once on pages that do not match (trawl-stats(1) against `trawl report
--help`), which must fail, so a checker that cannot fail is caught too.

usage: check-man.py TRAWL MAN1DIR
"""
import os
import re
import subprocess
import sys

OPTION = re.compile(r"(?<![\w\-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w\-])")


def render(page):
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="100")
    r = subprocess.run(["man", "--warnings", "-l", page], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        sys.exit("%s: man -l failed or warned: %s" % (page, r.stderr.strip()))
    # man may embolden with backspaces when not writing to a terminal
    return re.sub(r".\x08", "", r.stdout)


def missing(help_text, page_text):
    opts = sorted(set(OPTION.findall(help_text)))
    found = set(OPTION.findall(page_text))
    return opts, [o for o in opts if o not in found]


def main():
    trawl, man1 = sys.argv[1:3]
    top = subprocess.run([trawl, "--help"], capture_output=True, text=True,
                         check=True).stdout
    block = re.search(r"^commands:\n((?:  .*\n)+)", top, re.M).group(1)
    commands = [l.split()[0] for l in block.splitlines()]
    pages = {"trawl": [trawl, "--help"]}
    for c in commands:
        pages["trawl-" + c] = [trawl, c, "--help"]
    fails = 0
    checked = 0
    rendered = {}
    for name, argv in pages.items():
        page = os.path.join(man1, name + ".1")
        if not os.path.exists(page) and os.path.exists(page + ".gz"):
            page += ".gz"  # as a Debian package installs it
        if not os.path.exists(page):
            print("no man page for `%s`: %s" % (" ".join(argv[1:-1]) or "trawl", page))
            fails += 1
            continue
        help_text = subprocess.run(argv, capture_output=True, text=True,
                                   check=True).stdout
        rendered[name] = render(page)
        opts, lost = missing(help_text, rendered[name])
        checked += len(opts)
        for o in lost:
            print("%s: %s is in `%s` but not in the man page" %
                  (page, o, " ".join(argv[1:])))
            fails += 1
    # trawl(1) names every command
    for c in commands:
        if "trawl-" + c not in rendered.get("trawl", ""):
            print("trawl(1) does not name trawl-%s" % c)
            fails += 1
    # the check must be able to fail
    if "trawl-stats" in rendered:
        report = subprocess.run([trawl, "report", "--help"], capture_output=True,
                                text=True, check=True).stdout
        if not missing(report, rendered["trawl-stats"])[1]:
            print("check-man cannot fail: trawl-stats(1) passes for `report --help`")
            fails += 1
    print("%d pages, %d options checked, %d problems" % (len(rendered), checked, fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
