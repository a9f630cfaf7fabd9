"""The rooms' files and functions stay a size a reader takes in (issue 25,
docs/conventions.md): no source file of cmd/, core/, target/, trace/,
disasm/ or base/ over MAX_FILE lines, no function over MAX_FUNC lines.

A function is counted from its opening brace to its closing one, both
alone on their line at column 0 (the house style), both included.
ALLOWED names the files and functions let past, each with why; an entry
that is no longer over fails too, so the list only shrinks.

Run alone: python3 tests/layers_size_test.py (prints what is over).
run_all() is the suite run-all.py calls ('make check T=layers').
"""
import glob
import os
import re

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOMS = ["cmd", "core/*", "target", "trace", "disasm", "base"]
MAX_FILE = 800
MAX_FUNC = 120

# (path, function or None for the file): why it may be over, for now.
ALLOWED = {
}

SIGNATURE = re.compile(r"([A-Za-z_][A-Za-z_0-9]*)\s*\(")


def functions(text):
    """(name, first line, lines) of every function body in a C source."""
    lines = text.split("\n")
    out = []
    i = 1
    while i < len(lines):
        if lines[i] == "{":
            j = i - 1
            while j > 0 and lines[j].startswith((" ", "\t")):
                j -= 1  # the signature's first line, at column 0
            k = i + 1
            while k < len(lines) and lines[k] != "}":
                k += 1
            m = SIGNATURE.search(lines[j])
            if m:
                out.append((m.group(1), j + 1, k - i + 1))
            i = k
        i += 1
    return out


def measure():
    """{(path, function or None): lines} of whatever is over its limit."""
    over = {}
    for room in ROOMS:
        for path in sorted(glob.glob(os.path.join(ROOT, room, "*.[ch]"))):
            rel = os.path.relpath(path, ROOT)
            with open(path, errors="replace") as f:
                text = f.read()
            n = text.count("\n")
            if n > MAX_FILE:
                over[(rel, None)] = n
            for name, line, size in functions(text):
                if size > MAX_FUNC:
                    over[(rel, name)] = size
    return over


def run_all():
    over = measure()
    bad = ["%s: %d lines (over %d)" % (p, n, MAX_FILE) if f is None else
           "%s: %s() %d lines (over %d)" % (p, f, n, MAX_FUNC)
           for (p, f), n in sorted(over.items()) if (p, f) not in ALLOWED]
    name = "layers: no file over %d lines, no function over %d" % (MAX_FILE, MAX_FUNC)
    results.fail(name, "\n".join(bad)) if bad else results.ok(name)
    stale = sorted("%s%s" % (p, "" if f is None else ": " + f)
                   for (p, f) in ALLOWED if (p, f) not in over)
    name = "layers: every allowed size is still over (else drop it from ALLOWED)"
    results.fail(name, "\n".join(stale)) if stale else results.ok(name)


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
