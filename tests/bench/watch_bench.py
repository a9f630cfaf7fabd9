"""Watchpoints without debug-register traps (issue 29): a continue with a
watched variable, checked in software (target.hardware-watchpoints
false), against the same region run natively.  tests/bench/progs/
watchrun.c times its own region (stores through pointers, calls, libc's
memset and memcpy; about 0.05 s natively) and writes the watched variable
right after it, so the continue from bench_begin runs the whole region
with the watchpoint checked and stops at that store.

Rows: native (best of 3), the code cache's checking (the default), and
single-stepping (trace.software.engine ptrace) on a region 1/1000 as
long, scaled up (it runs ~thousands of instructions a second).  Per row:
the region's wall and CPU seconds as the program measured them, and x
native (wall; CPU in parentheses).  Goal: the code cache's continue
<= 20x native.  PTDB_BENCH_SCALE scales the region."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PTDB = os.path.join(ROOT, "ptdb")
OUT = os.path.join(ROOT, "tests", "out", "bench")
SCALE = float(os.environ.get("PTDB_BENCH_SCALE", "1"))
N = int(800000 * SCALE)


def region(text):
    m = re.search(r"^region ([0-9.]+) ([0-9.]+)$", text, re.M)
    return (float(m.group(1)), float(m.group(2))) if m else None


def build():
    exe = os.path.join(OUT, "watchrun")
    src = os.path.join(HERE, "progs", "watchrun.c")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run(["gcc", "-g", "-O1", "-no-pie", "-fno-pie", "-o", exe, src], check=True)
    return exe


def watched(exe, n, engine):
    """The region under a continue with the watchpoint, and whether the
    stop was the watchpoint's (the store right after the region)."""
    argv = [PTDB, "-b"]
    for c in ("settings set target.hardware-watchpoints false",
              "settings set trace.software.engine " + engine, "file " + exe, "b bench_begin",
              "r %d" % n, "watchpoint set variable watched", "c", "watchpoint list -b",
              "watchpoint delete", "c"):
        argv += ["-o", c]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", timeout=3600)
    return region(p.stdout), "stop reason = watchpoint 1" in p.stdout, p.stdout


def main():
    os.makedirs(OUT, exist_ok=True)
    exe = build()
    native = None
    for _ in range(3):
        p = subprocess.run([exe, str(N)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        r = region(p.stdout)
        native = r if native is None or (r and r[0] < native[0]) else native
    print("watched continue (target.hardware-watchpoints false; region timed by the program):")
    print("  %-26s %10s %9s %9s %9s" % ("run", "iterations", "wall s", "CPU s", "x native"))
    print("  %-26s %10d %9.3f %9.3f %9s" % ("native", N, native[0], native[1], "1"))
    ok = True
    for label, engine, n in (("code cache (default)", "cache", N),
                             ("single-step, 1/1000", "ptrace", max(N // 1000, 1))):
        r, hit, out = watched(exe, n, engine)
        if not r or not hit:
            print("  %-26s failed:\n%s" % (label, out[-2000:]))
            ok = False
            continue
        k = N / n
        wall, cpu = r[0] * k, r[1] * k
        print("  %-26s %10d %9.3f %9.3f %9s" % (label, n, r[0], r[1], "%.1f (%.1f)" % (
            wall / native[0], cpu / native[1] if native[1] else 0)))
        m = re.search(r"code cache: (\d+) entries, (\d+) checks trapped", out)
        if m:
            print("  %-26s %s cache entries, %s checks trapped" % ("", m.group(1), m.group(2)))
        if engine == "cache" and wall / native[0] > 20:
            print("  %-26s MISSED" % "")
            ok = False
    print("  goal: the code cache's continue <= 20x native (single-step scaled to the same region)")
    return ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
