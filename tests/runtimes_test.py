"""Runtimes that are not C's, traced from start to exit under both software
engines (the cache engine and the ptrace engine):

  R1  Debian's luajit running a hot loop with branches (tests/programs/
      hot.lua, with -jv: LuaJIT prints each trace it compiles): the
      program's output, LuaJIT's trace lines included, is the untraced
      run's, the run ends, and the trace decodes with no error: LuaJIT
      patches the exits of its traces and unmaps its machine code at exit,
      and the trace decodes against the code as it ran (the code pages
      both engines keep; before, against the memory of dump time: 5
      decode errors at n=3000, 1242 at n=3000000 under the cache engine).
  R2  a Go program (tests/programs/go/spin.go, built with Debian's
      golang-go): goroutines, a channel, a loop the runtime preempts
      (SIGURG); traced from its entry point to its exit, every thread:
      the output is the untraced run's, the run ends (under the cache
      engine it once hung: the ptrace engine's breakpoints, left by a turn
      it took while a SIGURG waited, were stops in the preempted loop, and
      that thread's turn never ended), and each thread's trace decodes
      with no error.

  R3  the same pattern in C (tests/programs/sig_futex.c), so it is tested
      without Go: threads wait in FUTEX_WAIT at one system call
      instruction while main interrupts each with a signal it handles
      (SA_RESTART) before it wakes it.  Under the cache engine with the
      threads in parallel it hung: a thread stopped with the signal inside
      its wait came back at the pc after the call, where another thread's
      wait had a breakpoint, and the step over that breakpoint dropped the
      signal: the kernel restarted the wait, and the step never ended (the
      waker stopped).  Again with SIGWINCH and no handler (winch): a
      signal that does nothing, delivered by a step from inside the wait,
      let the kernel restart it, and that step hung the same way.  The
      output is the untraced run's, the run ends.

Neither runtime runs the same instructions twice (LuaJIT seeds its hashes
with getrandom; Go's threads race): the instruction-for-instruction
comparison with single-stepping is the oracle fixtures' (test-oracle).

make check runs each once with small sizes.  The long form:
  RUNTIMES_RUNS=10 RUNTIMES_GO_N=3000000 RUNTIMES_LUA_N=3000000 \\
      python3 tests/runtimes_test.py
(RUNTIMES_GO_N_PTRACE: the Go size under the ptrace engine, whose traps
make it a hundred times slower; by default RUNTIMES_GO_N / 10.)  The
figures (time, instructions, errors) are printed as '#' lines.
"""
import os
import re
import shutil
import subprocess
import time

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
OUT = os.path.join(ROOT, "tests", "out", "runtimes")
LUAJIT = shutil.which("luajit")
TIMEOUT = int(os.environ.get("RUNTIMES_TIMEOUT", "600"))


def build_go():
    """The Go program, built into OUT; None if there is no Go."""
    go = shutil.which("go")
    if not go:
        return None
    exe = os.path.join(OUT, "go_spin")
    src = os.path.join(ROOT, "tests", "programs", "go", "spin.go")
    if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(src):
        return exe
    env = dict(os.environ, GOCACHE=os.path.join(OUT, "gocache"), GOPATH=os.path.join(OUT, "gopath"),
               GOTOOLCHAIN="local", GO111MODULE="off", GOFLAGS="")
    p = subprocess.run([go, "build", "-o", exe, src], cwd=OUT, env=env, capture_output=True, text=True,
                       timeout=600)
    return exe if p.returncode == 0 else None


def untraced(argv):
    out, err = os.path.join(OUT, "plain.out"), os.path.join(OUT, "plain.err")
    with open(out, "w") as o, open(err, "w") as e:
        subprocess.run(argv, stdout=o, stderr=e, timeout=TIMEOUT, cwd=OUT)
    return open(out).read() + open(err).read()


