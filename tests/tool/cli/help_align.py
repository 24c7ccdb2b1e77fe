#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""help_align.py FILE...: whether each help text's lists are aligned.

A list is a block of lines (between blank lines) with items: lines that
start with two spaces and a name.  An item's description starts after the
first run of two spaces or more past its name; every item of a block must
have its description at the same column, and every further line of the
block (one that starts with more than two spaces) at that column too; an
item with no such run is a name alone, and the next line must be its
description.  No line is wider than 79 columns.  Prints a line per fault,
exits 1 if any."""
import re
import sys

WIDTH = 79


def check(path, text):
    faults = []
    blocks = re.split(r"\n\s*\n", text)
    for block in blocks:
        lines = block.split("\n")
        col, alone = None, False
        for n, line in enumerate(lines):
            if len(line) > WIDTH:
                faults.append(f"wider than {WIDTH} columns ({len(line)}): '{line}'")
            item = re.match(r"  \S", line)
            if not item and not (line.startswith("   ") and col is not None):
                alone = False
                continue
            if item:
                if alone:
                    faults.append(f"'{lines[n - 1].strip()}' has no description")
                m = re.match(r"  \S.*?\S?( {2,})(\S)", line)
                if not m:
                    alone = True
                    if col is not None and len(line) > col - 2:
                        faults.append(f"'{line}': the name runs into its description")
                    continue
                at = m.start(2)
                if col is None:
                    col = at
                elif at != col:
                    faults.append(f"'{line}': description at column {at}, not {col}")
                alone = False
            else:
                at = len(line) - len(line.lstrip(" "))
                if at != col:
                    faults.append(f"'{line}': continued at column {at}, not {col}")
                alone = False
        if alone:
            faults.append(f"'{lines[-1].strip()}' has no description")
    return [f"{path}: {f}" for f in faults]


def main(paths):
    faults = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            faults += check(p, f.read())
    for f in faults:
        print(f)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
