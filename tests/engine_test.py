"""The software backend's two engines give the same transcripts.

Every tracing transcript (tests/transcripts/*trace*, *replay*) runs twice:
with the default engine (ptrace) and with trace.software.engine set to cache.
The outputs must be equal line for line once what legitimately differs is
masked: process and thread ids, decoding times, and the engine's own
counters in 'thread trace dump info -v' (traps, computed transfers, the
cache engine's lines).  Whatever a user reads of the trace itself (stop
reports, dumps, call trees, bundles, exports, sizes) must not differ.
"""
import difflib
import glob
import os
import re
import subprocess

import results
import transcripts

ROOT = transcripts.ROOT
PTDB = transcripts.PTDB

MASKS = [
    (re.compile(r"\b(tid|pid)( ?[=:] ?)\d+"), r"\1\2N"),
    (re.compile(r'"(tid|pid)": \d+'), r'"\1": N'),
    (re.compile(r"\b([Pp]rocess|[Tt]hread|tid) \d{3,}"), r"\1 N"),
    (re.compile(r'"(tid|pid)":\d+'), r'"\1":N'),
    (re.compile(r"Decoding instructions: [0-9.]+s"), "Decoding instructions: Ts"),
    (re.compile(r'"Decoding instructions": [0-9.e-]+'), '"Decoding instructions": T'),
    (re.compile(r"\(Intel PT packets, cache engine\)"), "(Intel PT packets, block stepping)"),
    (re.compile(r"(State-dependent transfers: \d+) \(\d+ computed, not run\)"), r"\1"),
    (re.compile(r"Traps: \d+ \([0-9.]+ per state-dependent transfer\)"), "Traps: N"),
    (re.compile(r'"(traps|computedTransfers)": \d+'), r'"\1": N'),
    (re.compile(r'"engine": "\w+"'), '"engine": E'),
    # the clock: TSC values and the times made of them
    (re.compile(r"\[\d+\.\d+ ns\]"), "[T ns]"),
    (re.compile(r"HW clock tick \[\d+\]"), "HW clock tick [T]"),
    (re.compile(r'"(hwClock|tsc)": ?\d+'), r'"\1": T'),
    (re.compile(r'"(timestamp_ns)": ?"[0-9.]+"'), r'"\1": T'),
    (re.compile(r"TSC: \d+ to \d+"), "TSC: T to T"),
    (re.compile(r"(Time|Clock): [0-9.]+ ns to [0-9.]+ ns"), r"\1: T to T"),
    (re.compile(r"\d+\.\d+ MHz"), "F MHz"),
    # per-CPU tracing records where the threads' turns end, and the cache
    # engine ends a turn after a time quantum (the ptrace engine after a
    # count of steps): the switches, and the CPU buffer bytes and thread
    # executions made of them, are the scheduler's, as on hardware
    (re.compile(r"(CPU \d+ trace buffer: [^,]+), raw trace .*"), r"\1, raw trace B"),
    (re.compile(r"Context switches: \d+ records"), "Context switches: N records"),
    (re.compile(r"Continuous executions of this thread: \d+ \(\d+ PSB blocks\)"),
     "Continuous executions of this thread: N (N PSB blocks)"),
    # snapshots take the next free number: the second run finds the first's
    (re.compile(r"([Ss]napshot)([- ])\d+"), r"\1\2N"),
    (re.compile(r'"(firstTsc|lastTsc|firstNs|lastNs|timeMult|timeZero)": [0-9.]+'), r'"\1": T'),
]
# lines only one engine prints
DROP = re.compile(r"^\s*(Engine: \w+|Cache engine: .*|Ptrace engine fallback: .*)$")


# transcripts whose trace depends on timing under any engine: the vDSO's
# clock_gettime retries its seqlock read when a stop of the tracer (a
# ptrace stop, or a first visit to a block of the cache) falls inside it
# read section; and where a traced thread is when an untraced one stops
# the process (0044: differs between two runs of the ptrace engine too)
TIMING = {"0037-trace-vdso.test", "0044-trace-calls-threads.test"}
# transcripts that stop while several traced threads run: under the cache
# engine the threads run in the cache at once (no turns), so where the
# others are at a stop is the machine's schedule, not the ptrace engine's
# turns.  Compared with the cache engine taking turns (PTDB_CACHE_TURNS);
# each thread's trace in parallel is the oracle's to judge (test-oracle:
# every thread against single-stepping).
SCHEDULE = {"0033-trace-threads.test", "0057-process-trace-state.test"}


