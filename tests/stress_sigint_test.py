"""Interrupt storms and attach cycles on a traced 4-thread program
(tests/programs/rel_spin4: four threads calling work() without pause).
One ptdb session attaches to it; the program must never die nor change.

  X1  cache engine: SIGINT to ptdb at random moments while the process
      runs traced, each followed by 'c': every interrupt is one stop,
      'stop reason = signal SIGSTOP', every thread at a pc of the
      program's (none inside the engine's code cache), no error line;
      after 'detach' the program runs on, untraced, its .text equal to
      the file's, its mappings the ones it had before the attach.  (The
      engine once lost a thread when the interrupt's SIGSTOP came while
      it stepped that thread out of a stub at the end of its turn: the
      thread's pc stayed in the cache, the next 'c' died of SIGSEGV.)
  X2  the same under the ptrace engine
  X3  attach, 'b work', 'c' (a breakpoint stop), 'process trace start',
      'c' (traced, a breakpoint stop), 'breakpoint delete', 'c', a SIGINT
      at a random moment, 'detach': the program runs on, untraced, .text
      and mappings as before; repeated, in one ptdb session
  X4  SIGHUP (a closed terminal) or SIGTERM to ptdb at a random moment of
      a traced continue, both engines: ptdb exits 128 + the signal, the
      program runs on, untraced, .text and mappings as before (a record
      buffer or region whose mapping a signal interrupted stayed mapped)

After setup (X3's traced stop) and after detach or ptdb's end, no
descriptor of the program's is a memfd of ptdb's (the control page's,
closed at once or, when a signal stopped the injected close, at the next
chance: tests/unit/test-cache-inject.c interrupts that close for sure).

The counts: 20 interrupts per engine and 10 cycles in 'make check';
PTDB_STRESS_FULL=1 runs 200 interrupts per engine and 100 cycles (X4: 8
and 40 sessions).  A
random moment is a number of work() calls (counter[] read from
/proc/PID/mem) drawn from a seeded generator: PTDB_STRESS_SEED=N repeats a
run, and a failure prints the seed.  Every wait is for a condition; the
deadlines only turn a hang into a failure.
"""
import os
import random
import re
import signal
import struct
import subprocess
import time

import results
from process_test import func_addr, state, thread_ticks
from session import Session, until

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = os.path.join(ROOT, "tests", "programs", "rel_spin4")
FULL = bool(os.environ.get("PTDB_STRESS_FULL"))
INTERRUPTS = 200 if FULL else 20
CYCLES = 100 if FULL else 10
HANGUPS = 40 if FULL else 8
STEP_DEADLINE = 60.0


def elf_section(path, name):
    """(address, file offset, size) of section name of a non-PIE ELF."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)

    def sh(i):
        return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    for i in range(shnum):
        nm, _, _, addr, off, size = sh(i)
        end = data.index(b"\0", stroff + nm)
        if data[stroff + nm:end].decode() == name:
            return addr, off, size
    raise RuntimeError("no section %s in %s" % (name, path))


def text_differs(pid):
    """'' if the process's .text equals the file's, else where not."""
    addr, off, size = elf_section(EXE, ".text")
    with open(EXE, "rb") as f:
        f.seek(off)
        want = f.read(size)
    with open("/proc/%d/mem" % pid, "rb") as f:
        f.seek(addr)
        got = f.read(size)
    if got == want:
        return ""
    i = next(k for k in range(size) if got[k] != want[k])
    return ".text differs from the file's at 0x%x: %s, file %s" % (addr + i, got[i:i + 8].hex(),
                                                                     want[i:i + 8].hex())


def maps(pid):
    """The process's mappings (range, permissions, path)."""
    with open("/proc/%d/maps" % pid) as f:
        return [(l.split()[0], l.split()[1], l.split()[5] if len(l.split()) > 5 else "") for l in f]


def ptdb_fds(pid):
    """The process's descriptors that are a memfd of ptdb's (the cache
    engine's control page: mapped, its descriptor closed at once)."""
    found = []
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if link.startswith("/memfd:ptdb"):
                found.append("%s -> %s" % (fd, link))
    except OSError:
        pass
    return found


COUNTER = []


def calls(pid):
    """work() calls so far (the sum of counter[]), or None once gone."""
    try:
        with open("/proc/%d/mem" % pid, "rb") as f:
            f.seek(COUNTER[0])
            return sum(struct.unpack("<4Q", f.read(32)))
    except (OSError, struct.error):
        return None


def random_moment(pid, rng, most):
    """Waits for a random number of work() calls (0: none, else up to
    most): a moment of the generator's choosing, whatever the load."""
    n = rng.choice([0, rng.randrange(1, 64), rng.randrange(64, 1 << 12), rng.randrange(1 << 12, most)])
    start = calls(pid)
    if n and start is not None:
        until(lambda: (calls(pid) or start) - start >= n or state(pid)[0] in (None, "Z", "X"),
              STEP_DEADLINE)


