"""Source-level stepping in optimized code against lldb-16: the same batch
session runs in lldb-16 and in ptdb on tests/programs/step_o2 (-g -O2 PIE;
several line rows at one address, rows without is_stmt, inlined calls
whose ranges start where a step stops, calls into libc through the PLT
with libc6-dbg's lines), and every stop of 'n', 's', 'finish', 'thread
until' and of breakpoints by name and line must be at lldb-16's file and
line; 's' with step-avoid-regexp naming inlined functions steps out of
them; on tests/programs/step_ret_o2, 'finish' and 'n' out of a function
returning to the first instruction of an inlined call stop at its call
site and 'n' goes on over it; and in a program without line information,
's' and 'n' one instruction into or over calls, as lldb-16 steps there.

Compared: the file:line of each stop's "frame #0" line.  Not compared: the
function part of that line.  After 's' into an inlined call that starts
where a step stopped (LLDB's "virtual" step, nothing runs), lldb-16 names
the frame sometimes "f [inlined] g", sometimes only "f" (a second such step
at one address); ptdb always says "f [inlined] g".  man/ptdb.1 lists it.
"""
import os
import re
import shutil
import subprocess

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
LLDB = "lldb-16"
PROG = "tests/programs/step_o2"
ARGS = "alpha bb gamma-delta e"

FRAME0 = re.compile(r"^\s*frame #0: 0x[0-9a-f]+ (.*?)(?: at (\S+?):(\d+)(?::\d+)?)?(?: \[inlined\])?$")

SESSIONS = [
    ("n from process", ["b process", "r " + ARGS] + ["n"] * 15),
    ("s from process", ["b process", "r " + ARGS] + ["s"] * 15),
    ("finish then n", ["b checksum", "r " + ARGS, "finish"] + ["n"] * 6 + ["finish", "n", "n"]),
    ("breakpoints by line and name", ["b step_o2.c:52", "b step_o2.c:53", "b grow",
                                      "r " + ARGS, "c", "c", "n", "n", "c", "c"]),
    ("until", ["b process", "r " + ARGS, "n", "thread until 57", "n", "n"]),
    # step-avoid-regexp names inlined functions too: 's' steps out of
    # them (out of buf_put and grow, and of both)
] + [("s avoiding " + rx, ["settings set target.process.thread.step-avoid-regexp " + rx,
                           "b process", "r " + ARGS] + ["s"] * 15)
     for rx in ("^buf_put", "^grow", "^(grow|buf_put)")]
# a return into the first instruction of an inlined call: the stop (of
# 'finish' or of 'n' out of the callee) is at the call's call site, and
# 'n' from there steps over the rest of the inlined call
RET = "tests/programs/step_ret_o2"
SESSIONS_RET = [
    ("finish into an inlined call, then n", ["b load", "r alpha beta", "finish"] + ["n"] * 5),
    ("n out into an inlined call", ["b load", "r a b"] + ["n"] * 9),
]
# without line information: 's' one instruction into calls, 'n' over them
NODEBUG = "tests/programs/step_nodebug"
SESSIONS_NODEBUG = [
    ("s without lines", ["b main", "r"] + ["s"] * 12),
    ("n without lines", ["b mid", "r"] + ["n"] * 8),
]
RUN = ("r", "c", "n", "s", "finish", "thread until")


def stops(out, prompt, cmds):
    """(command, 'file:line' or the frame text) of each run command's stop."""
    res, cur, i = [], None, 0
    for line in out.splitlines():
        if i < len(cmds) and line == "(%s) %s" % (prompt, cmds[i]):
            cur = cmds[i] if cmds[i].split(" ")[0] in RUN or cmds[i].startswith("thread until") else None
            i += 1
            continue
        m = FRAME0.match(line)
        if m and cur is not None:
            res.append((cur, "%s:%s" % (m.group(2), m.group(3)) if m.group(2) else m.group(1)))
            cur = None
    return res


def run_session(name, cmds, prog=PROG):
    lldb_args = [LLDB, "-b", "-x"]
    ptdb_args = [PTDB, "-b", "-o", "file " + prog]
    for c in cmds:
        lldb_args += ["-o", c]
        ptdb_args += ["-o", c]
    lldb_args.append(prog)
    try:
        lo = subprocess.run(lldb_args, capture_output=True, text=True, timeout=300, cwd=ROOT,
                            stdin=subprocess.DEVNULL, errors="replace")
        po = subprocess.run(ptdb_args, capture_output=True, text=True, timeout=300, cwd=ROOT,
                            stdin=subprocess.DEVNULL, errors="replace")
    except subprocess.TimeoutExpired as e:
        results.fail("step O2 " + name, "timed out: %s" % e)
        return
    want = stops(lo.stdout + lo.stderr, "lldb", cmds)
    got = stops(po.stdout + po.stderr, "ptdb", cmds)
    nrun = sum(1 for c in cmds if c.split(" ")[0] in RUN or c.startswith("thread until"))
    if len(want) < nrun:
        results.fail("step O2 " + name, "lldb-16 stopped %d times for %d commands:\n%s" % (
            len(want), nrun, (lo.stdout + lo.stderr)[-3000:]))
        return
    same = sum(1 for a, b in zip(want, got) if a == b)
    if want != got:
        rows = ["  %-14s lldb-16 %-26s ptdb %s%s" % (
            a[0] if a else b[0], a[1] if a else "-", b[1] if b else "-",
            "" if a == b else "   <- differs")
            for a, b in [(want[k] if k < len(want) else None, got[k] if k < len(got) else None)
                         for k in range(max(len(want), len(got)))]]
        results.fail("step O2 " + name, "%d of %d stops at lldb-16's lines:\n%s" % (
            same, len(want), "\n".join(rows)))
    else:
        results.ok("step O2 %s (%d stops at lldb-16's lines)" % (name, len(want)))


def run_all():
    if not shutil.which(LLDB):
        results.skip("step O2", "%s is not installed (make deps installs it)" % LLDB)
        return
    for prog in (PROG, RET):
        if not os.path.exists(os.path.join(ROOT, prog)):
            results.fail("step O2", "%s is not built (make programs)" % prog)
            return
    for name, cmds in SESSIONS:
        run_session(name, cmds)
    for name, cmds in SESSIONS_RET:
        run_session(name, cmds, RET)
    if not os.path.exists(os.path.join(ROOT, NODEBUG)):
        results.fail("step O2", "%s is not built (make programs)" % NODEBUG)
        return
    for name, cmds in SESSIONS_NODEBUG:
        run_session(name, cmds, NODEBUG)


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
