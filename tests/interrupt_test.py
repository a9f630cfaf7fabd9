"""Interrupts reach ptdb in every state, and a detached process runs on.

Every wait here is for a condition (a line of ptdb's output, a state of a
process in /proc), never for a time; the deadlines only turn a hang into
a failure.

  I1  attached, native continue, the thread blocked in read(2): SIGINT
      stops it; detach leaves it running, breakpoint bytes gone
  I2  attached, traced continue, blocked in read(2): SIGINT stops it (the
      collector's wait is interruptible); detach leaves it running
  I3  attached, traced continue, running its own code: SIGINT stops it;
      detach leaves it running, not in state T
  I4  attached, traced, blocked: SIGTERM detaches cleanly, exit 143
  I5  attached, traced, blocked: SIGHUP detaches cleanly, exit 129
  I6  launched, traced, blocked: SIGTERM kills it, exit 143
  I7  launched, native continue, running its own code: kill -INT to ptdb
      (not the terminal's Ctrl-C) stops it, twice in a row
  I8  attached, native continue: kill -9 to ptdb leaves the process alive
      and running (attached processes are not killed with their tracer)
  I9  attached, a SIGSTOP from outside stops it: detach leaves it running
"""
import os
import signal
import subprocess

import results
from process_test import file_bytes, func_addr, mem_bytes, state
from session import DEADLINE, Session, syscall_nr, until

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXE = os.path.join(ROOT, "tests", "programs", "rel_block")


def inferior(mode):
    args = [EXE] + (["spin"] if mode == "spin" else [])
    return subprocess.Popen(args, stdin=subprocess.DEVNULL)


def blocked(pid):
    """The process sits in read(2) (syscall 0)."""
    return syscall_nr(pid) == "0"


def runs_on(pid, why):
    """pid runs on, untraced, with code bytes as in the file."""
    ok = until(lambda: state(pid)[1] == 0 and state(pid)[0] not in (None, "t", "T"), 10)
    st, tracer = state(pid)
    if not ok:
        why.append("process state %r, tracer %d after ptdb left" % (st, tracer))
    for fn in ("never_called", "work"):
        a = func_addr(EXE, fn)
        try:
            if st is not None and mem_bytes(pid, a, 16) != file_bytes(EXE, a, 16):
                why.append("%s's code differs from the file's" % fn)
        except OSError:
            why.append("the process is gone")
            return


def done(name, why, out, *procs):
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()
    if why:
        return results.fail(name, "\n".join(why) + "\n" + out[-2500:])
    results.ok(name)


def attached_sigint(name, mode, traced):
    p = inferior(mode)
    if mode == "block" and not until(lambda: blocked(p.pid)):
        return done(name, ["the fixture never blocked in read"], "", p)
    s = Session()
    s.send("attach %d" % p.pid, "b never_called")
    if traced:
        s.send("thread trace start")
    s.send("c")
    why = []
    at = s.wait_for("Process %d resuming" % p.pid)
    if at is None:
        why.append("no 'resuming' line")
    elif mode == "block" and not until(lambda: blocked(p.pid)):
        why.append("the thread never got back into read")
    elif s.interrupt_detach(p.pid, why, at):
        runs_on(p.pid, why)
    s.send("quit")
    if s.finish() is None:
        why.append("ptdb did not quit")
    done(name, why, s.output(), p)


def attached_term(name, sig):
    p = inferior("block")
    if not until(lambda: blocked(p.pid)):
        return done(name, ["the fixture never blocked in read"], "", p)
    s = Session()
    s.send("attach %d" % p.pid, "b never_called", "thread trace start", "c")
    why = []
    if s.wait_for("Process %d resuming" % p.pid) is None or not until(lambda: blocked(p.pid)):
        why.append("never resumed into read")
    else:
        s.p.send_signal(sig)
        rc = s.finish()
        want = "ptdb: %s received: detached from process %d" % (sig.name, p.pid)
        if want not in s.output():
            why.append("missing %r" % want)
        if rc != 128 + sig:
            why.append("exit status %s, want %d" % (rc, 128 + sig))
        runs_on(p.pid, why)
    s.finish()
    done(name, why, s.output(), p)