def runs_on(p, before):
    """'' if p runs on by itself, untraced, every thread advancing, its
    .text and mappings as before the attach; else why not."""
    st0 = thread_ticks(p.pid)
    ok = until(lambda: p.poll() is None and state(p.pid)[1] == 0 and
               state(p.pid)[0] not in (None, "t", "T") and len(thread_ticks(p.pid)) == 4 and
               all(v >= st0.get(t, 0) + 2 for t, v in thread_ticks(p.pid).items()), STEP_DEADLINE)
    if p.poll() is not None:
        return "the program died: %s" % ("signal %d" % -p.returncode if p.returncode < 0
                                          else "status %d" % p.returncode)
    if not ok:
        return "the threads do not run on: state %s, ticks %s then %s" % (state(p.pid), st0, thread_ticks(p.pid))
    w = text_differs(p.pid)
    if w:
        return w
    now = maps(p.pid)
    if now != before:
        return "mappings changed: %s" % sorted(set(now) ^ set(before))
    if ptdb_fds(p.pid):
        return "descriptors of ptdb's left: %s" % ptdb_fds(p.pid)
    return ""


def thread_pcs_ok(out):
    """'' if every thread of a 'thread list' is at a function of the
    program's (none in a code cache, where no symbol is), else why not."""
    lines = [l for l in out.splitlines() if re.match(r"[* ] thread #\d+", l)]
    if len(lines) != 4:
        return "thread list shows %d threads" % len(lines)
    bad = [l for l in lines if "rel_spin4`" not in l]
    return "threads not at the program's code: %s" % bad if bad else ""


class Storm:
    """One ptdb session attached to a fresh rel_spin4."""

    def __init__(self, name):
        self.name = name
        self.seed = int(os.environ.get("PTDB_STRESS_SEED") or random.randrange(1 << 31))
        self.rng = random.Random(self.seed)
        if not COUNTER:
            COUNTER.append(func_addr(EXE, "counter"))
        self.p = subprocess.Popen([EXE], stdin=subprocess.DEVNULL)
        until(lambda: len(thread_ticks(self.p.pid)) == 4 and calls(self.p.pid), STEP_DEADLINE)
        self.before = maps(self.p.pid)
        self.s = Session()
        self.at = 0
        self.why = []
        self.most = 1 << 20

    def expect(self, text, what):
        """Waits for a line holding text (an error line ends the wait)."""
        found = []

        def seen():
            with self.s.cv:
                for i in range(self.at, len(self.s.lines)):
                    if text in self.s.lines[i] or self.s.lines[i].startswith("error:"):
                        found.append(i)
                        return True
            return self.s.eof
        until(seen, STEP_DEADLINE)
        if not found or text not in self.s.lines[found[0]]:
            self.why.append("%s: no %r%s" % (what, text, ", but " + self.s.lines[found[0]].strip()
                                             if found else ""))
            return False
        self.at = found[0] + 1
        return True

    def quiet(self, what):
        """No error line, no unexpected stop since the last check."""
        out = self.s.output()
        bad = [l for l in out.splitlines()[self.mark:] if l.startswith("error:") or "lost thread" in l]
        self.mark = len(out.splitlines())
        if bad:
            self.why.append("%s: %s" % (what, bad[0]))
        return not bad

    def interrupt(self, what):
        """'c', a random moment, SIGINT: one SIGSTOP stop, threads at
        the program's pcs."""
        self.s.send("c")
        if not self.expect("Process %d resuming" % self.p.pid, what):
            return False
        random_moment(self.p.pid, self.rng, self.most)
        self.s.p.send_signal(signal.SIGINT)
        if not self.expect("stop reason = ", what):
            return False
        stop = self.s.lines[self.at - 1]
        if "stop reason = signal SIGSTOP" not in stop:
            self.why.append("%s: stopped with %r" % (what, stop.strip()))
            return False
        start = self.at
        self.s.send("thread list", "version")
        if not self.expect("ptdb version", what):
            return False
        w = thread_pcs_ok("".join(self.s.lines[start:self.at]))
        if w:
            self.why.append("%s: %s" % (what, w))
        return not w and self.quiet(what)

    def done(self):
        self.s.send("quit")
        self.s.finish()
        if self.p.poll() is None:
            w = runs_on(self.p, self.before)
            if w and not self.why:
                self.why.append("after quit: " + w)
            self.p.kill()
        else:
            self.why.append("the program died: status %s" % self.p.returncode)
        self.p.wait()
        if self.why:
            out = self.s.output()
            return results.fail(self.name, "seed %d (PTDB_STRESS_SEED=%d repeats it)\n%s\n%s" % (
                self.seed, self.seed, "\n".join(self.why[:10]), out[-3000:]))
        results.ok(self.name)


