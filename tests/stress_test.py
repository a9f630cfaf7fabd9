"""Load: tests/programs/rel_waves creates and joins 64 threads in 8 waves,
traced with 'process trace start' (software backend).  Every thread stops at
thread_done() (a breakpoint), where its trace is shown with 'thread trace
dump info'.

  S1  32 KiB buffers (a thread's whole trace fits: at least 1000
      instructions each) and the default total limit: all 64 threads
      traced, each trace decodes with no error, none lost, the process runs
      to its end
  S2  a total limit of 16 KiB: each thread is traced (and decodes without
      errors) or reported once as over the limit, the two adding up to 64
      (the untraced ones run natively through the tracer's breakpoints in
      clone: they once trapped on one removed too long before to be
      recognized, and died of SIGTRAP)
In S1 and S2 two threads may reach thread_done at once: the stop lists
both (one selected), and the next 'c' goes on past both.  Each thread a
stop lists counts; one not selected has its trace from 'thread trace dump
info all' after the exit (traced threads only: an untraced one was
reported over the limit).

  S3  attach to a 4-thread program whose threads all call work() without
      pause, stop at a breakpoint there, 'breakpoint delete' and 'detach',
      30 times in one session (and traced: 'process trace start' before the
      second stop), and 'quit' with the breakpoint set from 20 sessions:
      the program never dies (threads that ran the int3 as the others were
      stopped once left with a SIGTRAP queued, and died of it after the
      detach), each thread runs on, work()'s code equals the file's

The figures (threads, instructions traced, time) are printed as '#' lines.
"""
import os
import re
import subprocess
import time

import process_test as pt
import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
OUT = os.path.join(ROOT, "tests", "out", "stress")
THREADS = 64
LIMIT_RE = re.compile(r"stop reason = Thread (\d+) can't be traced as the process trace size limit "
                      r"has been reached")


def run(limit):
    os.makedirs(OUT, exist_ok=True)
    lines = ["file tests/programs/rel_waves", "b main", "b thread_done", "b all_joined", "r",
             "process trace start " + ("-l " + limit if limit else "-s 32KiB")]
    # every stop: a thread at thread_done, a limit report, then all_joined
    for _ in range(2 * THREADS + 4):
        lines += ["c", "thread trace dump info"]
    # (the process has exited: every thread's trace, for the threads a stop
    # listed beside the selected one, whose dump the loop did not show)
    lines += ["thread trace dump info all"]
    script = os.path.join(OUT, "waves.ptdb")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    t = time.time()
    try:
        p = subprocess.run([PTDB, "-b", "-s", script], cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=120)
        out = p.stdout
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") + "\n(hung: killed after 120 s)\n"
    return out, time.time() - t


def parse(out):
    """[(stop line, dump lines)] for each 'c' and the dump after it."""
    chunks, cur = [], None
    for l in out.splitlines():
        if l.startswith("(ptdb) "):
            cur = [l[7:], []]
            chunks.append(cur)
        elif cur:
            cur[1].append(l)
    res = []
    for i in range(len(chunks) - 1):
        if chunks[i][0] == "c" and chunks[i + 1][0] == "thread trace dump info":
            res.append(("\n".join(chunks[i][1]), chunks[i + 1][1]))
    return res


DUMP_HEAD = re.compile(r"^thread #(\d+): tid = (\d+)")
# a thread of a stop: a stop lists every thread that stopped with a reason
# (two threads at thread_done at once: both, one of them selected)
STOP_THREAD = re.compile(r"^[* ] thread #(\d+), name = .*, stop reason = (.*)$", re.M)


def dumps(lines):
    """{thread index: (tid, its dump's lines)} of 'thread trace dump info'
    output (one thread or all)."""
    res, cur = {}, None
    for l in lines:
        m = DUMP_HEAD.match(l)
        if m:
            cur = [l]
            res[int(m.group(1))] = (int(m.group(2)), cur)
        elif cur is not None:
            cur.append(l)
    return res


