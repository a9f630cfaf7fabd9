"""Loading big bundles (issue 33), each row against a peer measured in the
same run:

big: a bundle whose thread's trace is a 1 GiB file (a recorded trace of
tests/programs/trace_long repeated): `trace load`, then the memory resident
before the first dump (VmRSS of the session) against the file's size (the
trace files are mapped, read as the decode needs them), and the load's time
against reading the file once (cat > /dev/null, its pages cached by both).
Goal: <= 64 MiB resident.

threads: bundles of 1,000 and 100,000 threads (each thread's trace the same
recorded 8 KiB file, ~900,000 instructions, a PSB every 64 bytes): `trace
load` and `thread list`, the time at 100,000 against 100 x the time at
1,000 (1.00: linear).  Goal: <= 5 s.  'thread list' shows where each trace
ends, decoded from the last PSB on: what bounds it is the decode of each
thread's last PSB period (PTDB_BENCH_PSB=4096: the same trace with a PSB
every 4 KiB, ~1.8 ms a thread here).

processes: bundles of 1,000 and 10,000 processes (one traced thread each,
the same modules): `trace load` of the first, the time at 10,000 against
10 x the time at 1,000 (1.00: linear)."""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PTDB = os.path.join(ROOT, "ptdb")
OUT = os.path.join(ROOT, "tests", "out", "bench", "load")
PROG = os.path.join(ROOT, "tests", "programs", "trace_long")


def base_bundle(period=""):
    """A bundle of trace_long's main thread, 8 KiB of trace with time (and
    a PSB every period bytes)."""
    b = os.path.join(OUT, "base" + period)
    if os.path.exists(os.path.join(b, "trace.json")):
        return b
    shutil.rmtree(b, ignore_errors=True)
    cmds = ["file " + PROG, "b main", "r",
            "thread trace start -s 8KiB --tsc" + (" -p " + period if period else ""), "b 20", "c",
            "trace save " + b, "kill"]
    argv = [PTDB, "-b"]
    for c in cmds:
        argv += ["-o", c]
    p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600)
    if not os.path.exists(os.path.join(b, "trace.json")):
        sys.exit("load bench: no bundle saved:\n" + p.stdout[-2000:])
    return b


def variant(base, name, edit):
    """A copy of base (its files linked, not copied) with trace.json edited."""
    d = os.path.join(OUT, name)
    if os.path.exists(os.path.join(d, "trace.json")):
        return d
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(base, d, copy_function=os.link)
    with open(os.path.join(base, "trace.json")) as f:
        j = json.load(f)
    edit(j, d)
    os.unlink(os.path.join(d, "trace.json"))
    with open(os.path.join(d, "trace.json"), "w") as f:
        json.dump(j, f)
    return d


def status_kb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


