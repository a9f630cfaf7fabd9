"""Watchpoints under interruption (the transcripts 0170-0171 check hits):

  W1  Ctrl-C while the software watchpoint checking single-steps a program
      that never touches the watched memory: the process stops ("signal
      SIGSTOP"), the session goes on, and no stray SIGSTOP is left: the
      next continue stops at a breakpoint, not at a signal
  W2  the inferior is killed from outside while its watchpoint is checked:
      the exit is reported and the session goes on
  W3  the code cache's checks stop exactly where single-stepping does: on
      tests/programs/watch_classes (a store through a pointer, libc's
      memcpy and memset, rep stosq, a push, a read watchpoint, xchg, lock
      cmpxchg, a vector store) every stop (reason, thread, pc, frame, old
      and new value) under the code cache equals the single-stepping's
      (trace.software.engine ptrace), and the cache was used: "watchpoint
      list" counts its entries and the checks that trapped
W1 and W2 run twice: checked by single-stepping (target.hardware-watchpoints
false) and by the debug registers where the machine delivers their traps
(else the same single-stepping again).  The watchpoint transcripts
(0170-0172), which run with the machine's method, run here again checked
by single-stepping.
The interrupt is repeated until the stop is seen (a Ctrl-C that lands
before the run starts is ignored, as at the prompt): the test waits for
the condition, never for a time.
"""
import os
import queue
import re
import signal
import subprocess
import threading
import time

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
SPIN = os.path.join(ROOT, "tests", "programs", "rel_spin")


