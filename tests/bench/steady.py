"""Steady state: the cache engine on regions long enough that one-time costs
(the first translations, page faults on fresh tables) do not decide the
figure, against the same region run natively, under qemu-x86_64 and under
valgrind --tool=none, in one run (ratios, never timed tests).

Regions that time themselves: tests/bench/progs/steady.c (loop, fib,
indirect, four CPU-bound threads) and a python3 script read the clock
between their two markers and print it, so the native, traced, qemu and
valgrind figures of a row are the same stretch of the same program, timed
by the program.  Whole programs (gzip on a 50 MB file, cc1 on a large file): the
region is the process from main to its exit; native, qemu and valgrind are
its wall time, traced is the cache engine's own running time.

Per row: instructions (what the collector recorded, summed over threads),
region seconds natively (best of 3) and traced (and the traced CPU time),
traced instructions per second, x native, x qemu, x valgrind, and the peak
RSS that tracing adds to the same session untraced (decoding aside: a run
that traces and does not decode), against the trace buffers and the code
cache (mem/budget).
Goals (issue 29): python3 >= 150 M insns/s and faster than qemu running the
whole program; loop, fib, indirect >= 400 M/s; threads >= 1.7x the
one-thread rate; long regions <= 15x native; peak memory <= 2x (buffers +
cache).  PTDB_BENCH_SCALE (default 1) scales every workload.
"""
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PTDB = os.path.join(ROOT, "ptdb")
OUT = os.path.join(ROOT, "tests", "out", "bench")
SCALE = float(os.environ.get("PTDB_BENCH_SCALE", "1"))
BUF = "4MiB"		# per thread: the collector counts every instruction, wrapped or not
PY = "/usr/bin/python3"
PY_SCRIPT = ("import json, time\n"
             "t0 = time.monotonic(); c0 = time.process_time()\n"
             "for _ in range(%d): json.dumps(list(range(20000)))\n"
             "import sys; sys.stderr.write('region %%.6f %%.6f\\n' %% "
             "(time.monotonic() - t0, time.process_time() - c0))\n")
CC1 = "/usr/lib/gcc/x86_64-linux-gnu/12/cc1"


def pinned(argv):
    return (["taskset", "-c", "0"] + argv) if shutil.which("taskset") else argv


def region(text):
    """The region's (wall, cpu) seconds a program printed, or None."""
    m = re.search(r"^region ([0-9.]+) ([0-9.]+)$", text, re.M)
    return (float(m.group(1)), float(m.group(2))) if m else None


def run(argv, env=None):
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                       text=True, errors="replace")
    return time.monotonic() - t0, p.stdout


def best(argv, env=None, n=3, pin=True):
    """Best (region wall, cpu) over n runs: the program's own figure when
    it prints one, else the whole run's wall."""
    out = None
    for _ in range(n):
        dt, text = run(pinned(argv) if pin else argv, env)
        r = region(text) or (dt, dt)
        out = r if out is None or r[0] < out[0] else out
    return out


def total(out, label):
    return sum(float(v) for v in re.findall(re.escape(label) + r":?\s*([0-9.]+)", out))


def untraced_rss(setup, env, multi):
    """ptdb's peak RSS in the same session untraced: its symbols and the rest."""
    argv = ["/usr/bin/time", "-f", "RSS %M", PTDB, "-b"]
    for c in setup + ["c", "c"]:
        argv += ["-o", c]
    _, out = run(argv if multi else pinned(argv), env)
    m = re.search(r"RSS (\d+)", out)
    return int(m.group(1)) * 1024 if m else 0


def traced_rss(setup, env, multi):
    """ptdb's peak RSS tracing the region, without decoding it."""
    argv = ["/usr/bin/time", "-f", "RSS %M", PTDB, "-b", "-o", "settings set trace.software.engine cache"]
    for c in setup + [("process trace start -s " + BUF) if multi else ("thread trace start -s " + BUF),
                      "c", "c"]:
        argv += ["-o", c]
    _, out = run(argv if multi else pinned(argv), env)
    m = re.search(r"RSS (\d+)", out)
    return int(m.group(1)) * 1024 if m else 0


def traced(setup, env, multi, until_exit):
    argv = ["/usr/bin/time", "-f", "RSS %M", PTDB, "-b", "-o", "settings set trace.software.engine cache"]
    for c in setup:
        argv += ["-o", c]
    argv += ["-o", ("process trace start -s " + BUF) if multi else ("thread trace start -s " + BUF),
             "-o", "c", "-o", "thread trace dump info -v" + (" all" if multi else "")]
    if not until_exit:
        argv += ["-o", "c"]	# to the exit, where the program prints its region's time
    dt, out = run(argv if multi else pinned(argv), env)
    if not until_exit and "breakpoint 2.1" not in out:
        sys.exit("steady bench: the traced run failed: %s\n%s" % (" ".join(argv), out[-3000:]))
    return dt, out


def build(exe, src, flags):
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run(["gcc"] + flags + ["-o", exe, src], check=True)
    return exe


def big_c_file():
    """A large C file for cc1: many small functions with loops and switches."""
    path = os.path.join(OUT, "bigfile.c")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write("#include <string.h>\n")
            for i in range(int(3000 * SCALE)):
                f.write("int f%d(int a, const char *s) { int r = %d; for (int i = 0; i < a; i++) {"
                        " switch ((i + a) %% 5) { case 0: r += i * %d; break; case 1: r ^= (int)strlen(s);"
                        " break; case 2: r -= a >> 1; break; default: r = r * 3 + %d; } } return r; }\n"
                        % (i, i, i % 7 + 1, i % 11))
    return path


