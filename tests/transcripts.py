"""Transcript tests: run ./ptdb -b -s SCRIPT on fixtures, check the output.

A test file tests/transcripts/NNNN-area-detail.test holds directives, one per
line ('#' lines are comments):

  args: ARGS...        words after 'ptdb -b -s script' (e.g. a program)
  stdin: TEXT          text fed to ptdb's standard input (\\n for newline)
  exit: N              expected exit status (default 0)
  cmd: COMMAND         a command; the checks below apply to its output
  expect: TEXT         TEXT is a substring of the command's output
  expect-re: REGEX     REGEX matches (re.search, multiline) the output
  expect-not: TEXT     TEXT is not in the output
  error: TEXT          a line 'error: TEXT...' is in the output (stderr)
  no-error:            the command printed no error line
  | LINE               the output has these lines consecutively (exact, or
                       /REGEX/ for a whole-line regex); consecutive '|' lines
                       form one block
  out: TEXT            substring of the whole output (wherever it stands)
  out-not: TEXT        TEXT is nowhere in the whole output

stdout and stderr are captured through one pipe, so each command's output is
what follows its echo '(ptdb) COMMAND' up to the next echo.
"""
import glob
import os
import re
import subprocess

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")


class Cmd:
    def __init__(self, text, line):
        self.text = text
        self.line = line
        self.checks = []


def parse(path):
    args, stdin, exit_code, cmds, glob_checks = [], "", 0, [], []
    with open(path) as f:
        lines = f.read().splitlines()
    block = None
    for n, raw in enumerate(lines, 1):
        if raw.startswith("|"):
            text = raw[2:] if raw.startswith("| ") else raw[1:]
            if block is None:
                block = ("lines", [])
                (cmds[-1].checks if cmds else glob_checks).append(block)
            block[1].append(text)
            continue
        block = None
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        key, _, val = raw.partition(":")
        key, val = key.strip(), val[1:] if val.startswith(" ") else val
        if key == "args":
            args = val.split()
        elif key == "stdin":
            stdin = val.replace("\\n", "\n")
        elif key == "exit":
            exit_code = int(val)
        elif key == "cmd":
            cmds.append(Cmd(val, n))
        elif key in ("expect", "expect-re", "expect-not", "error", "no-error", "out", "out-not"):
            (cmds[-1].checks if cmds and not key.startswith("out") else glob_checks).append((key, val))
        else:
            raise ValueError("%s:%d: unknown directive '%s'" % (path, n, key))
    return args, stdin, exit_code, cmds, glob_checks


def line_matches(pat, line):
    if len(pat) > 1 and pat.startswith("/") and pat.endswith("/"):
        return re.fullmatch(pat[1:-1], line) is not None
    return pat == line


def check(kind, val, out):
    if kind in ("expect", "out"):
        return val in out, "expected substring: %r" % val
    if kind == "expect-re":
        return re.search(val, out, re.M) is not None, "expected regex: %r" % val
    if kind in ("expect-not", "out-not"):
        return val not in out, "unexpected substring: %r" % val
    if kind == "error":
        ok = any(l.startswith("error: " + val) for l in out.splitlines())
        return ok, "expected error line: 'error: %s'" % val
    if kind == "no-error":
        return not any(l.startswith("error:") for l in out.splitlines()), "unexpected error"
    if kind == "lines":
        have = out.splitlines()
        for i in range(len(have) - len(val) + 1):
            if all(line_matches(p, have[i + k]) for k, p in enumerate(val)):
                return True, ""
        return False, "expected lines:\n  " + "\n  ".join(val)
    raise ValueError(kind)


def split_output(out, cmds):
    """Maps each command to its output segment using the echo lines."""
    segs = {}
    pos = 0
    for i, c in enumerate(cmds):
        echo = "(ptdb) " + c.text + "\n"
        start = out.find(echo, pos)
        if start < 0:
            segs[i] = None
            continue
        start += len(echo)
        nxt = len(out)
        if i + 1 < len(cmds):
            e2 = out.find("(ptdb) " + cmds[i + 1].text + "\n", start)
            if e2 >= 0:
                nxt = e2
        segs[i] = out[start:nxt]
        pos = nxt
    return segs


def run_one(path, tmpdir, wrap=(), label="transcript", pre=()):
    """wrap: a command ptdb runs under (valgrind ...); pre: commands run
    before the transcript's (-o); the checks are the same."""
    name = label + " " + os.path.basename(path)
    try:
        args, stdin, exit_code, cmds, glob_checks = parse(path)
    except ValueError as e:
        results.fail(name, str(e))
        return
    script = os.path.join(tmpdir, os.path.basename(path) + ".ptdb")
    with open(script, "w") as f:
        for c in cmds:
            f.write(c.text + "\n")
    try:
        p = subprocess.run(list(wrap) + [PTDB, "-b"] + [a for c in pre for a in ("-o", c)] +
                           ["-s", script] + args, input=stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, cwd=ROOT, timeout=600)
    except subprocess.TimeoutExpired:
        results.fail(name, "timed out")
        return
    out = p.stdout
    problems = []
    if p.returncode != exit_code:
        problems.append("exit status %d, expected %d" % (p.returncode, exit_code))
    for kind, val in glob_checks:
        good, why = check(kind, val, out)
        if not good:
            problems.append("whole output: " + why)
    segs = split_output(out, cmds)
    for i, c in enumerate(cmds):
        seg = segs[i]
        if seg is None:
            if c.checks:
                problems.append("line %d '%s': command was not run (no echo)" % (c.line, c.text))
            continue
        for kind, val in c.checks:
            good, why = check(kind, val, seg)
            if not good:
                problems.append("line %d '%s': %s\n  output was:\n    %s" % (
                    c.line, c.text, why, "\n    ".join(seg.splitlines()[:40])))
    if problems:
        results.fail(name, "\n".join(problems))
    else:
        results.ok(name)


def run_all(only=None):
    """Runs every transcript, or those whose file name contains only."""
    tmpdir = os.path.join(ROOT, "tests", "out")
    os.makedirs(tmpdir, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "transcripts", "*.test"))):
        if only is None or only in os.path.basename(path):
            run_one(path, tmpdir)