def launched_term(name):
    s = Session()
    s.send("file " + EXE, "b main", "r", "thread trace start", "c")
    why = []
    at = s.wait_for("stop reason = breakpoint 1.1")
    m = [l for l in s.output().splitlines() if " launched: " in l]
    pid = int(m[0].split()[1]) if m else None
    if at is None or pid is None or s.wait_for("Process %d resuming" % pid, at) is None:
        why.append("never resumed")
    elif not until(lambda: blocked(pid)):
        why.append("the traced thread never blocked in read")
    else:
        s.p.send_signal(signal.SIGTERM)
        rc = s.finish()
        if "ptdb: SIGTERM received: killing process %d" % pid not in s.output():
            why.append("no 'killing process' line")
        if rc != 128 + signal.SIGTERM:
            why.append("exit status %s" % rc)
        if not until(lambda: state(pid)[0] in (None, "Z", "X"), 10):
            why.append("the launched process survived")
    s.finish()
    done(name, why, s.output())


def launched_kill_int(name):
    s = Session()
    s.send("file " + EXE, "settings set target.run-args spin", "r")
    why = []
    start = 0
    for round_ in (1, 2):
        at = s.wait_for(" launched: " if round_ == 1 else "resuming", start)
        if at is None:
            why.append("round %d: not running" % round_)
            break
        s.p.send_signal(signal.SIGINT)
        start = s.wait_for("stop reason = signal SIGSTOP", at)
        if start is None:
            why.append("round %d: kill -INT did not stop the process" % round_)
            break
        if round_ == 1:
            s.send("c")
    s.send("kill", "quit")
    if s.finish() is None:
        why.append("ptdb did not quit")
    done(name, why, s.output())


def attached_kill9(name):
    p = inferior("block")
    if not until(lambda: blocked(p.pid)):
        return done(name, ["the fixture never blocked in read"], "", p)
    s = Session()
    s.send("attach %d" % p.pid, "c")
    why = []
    if s.wait_for("Process %d resuming" % p.pid) is None or not until(lambda: blocked(p.pid)):
        why.append("never resumed into read")
    else:
        s.p.kill()
        s.finish()
        if not until(lambda: state(p.pid)[1] == 0, 10):
            why.append("still traced")
        st, _ = state(p.pid)
        if st in (None, "Z", "X"):
            why.append("the attached process died with ptdb")
        elif st in ("t", "T"):
            why.append("left stopped (state %s)" % st)
    done(name, why, s.output(), p)


def outside_sigstop(name):
    p = inferior("spin")
    s = Session()
    s.send("attach %d" % p.pid, "b never_called", "c")
    why = []
    at = s.wait_for("Process %d resuming" % p.pid)
    if at is None:
        why.append("no 'resuming' line")
    else:
        os.kill(p.pid, signal.SIGSTOP)
        if s.wait_for("stop reason = signal SIGSTOP", at) is None:
            why.append("the outside SIGSTOP was not reported")
        else:
            s.send("detach")
            if s.wait_for("Process %d detached" % p.pid, at) is None:
                why.append("no 'detached' line")
            else:
                runs_on(p.pid, why)
    s.send("quit")
    s.finish()
    done(name, why, s.output(), p)


def run_all():
    attached_sigint("I1 attached, native, blocked in read: SIGINT, detach runs on", "block", False)
    attached_sigint("I2 attached, traced, blocked in read: SIGINT, detach runs on", "block", True)
    attached_sigint("I3 attached, traced, own code: SIGINT, detach runs on (not T)", "spin", True)
    attached_term("I4 attached, traced, blocked: SIGTERM detaches", signal.SIGTERM)
    attached_term("I5 attached, traced, blocked: SIGHUP detaches", signal.SIGHUP)
    launched_term("I6 launched, traced, blocked: SIGTERM kills it")
    launched_kill_int("I7 launched, native, own code: kill -INT stops it, twice")
    attached_kill9("I8 attached: kill -9 to ptdb leaves the process running")
    outside_sigstop("I9 attached, stopped by an outside SIGSTOP: detach runs on")


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
