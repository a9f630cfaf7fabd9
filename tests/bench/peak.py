"""Peak memory of ptdb and of the program it runs, each its own, for the
benchmarks (tests/bench/steady.py, tests/bench/cache.py).

/usr/bin/time's %M is the larger of ptdb's peak and the program's (the
program's where it is the larger, as cc1's), so it can neither tell what
tracing adds to each nor count the code cache, which is the program's
pages.  Here both are polled from /proc while the run lasts: the program's
high-water mark (VmHWM: the code cache, its lookup tables and the record
rings are its pages), and the largest of ptdb's private and file pages
(RssAnon + RssFile) seen: ptdb's own mapping of the code cache and rings
(a memfd mapped in both) is the program's pages again, counted there.
"""
import os
import re
import subprocess
import threading
import time

PERIOD = 0.01	# seconds between two looks


def status(pid, fields):
    """The sum of fields (kB values of /proc/PID/status) in bytes, None once
    pid is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            text = f.read()
    except OSError:
        return None
    return sum(int(m) for f in fields for m in re.findall(r"^%s:\s+(\d+) kB" % f, text, re.M)) * 1024


def children(pid):
    """The children of every thread of pid (the programs ptdb runs)."""
    try:
        return [int(k) for t in os.listdir("/proc/%d/task" % pid)
                for k in open("/proc/%d/task/%s/children" % (pid, t)).read().split()]
    except OSError:
        return []


def exe(pid):
    """The program pid runs, None once gone."""
    try:
        return os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return None


def run(argv, env=None, out=subprocess.DEVNULL):
    """Runs argv (ptdb, or taskset that execs it) to its end, its output
    to out (a file, or DEVNULL), looking at ptdb and its programs every
    PERIOD from a thread of its own (the wall time is the run's, not a
    multiple of PERIOD).  Returns (wall seconds, exit code, ptdb's peak
    bytes, the largest peak of its programs)."""
    err = subprocess.STDOUT if out is not subprocess.DEVNULL else subprocess.DEVNULL
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
    top, prog = [0], {}
    done = threading.Event()

    def look():
        while not done.is_set():
            top[0] = max(top[0], status(p.pid, ("RssAnon", "RssFile")) or 0)
            me = exe(p.pid)
            for k in children(p.pid):
                # (not a child between fork and exec: ptdb's own pages,
                # copied, would count as the program's peak)
                if me and exe(k) != me:
                    prog[k] = max(prog.get(k, 0), status(k, ("VmHWM",)) or 0)
            done.wait(PERIOD)

    th = threading.Thread(target=look)
    th.start()
    rc = p.wait()
    dt = time.monotonic() - t0
    done.set()
    th.join()
    return dt, rc, top[0], max(prog.values(), default=0)