def normalize(out):
    lines = []
    for line in out.splitlines():
        if DROP.match(line):
            continue
        for pat, rep in MASKS:
            line = pat.sub(rep, line)
        lines.append(line)
    return lines


def run(path, cmds, args, stdin, engine, tmpdir, env=None):
    script = os.path.join(tmpdir, os.path.basename(path) + "." + engine + ".ptdb")
    with open(script, "w") as f:
        f.write("settings set trace.software.engine %s\n" % engine)
        for c in cmds:
            f.write(c.text + "\n")
    p = subprocess.run([PTDB, "-b", "-s", script] + args, input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, cwd=ROOT, timeout=600,
                       env=dict(os.environ, **env) if env else None)
    if re.search(r"^error: .*trace\.software\.engine", p.stdout, re.M):
        return -1, ["the engine could not be set"]
    return p.returncode, normalize(p.stdout)


def run_all(only=None):
    tmpdir = os.path.join(ROOT, "tests", "out")
    os.makedirs(tmpdir, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "transcripts", "*.test"))):
        base = os.path.basename(path)
        if "trace" not in base and "replay" not in base:
            continue
        if base in TIMING:
            continue
        name = "engine_test " + base
        try:
            args, stdin, _, cmds, _ = transcripts.parse(path)
            ra, a = run(path, cmds, args, stdin, "ptrace", tmpdir)
            rb, b = run(path, cmds, args, stdin, "cache", tmpdir,
                        {"PTDB_CACHE_TURNS": "1"} if base in SCHEDULE else None)
        except subprocess.TimeoutExpired:
            results.fail(name, "timed out")
            continue
        a = [x.replace("engine ptrace", "engine E") for x in a]
        b = [x.replace("engine cache", "engine E") for x in b]
        if ra == -1 or rb == -1:
            results.fail(name, "the engine could not be set")
        elif ra != rb or a != b:
            diff = "\n".join(list(difflib.unified_diff(a, b, "ptrace", "cache", lineterm=""))[:60])
            results.fail(name, "exit %d vs %d\n%s" % (ra, rb, diff))
        else:
            results.ok(name)
    if only is None or "python" in only:
        python_same()
    shared_ring_same()
    live_links()
    jit_same()
    remap_keeps_cache()
    largest_cache_per_run()
    interrupt_in_cache()
    for engine in ("ptrace", "cache"):
        stop_in_syscall(engine)
    for engine in ("ptrace", "cache"):
        stop_in_sleep(engine)


PY_SCRIPT = "x = sorted(str(i) for i in range(200))"


def python_run(engine, tmpdir):
    """Debian's python3 from Py_RunMain to Py_FinalizeEx, traced: the
    instruction count and a hash of the addresses (dump -r -a -F)."""
    import hashlib
    out = os.path.join(tmpdir, "engine-python-%s.txt" % engine)
    cmds = ["settings set trace.software.engine " + engine,
            "file /usr/bin/python3", "b Py_RunMain", "b Py_FinalizeEx", "r -c '%s'" % PY_SCRIPT,
            "thread trace start -s 64MiB", "c", "thread trace dump info -v",
            "thread trace dump instructions -r -a -F " + out]
    argv = [PTDB, "-b"]
    for c in cmds:
        argv += ["-o", c]
    env = dict(os.environ, PYTHONHASHSEED="0")
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       cwd=ROOT, timeout=600, env=env)
    m = re.search(r"Total number of instructions: (\d+)", p.stdout)
    if "stop reason = breakpoint 2.1" not in p.stdout or not m or not os.path.exists(out):
        return None, p.stdout[-2000:]
    with open(out) as f:
        lines = f.read().splitlines()[1:]	# (the header names the tid)
    addrs = [m.group(1) for m in (re.match(r"^\s+\[\s*\d+\] (0x[0-9a-f]{16})", ln) for ln in lines) if m]
    served = re.search(r"Cache engine: (\d+) misses served without a stop", p.stdout)
    trapped = re.search(r"Cache engine: \d+ traps \(\d+ exits linked, (\d+) lookup misses", p.stdout)
    PY_MISSES[engine] = (int(served.group(1)) if served else 0, int(trapped.group(1)) if trapped else -1)
    return (int(m.group(1)), len(addrs), hashlib.sha256("\n".join(addrs).encode()).hexdigest()), ""


