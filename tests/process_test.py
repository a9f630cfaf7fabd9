"""Processes are never left behind, nor changed by ptdb going away:

  P1  launch, kill -9 ptdb: the inferior dies with it (PTRACE_O_EXITKILL)
  P2  attach, SIGTERM ptdb while 'continue' runs (batch): the process runs
      on, untraced, its code bytes equal to the file's (breakpoints gone)
  P3  attach, stop at a breakpoint, SIGTERM/SIGHUP ptdb at the prompt: same
  P4  attach to a pid that does not exist: one error line, session goes on
  P5  attach without permission (as 'nobody' when root): the error names
      ptrace permissions
  P6  the inferior forks with a breakpoint in the code the child runs: the
      child is detached, runs it and exits by itself (traced or not)
  P7  the inferior SIGKILLs itself while traced: reported, session goes on
  P8  the inferior execs another program while traced: tracing ends at the
      exec stop, the new program runs to its breakpoint and exits
  P9  settings set target.follow-fork child: the child is debugged (stops
      at its breakpoint, its exit is the process's), the parent runs on
  P11 the program rebuilt between 'b main' and 'r': read again at 'r' (the
      breakpoint lands on the new main, no byte of the old address planted
      into the new code)
  P12 the program deletes its own file while traced: frames keep their
      symbols after a later library load, 'trace save' keeps its module
  P13 attach to 4 threads calling work() without pause, stop at a
      breakpoint there, kill -9 ptdb at the prompt: the process runs on
      (no breakpoint byte in memory while stopped, no SIGTRAP queued),
      work()'s code equal to the file's; 10 times
  P14 attach to a program whose file was deleted after it started: read
      through /proc/PID/exe, shown by its path: bt reaches main
  P15 SIGUSR1 then SIGUSR2 sent to a running thread, 20 times (passed,
      not stopping: 'process handle'): its handlers count both every time,
      untraced and traced ('thread trace start' with both engines, 'process
      trace start' with the cache engine: the ptrace engine steps the
      sender's waits one by one, a minute).  (The cache engine, stepping the thread out of its
      code cache after the first signal's stop, took the second's stop and
      dropped it: one thread carries one signal to its resume.)
  P16 a fast timer (20 us) ticks in an attached program traced with
      either engine: once ptdb holds a tick (SIGALRM in the thread's mask),
      detach at an interrupt, SIGTERM and SIGHUP (its terminal closing) each
      leave the program running with its own mask, its ticks delivered
  P17 the same timer while the program forks (fork passes the mask on: the
      children's masks are their own, and the forks go on, not stalled
      before the call by each tick) or sleeps (a tick ptdb holds interrupted
      the call: restarted where it was, not 2 bytes before the cache pc)
"""
import os
import re
import signal
import struct
import subprocess
import threading
import time

import results
from session import Session, until

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
PROG = os.path.join(ROOT, "tests", "programs")
STALL = 300


