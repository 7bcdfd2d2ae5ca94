# SPDX-License-Identifier: MIT
"""docs/python.md: its Python examples run, one after the other in one
namespace, from the top of the source tree, and where a comment follows a
one-line print, the print shows what the comment says (but for a remark in
parentheses at its end)."""
import builtins
import io
import os
import re
import sys
import unittest

from helpers import TOP

BLOCK = re.compile(r"```python\n(.*?)```", re.S)
PRINT = re.compile(r"^print\(.*\)\s+# (.*?)( \([^)]*\))?$")


class DocsTest(unittest.TestCase):
    def test_examples_run(self):
        with open(os.path.join(TOP, "docs", "python.md")) as f:
            blocks = BLOCK.findall(f.read())
        self.assertGreater(len(blocks), 8)
        printed = {}

        def record(*args, **kw):
            out = io.StringIO()
            builtins.print(*args, file=out, **{k: v for k, v in kw.items()
                                               if k != "file"})
            line = sys._getframe(1).f_lineno
            printed[line] = printed.get(line, "") + out.getvalue()

        ns = {"print": record}
        old = os.getcwd()
        os.chdir(TOP)
        checked = 0
        try:
            for code in blocks:
                printed.clear()
                exec(compile(code, "docs/python.md", "exec"), ns)
                for i, line in enumerate(code.splitlines(), 1):
                    m = PRINT.match(line)
                    if m:
                        self.assertEqual(printed.get(i, "").strip(),
                                         m.group(1).strip(), line)
                        checked += 1
        finally:
            os.chdir(old)
        self.assertGreater(checked, 6)


if __name__ == "__main__":
    unittest.main()