def traced(argv, entry, engine, size, sig="SIGURG", timeout=TIMEOUT):
    """Runs argv under ptdb, traced from entry to its exit; returns
    (program output, ptdb's output, seconds), output None on a hang."""
    out, err = os.path.join(OUT, "traced.out"), os.path.join(OUT, "traced.err")
    for f in (out, err):
        if os.path.exists(f):
            os.unlink(f)
    lines = ["file " + argv[0], "process handle %s -n false -p true -s false" % sig,
             "settings set trace.software.engine " + engine, "b " + entry,
             "process launch -o %s -e %s -- %s" % (out, err, " ".join(argv[1:])),
             "process trace start -s " + size, "c", "thread trace dump info all"]
    script = os.path.join(OUT, "run.ptdb")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    t = time.time()
    try:
        p = subprocess.run([PTDB, "-b", "-s", script], cwd=OUT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout)
        log = p.stdout
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(errors="replace"), time.time() - t
    prog = (open(out).read() if os.path.exists(out) else "") + \
        (open(err).read() if os.path.exists(err) else "")
    return prog, log, time.time() - t


def threads(log):
    """[(instructions, errors)] of each thread in 'thread trace dump info all'."""
    res = []
    for part in re.split(r"\nthread #\d+: ", log)[1:]:
        n = re.search(r"Total number of instructions: (\d+)", part)
        e = re.search(r"Number of individual errors: (\d+)", part)
        res.append((int(n.group(1)) if n else -1, int(e.group(1)) if e else -1))
    return res


def check(name, argv, entry, engine, size, want_no_errors, sig="SIGURG", timeout=TIMEOUT):
    want = untraced(argv)
    prog, log, secs = traced(argv, entry, engine, size, sig, timeout)
    th = threads(log) if prog is not None else []
    print("# %s: %.1f s, threads (instructions, decode errors): %s" % (name, secs, th))
    why = []
    if prog is None:
        why.append("hung: killed after %d s" % timeout)
    elif prog != want:
        why.append("output differs from the untraced run's:\n--- untraced\n%s--- traced\n%s" % (want, prog))
    if prog is not None and not re.search(r"exited with status = 0 ", log):
        why.append("did not exit with status 0")
    if prog is not None and (not th or any(n <= 0 for n, _ in th)):
        why.append("no trace")
    if prog is not None and want_no_errors and any(e != 0 for _, e in th):
        why.append("decode errors")
    if why:
        results.fail(name, "\n".join(why) + "\n" + log[-3000:])
    else:
        results.ok(name)


def run_all():
    os.makedirs(OUT, exist_ok=True)
    runs = int(os.environ.get("RUNTIMES_RUNS", "1"))
    lua_n = os.environ.get("RUNTIMES_LUA_N", "3000")
    go_n = int(os.environ.get("RUNTIMES_GO_N", "30000"))
    go_np = int(os.environ.get("RUNTIMES_GO_N_PTRACE", str(max(go_n // 10, 30000))))
    go = build_go()
    sig_n = os.environ.get("RUNTIMES_SIG_N", "40")
    for engine in ("cache", "ptrace"):
        for sig, args in (("SIGUSR1", [sig_n]), ("SIGWINCH", [sig_n, "winch"])):
            name = "runtimes R3 C threads in futex waits, %s, n=%s, %s engine" % (sig, sig_n, engine)
            check(name, [os.path.join(ROOT, "tests", "programs", "sig_futex")] + args, "main", engine, "64M",
                  True, sig, min(TIMEOUT, 180))
        for r in range(runs):
            tag = " (run %d)" % (r + 1) if runs > 1 else ""
            name = "runtimes R1 luajit hot loop, %s engine%s" % (engine, tag)
            if not LUAJIT:
                results.skip(name, "no luajit (Debian's luajit: make deps)")
            else:
                check(name, [LUAJIT, "-jv", os.path.join(ROOT, "tests", "programs", "hot.lua"), lua_n],
                      "main", engine, "64M", True)
            n = go_n if engine == "cache" else go_np
            name = "runtimes R2 Go goroutines, n=%d, %s engine%s" % (n, engine, tag)
            if not go:
                results.skip(name, "no Go compiler (Debian's golang-go: make deps)")
            else:
                check(name, [go, str(n)], "_rt0_amd64_linux", engine, "64M", True)


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
