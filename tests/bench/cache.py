"""The software backend's cache engine against native runs, the ptrace
engine and two binary translators that record nothing (valgrind
--tool=none, qemu-x86_64 in user mode), in one run (ratios, never timed
tests).

Per workload, between two breakpoints (bench_begin/bench_end; Py_RunMain/
Py_FinalizeEx for Debian's python3 running a json.dumps script; threads:
four threads started and joined between them, every thread traced, the
figures summed over them):
instructions, traced instructions per second of each engine (the traced
run's wall time less the same run untraced; for the cache engine its own
wall time, and beside it the rate by CPU time, ptdb's and the traced
thread's, which other load on the machine does not inflate), slowdown against native
(the native time of the region: the program's best wall time less that of
the same program doing nothing, so small regions are rough), block records
per instruction, code-cache bytes, ptdb's peak memory and the program's,
each its own (tests/bench/peak.py: the code cache is the program's pages).
Whole programs: native, valgrind --tool=none, qemu-x86_64, best of three.
PTDB_BENCH_ROWS (comma-separated workload names) picks rows.
Goals (issue 15): >= 150 M insns/s and <= 25x native on loop, fib and
indirect; >= 60 M insns/s and <= 60x on python3, ahead of valgrind (none
for threads).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peak  # noqa: E402  (tests/bench/peak.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PTDB = os.path.join(ROOT, "ptdb")
OUT = os.path.join(ROOT, "tests", "out", "bench")
PY = "/usr/bin/python3"
PY_SCRIPT = "import json; json.dumps(list(range(20000)))"
ROWS = [r for r in os.environ.get("PTDB_BENCH_ROWS", "").split(",") if r]	# (default: all)


def pinned(argv):
    return (["taskset", "-c", "0"] + argv) if shutil.which("taskset") else argv


def wall(argv, env=None, n=3):
    best = None
    for _ in range(n):
        t0 = time.monotonic()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        dt = time.monotonic() - t0
        best = dt if best is None else min(best, dt)
    return best


def ptdb_run(setup, engine, traced, env=None, multi=False):
    """(wall seconds, output, ptdb's peak bytes, the program's peak bytes)."""
    argv = [PTDB, "-b", "-o", "settings set trace.software.engine " + engine]
    for c in setup:
        argv += ["-o", c]
    if traced and multi:
        argv += ["-o", "process trace start -s 64MiB", "-o", "c", "-o", "thread trace dump info -v all"]
    elif traced:
        argv += ["-o", "thread trace start -s 256MiB", "-o", "c", "-o", "thread trace dump info -v"]
    else:
        argv += ["-o", "c"]
    with tempfile.TemporaryFile(mode="w+", errors="replace") as f:
        dt, _, top, prog = peak.run(pinned(argv), env, f)
        f.seek(0)
        out = f.read()
    if "breakpoint 2.1" not in out:
        sys.exit("benchmark run failed: %s\n%s" % (" ".join(argv), out[-3000:]))
    return dt, out, top, prog


def total(out, label):
    """label's figure summed over every thread's 'dump info'."""
    return sum(float(v) for v in re.findall(re.escape(label) + r":?\s*([0-9.]+)", out))


def workloads():
    from run import build_prog  # (the tracing benchmark's fixtures)
    empty = os.path.join(OUT, "empty")
    if not os.path.exists(empty):
        with open(empty + ".c", "w") as f:
            f.write("int main(void) { return 0; }\n")
        subprocess.run(["gcc", "-O0", "-no-pie", "-fno-pie", "-o", empty, empty + ".c"], check=True)
    for name, opt in (("loop", "-O0"), ("fib", "-O0"), ("indirect", "-O1")):
        exe = build_prog(name, opt)
        yield (name, [exe], [empty], ["file " + exe, "b bench_begin", "b bench_end", "r"], None)
    exe = build_prog("threads", "-O0")
    yield ("threads", [exe], [empty], ["file " + exe, "b bench_begin", "b bench_end", "r"], "multi")
    if os.path.exists(PY):
        env = dict(os.environ, PYTHONHASHSEED="0")
        yield ("python3", [PY, "-c", PY_SCRIPT], [PY, "-c", "pass"],
               ["file " + PY, "b Py_RunMain", "b Py_FinalizeEx", "r -c '%s'" % PY_SCRIPT], env)


def main():
    os.makedirs(OUT, exist_ok=True)
    sys.path.insert(0, HERE)
    tools = [t for t in ("valgrind", "qemu-x86_64") if shutil.which(t)]
    print("cache engine (pinned to one CPU; best of 3; region = between the two breakpoints):")
    print("  %-9s %9s %10s %10s %10s %8s %8s %8s %9s %8s %8s %9s %9s %9s" % (
        "workload", "insns", "cache i/s", "(by CPU)", "ptrace i/s", "x native", "x ptrace", "rec/insn",
        "code B", "ptdb MiB", "prog MiB", "native s", "valgrind", "qemu"))
    ok = True
    for name, argv, empty, setup, env in workloads():
        if ROWS and name not in ROWS:
            continue
        multi = env == "multi"
        env = None if multi else env
        native = max(wall(argv, env, 10) - wall(empty, env, 10), 1e-5)
        base_c = min(ptdb_run(setup, "cache", False, env)[0] for _ in range(2))
        runs = [ptdb_run(setup, "cache", True, env, multi) for _ in range(3)]
        dt, out, rss, prog_rss = min(runs, key=lambda r: r[0])
        insns = total(out, "Instructions recorded")
        dec = total(out, "Decoding instructions")
        c_wall = max(dt - base_c - dec, 1e-6)
        m = re.search(r"Cache engine: ([0-9.]+) s running \(([0-9.]+) s of it translating", out)
        c_time = float(m.group(1)) if m else c_wall
        c_trans = float(m.group(2)) if m else 0
        m = re.search(r"Cache engine: CPU time ([0-9.]+) s in ptdb, ([0-9.]+) s in the traced thread", out)
        c_cpu = float(m.group(1)) + float(m.group(2)) if m else 0
        m = re.search(r"Cache engine: (\d+) block records", out)
        records = int(m.group(1)) if m else 0
        m = re.search(r"largest cache (\d+) bytes", out)
        code = int(m.group(1)) if m else 0
        # the ptrace engine once (python3's script would take it minutes)
        p_time = None
        if name != "python3":
            p_dt, p_out = ptdb_run(setup, "ptrace", True, env, multi)[:2]
            p_time = max(p_dt - base_c - total(p_out, "Decoding instructions"), 1e-6)
        whole = [wall(argv, env, 3)]
        for t in ("valgrind", "qemu-x86_64"):
            if t not in tools:
                whole.append(None)
                continue
            pre = ["valgrind", "--tool=none", "-q"] if t == "valgrind" else ["qemu-x86_64"]
            whole.append(wall(pre + argv, env, 3))
        rate = insns / c_time
        fmt = lambda v: "%9.3f" % v if v is not None else "%9s" % "n/a"
        print("  %-9s %9d %10.2e %10s %10s %8.1f %8s %8.3f %9d %8.1f %8.1f %s %s %s" % (
            name, insns, rate, "%.2e" % (insns / c_cpu) if c_cpu else "n/a",
            "%.2e" % (insns / p_time) if p_time else "n/a", c_time / native,
            "%.1f" % (p_time / c_time) if p_time else "n/a",
            records / insns if insns else 0, code, rss / 2**20, prog_rss / 2**20, fmt(whole[0]), fmt(whole[1]),
            fmt(whole[2])))
        print("  %-9s   engine time %.4f s (translating %.4f s), wall less untraced run %.4f s" % (
            "", c_time, c_trans, c_wall))
        goal_rate, goal_slow = (60e6, 60) if name == "python3" else (150e6, 25)
        # (the issue sets no goal for the multi-threaded workload: shown only)
        row_ok = multi or (rate >= goal_rate and c_time / native <= goal_slow)
        if not row_ok:
            print("  %-9s MISSED: %.2e insns/s (goal %.1e), %.0fx native (goal %dx)" % (
                name, rate, goal_rate, c_time / native, goal_slow))
        ok = ok and row_ok
    print("  (valgrind and qemu columns: whole-program wall seconds, start-up included; "
          "native s likewise)")
    return ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