def check(name, limit):
    out, secs = run(limit)
    why = []
    traced, over, insns = {}, [], 0
    pairs = parse(out)
    final = out.split("(ptdb) thread trace dump info all\n")[-1].splitlines()
    done = []   # (index, its dump) of each thread at thread_done
    over_index = {}     # thread index: tid, of the threads over the limit
    for stop, dump in pairs:
        for index, reason in STOP_THREAD.findall(stop):
            m = LIMIT_RE.search("stop reason = " + reason)
            if m:
                over.append(int(m.group(1)))
                over_index[int(index)] = int(m.group(1))
            elif reason == "breakpoint 2.1":
                # the selected thread's dump, else the one after the exit
                # (which lists traced threads only)
                done.append((int(index), dumps(dump).get(int(index)) or
                             dumps(final).get(int(index))))
    untraced_done = 0
    for index, d in done:
        if not d and index in over_index:
            untraced_done += 1      # not traced: over the limit
            continue
        if not d:
            why.append("no dump of thread #%d, at thread_done" % index)
            continue
        tid, dump = d
        head = dump[0]
        if "not traced" in head:
            untraced_done += 1
            if tid not in over:
                why.append("thread %d is not traced and was not reported over the limit" % tid)
            continue
        text = "\n".join(dump)
        n = re.search(r"Total number of instructions: (\d+)", text)
        e = re.search(r"Number of individual errors: (\d+)", text)
        if not n or int(n.group(1)) < 1000:
            why.append("thread %d: too few instructions: %s" % (tid, n and n.group(1)))
        if not e or int(e.group(1)) != 0:
            why.append("thread %d: decode errors: %s" % (tid, e and e.group(1)))
        if tid in traced:
            why.append("thread %d stopped twice at thread_done" % tid)
        traced[tid] = int(n.group(1)) if n else 0
    insns = sum(traced.values())
    if len(set(over)) != len(over):
        why.append("a thread was reported over the limit more than once: %s" % over)
    if limit is None and over:
        why.append("threads over the default limit: %s" % over)
    if len(traced) + untraced_done != THREADS:
        why.append("%d threads reached thread_done, want %d" % (len(traced) + untraced_done, THREADS))
    if limit is not None and (not over or len(traced) + len(over) != THREADS):
        why.append("traced %d + over the limit %d != %d" % (len(traced), len(over), THREADS))
    if "threads 64 sum " not in out or "exited with status = 0 (0x00000000)" not in out:
        why.append("the process did not run to its end")
    print("# stress %s: %d threads, %d traced, %d over the limit, %d instructions traced, %.2f s"
          % (limit or "default limit", THREADS, len(traced), len(over), insns, secs))
    if why:
        return results.fail(name, "\n".join(why[:20]) + "\n" + out[-2000:])
    results.ok(name)


SPIN4 = os.path.join(ROOT, "tests", "programs", "rel_spin4")


def alive_and_running(p):
    """'' if every thread of p advances (runs on its own) and work() is the
    file's code, else why not."""
    start = pt.thread_ticks(p.pid)
    end = time.time() + 60      # a deadline only: the wait is for the ticks
    while time.time() < end:
        if p.poll() is not None:
            return "the program died: %s" % (
                "signal %d" % -p.returncode if p.returncode < 0 else "status %d" % p.returncode)
        st, tracer = pt.state(p.pid)
        now = pt.thread_ticks(p.pid)
        if st not in (None, "t", "T") and not tracer and len(now) == 4 and \
                all(now[t] >= start.get(t, 0) + 3 for t in now):
            break
        time.sleep(0.01)
    else:
        return "the threads did not run on: %s then %s, state %s" % (start, pt.thread_ticks(p.pid),
                                                                      pt.state(p.pid))
    a = pt.func_addr(SPIN4, "work")
    if pt.mem_bytes(p.pid, a, 16) != pt.file_bytes(SPIN4, a, 16):
        return "work()'s code differs from the file's"
    return ""


def spin4(name, rounds, sessions, traced, how):
    p = subprocess.Popen([SPIN4])
    until = time.time() + 10
    while len(pt.thread_ticks(p.pid)) < 4 and time.time() < until:
        time.sleep(0.01)
    lines = []
    for _ in range(rounds):
        lines += ["process attach -p %d" % p.pid, "b work", "c"]
        if traced:
            lines += ["process trace start", "c"]
        lines += ["breakpoint delete", "detach"] if how == "detach" else ["quit"]
    script = os.path.join(OUT, "spin4.ptdb")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    why, outs = [], []
    t0 = time.time()
    for _ in range(sessions):
        try:
            r = subprocess.run([PTDB, "-b", "-s", script], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=300)
            outs.append(r.stdout)
        except subprocess.TimeoutExpired:
            why.append("ptdb hung")
            break
        if p.poll() is not None:
            break
        hits = len(re.findall(r"stop reason = breakpoint \d+\.1", r.stdout))
        if hits < rounds * (2 if traced else 1):
            why.append("%d stops at the breakpoint, want %d" % (hits, rounds * (2 if traced else 1)))
        if how == "detach" and r.stdout.count("Process %d detached" % p.pid) < rounds:
            why.append("%d detaches, want %d" % (r.stdout.count("Process %d detached" % p.pid), rounds))
    w = alive_and_running(p)
    if w:
        why.append(w)
    print("# stress %s: %d attach cycles in %.2f s" % (name, rounds * sessions, time.time() - t0))
    if p.poll() is None:
        p.kill()
    p.wait()
    if why:
        return results.fail(name, "\n".join(why) + "\n" + (outs[-1][-3000:] if outs else ""))
    results.ok(name)


def run_all():
    os.makedirs(OUT, exist_ok=True)
    spin4("S3 4 threads at a breakpoint: delete, detach (x30)", 30, 1, False, "detach")
    spin4("S3 4 threads traced at a breakpoint: delete, detach (x30)", 30, 1, True, "detach")
    spin4("S3 4 threads at a breakpoint: quit (x20)", 1, 20, False, "quit")
    check("S1 64 threads in waves, all traced", None)  # -s 32KiB
    check("S2 64 threads in waves, 16 KiB total limit", "16KiB")


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
