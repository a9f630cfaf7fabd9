"""Several threads at one breakpoint at once, as lldb-16 stops them: the
threads of tests/programs/bp_threads meet in a spin and call hit() (the
breakpoint) together, so that more than one has trapped before the others
are stopped.  Then, as in lldb-16:

  - every thread that trapped has its reason ("stop reason = breakpoint
    1.1") in the stop report (each with its frame) and in 'thread list';
  - the selected thread is the first of them by index (the one selected
    before, if it is one of them);
  - the breakpoint's commands run once in each of them, that thread
    selected;
  - each hit is counted once, and the next continue does not report it
    again: over the session each thread is reported once, the hit count
    ends at the number of threads.

Whether two threads trap before the stop depends on the scheduler: the
session is run again (up to TRIES times) until one stop has found two
threads at the breakpoint's address (read from 'thread list', which lists
a thread there whether or not ptdb reported it: ptdb gave the second one
no reason and reported it at the next continue as a stop of its own).
Every run's stops are checked.

Race: the threads of tests/programs/bp_race call hit() 400 times in all
while another raises SIGUSR1 100 times: a thread often runs hit()'s int3
just as the others are stopped for a signal's stop, its SIGTRAP left
queued (taken when the breakpoints leave memory at the stop).  Every hit
is reported, as a stop of its own or beside another's: 400 reasons
"breakpoint 1.1" over the session, and the program's own count agrees
(exit status 0).  ptdb once dropped such a hit: the thread stepped over
the breakpoint at the next continue (about 1 hit in 10 here; the session
runs 3 times).

Traced race: the same with the thread of the first hit traced ('thread
trace start': it runs in the cache engine, the others natively, each of
their stops interrupting it).  An interrupt that came as the traced
thread reached hit()'s breakpoint (at the trap or lookup miss that ends
the block before it) took it out of the cache there without a stop, and
its next entry, at the breakpoint, ran past it: 1-2 hits of 400 lost in
about 6 sessions of 10 here (5 sessions run).

Breakpoint on a system call: tests/programs/bp_syscall's worker reads a
pipe with a SYSCALL instruction under a breakpoint, and main writes that
pipe only once the worker sleeps in the read.  At the continue the worker
was stepped over the breakpoint alone, main held: the step never ended
(the session hung).  Run untraced, and with the worker traced by each
engine (its thread collector let it run on from the breakpoint).
"""
import os
import re
import subprocess
import tempfile

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
PROG = "tests/programs/bp_threads"
NTHREADS = 4
TRIES = 200  # a run takes 0.2-0.5 s; two threads trap together within 1-5 runs here, far more on a loaded machine

HEADER = re.compile(r"^([* ]) thread #(\d+), name = '[^']*', stop reason = (.*)$")
LISTED = re.compile(r"^([* ]) thread #(\d+): tid = \d+, (0x[0-9a-f]+) (\S+?)[`(]")
BP = re.compile(r"^Breakpoint 1: .*, address = (0x[0-9a-f]+)$")
HITS = re.compile(r"^1: name = 'hit', .*hit count = (\d+)$")


def session():
    """ptdb's output of the session on the fixture"""
    cmds = (["b hit", 'breakpoint command add -o "p who" 1', "r"] +
            ["thread list", "breakpoint list", "c"] * (NTHREADS + 1))
    with tempfile.NamedTemporaryFile("w", suffix=".ptdb") as f:
        f.write("\n".join(cmds) + "\n")
        f.flush()
        p = subprocess.run([PTDB, "-b", "-s", f.name, PROG], cwd=ROOT, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=120)
    return p.stdout + p.stderr


def split(out):
    """[(command, its output lines)]"""
    res = []
    for line in out.splitlines():
        if line.startswith("(ptdb) "):
            res.append((line[7:], []))
        elif res:
            res[-1][1].append(line)
    return res


def check_run(out):
    """(qualified, error or None)"""
    addr, reported, prev_sel, qualified, stop, whos = None, [], None, False, None, []
    for cmd, lines in split(out):
        if cmd == "b hit":
            for ln in lines:
                m = BP.match(ln)
                if m:
                    addr = int(m.group(1), 16)
        elif cmd in ("r", "c"):
            if any("exited with status" in ln for ln in lines):
                if not any("exited with status = %d " % (1 + 2 * (NTHREADS - 1)) in ln
                           for ln in lines):
                    return qualified, "the program's exit: %s" % lines
                stop = None
                continue
            if not any(ln.startswith("Process ") and ln.endswith(" stopped") for ln in lines):
                continue
            stop, whos = {}, []
            for ln in lines:
                m = HEADER.match(ln)
                if m:
                    stop[int(m.group(2))] = (m.group(1) == "*", m.group(3))
        elif cmd == "p who" and stop is not None:
            # the breakpoint's commands, once in each thread at it, that
            # thread selected: main (#1) passes 1, the workers 2
            whos.extend(int(ln.split(" = ")[1]) for ln in lines if ln.startswith("(int) $"))
        elif cmd == "thread list" and stop is not None:
            at, why, sel = set(), {}, None
            for ln in lines:
                m = LISTED.match(ln)
                if not m:
                    continue
                idx = int(m.group(2))
                if m.group(1) == "*":
                    sel = idx
                if int(m.group(3), 16) == addr:
                    at.add(idx)
                if "stop reason = " in ln:
                    why[idx] = ln.split("stop reason = ")[1]
            if len(at) >= 2:
                qualified = True
            if set(why) != at or any(w != "breakpoint 1.1" for w in why.values()):
                return qualified, ("threads at the breakpoint %s, threads with a reason %s "
                                   "(thread list: %s)" % (sorted(at), why, lines))
            if set(stop) != at or any(w != "breakpoint 1.1" for _, w in stop.values()):
                return qualified, ("the stop report shows %s, the threads at the breakpoint "
                                   "are %s" % (stop, sorted(at)))
            want = prev_sel if prev_sel in at else min(at)
            if sel != want or not stop[want][0]:
                return qualified, "thread #%s selected, lldb-16 selects #%d" % (sel, want)
            if sorted(whos) != sorted(1 if i == 1 else 2 for i in at):
                return qualified, ("the breakpoint's command gave who = %s, for threads %s"
                                   % (whos, sorted(at)))
            if set(reported) & at:
                return qualified, "threads %s reported again" % sorted(set(reported) & at)
            reported.extend(sorted(at))
            prev_sel = sel
        elif cmd == "breakpoint list" and stop is not None:
            for ln in lines:
                m = HITS.match(ln)
                if m and int(m.group(1)) != len(reported):
                    return qualified, ("hit count %s after %d threads reported"
                                       % (m.group(1), len(reported)))
    if sorted(reported) != list(range(1, NTHREADS + 1)):
        return qualified, "threads reported over the session: %s" % reported
    return qualified, None