def storm(name, engine, n):
    x = Storm(name)
    x.mark = 0
    # (the ptrace engine runs work() some 100 times slower)
    x.most = 1 << 20 if engine == "cache" else 1 << 14
    x.s.send("settings set trace.software.engine " + engine, "process attach -p %d" % x.p.pid)
    x.expect("Process %d stopped" % x.p.pid, "attach")
    x.s.send("process trace start")
    t0 = time.time()
    done = 0
    for i in range(n):
        if x.why or not x.interrupt("interrupt %d of %d" % (i + 1, n)):
            break
        done += 1
    if not x.why:
        x.s.send("detach")
        if x.expect("Process %d detached" % x.p.pid, "detach"):
            w = runs_on(x.p, x.before)
            if w:
                x.why.append("after detach: " + w)
    print("# stress_sigint %s engine: %d interrupts in %.1f s, seed %d" % (engine, done, time.time() - t0,
                                                                           x.seed))
    x.done()


def cycles(name, n):
    x = Storm(name)
    x.mark = 0
    x.most = 1 << 16
    t0 = time.time()
    done = 0
    for i in range(n):
        what = "cycle %d of %d" % (i + 1, n)
        x.s.send("process attach -p %d" % x.p.pid, "b work")
        if not x.expect("Process %d stopped" % x.p.pid, what):
            break
        for traced in (0, 1):
            if traced:
                x.s.send("process trace start")
            x.s.send("c")
            # (past the resume: a stop lists every thread that hit the
            # breakpoint, each line with its reason, and the last stop's
            # second thread is no sign of this one)
            if not x.expect("Process %d resuming" % x.p.pid, what) or \
               not x.expect("stop reason = breakpoint ", what) or not x.quiet(what):
                break
            if traced and ptdb_fds(x.p.pid):
                # (the engine set up: its memfd mapped, the descriptor closed)
                x.why.append("%s, traced stop: descriptors of ptdb's: %s" % (what, ptdb_fds(x.p.pid)))
                break
        if x.why:
            break
        x.s.send("breakpoint delete")
        if not x.interrupt(what):
            break
        x.s.send("detach")
        if not x.expect("Process %d detached" % x.p.pid, what):
            break
        w = runs_on(x.p, x.before)
        if w:
            x.why.append("%s, after detach: %s" % (what, w))
            break
        done += 1
    print("# stress_sigint: %d attach/trace/detach cycles in %.1f s, seed %d" % (done, time.time() - t0, x.seed))
    x.done()


def hangup(name, n):
    """SIGHUP (a closed terminal) or SIGTERM to ptdb at a random moment of
    a traced continue, n sessions in turn, both engines."""
    why, seeds, t0 = [], [], time.time()
    for i in range(n):
        sig = (signal.SIGHUP, signal.SIGTERM)[i % 2]
        engine = ("cache", "cache", "ptrace", "ptrace")[i % 4]
        x = Storm(name)
        x.mark = 0
        seeds.append(x.seed)
        x.s.send("settings set trace.software.engine " + engine, "process attach -p %d" % x.p.pid)
        if x.expect("Process %d stopped" % x.p.pid, "attach"):
            x.s.send("process trace start", "c")
            if x.expect("Process %d resuming" % x.p.pid, "c"):
                random_moment(x.p.pid, x.rng, 1 << 20 if engine == "cache" else 1 << 14)
                x.s.p.send_signal(sig)
                rc = x.s.finish()
                if rc != 128 + sig:
                    x.why.append("ptdb's exit status %s, want %d" % (rc, 128 + sig))
                w = runs_on(x.p, x.before)
                if w:
                    x.why.append(w)
        x.s.finish()
        x.p.kill()
        x.p.wait()
        if x.why:
            why.append("%s, %s engine, seed %d: %s\n%s" % (sig.name, engine, x.seed, "; ".join(x.why),
                                                             x.s.output()[-1500:]))
            break
    print("# stress_sigint: %d SIGHUP/SIGTERM sessions in %.1f s" % (n, time.time() - t0))
    if why:
        return results.fail(name, "\n".join(why))
    results.ok(name)


def run_all():
    storm("X1 cache engine: %d interrupts of 4 traced threads" % INTERRUPTS, "cache", INTERRUPTS)
    storm("X2 ptrace engine: %d interrupts of 4 traced threads" % INTERRUPTS, "ptrace", INTERRUPTS)
    cycles("X3 %d attach/trace/detach cycles on 4 threads" % CYCLES, CYCLES)
    hangup("X4 SIGHUP/SIGTERM to ptdb in %d traced continues: the program runs on untouched" % HANGUPS,
           HANGUPS)


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