PY_MISSES = {}


def python_same():
    """The same trace under both engines; and the cache engine's lookup
    misses (and exits to code not translated yet) served while python3
    runs, not trapped: a few hundred misses at most end in a stop."""
    name = "engine_test python3 Py_RunMain..Py_FinalizeEx"
    if not os.path.exists("/usr/bin/python3"):
        results.skip(name, "no /usr/bin/python3")
        return
    tmpdir = os.path.join(ROOT, "tests", "out")
    a, why_a = python_run("ptrace", tmpdir)
    b, why_b = python_run("cache", tmpdir)
    if a is None or b is None:
        results.fail(name, "a run failed:\n" + why_a + why_b)
    elif a != b or a[0] < 50000 or a[0] != a[1]:
        results.fail(name, "ptrace: %s\ncache:  %s" % (a, b))
    elif PY_MISSES["cache"][0] < 1000 or not 0 <= PY_MISSES["cache"][1] < PY_MISSES["cache"][0] // 10:
        results.fail(name, "misses served, trapped: %s" % (PY_MISSES["cache"],))
    else:
        results.ok(name)


def ring_run(tag, env_extra):
    """tests/programs/cache_long under the cache engine, saved: its trace's
    bytes and the records copied from the shared ring / read through the
    process (dump info -v), or (None, why)."""
    import shutil
    bundle = os.path.join(ROOT, "tests", "out", "engine-ring-" + tag)
    shutil.rmtree(bundle, ignore_errors=True)
    argv = [PTDB, "-b"]
    for c in ("settings set trace.software.engine cache", "file tests/programs/cache_long",
              "b oracle_begin", "b oracle_end", "r", "thread trace start -s 16MiB", "c",
              "thread trace dump info -v", "trace save " + bundle):
        argv += ["-o", c]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                       timeout=600, env=dict(os.environ, **env_extra))
    m = re.search(r"Cache engine: (\d+) records copied from the shared ring, (\d+) read through the"
                  r" process", p.stdout)
    files = glob.glob(os.path.join(bundle, "threads", "*.intelpt_trace"))
    if "stop reason = breakpoint 2.1" not in p.stdout or not m or len(files) != 1:
        return None, p.stdout[-2000:]
    with open(files[0], "rb") as f:
        return (f.read(), int(m.group(1)), int(m.group(2))), ""


def shared_ring_same():
    """The records of a thread's ring in the memory ptdb shares with the
    program are copied from ptdb's own mapping (no process_vm_readv), every
    one of them, and the trace is byte for byte the one read through the
    process (PTDB_CACHE_NO_GS: the ring the program's alone)."""
    name = "engine_test records read from the shared ring"
    a, why_a = ring_run("shared", {})
    b, why_b = ring_run("process", {"PTDB_CACHE_NO_GS": "1"})
    if a is None or b is None:
        results.fail(name, "a run failed:\n" + why_a + why_b)
    elif a[1] < 65536 or a[2] != 0 or b[1] != 0 or b[2] != a[1]:
        results.fail(name, "records shared/process: %d/%d, without the shared pool %d/%d" %
                     (a[1], a[2], b[1], b[2]))
    elif a[0] != b[0]:
        results.fail(name, "the traces differ (%d and %d bytes)" % (len(a[0]), len(b[0])))
    else:
        results.ok(name)