class Session:
    def __init__(self):
        self.p = subprocess.Popen([PTDB], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.q = queue.Queue()
        self.out = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.q.put(line)
        self.q.put(None)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait_for(self, text, deadline, poke=None):
        """Reads until a line holds text; poke() is called while waiting."""
        while time.monotonic() < deadline:
            if poke:
                poke()
            try:
                line = self.q.get(timeout=0.2)
            except queue.Empty:
                continue
            if line is None:
                return False
            self.out.append(line)
            if text in line:
                return True
        return False

    def close(self):
        try:
            self.send("quit")
            self.p.stdin.close()
            self.p.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()
            self.p.wait()


def inferior_pid(lines):
    for l in lines:
        if l.startswith("Process ") and " launched" in l:
            return int(l.split()[1])
    return 0


def setup(hw):
    return ("settings set target.hardware-watchpoints " + ("true" if hw else "false"),
            "file " + SPIN, "b work", "r")


def interrupted(hw):
    name = "watch W1 Ctrl-C during %s watchpoint checking" % ("hardware" if hw else "software")
    s = Session()
    end = time.monotonic() + 120
    try:
        for c in setup(hw):
            s.send(c)
        ok = s.wait_for("stop reason = breakpoint 1.1", end)
        s.send("breakpoint delete 1")
        s.send("watchpoint set expression -w write -s 8 -- (char *)&counter + 8")
        s.send("c")
        ok = ok and s.wait_for("resuming", end)
        ok = ok and s.wait_for("stop reason = signal SIGSTOP", end,
                               poke=lambda: s.p.send_signal(signal.SIGINT))
        s.send("watchpoint delete")
        s.send("b work")
        s.send("c")
        ok = ok and s.wait_for("stop reason =", end)
        last = s.out[-1] if s.out else ""
        s.send("process kill")
        ok2 = s.wait_for("exited", end)
    finally:
        s.close()
    if ok and ok2 and "breakpoint 2.1" in last:
        results.ok(name)
    else:
        results.fail(name, "".join(s.out[-30:]))


def killed_outside(hw):
    name = "watch W2 inferior killed while its watchpoint is checked (%s)" % (
        "hardware" if hw else "software")
    s = Session()
    end = time.monotonic() + 120
    try:
        for c in setup(hw):
            s.send(c)
        ok = s.wait_for("stop reason = breakpoint 1.1", end)
        pid = inferior_pid(s.out)
        s.send("breakpoint delete 1")
        s.send("watchpoint set expression -w write -s 8 -- (char *)&counter + 8")
        s.send("c")
        ok = ok and pid and s.wait_for("resuming", end)
        if ok:
            os.kill(pid, signal.SIGKILL)
        ok = ok and s.wait_for("exited with status", end)
        s.send("version")
        ok = ok and s.wait_for("ptdb version", end)
    finally:
        s.close()
    if ok:
        results.ok(name)
    else:
        results.fail(name, "".join(s.out[-30:]))


CLASSES = os.path.join(ROOT, "tests", "programs", "watch_classes")
# (watchpoint set arguments) in the order the fixture makes the accesses
CLASS_WATCHES = (
    ("pointer", "expression -w write -s 8 -- &w_ptr"),
    ("memcpy", "expression -w write -s 4 -- (char *)w_copy + 40"),
    ("memset", "expression -w write -s 2 -- (char *)w_set + 46"),
    ("rep stos", "expression -w write -s 8 -- &w_rep[20]"),
    ("push", "expression -w write -s 8 -- &w_stack[31]"),
    ("read", "expression -w read -s 8 -- &w_read"),
    ("xchg", "expression -w write -s 8 -- &w_xchg"),
    ("cmpxchg", "expression -w read_write -s 8 -- &w_cas"),
    ("vector", "expression -w write -s 8 -- &w_vec[3]"),
)


def class_stops(engine):
    """The stops of watch_classes under an engine: per watchpoint, the
    lines that describe its stop, and the last 'watchpoint list' line
    that says how they were checked."""
    argv = [PTDB, "-b", "-o", "settings set target.hardware-watchpoints false",
            "-o", "settings set trace.software.engine " + engine,
            "-o", "file " + CLASSES, "-o", "b main", "-o", "r"]
    for _, w in CLASS_WATCHES:
        argv += ["-o", "watchpoint set " + w, "-o", "c", "-o", "p/x $pc",
                 "-o", "watchpoint list -b", "-o", "watchpoint delete"]
    argv += ["-o", "c"]
    p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", timeout=600)
    stops, cur, how = [], None, ""
    for line in p.stdout.splitlines():
        if line.startswith("Watchpoint ") and line.endswith(" hit:"):
            cur = [line]
            stops.append(cur)
        elif cur is not None and (line.startswith(("old value:", "new value:", "* thread #",
                                                   "    frame #0:", "(unsigned long) $"))):
            cur.append(line)
        elif line.startswith("Watchpoints are checked by:"):
            how = line
    return stops, how, p.stdout


def cache_exact():
    name = "watch W3 code-cache checks stop where single-stepping does"
    if not os.path.exists(CLASSES):
        results.fail(name, "%s is not built (make programs)" % CLASSES)
        return
    ref, _, ref_out = class_stops("ptrace")
    got, how, out = class_stops("cache")
    m = re.search(r"code cache: (\d+) entries, (\d+) checks trapped", how)
    why = None
    if len(ref) != len(CLASS_WATCHES):
        why = "single-stepping stopped %d times, not %d:\n%s" % (len(ref), len(CLASS_WATCHES),
                                                                ref_out[-3000:])
    elif not m or int(m.group(1)) == 0 or int(m.group(2)) < len(CLASS_WATCHES):
        why = "the code cache was not used (%r):\n%s" % (how, out[-3000:])
    else:
        for (what, _), a, b in zip(CLASS_WATCHES, ref, got + [[]] * len(ref)):
            if a != b:
                why = "%s: single-stepping stopped with\n  %s\nthe code cache with\n  %s" % (
                    what, "\n  ".join(a), "\n  ".join(b))
                break
    if why:
        results.fail(name, why)
    else:
        results.ok(name)


def run_all():
    if not os.path.exists(SPIN):
        results.fail("watch", "%s is not built (make programs)" % SPIN)
        return
    cache_exact()
    for hw in (False, True):
        interrupted(hw)
        killed_outside(hw)
    import glob
    import transcripts
    tmpdir = os.path.join(ROOT, "tests", "out")
    os.makedirs(tmpdir, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "transcripts", "017*-watchpoint*.test"))):
        transcripts.run_one(path, tmpdir, label="watch software",
                            pre=("settings set target.hardware-watchpoints false",))


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