RACE = "tests/programs/bp_race"
RACE_HITS = 400
RACE_RUNS = 3  # (a run takes 0.7 s; the hit was dropped in 2 runs of 3 here)
TRACED_RUNS = 5  # (a run takes 2 s; before the fix 1 in 100 passed all 5)


def race(traced=False):
    """None, or what is wrong with the race session's stops"""
    cmds = (["b hit", "r"] + (["thread trace start"] if traced else []) +
            ["c"] * (2 * RACE_HITS + 200))
    with tempfile.NamedTemporaryFile("w", suffix=".ptdb") as f:
        f.write("\n".join(cmds) + "\n")
        f.flush()
        p = subprocess.run([PTDB, "-b", "-s", f.name, RACE], cwd=ROOT, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=600)
    out = p.stdout + p.stderr
    hits = sum(1 for ln in out.splitlines()
               if HEADER.match(ln) and HEADER.match(ln).group(3) == "breakpoint 1.1")
    if "exited with status = 0 " not in out:
        return "the program did not exit with status 0: %s" % out[-800:]
    if hits != RACE_HITS:
        return "%d hits reported, the program made %d" % (hits, RACE_HITS)
    return None


SYSCALL_PROG = "tests/programs/bp_syscall"


def syscall_bp(before, after):
    """None, or what is wrong with the session continuing from a
    breakpoint on a SYSCALL that waits for a held thread"""
    nm = subprocess.run(["nm", SYSCALL_PROG], cwd=ROOT, capture_output=True, text=True).stdout
    addr = [ln.split()[0] for ln in nm.splitlines() if ln.endswith(" worker_read_insn")]
    if not addr:
        return "no worker_read_insn in %s" % SYSCALL_PROG
    cmds = before + ["b -a 0x%s" % addr[0], "r"] + after + ["c", "c"]
    args = [PTDB, "-b"] + [a for c in cmds for a in ("-o", c)] + [SYSCALL_PROG]
    try:
        p = subprocess.run(args, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "the continue from the breakpoint never ended (120 s)"
    out = p.stdout + p.stderr
    if "worker read t" not in out or "exited with status = 0 " not in out:
        return "the program did not end well: %s" % out[-800:]
    return None


def run_all():
    for label, before, after in (
            ("untraced", [], []),
            ("traced, cache engine", [], ["thread trace start"]),
            ("traced, ptrace engine", ["settings set trace.software.engine ptrace"],
             ["thread trace start"])):
        name = "breakpoint threads: continue from a breakpoint on a waiting system call (%s)" % label
        err = syscall_bp(before, after)
        if err:
            results.fail(name, err)
        else:
            results.ok(name)
    name = "breakpoint threads: several threads at one breakpoint at once"
    if not os.path.exists(os.path.join(ROOT, PROG)):
        results.fail(name, "%s is not built (make programs)" % PROG)
        return
    if not os.path.exists(os.path.join(ROOT, RACE)):
        results.fail("breakpoint threads: race", "%s is not built (make programs)" % RACE)
    else:
        err = None
        for i in range(RACE_RUNS):
            err = err or race()
        if err:
            results.fail("breakpoint threads: a hit as the others stop for a signal", err)
        else:
            results.ok("breakpoint threads: a hit as the others stop for a signal (%d hits)"
                       % RACE_HITS)
        err = None
        for i in range(TRACED_RUNS):
            err = err or race(traced=True)
        name_t = "breakpoint threads: a traced thread's hit as the others stop it"
        if err:
            results.fail(name_t, err)
        else:
            results.ok(name_t + " (%d hits, %d sessions)" % (RACE_HITS, TRACED_RUNS))
    for i in range(TRIES):
        out = session()
        qualified, err = check_run(out)
        if err:
            results.fail(name, "run %d: %s" % (i + 1, err))
            return
        if qualified:
            results.ok(name + " (run %d)" % (i + 1))
            return
    results.fail(name, "in %d runs no two threads trapped at once (every run's stops "
                 "were right; the scheduler never let two threads reach hit() together)"
                 % TRIES)


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