def remap_run(stops):
    """tests/programs/cache_remap under the cache engine, traced from its
    first stop to the last of stops ('exit': its end): the counters of
    'thread trace dump info -v' there (blocks, code bytes, largest cache,
    flushes), or (None, why)."""
    argv = [PTDB, "-b"]
    cmds = ["settings set trace.software.engine cache", "file tests/programs/cache_remap"]
    cmds += ["b " + s for s in stops if s != "exit"]
    cmds += ["r", "thread trace start", "c", "thread trace dump info -v"]
    for c in cmds:
        argv += ["-o", c]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                       timeout=600)
    a = re.search(r"Cache engine: (\d+) blocks translated, (\d+) bytes of code \(largest cache (\d+) bytes\)",
                  p.stdout)
    f = re.search(r"Cache engine: \d+ traps .*, (\d+) flushes", p.stdout)
    end = "exited with status = 0" if stops[-1] == "exit" else "stop reason = breakpoint 2.1"
    if end not in p.stdout or not a or not f:
        return None, p.stdout[-2000:]
    return tuple(int(x) for x in a.groups()) + (int(f.group(1)),), ""


def remap_keeps_cache():
    """A data region moved by mremap (MREMAP_MAYMOVE: realloc's way) holds
    no code: the cache engine keeps its blocks (no flush), where flushing
    the whole address space for it translated the loop again after each
    of the 8 moves."""
    name = "engine_test mremap of data keeps the code cache"
    v, why = remap_run(["oracle_begin", "oracle_mid"])
    if v is None:
        results.fail(name, "the run failed:\n" + why)
    elif v[3] != 0 or v[0] == 0:
        results.fail(name, "%d blocks translated, %d flushes (want 0)" % (v[0], v[3]))
    else:
        results.ok(name)


def largest_cache_per_run():
    """'largest cache' is the most the cache held at once: the run traced
    to the program's exit counts (it showed 0 until the next run), and
    each of the 3 flushes (mprotect of the program's code page) empties
    the cache, so the largest is less than all the code translated
    (it was their sum)."""
    name = "engine_test largest cache: per run, to the exit, reset by a flush"
    v, why = remap_run(["oracle_mid", "exit"])
    if v is None:
        results.fail(name, "the run failed:\n" + why)
    elif v[3] != 3 or not 0 < v[2] < v[1]:
        results.fail(name, "%d bytes of code, largest cache %d, %d flushes (want 3, 0 < largest < code)" %
                     (v[1], v[2], v[3]))
    else:
        results.ok(name)


def jit_same():
    """Code the program writes into writable executable memory runs under
    the ptrace engine (a JIT may rewrite it): the same trace either way,
    and the cache engine says it fell back for it."""
    name = "engine_test jit code falls back"
    outs = []
    for engine in ("ptrace", "cache"):
        argv = [PTDB, "-b"]
        for c in ("settings set trace.software.engine " + engine, "file tests/programs/jit", "b main",
                  "r", "thread trace start", "b printf", "c", "thread trace dump instructions -a -r",
                  "thread trace dump info -v"):
            argv += ["-o", c]
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                           timeout=600)
        outs.append(p.stdout)
    ips = [re.findall(r"^\s+\[\s*\d+\] (0x[0-9a-f]{16})", o, re.M) for o in outs]
    m = re.search(r"Ptrace engine fallback: (\d+)", outs[1])
    # the JIT's loop: mov, xor, 3 x (add, dec, jnz), ret = 12 instructions
    want = [0, 5, 7, 10, 12, 7, 10, 12, 7, 10, 12, 14]
    v = [int(a, 16) for a in ips[1]]
    jit = [i for i in range(len(v) - 11) if v[i] % 4096 == 0 and [x - v[i] for x in v[i:i + 12]] == want]
    if not ips[0] or ips[0] != ips[1] or not m or int(m.group(1)) < 12 or len(jit) != 1:
        results.fail(name, "ptrace %d insns, cache %d, fallback %s, jit %d\n%s" % (
            len(ips[0]), len(ips[1]), m.group(1) if m else "?", len(jit), outs[1][-1500:]))
    else:
        results.ok(name)


def exec_anon_maps(pid):
    """Anonymous executable mappings of pid, and the memfd's that code
    regions are made when ptdb maps them too (the cache engine's regions)."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            return [ln for ln in f if ln.split()[1][2] == "x" and
                    (len(ln.split()) < 6 or ln.split()[5] == "/memfd:ptdb-cache-code")]
    except OSError:
        return ["(no maps)"]


def run_steps(p, steps):
    """Sends each (text, expected output) of steps to the session p; the
    first failure's description, or None."""
    for text, want in steps:
        p.buf = b""
        p.send(text)
        if not p.read_until(want):
            return "%r: no %r in %r" % (text, want, p.buf[-300:])
    return None