def load_resident(bundle):
    """trace load in an interactive session: seconds, VmRSS KiB after it."""
    p = subprocess.Popen([PTDB], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    t0 = time.monotonic()
    p.stdin.write(("trace load %s\n" % bundle).encode())
    p.stdin.flush()
    out = b""
    while b"Loaded the trace" not in out and b"error:" not in out:
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        out += chunk
    dt = time.monotonic() - t0
    rss = status_kb(p.pid, "VmRSS")
    p.stdin.write(b"quit\n")
    p.stdin.close()
    p.wait(timeout=60)
    if b"Loaded the trace" not in out:
        sys.exit("load bench: trace load failed:\n" + out.decode(errors="replace")[-2000:])
    return dt, rss


def big(base):
    def edit(j, d):
        th = j["processes"][0]["threads"][0]
        path = os.path.join(d, th["iptTrace"])
        with open(path, "rb") as f:
            data = f.read()
        data = data[data.find(bytes([2, 0x82] * 8)):]
        os.unlink(path)		# (a link to the base's)
        with open(path, "wb") as f:
            for _ in range((1 << 30) // len(data) + 1):
                f.write(data)
            f.truncate(1 << 30)
    b = variant(base, "big", edit)
    trace = os.path.join(b, json.load(open(os.path.join(b, "trace.json")))["processes"][0]["threads"][0]["iptTrace"])
    t0 = time.monotonic()
    subprocess.run(["cat", trace], stdout=subprocess.DEVNULL, check=True)
    t_cat = time.monotonic() - t0
    t, rss = load_resident(b)
    mib = rss / 1024
    print("big (a 1 GiB trace file):")
    print("  trace load %.3f s, cat of the file %.3f s: ratio %.2f" % (t, t_cat, t / t_cat))
    print("  resident before the first dump %.1f MiB, %.3f of the trace's size %s" % (
        mib, mib / 1024, "ok" if mib <= 64 else "MISSED"))
    print("  goal: <= 64 MiB resident")
    return mib <= 64


def cpu_children():
    import resource
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def timed(argv):
    """Wall seconds of argv (and its CPU seconds in cpu_of[argv[-1]]: the
    machine's other load aside)."""
    c0 = cpu_children()
    t0 = time.monotonic()
    p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=3600)
    dt = time.monotonic() - t0
    if "Loaded the trace" not in p.stdout or "error:" in p.stdout:
        sys.exit("load bench: %s failed:\n%s" % (" ".join(argv), p.stdout[-2000:]))
    cpu_of[argv[-1]] = cpu_children() - c0
    return dt


cpu_of = {}


def threads():
    base = base_bundle(os.environ.get("PTDB_BENCH_PSB", "64"))

    def make(n):
        def edit(j, d):
            th = j["processes"][0]["threads"][0]
            j["processes"][0]["threads"] = [{"tid": 100 + i, "iptTrace": th["iptTrace"]}
                                            for i in range(n)]
        return variant(base, "threads-%d-%s" % (n, os.path.basename(base)), edit)
    t, c = {}, {}
    for n in (1000, 100000):
        b = make(n)
        t[n, "load"] = timed([PTDB, "-b", "-o", "trace load " + b])
        t[n, "list"] = timed([PTDB, "-b", "-o", "trace load " + b, "-o", "thread list"])
        c[n] = cpu_of["thread list"]
    whole = t[100000, "list"]
    print("threads (trace load, thread list):")
    for n in (1000, 100000):
        print("  %6d threads: load %.2f s, load + thread list %.2f s (CPU %.2f s)" % (
            n, t[n, "load"], t[n, "list"], c[n]))
    print("  100,000 against 100 x 1,000: load %.2f, load + thread list %.2f (1.00: linear)" % (
        t[100000, "load"] / (100 * t[1000, "load"]), whole / (100 * t[1000, "list"])))
    print("  goal: load and thread list <= 5 s: %.2f s %s (CPU %.2f s: the rest is the machine's "
          "other load)" % (whole, "ok" if whole <= 5 else "MISSED", c[100000]))
    return whole <= 5


def processes(base):
    def make(n):
        def edit(j, d):
            p0 = j["processes"][0]
            tid = p0["threads"][0]
            j["processes"] = [dict(p0, pid=1000 + i, threads=[dict(tid, tid=1000 + i)])
                              for i in range(n)]
        return variant(base, "procs-%d" % n, edit)
    t = {}
    for n in (1000, 10000):
        t[n] = timed([PTDB, "-b", "-o", "trace load " + make(n)])
    print("processes (trace load of the first):")
    print("  1,000: %.2f s, 10,000: %.2f s; 10,000 against 10 x 1,000: %.2f (1.00: linear)" % (
        t[1000], t[10000], t[10000] / (10 * t[1000])))
    return True


def main(which=("big", "threads", "processes")):
    os.makedirs(OUT, exist_ok=True)
    base = base_bundle()
    ok = True
    if "big" in which:
        ok = big(base) and ok
    if "threads" in which:
        ok = threads() and ok
    if "processes" in which:
        ok = processes(base) and ok
    return ok


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv[1:] or ("big", "threads", "processes")) else 1)
