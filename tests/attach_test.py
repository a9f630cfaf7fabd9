"""Attaching at startup (ptdb -p PID, ptdb -n NAME) and by name at the
prompt (process attach -n NAME, attach NAME), with its errors.

Every wait here is for a condition (a line of ptdb's output, a state of a
process in /proc), never for a time; the deadlines only turn a hang into
a failure.  The fixture runs as a copy under a name no other process has,
so that a lookup by name finds exactly the processes the test started.

  A1  ptdb -b -p PID -o bt -o detach: attach first, then the commands;
      the process runs on after detach, ptdb exits 0
  A2  ptdb -b -n NAME -o 'process status' -o detach: likewise by name
  A3  at the prompt: 'attach NAME' and 'process attach -n NAME' attach;
      detach leaves the process running
  A4  errors, one line each, exit 1 in batch mode: no process of that name,
      two of that name (both pids listed), a bad pid, a pid that is gone
  A5  ptdb -n NAME failing interactively still reaches the prompt
"""
import os
import shutil
import subprocess
import tempfile

import results
from process_test import state
from session import DEADLINE, PTDB, Session, syscall_nr, until

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = os.path.join(ROOT, "tests", "programs", "rel_block")


class Fixture:
    """A private copy of rel_block under a unique short name."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ptdb-attach-")
        self.name = "pta%d" % os.getpid()
        self.exe = os.path.join(self.dir, self.name)
        shutil.copy(EXE, self.exe)
        self.procs = []

    def start(self):
        p = subprocess.Popen([self.exe], stdin=subprocess.DEVNULL)
        self.procs.append(p)
        # blocked in read(2): past exec, under its own name
        until(lambda: syscall_nr(p.pid) == "0")
        return p

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def runs_on(pid, why):
    ok = until(lambda: state(pid)[1] == 0 and state(pid)[0] not in (None, "t", "T"), 10)
    if not ok:
        why.append("process %d: state %r, tracer %d after detach" % ((pid,) + state(pid)))


def batch(args):
    return subprocess.run([PTDB, "-b"] + args, cwd=ROOT, capture_output=True, text=True,
                          timeout=DEADLINE, stdin=subprocess.DEVNULL)


def report(name, why, out):
    if why:
        return results.fail(name, "\n".join(why) + "\n" + out[-2500:])
    results.ok(name)


def in_order(out, lines, why):
    at = 0
    for line in lines:
        k = out.find(line, at)
        if k < 0:
            why.append("missing (in this order): %r" % line)
            return
        at = k + len(line)


def startup(fx, name, by_name):
    p = fx.start()
    sel = ["-n", fx.name] if by_name else ["-p", str(p.pid)]
    r = batch(sel + ["-o", "bt", "-o", "detach"])
    out = r.stdout + r.stderr
    why = []
    if r.returncode != 0:
        why.append("exit status %d" % r.returncode)
    in_order(out, ["(ptdb) process attach %s %s" % tuple(sel),
                   "Process %d stopped" % p.pid,
                   "(ptdb) bt", "frame #0",
                   "(ptdb) detach", "Process %d detached" % p.pid], why)
    if "error:" in out:
        why.append("an error was printed")
    runs_on(p.pid, why)
    report(name, why, out)


def at_prompt(fx, name):
    p = fx.start()
    s = Session()
    why = []
    s.send("attach %s" % fx.name)
    at = s.wait_for("Process %d stopped" % p.pid)
    if at is None:
        why.append("'attach NAME' did not attach")
    else:
        s.send("detach")
        at = s.wait_for("Process %d detached" % p.pid, at)
        if at is None:
            why.append("no 'detached' line")
        else:
            runs_on(p.pid, why)
            s.send("process attach -n %s" % fx.name)
            at = s.wait_for("Process %d stopped" % p.pid, at)
            if at is None:
                why.append("'process attach -n NAME' did not attach again")
            else:
                s.send("process attach -n %s" % fx.name)
                if s.wait_for("error: a process is already being debugged", at) is None:
                    why.append("a second attach was not refused")
                s.send("detach")
                if s.wait_for("Process %d detached" % p.pid, at) is None:
                    why.append("no second 'detached' line")
                else:
                    runs_on(p.pid, why)
    s.send("quit")
    if s.finish() is None:
        why.append("ptdb did not quit")
    report(name, why, s.output())


def one_error(name, args, expect, after=None):
    r = batch(args + ["-o", "version"])
    out = r.stdout + r.stderr
    why = []
    if r.returncode == 0:
        why.append("exit status 0 after a failed attach")
    errs = [l for l in r.stderr.splitlines() if l.startswith("error:")]
    if len(errs) != 1:
        why.append("%d error lines, not 1" % len(errs))
    elif not all(e in errs[0] for e in expect):
        why.append("error %r lacks %r" % (errs[0], expect))
    if "(ptdb) version" not in out:
        why.append("the -o command did not run after the error")
    if after:
        after(why)
    report(name, why, out)


def errors(fx):
    one_error("A4 -n with no such process: one-line error, exit 1",
              ["-n", fx.name + "x"],
              ["could not find a process named %sx" % fx.name])
    a, b = fx.start(), fx.start()

    def untraced(why):
        for p in (a, b):
            if state(p.pid)[1] != 0:
                why.append("process %d left traced" % p.pid)
    one_error("A4 -n with two such processes: both pids listed, neither traced, exit 1",
              ["-n", fx.name],
              ["more than one process named %s" % fx.name, str(a.pid), str(b.pid)], untraced)
    one_error("A4 -p with a bad pid: one-line error, exit 1", ["-p", "12x"],
              ["invalid process id '12x'"])
    gone = subprocess.Popen(["true"])
    gone.wait()
    one_error("A4 -p with a pid that is gone: one-line error, exit 1", ["-p", str(gone.pid)],
              ["no such process: %d" % gone.pid])


def interactive_failure(fx, name):
    s = Session(["-n", fx.name + "x"])
    why = []
    at = s.wait_for("error: attach failed: could not find a process named %sx" % fx.name)
    if at is None:
        why.append("no error line")
    s.send("attach %sx" % fx.name)
    if s.wait_for("could not find a process named", (at or 0) + 1) is None:
        why.append("'attach NAME' at the prompt: no error line")
    s.send("version")
    if s.wait_for("ptdb version") is None:
        why.append("no prompt after the failed attach")
    s.send("quit")
    if s.finish() is None:
        why.append("ptdb did not quit")
    report(name, why, s.output())


def run_all():
    tests = [
        lambda fx: startup(fx, "A1 ptdb -b -p PID -o bt -o detach: attach, then commands, runs on",
                           False),
        lambda fx: startup(fx, "A2 ptdb -b -n NAME -o bt -o detach: attach by name, runs on", True),
        lambda fx: at_prompt(fx, "A3 attach NAME / process attach -n NAME at the prompt"),
        errors,
        lambda fx: interactive_failure(fx, "A5 ptdb -n NAME failing: error, then the prompt"),
    ]
    for t in tests:
        fx = Fixture()  # each its own processes: the ones before are gone
        try:
            t(fx)
        finally:
            fx.close()


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