def end_session(p, name, why):
    """Kills the process, quits ptdb and reports the test (ptdb must
    exit)."""
    p.send("kill\r")
    p.read_until("(ptdb) ")
    p.send("quit\r")
    st = p.wait_exit()
    if why is None and (st is None or not os.WIFEXITED(st)):
        why = "ptdb did not exit"
    if why:
        results.fail(name, why)
    else:
        results.ok(name)


def interrupt_in_cache():
    """Ctrl-C while a traced thread runs in the code cache: the stop shows
    original addresses only (pc, backtrace, trace), the cache is gone from
    the process while it is stopped, and it goes on and stops again."""
    import tempfile
    import repl_test
    name = "engine_test Ctrl-C in the cache"
    with tempfile.TemporaryDirectory() as tmp:
        p = repl_test.session(tmp)
        steps = [("settings set trace.software.engine cache\r", "(ptdb) "),
                 ("file %s\r" % os.path.join(ROOT, "tests/programs/tgt_spin"), "Current executable set"),
                 ("b main\r", "(ptdb) "), ("r\r", "stop reason = breakpoint 1.1"),
                 ("thread trace start\r", "(ptdb) "), ("c\r", "resuming")]
        why = run_steps(p, steps)
        pid = None
        if why is None:
            if not running_in_cache(p):
                why = "the inferior never ran in the cache"
        if why is None:
            p.buf = b""
            sigint_inferior(p)
            if not p.read_until("stop reason = signal SIGINT") or not p.read_until("(ptdb) "):
                why = "Ctrl-C did not stop it: %r" % p.buf[-300:]
        if why is None:
            m = re.search(rb"Process (\d+) stopped", p.buf)
            pid = int(m.group(1)) if m else None
            left = exec_anon_maps(pid) if pid else ["(no pid)"]
            p.buf = b""
            p.send("register read rip\r")
            p.read_until("(ptdb) ")
            rip = p.buf
            p.buf = b""
            p.send("thread trace dump instructions -c 2\r")
            p.read_until("(ptdb) ")
            dump = p.buf
            if left:
                why = "the cache is still mapped at the stop: %r" % left
            elif not re.search(rb"rip = 0x00000000004\w+  tgt_spin`main", rip):
                why = "pc not an original address: %r" % rip
            elif not re.search(rb"\] 0x00000000004\w+ ", dump) or b"tgt_spin`main" not in dump:
                why = "trace not in main: %r" % dump
        if why is None:
            p.buf = b""
            p.send("c\r")
            p.read_until("resuming")
            if not running_in_cache(p):
                why = "the inferior did not run in the cache again"
            os.kill(p.pid, signal_int())
            if not p.read_until("stop reason = signal SIGSTOP") or not p.read_until("(ptdb) "):
                why = "SIGINT to ptdb did not stop it again: %r" % p.buf[-300:]
        end_session(p, name, why)


def after(p, mark):
    """Keeps only what p printed after the last mark (a prompt printed
    before it, or drawn again by the line editor, is not the end of what
    follows).  True when mark was there."""
    i = p.buf.rfind(mark)
    if i >= 0:
        p.buf = p.buf[i + len(mark):]
    return i >= 0