def batch(args, timeout=60):
    p = subprocess.run([PTDB, "-b"] + args, cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def cmds(*lines):
    out = []
    for l in lines:
        out += ["-o", l]
    return out


def state(pid):
    """The process's state letter, and its tracer; (None, 0) when gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read().rsplit(")", 1)[1].split()[0]
        with open("/proc/%d/status" % pid) as f:
            tracer = [int(l.split()[1]) for l in f if l.startswith("TracerPid:")][0]
        return st, tracer
    except (OSError, IndexError):
        return None, 0


def thread_ticks(pid):
    """{tid: utime + stime} of the process's threads (empty once gone)."""
    out = {}
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/stat" % (pid, t)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[int(t)] = int(fields[11]) + int(fields[12])
    except OSError:
        pass
    return out


def gone(pid, timeout=5.0):
    end = time.time() + timeout
    while time.time() < end:
        st, _ = state(pid)
        if st in (None, "Z", "X"):
            return True
        time.sleep(0.05)
    return False


def func_addr(path, name):
    """The address of symbol name in the executable at path (nm)."""
    out = subprocess.run(["nm", path], capture_output=True, text=True).stdout
    for l in out.splitlines():
        f = l.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    raise RuntimeError("no symbol %s in %s" % (name, path))


def file_bytes(path, addr, n):
    """n bytes of the (non-PIE) ELF file as loaded at addr."""
    data = open(path, "rb").read()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        typ, _, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if typ == 1 and vaddr <= addr < vaddr + filesz:
            o = off + addr - vaddr
            return data[o:o + n]
    raise RuntimeError("0x%x not in a loaded segment" % addr)


def mem_bytes(pid, addr, n):
    with open("/proc/%d/mem" % pid, "rb") as f:
        f.seek(addr)
        return f.read(n)


def spinner():
    # Popen returns once the program is exec'd: attaching works from there
    return subprocess.Popen([os.path.join(PROG, "rel_spin")])


def check_untouched(name, p, out, extra_ok=True):
    """p runs on untraced with never_called/work as in the file."""
    exe = os.path.join(PROG, "rel_spin")
    why = []
    # ptdb has exited (or detached): wait for the process to be seen running
    end = time.time() + 10
    while time.time() < end and (state(p.pid)[0] or "X") in "tT":
        time.sleep(0.01)
    st, tracer = state(p.pid)
    if st is None or st in "tTZX":
        why.append("process state %r after ptdb left" % st)
    if tracer:
        why.append("still traced by %d" % tracer)
    for fn in ("never_called", "work"):
        a = func_addr(exe, fn)
        if st is not None and mem_bytes(p.pid, a, 16) != file_bytes(exe, a, 16):
            why.append("%s's code differs from the file's: %s vs %s" % (
                fn, mem_bytes(p.pid, a, 16).hex(), file_bytes(exe, a, 16).hex()))
    if not extra_ok:
        why.append("unexpected output")
    p.kill()
    p.wait()
    if why:
        return results.fail(name, "\n".join(why) + "\n" + out[-2000:])
    results.ok(name)


def launch_kill9():
    name = "P1 kill -9 ptdb kills the launched inferior"
    p = subprocess.Popen([PTDB, "-b"] + cmds("file " + os.path.join(PROG, "rel_spin"), "r"),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line, pid = "", None
    end = time.time() + 20
    while time.time() < end and pid is None:
        line = p.stdout.readline()
        if not line:
            break
        if " launched: " in line:
            pid = int(line.split()[1])
    if pid is None:
        p.kill()
        p.wait()
        return results.fail(name, "no 'Process N launched' line: " + line)
    if gone(pid, 0.1):
        p.kill()
        p.wait()
        return results.fail(name, "the inferior was not running before the kill")
    p.send_signal(signal.SIGKILL)
    p.wait()
    if not gone(pid):
        st, tracer = state(pid)
        os.kill(pid, signal.SIGKILL)
        return results.fail(name, "inferior %d survived ptdb (state %s, tracer %d)" % (pid, st, tracer))
    results.ok(name)


def signalled(d, sig, p, name):
    """Sends sig to ptdb d and collects its output; None (and the test
    failed, the inferior p killed) if it does not exit."""
    d.p.send_signal(sig)
    if d.finish() is None:
        p.kill()
        results.fail(name, "ptdb did not exit after %s\n" % sig.name + d.output()[-2000:])
        return None
    return d.output()


def attach_sigterm_running():
    name = "P2 SIGTERM during continue detaches, breakpoints removed"
    p = spinner()
    d = Session(["-b"] + cmds("attach %d" % p.pid, "b never_called", "b work", "c",
                              "breakpoint disable 2", "c"))
    # attached, stopped at work once, running again
    at = d.wait_for("stop reason = breakpoint 2.1")
    if at is None or d.wait_for("Process %d resuming" % p.pid, at) is None:
        d.p.kill()
        d.finish()
        p.kill()
        p.wait()
        return results.fail(name, "never ran on after the stop at work\n" + d.output()[-2000:])
    out = signalled(d, signal.SIGTERM, p, name)
    if out is None:
        return
    want = "ptdb: SIGTERM received: detached from process %d" % p.pid
    ok = want in out and d.p.returncode == 128 + signal.SIGTERM and "stop reason = breakpoint 2.1" in out
    if not ok:
        out = "exit %s, want %r\n%s" % (d.p.returncode, want, out)
    check_untouched(name, p, out, ok)


def attach_sigterm_prompt(sig):
    name = "P3 %s at the prompt detaches, breakpoints removed" % sig.name
    p = spinner()
    d = Session()
    d.send("attach %d" % p.pid, "b never_called", "b work", "c")
    # stopped at work with both breakpoints planted
    if d.wait_for("stop reason = breakpoint 2.1") is None:
        d.p.kill()
        d.finish()
        p.kill()
        p.wait()
        return results.fail(name, "no stop at work\n" + d.output()[-2000:])
    st, tracer = state(p.pid)
    out = signalled(d, sig, p, name)
    if out is None:
        return
    want = "ptdb: %s received: detached from process %d" % (sig.name, p.pid)
    ok = (want in out and d.p.returncode == 128 + sig and "stop reason = breakpoint 2.1" in out
          and tracer == d.p.pid)
    if not ok:
        out = "exit %s, tracer before %d, want %r\n%s" % (d.p.returncode, tracer, want, out)
    check_untouched(name, p, out, ok)


def attach_missing():
    name = "P4 attach to a pid that does not exist"
    t = subprocess.Popen(["true"])
    t.wait()
    rc, out = batch(cmds("attach %d" % t.pid, "version"))
    want = "error: no such process: %d" % t.pid
    lines = out.splitlines()
    if want not in lines or "ptdb version" not in out or rc != 1:
        return results.fail(name, "want %r, exit 1, then version\n%s" % (want, out))
    results.ok(name)


def attach_denied():
    name = "P5 attach without permission names ptrace permissions"
    if os.geteuid() == 0:
        p = spinner()
        target = p.pid
        pre = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    else:
        p, target, pre = None, 1, []
    try:
        r = subprocess.run(pre + [PTDB, "-b"] + cmds("attach %d" % target, "version"), cwd="/",
                           capture_output=True, text=True, timeout=60)
    except FileNotFoundError as e:
        if p:
            p.kill()
        return results.fail(name, "cannot drop privileges: %s" % e)
    out = r.stdout + r.stderr
    if p:
        p.kill()
        p.wait()
    want = ("error: attach to process %d failed (check ptrace permissions, e.g. "
            "/proc/sys/kernel/yama/ptrace_scope): Operation not permitted" % target)
    if want not in out.splitlines() or "ptdb version" not in out:
        return results.fail(name, "want %r\n%s" % (want, out))
    results.ok(name)


def fork_child(traced):
    name = "P6 forked child detached and runs on" + (" (tracing)" if traced else "")
    run = ["b main", "r", "process trace start", "c"] if traced else ["r"]
    rc, out = batch(cmds("file " + os.path.join(PROG, "rel_fork"), "b child_work", *run))
    if "child exited 7" not in out or "exited with status = 0 (0x00000000)" not in out:
        return results.fail(name, out[-3000:])
    results.ok(name)


def self_kill():
    name = "P7 inferior SIGKILLs itself while traced"
    rc, out = batch(cmds("file " + os.path.join(PROG, "rel_selfkill"), "b main", "r",
                         "process trace start", "c", "process status", "version"))
    want = "exited with status = 9 (0x00000009) (signal SIGKILL)"
    if out.count(want) != 2 or "ptdb version" not in out or "error:" in out:
        return results.fail(name, out[-3000:])
    results.ok(name)


def exec_traced():
    name = "P8 exec while traced"
    rc, out = batch(cmds("file " + os.path.join(PROG, "rel_exec"),
                         "settings set target.run-args " + os.path.join(PROG, "trace_loop"),
                         "b main", "r", "process trace start", "c", "thread trace dump info",
                         "c", "c"))
    want = ["stop reason = exec (tracing ended: the traced program was replaced)",
            "error: Process is not being traced",
            "trace_loop`main", "exited with status = 0 (0x00000000)"]
    why = ["missing %r" % w for w in want if w not in out]
    if out.count("error:") != 1:
        why.append("more than the one expected error")
    if why:
        return results.fail(name, "\n".join(why) + "\n" + out[-3000:])
    results.ok(name)


def follow_child():
    name = "P9 target.follow-fork child"
    rc, out = batch(cmds("file " + os.path.join(PROG, "rel_fork"), "settings set target.follow-fork child",
                         "b child_work", "r", "c", "settings set target.follow-fork nope"))
    why = []
    m = re.search(r"Process (\d+) launched", out)
    s = re.search(r"Process (\d+) stopped\n\* thread #1, name = 'rel_fork', stop reason = breakpoint 1\.1", out)
    if not m or not s or m.group(1) == s.group(1):
        why.append("no stop at child_work in a process other than the one launched")
    elif "Process %s exited with status = 7 (0x00000007)" % s.group(1) not in out:
        why.append("the child's exit (7) was not the process's")
    if "child exited 7" not in out:
        why.append("the parent did not run on to its end")
    if "error: invalid value 'nope' for 'target.follow-fork': valid values are parent|child" not in out:
        why.append("bad value not refused")
    if why:
        return results.fail(name, "\n".join(why) + "\n" + out[-3000:])
    results.ok(name)


def killed_while_dumping():
    """The inferior is SIGKILLed from outside while a long trace dump (4.5M
    instructions to a file) is being written: the dump finishes from the
    recorded trace, and the next command says the process exited (and its
    trace went with it), as does process status."""
    name = "P10 inferior killed while a trace dump is computed"
    dump = os.path.join(ROOT, "tests", "out", "killed-dump.txt")
    if os.path.exists(dump):
        os.unlink(dump)
    p = subprocess.Popen([PTDB, "-b"] + cmds("file " + os.path.join(PROG, "trace_long"), "b main", "r",
                                             "thread trace start -s 4MiB", "b 21", "c",
                                             "thread trace dump instructions -a -F " + dump,
                                             "thread trace dump info", "process status", "version"),
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out, pid, killed = [], None, False
    # a hang, not slowness (ASan under load takes minutes), is a failure:
    # ptdb is stopped only after STALL seconds without a line or a byte of
    # the dump
    seen = {"t": time.time(), "size": -1, "lines": 0}

    def progress():
        size = os.path.getsize(dump) if os.path.exists(dump) else -1
        if size != seen["size"] or len(out) != seen["lines"]:
            seen.update(t=time.time(), size=size, lines=len(out))
        return time.time() - seen["t"] > STALL

    def watchdog():
        while p.poll() is None:
            if progress():
                seen["hung"] = True
                p.kill()
                return
            time.sleep(0.05)
    threading.Thread(target=watchdog, daemon=True).start()
    for line in p.stdout:
        out.append(line)
        m = re.match(r"Process (\d+) launched", line)
        if m:
            pid = int(m.group(1))
        if line.startswith("(ptdb) thread trace dump instructions") and pid:
            # the dump is being written once its file has something in it
            until(lambda: (os.path.exists(dump) and os.path.getsize(dump) > 0) or p.poll() is not None,
                  timeout=10 * STALL)
            try:
                os.kill(pid, signal.SIGKILL)
                killed = True
            except ProcessLookupError:
                p.kill()
                p.wait()
                return results.fail(name, "the inferior was gone before the kill\n" + "".join(out)[-3000:])
    rc = p.wait()
    text = "".join(out)
    why = []
    if seen.get("hung"):
        why.append("ptdb made no progress for %d s" % STALL)
    if not killed:
        why.append("the dump never started")
    if rc < 0 or rc > 1:
        why.append("ptdb ended with status %d" % rc)
    last = ""
    if os.path.exists(dump):
        with open(dump) as f:
            for last in f:
                pass
    if "[4500015] 0x" not in last:
        why.append("the dump did not run to its end: its last line is %r" % last)
    gone = "Process %s exited with status = 9 (0x00000009) (signal SIGKILL)" % pid
    if text.count(gone) != 2 or "ptdb version" not in text:
        why.append("the next command and process status did not say the process was gone")
    if why:
        return results.fail(name, "\n".join(why) + "\n" + text[-3000:])
    results.ok(name)


OUT = os.path.join(ROOT, "tests", "out", "process")

REBUILT = [
    # v1: main first; v2: a long function before it, so main moves
    "int main(void) { return 1; }\n",
    "static volatile int sink;\n"
    "__attribute__((noinline)) void pad(void) {\n"
    + "".join("  sink = sink * %d + %d;\n" % (i + 3, i) for i in range(40)) +
    "}\n"
    "int main(void) { pad(); return 42; }\n",
]


def gcc(src_text, exe, extra=()):
    src = exe + ".c"
    with open(src, "w") as f:
        f.write(src_text)
    tmp = exe + ".new"
    subprocess.run(["gcc", "-g", "-O0", "-no-pie", "-o", tmp, src] + list(extra), check=True)
    os.rename(tmp, exe)      # as a build does: a new file at the path


def rebuilt():
    name = "P11 the program rebuilt before 'r' is read again"
    os.makedirs(OUT, exist_ok=True)
    exe = os.path.join(OUT, "rebuilt")
    gcc(REBUILT[0], exe)
    s = Session(["-b", "-s", "-"])
    s.send("file " + exe, "b main")
    at = s.wait_for("Breakpoint 1: where")
    old = func_addr(exe, "main")
    gcc(REBUILT[1], exe)
    new = func_addr(exe, "main")
    s.send("r")
    at = s.wait_for("stop reason", at or 0)
    s.send("breakpoint list", "c")
    s.wait_for("exited with status", at or 0)
    rc = s.finish()
    out = s.output()
    why = []
    if old == new:
        why.append("v2's main did not move (0x%x)" % old)
    if "has changed on disk: read again." not in out:
        why.append("the new file was not said to be read again")
    frame0 = [l for l in out.splitlines() if l.strip().startswith("frame #0:")]
    if "stop reason = breakpoint 1.1" not in out or not frame0 or "rebuilt`main" not in frame0[0]:
        why.append("the breakpoint was not hit in main: %s" % frame0)
    pcs = [int(l.split()[2], 16) for l in frame0 if len(l.split()) > 2]
    if not pcs or not new <= pcs[0] < new + 0x20:
        why.append("stopped at %s, not in v2's main at 0x%x (v1's was 0x%x)"
                   % ([hex(p) for p in pcs], new, old))
    if "exited with status = 42" not in out:
        why.append("v2 did not run to its end")
    if rc is None:
        why.append("ptdb did not exit")
    if why:
        return results.fail(name, "\n".join(why) + "\n" + out[-3000:])
    results.ok(name)


DELETER = r"""
#include <dlfcn.h>
#include <unistd.h>
__attribute__((noinline)) int after(void) { return 7; }
int main(int argc, char **argv) {
    (void)argc;
    unlink(argv[0]);
    dlopen("libm.so.6", RTLD_NOW);   /* a library load: the modules are read again */
    return after();
}
"""


def deleted_exe():
    name = "P12 the program deleted while traced keeps its symbols and module"
    os.makedirs(OUT, exist_ok=True)
    exe = os.path.join(OUT, "deleter")
    saved = os.path.join(OUT, "deleter-bundle")
    subprocess.run(["rm", "-rf", saved], check=True)
    gcc(DELETER, exe, ["-ldl"])
    rc, out = batch(cmds("file " + exe, "b main", "r", "process trace start", "b after", "c", "bt",
                         "trace save " + saved, "kill"), timeout=120)
    why = []
    if os.path.exists(exe):
        why.append("the program did not delete itself")
    if "stop reason = breakpoint 2.1" not in out or "frame #0: 0x" not in out or \
            "deleter`after" not in out or "deleter`main" not in out:
        why.append("the frames lost their symbols")
    try:
        import json
        mods = json.load(open(os.path.join(saved, "trace.json")))["processes"][0]["modules"]
        if not any(m["systemPath"] == exe for m in mods):
            why.append("the bundle lacks the program: %s" % [m["systemPath"] for m in mods])
    except (OSError, ValueError, KeyError, IndexError) as e:
        why.append("no bundle: %s" % e)
    if why:
        return results.fail(name, "\n".join(why) + "\n" + out[-3000:])
    results.ok(name)


def attach_kill9():
    import stress_test
    name = "P13 kill -9 ptdb at a breakpoint stop: the attached process runs on"
    spin4 = os.path.join(PROG, "rel_spin4")
    p = subprocess.Popen([spin4])
    why = []
    for i in range(10):
        d = Session(["-b", "-s", "-"])
        d.send("process attach -p %d" % p.pid, "b work", "c", "version")
        at = d.wait_for("stop reason = breakpoint 1.1")
        # the next command's output: the stop's command is over (parked)
        if at is None or d.wait_for("ptdb version", at) is None:
            why.append("round %d: no stop at work\n%s" % (i, d.output()[-2000:]))
            d.p.kill()
            d.finish()
            break
        d.p.send_signal(signal.SIGKILL)
        d.finish()
        w = stress_test.alive_and_running(p)
        if w:
            why.append("round %d: %s" % (i, w))
            break
    if p.poll() is None:
        p.kill()
    p.wait()
    if why:
        return results.fail(name, "\n".join(why))
    results.ok(name)


def attach_deleted():
    name = "P14 attach to a program deleted after it started"
    os.makedirs(OUT, exist_ok=True)
    exe = os.path.join(OUT, "spin-deleted")
    with open(os.path.join(PROG, "rel_spin"), "rb") as f, open(exe, "wb") as g:
        g.write(f.read())
    os.chmod(exe, 0o755)
    p = subprocess.Popen([exe])
    until(lambda: os.path.exists("/proc/%d/exe" % p.pid) and
          os.readlink("/proc/%d/exe" % p.pid) == exe)
    os.unlink(exe)
    rc, out = batch(cmds("process attach -p %d" % p.pid, "bt", "image list", "detach"))
    p.kill()
    p.wait()
    why = []
    if 'Executable module set to "%s".' % exe not in out:
        why.append("the program was not set by its path")
    if "spin-deleted`main" not in out:
        why.append("the frames lack main")
    if " 0x0000000000400000 %s\n" % exe not in out:
        why.append("image list does not show it by its path")
    if why:
        return results.fail(name, "\n".join(why) + "\n" + out[-3000:])
    results.ok(name)


def signal_pair(engine, trace):
    name = "P15 two signals for one thread, both delivered (%s)" % (
        "untraced" if not trace else "%s, %s engine" % (trace, engine))
    run = ["b main", "r", trace, "c"] if trace else ["r"]
    rc, out = batch(cmds("settings set trace.software.engine " + engine,
                         "file " + os.path.join(PROG, "sig_pair"),
                         "process handle SIGUSR1 SIGUSR2 -s false -n false -p true", *run), timeout=STALL)
    if "usr1 20 usr2 20 of 20" not in out or "exited with status = 0 (0x00000000)" not in out or \
       "error:" in out:
        return results.fail(name, out[-3000:])
    results.ok(name)


TIMER = os.path.join(PROG, "rel_timer")


def timer_vars(pid):
    """rel_timer's [ticks, rounds, masked]; None once it is gone."""
    try:
        with open("/proc/%d/mem" % pid, "rb") as f:
            out = []
            for n in ("ticks", "rounds", "masked"):
                f.seek(func_addr(TIMER, n))
                out.append(struct.unpack("<Q", f.read(8))[0])
            return out
    except OSError:
        return None


def alarm_blocked(pid):
    """1 if a thread of pid has SIGALRM in its mask (SigBlk), 0 if none,
    None once gone."""
    bit = 1 << (signal.SIGALRM - 1)
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/status" % (pid, t)) as f:
                if any(l.startswith("SigBlk:") and int(l.split()[1], 16) & bit for l in f):
                    return 1
    except OSError:
        return None
    return 0


def timer_goes_on(pid, why, rounds=3):
    """The timer's ticks and the program's rounds go on (None: gone)."""
    v0 = timer_vars(pid)
    if v0 is None or not until(lambda: (timer_vars(pid) or [0, 0])[0] > v0[0] + 50 and
                               (timer_vars(pid) or [0, 0])[1] >= v0[1] + rounds, 60):
        why.append("ticks and rounds %s, then %s" % (v0, timer_vars(pid)))


def timer_runs_on(pid, why):
    """After ptdb left: untraced, running, SIGALRM not blocked, ticking."""
    if not until(lambda: state(pid)[1] == 0 and (state(pid)[0] or "X") not in "tTZX", 10):
        why.append("process state %r, tracer %d after ptdb left" % state(pid))
        return
    # (the kernel blocks it while the handler runs: seen unblocked once)
    if not until(lambda: alarm_blocked(pid) == 0, 10):
        why.append("SIGALRM still blocked in the program's mask")
    timer_goes_on(pid, why, 1)


def timer_session(engine, mode):
    """rel_timer 20 MODE attached and traced with engine, running: (p, s,
    index past its 'resuming' line or None)."""
    p = subprocess.Popen([TIMER, "20"] + ([mode] if mode else []), stdout=subprocess.DEVNULL)
    s = Session()
    s.send("settings set trace.software.engine " + engine, "attach %d" % p.pid,
           "thread trace start", "c")
    return p, s, s.wait_for("Process %d resuming" % p.pid)


def timer_held_detach(engine, how):
    name = "P16 a held tick's mask bit gone after %s (%s engine)" % (how, engine)
    p, s, at = timer_session(engine, None)
    why = []
    # (a tick held: ptdb's bit in the thread's mask)
    if at is None or not until(lambda: alarm_blocked(p.pid) == 1):
        why.append("no tick held while traced")
    elif how == "detach":
        s.interrupt_detach(p.pid, why, at)
    else:
        sig = signal.SIGTERM if how == "SIGTERM" else signal.SIGHUP
        s.p.send_signal(sig)
        if s.finish() != 128 + sig:
            why.append("ptdb's exit status %s" % s.p.returncode)
    if not why:
        timer_runs_on(p.pid, why)
    if s.p.poll() is None:
        s.send("quit")
    s.finish()
    out = s.output()
    p.kill()
    p.wait()
    if why:
        return results.fail(name, "\n".join(why) + "\n" + out[-2000:])
    results.ok(name)


def timer_calls(engine, mode):
    name = "P17 a 20 us timer while the program %ss (%s engine): it goes on" % (mode, engine)
    p, s, at = timer_session(engine, mode)
    why = []
    if at is None:
        why.append("no 'resuming' line")
    else:
        timer_goes_on(p.pid, why)
        v = timer_vars(p.pid)
        if v and v[2]:
            why.append("%d children with SIGALRM blocked" % v[2])
        if s.interrupt_detach(p.pid, why, at, stop="stop reason ="):
            timer_runs_on(p.pid, why)
    s.send("quit")
    s.finish()
    out = s.output()
    if "error:" in out:
        why.append("an error")
    p.kill()
    p.wait()
    if why:
        return results.fail(name, "\n".join(why) + "\n" + out[-2000:])
    results.ok(name)


def run_all():
    attach_deleted()
    attach_kill9()
    rebuilt()
    deleted_exe()
    killed_while_dumping()
    launch_kill9()
    attach_sigterm_running()
    attach_sigterm_prompt(signal.SIGTERM)
    attach_sigterm_prompt(signal.SIGHUP)
    attach_missing()
    attach_denied()
    fork_child(False)
    fork_child(True)
    self_kill()
    exec_traced()
    follow_child()
    signal_pair("cache", None)
    signal_pair("cache", "thread trace start")
    signal_pair("cache", "process trace start")
    signal_pair("ptrace", "thread trace start")
    for engine in ("ptrace", "cache"):
        for how in ("detach", "SIGTERM", "SIGHUP"):
            timer_held_detach(engine, how)
        for mode in ("fork", "sleep"):
            timer_calls(engine, mode)


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
