"""Dump benchmark: instructions per second of 'thread trace dump
instructions -a' in text and JSON, to standard output and to a file (-F),
and the growth of ptdb's peak memory over the loaded, decoded trace, on a
trace of >= 5 M instructions (progs/dumpsrc.c traced once and saved as a
bundle).  Each mode is timed as (load + decode + dump) minus (load +
decode), best of RUNS; memory is the peak RSS of the same two runs
(wait4's rusage of ptdb alone).  The goals are judged on elapsed time; the
CPU column (ptdb's user + system time, same subtraction) shows what the
dump costs when other work shares the machine's cores.  Goals: >= 5 M instructions/s in text to a
file, >= 3 M/s in JSON, peak memory growth <= 64 MiB."""
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PTDB = os.path.join(ROOT, "ptdb")
OUT = os.path.join(ROOT, "tests", "out", "bench")
RUNS = int(os.environ.get("PTDB_BENCH_RUNS", "3"))


def run(cmds):
    """(seconds, peak RSS in KiB, output, CPU seconds) of ptdb -b with the
    commands."""
    argv = [PTDB, "-b"]
    for c in cmds:
        argv += ["-o", c]
    with open(os.devnull, "w") as null:
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE if cmds[-1].endswith("info") else null,
                             stderr=subprocess.STDOUT, text=True)
        out = p.stdout.read() if p.stdout else ""
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.monotonic() - t0
    if status:
        sys.exit("dump benchmark: ptdb failed: %s\n%s" % (" ".join(cmds), out[-2000:]))
    return dt, ru.ru_maxrss, out, ru.ru_utime + ru.ru_stime


def bundle():
    src = os.path.join(ROOT, "tests", "bench", "progs", "dumpsrc.c")
    exe = os.path.join(OUT, "dumpsrc")
    bdir = os.path.join(OUT, "dump-bundle")
    os.makedirs(OUT, exist_ok=True)
    if os.path.exists(os.path.join(bdir, "trace.json")) and os.path.exists(exe) and \
            os.path.getmtime(exe) >= os.path.getmtime(src):
        return bdir
    subprocess.run(["gcc", "-g", "-O0", "-no-pie", "-fno-pie", "-o", exe, src], check=True)
    print("tracing dumpsrc once (about 6 M instructions)...", flush=True)
    p = subprocess.run([PTDB, "-b", "-o", "file " + exe, "-o", "b bench_begin", "-o", "b bench_end",
                        "-o", "r", "-o", "thread trace start -s 64MiB", "-o", "c",
                        "-o", "trace save --force " + bdir], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if "Trace bundle description file written" not in p.stdout:
        sys.exit("dump benchmark: could not trace dumpsrc\n" + p.stdout[-2000:])
    return bdir


def dump_bench():
    bdir = bundle()
    base = ["trace load " + bdir, "thread trace dump info"]
    best0 = min((run(base) for _ in range(RUNS)), key=lambda r: r[0])
    insns = int(re.search(r"Total number of instructions: (\d+)", best0[2]).group(1))
    print("dump (a %d-instruction trace; load and decode alone: %.2f s, peak %.0f MiB):"
          % (insns, best0[0], best0[1] / 1024))
    print("  %-18s %12s %14s %14s" % ("mode", "insns/s", "memory growth", "insns/CPU s"))
    target = os.path.join(OUT, "dump-out")
    ok = True
    for name, cmd, goal in (("text to a file", "-F " + target, 5e6),
                            ("text to stdout", "", 5e6),
                            ("JSON to a file", "-j -F " + target, 3e6),
                            ("JSON to stdout", "-j", 3e6)):
        best = min((run(base + ["thread trace dump instructions -a " + cmd]) for _ in range(RUNS)),
                   key=lambda r: r[0])
        rate = insns / max(best[0] - best0[0], 1e-6)
        cpu_rate = insns / max(best[3] - best0[3], 1e-6)
        growth = max(best[1] - best0[1], 0) / 1024.0
        row_ok = rate >= goal and growth <= 64
        ok = ok and row_ok
        print("  %-18s %12.0f %10.1f MiB %14.0f %s" % (name, rate, growth, cpu_rate,
                                                      "ok" if row_ok else "MISSED"))
    if os.path.exists(target):
        os.unlink(target)
    print("  goals: >= 5 M insns/s text, >= 3 M/s JSON, peak memory growth <= 64 MiB")
    return ok


if __name__ == "__main__":
    sys.exit(0 if dump_bench() else 1)