def stop_in_syscall(engine):
    """A traced thread that ran (in the cache) and then blocked in read(2)
    is stopped there by Ctrl-C (the SIGINT interrupts the read: the
    kernel restarts it when the thread resumes).  The cache leaves the
    process at that stop too (an injected munmap from inside the
    interrupted call); 'continue' restarts the read where the kernel
    would (the pc moved 2 bytes back inside the cache before: the
    process crashed), so it blocks in read again; the trace lists the
    SYSCALL once for each time it ran."""
    import tempfile
    import repl_test
    from session import syscall_nr, until
    name = "engine_test %s: Ctrl-C in a blocking system call, continue" % engine
    with tempfile.TemporaryDirectory() as tmp:
        p = repl_test.session(tmp)
        pid = None
        steps = [("settings set trace.software.engine %s\r" % engine, "(ptdb) "),
                 ("file %s\r" % os.path.join(ROOT, "tests/programs/rel_block"), "Current executable set"),
                 ("b main\r", "(ptdb) "), ("r\r", "stop reason = breakpoint 1.1"),
                 ("thread trace start\r", "(ptdb) "), ("c\r", "resuming")]
        why = run_steps(p, steps)
        if why is None:
            kids = subprocess.run(["pgrep", "-P", str(p.pid)], stdout=subprocess.PIPE, text=True).stdout.split()
            pid = int(kids[0]) if kids else None
            after(p, b"resuming")
        for turn in (1, 2):
            if why is not None:
                break
            # blocked in read (asleep: a stopped thread shows its call
            # too), or back at the prompt after 'resuming' (the run ended)
            until(lambda: (proc_state(pid) == "S" and syscall_nr(pid) == "0" and
                           (engine != "cache" or exec_anon_maps(pid))) or p.read_until("(ptdb) ", 0.01))
            if proc_state(pid) != "S" or syscall_nr(pid) != "0":
                why = "run %d: not blocked in read (state %s, syscall %r): %r" % (
                    turn, proc_state(pid), syscall_nr(pid), p.buf[-300:])
                break
            p.buf = b""
            sigint_inferior(p)
            if not (p.read_until("stop reason = signal SIGINT") and after(p, b"signal SIGINT") and
                    p.read_until("(ptdb) ")):
                why = "Ctrl-C did not stop it: %r" % p.buf[-300:]
                break
            left = exec_anon_maps(pid)
            if left:
                why = "the cache is still mapped at the stop: %r" % left
                break
            p.buf = b""
            p.send("thread trace dump instructions -c 3\r")
            # (a prompt the line editor draws again may come first)
            got = p.read_until("total instructions") and after(p, b"total instructions") and p.read_until("(ptdb) ")
            calls = re.findall(rb"(0x\w+)    syscall", p.buf) if got else []
            if len(calls) != turn or len(set(calls)) != 1 or not re.search(rb"syscall\s*\r\n\(ptdb\) ", p.buf):
                why = "run %d: the trace does not end in read's SYSCALL, run %d times: %r" % (
                    turn, turn, p.buf[-400:])
                break
            if turn == 1:
                p.buf = b""
                p.send("c\r")
                if not p.read_until("resuming"):
                    why = "no resume: %r" % p.buf[-300:]
                after(p, b"resuming")
        end_session(p, name, why)


def stop_in_sleep(engine):
    """All threads traced; the second one blocks in clock_nanosleep(4 s),
    the main one in pthread_join.  Ctrl-C twice, 'continue' each time:
    the sleep is restarted through restart_syscall (what the kernel
    makes of -ERESTART_RESTARTBLOCK), never from inside the cache; it
    ends with 0, not EINTR, after its 4 s, and the main thread joins."""
    import tempfile
    import repl_test
    from session import until
    name = "engine_test %s: Ctrl-C twice in clock_nanosleep of a second thread" % engine

    def tasks(pid):
        try:
            return sorted(int(t) for t in os.listdir("/proc/%d/task" % pid))
        except OSError:
            return []

    def task_file(pid, tid, f):
        try:
            with open("/proc/%d/task/%d/%s" % (pid, tid, f)) as fh:
                return fh.read()
        except OSError:
            return ""

    def asleep(pid):
        ts = tasks(pid)
        return (len(ts) == 2 and all(task_file(pid, t, "stat").rsplit(")", 1)[-1].split()[:1] == ["S"] for t in ts)
                and task_file(pid, ts[1], "syscall").split()[:1] in (["230"], ["219"]))

    with tempfile.TemporaryDirectory() as tmp:
        p = repl_test.session(tmp)
        steps = [("settings set trace.software.engine %s\r" % engine, "(ptdb) "),
                 ("file %s\r" % os.path.join(ROOT, "tests/programs/sys_block"), "Current executable set"),
                 ("settings set target.run-args join\r", "(ptdb) "),
                 ("b main\r", "(ptdb) "), ("r\r", "stop reason = breakpoint 1.1"),
                 ("process trace start\r", "(ptdb) "), ("c\r", "resuming")]
        why = run_steps(p, steps)
        pid = None
        if why is None:
            kids = subprocess.run(["pgrep", "-P", str(p.pid)], stdout=subprocess.PIPE, text=True).stdout.split()
            pid = int(kids[0]) if kids else None
        out = b""
        for turn in (1, 2):
            if why is not None:
                break
            if not until(lambda: asleep(pid)):
                why = "run %d: not both asleep: %r" % (turn, p.buf[-300:])
                break
            p.buf = b""
            sigint_inferior(p)
            if not p.read_until("stop reason = signal SIGINT") or not p.read_until("(ptdb) "):
                why = "Ctrl-C did not stop it: %r" % p.buf[-300:]
                break
            out += p.buf
            p.buf = b""
            p.send("c\r")
            if not p.read_until("resuming"):
                why = "no resume: %r" % p.buf[-300:]
        if why is None:
            ok = p.read_until("joined")
            out += p.buf
            m = re.search(rb"slept rc=(-?\d+) ms=(\d+)", out)
            if not ok or not m or m.group(1) != b"0" or int(m.group(2)) < 4000:
                why = "the sleep did not end as natively (rc 0 after 4 s, then joined): %r" % out[-400:]
        end_session(p, name, why)