def gzip_input():
    path = os.path.join(OUT, "gzip-input")
    size = int(50 * SCALE) << 20
    if not os.path.exists(path) or os.path.getsize(path) != size:
        # text-like and compressible, the same bytes every run
        words = [b"trace", b"debugger", b"instruction", b"packet", b"thread", b"0x7fff",
                 b"breakpoint", b"register", b"\n", b"frame", b"symbol", b"42"]
        chunk = bytearray()
        x = 12345
        while len(chunk) < (1 << 20):
            x = (x * 1103515245 + 12345) & 0x7fffffff
            chunk += words[x % len(words)] + b" "
        with open(path, "wb") as f:
            for _ in range(size >> 20):
                f.write(chunk[:1 << 20])
    return path


def workloads():
    exe = build(os.path.join(OUT, "steady"), os.path.join(HERE, "progs", "steady.c"),
                ["-g", "-O1", "-no-pie", "-fno-pie", "-pthread"])
    marks = ["b bench_begin", "b bench_end"]
    for name, n in (("loop", 300e6), ("fib", 35), ("indirect", 100e6), ("threads", 1200e6)):
        n = n if name == "fib" else n * SCALE
        argv = [exe, name, str(int(n))]
        yield dict(name=name, argv=argv, setup=["file " + exe] + marks + ["r %s %d" % (name, n)],
                   multi=name == "threads", until_exit=False, env=None)
    if os.path.exists(PY):
        script = PY_SCRIPT % int(60 * SCALE)
        env = dict(os.environ, PYTHONHASHSEED="0")
        path = os.path.join(OUT, "steady_script.py")
        with open(path, "w") as f:
            f.write(script)
        yield dict(name="python3", argv=[PY, path], env=env, multi=False, until_exit=False,
                   setup=["file " + PY, "b Py_RunMain", "b Py_FinalizeEx", "r " + path])
    gz = shutil.which("gzip")
    if gz:
        inp = gzip_input()
        yield dict(name="gzip", argv=[gz, "-6", "-k", "-f", inp], env=None, multi=False,
                   until_exit=True, setup=["file " + gz, "b __libc_start_call_main", "r -6 -k -f " + inp])
    if os.path.exists(CC1):
        src = big_c_file()
        yield dict(name="cc1", argv=[CC1, "-quiet", "-O1", src, "-o", "/dev/null"], env=None,
                   multi=False, until_exit=True,
                   setup=["file " + CC1, "b __libc_start_call_main", "r -quiet -O1 %s -o /dev/null" % src])


def peers(w):
    """qemu-x86_64 and valgrind --tool=none on the same region (or whole
    program), None where the tool is missing."""
    out = []
    for pre in (["qemu-x86_64"], ["valgrind", "--tool=none", "-q"]):
        if not shutil.which(pre[0]):
            out.append(None)
            continue
        argv = pre + w["argv"]
        out.append(best(argv, w["env"], 1, pin=not w["multi"])[0])
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    print("steady state, cache engine (one CPU but for threads; region timed by the program"
          " itself; whole program for gzip and cc1):")
    print("  %-9s %11s %9s %9s %9s %10s %8s %7s %7s %8s" % (
        "workload", "insns", "native s", "traced s", "(CPU s)", "insns/s", "x native", "x qemu",
        "x vg", "mem/budget"))
    ok = True
    one_thread_rate = None
    for w in workloads():
        native = best(w["argv"], w["env"], 3, pin=not w["multi"])[0]
        dt, out = traced(w["setup"], w["env"], w["multi"], w["until_exit"])
        insns = total(out, "Instructions recorded")
        r = region(out)
        m = re.search(r"Cache engine: ([0-9.]+) s running", out)
        engine_s = float(m.group(1)) if m else dt
        t_wall, t_cpu = r if r and not w["until_exit"] else (engine_s, None)
        if w["until_exit"]:
            m = re.search(r"Cache engine: CPU time ([0-9.]+) s in ptdb, ([0-9.]+) s in the traced", out)
            t_cpu = float(m.group(1)) + float(m.group(2)) if m else None
        qemu, vg = peers(w)
        rss = max(traced_rss(w["setup"], w["env"], w["multi"]) -
                  untraced_rss(w["setup"], w["env"], w["multi"]), 0)
        cache = sum(int(v) for v in re.findall(r"largest cache (\d+) bytes", out))
        nthreads = max(1, len(re.findall(r"Instructions recorded", out)))
        budget = nthreads * (4 << 20) + cache
        rate = insns / t_wall if t_wall else 0
        fmt = lambda v: ("%7.2f" % (t_wall / v)) if v else "%7s" % "n/a"
        print("  %-9s %11d %9.3f %9.3f %9s %10.3e %8.1f %s %s %8.1f" % (
            w["name"], insns, native, t_wall, "%.3f" % t_cpu if t_cpu else "n/a", rate,
            t_wall / native, fmt(qemu), fmt(vg), rss / budget if budget else 0))
        if w["name"] == "python3":
            goal = rate >= 150e6 and (qemu is None or t_wall < qemu)
        elif w["name"] in ("loop", "fib", "indirect"):
            goal = rate >= 400e6
            if w["name"] == "loop":
                one_thread_rate = rate
        elif w["name"] == "threads":
            goal = one_thread_rate is not None and rate >= 1.7 * one_thread_rate
        else:
            goal = True
        goal = goal and t_wall / native <= 15 and (not budget or rss <= 2 * budget)
        if not goal:
            print("  %-9s MISSED" % "")
        ok = ok and goal
    print("  goals: python3 >= 1.5e8 insns/s and faster than qemu; loop, fib, indirect >= 4e8;"
          " threads >= 1.7x loop's rate; <= 15x native; RSS <= 2x (buffers + code cache)")
    print("  (x qemu, x vg: the traced region's time over the same region under qemu-x86_64"
          " and valgrind --tool=none; below 1 is faster)")
    return ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