def sigint_inferior(p):
    """The SIGINT a terminal's Ctrl-C sent the program when it shared
    ptdb's terminal: at the prompt the program has its own now (the
    terminal's Ctrl-C reaches ptdb only, which stops it with SIGSTOP), so
    the signal goes to the program alone, as from another terminal."""
    kids = subprocess.run(["pgrep", "-P", str(p.pid)], stdout=subprocess.PIPE, text=True).stdout.split()
    if kids:
        os.kill(int(kids[0]), signal_int())


def running_in_cache(p):
    """Waits (for a condition, not a time) until the cache is mapped into
    ptdb's inferior and the inferior runs on its own."""
    kids = subprocess.run(["pgrep", "-P", str(p.pid)], stdout=subprocess.PIPE, text=True).stdout.split()
    inf = int(kids[0]) if kids else None
    for _ in range(3000):
        if inf and exec_anon_maps(inf) and proc_state(inf) == "R":
            return True
        p.read_until("\x00", 0.01)
    return False


def proc_state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "?"


def live_links():
    """Four threads that only compute, in the cache at once: an exit whose
    target is translated while they run is linked then (one aligned store
    through ptdb's mapping of the code), not left to the dispatcher until
    every thread stops, which never happens before they end; and each
    thread's trace holds the same count of instructions."""
    name = "engine_test cache_threads4 exits linked while threads run"
    argv = [PTDB, "-b"]
    for c in ("settings set trace.software.engine cache", "file tests/programs/cache_threads4",
              "b oracle_begin", "b oracle_end", "r", "process trace start -s 16MiB", "c",
              "thread trace dump info -v all"):
        argv += ["-o", c]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                       timeout=600, env=dict(os.environ, PTDB_CACHE_PARALLEL="1"))
    m = re.search(r"Cache engine: (\d+) exits linked while threads ran, (\d+) once every thread stopped",
                  p.stdout)
    counts = sorted(int(x) for x in re.findall(r"Total number of instructions: (\d+)", p.stdout))
    par = re.search(r"(\d+) runs with threads in parallel", p.stdout)
    if "stop reason = breakpoint 2.1" not in p.stdout or not m or not par or int(par.group(1)) == 0:
        results.fail(name, p.stdout[-2000:])
    elif int(m.group(1)) < 50 or int(m.group(2)) * 10 > int(m.group(1)):
        results.fail(name, "links live, late: %s, %s" % (m.group(1), m.group(2)))
    elif len(counts) < 5 or len(set(counts[-4:])) != 1 or counts[-1] < 10000000:
        results.fail(name, "instructions per thread: %s" % counts)
    else:
        results.ok(name)


def signal_int():
    import signal
    return signal.SIGINT


if __name__ == "__main__":
    import sys
    run_all(sys.argv[1] if len(sys.argv) > 1 else None)
    sys.exit(results.summary())
