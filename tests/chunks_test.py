"""The decoded trace is an index over chunks decoded on demand (issue 33):
whole dumps of a thread's trace read through chunks equal, byte for byte,
the dumps of the same trace decoded whole into memory (PTDB_TRACE_STORE=full,
the store before the index).  The traces are recorded once with a 64-byte
PSB period and saved as bundles, so both read the same bytes; the index
takes a chunk at every PSB (PTDB_TRACE_CHUNK_BYTES=0) and every ~1 KiB, so
each dump crosses hundreds of chunk boundaries, forward and in reverse; and
the indexing pass runs in three segments on three threads
(PTDB_DECODE_THREADS=3)."""
import os
import re
import shutil
import subprocess

import results
from bundle_test import OUT, PROG, PTDB, ROOT

# program, commands that stop it with its trace recorded (64-byte PSBs)
CASES = [
    ("trace_long", ["b main", "r", "thread trace start -p 64 -s 8KiB --tsc", "b 20", "c"]),
    ("recurse", ["b main", "r", "process trace start -p 64 --tsc", "b exit", "c"]),
    ("threads", ["b main", "b 4", "b 8", "r", "thread trace start all -p 64", "c", "c"]),
    ("threads", ["b main", "r", "process trace start -p 64 --per-cpu-tracing", "b 8", "c", "c"]),
    ("signals", ["b main", "r", "process trace start -p 64", "process handle SIGUSR1 -s false", "c"]),
]

DUMPS = [
    "thread trace dump info all",
    "thread trace dump instructions all -a -r -e",
    "thread trace dump instructions all -a -f -k",
    "thread trace dump instructions all -c 3000 -t -e",
    "thread trace dump instructions all -c 2000 -s 40000",
    "thread trace dump instructions all -f -c 2000 -s 30000 -t",
    "thread trace dump instructions all -J -c 3000 -s 777",
    "thread trace dump instructions all -j -a -e -t",
    "thread trace dump instructions all --from 1000 --to 9000 -e",
    "thread trace dump instructions all -i 50000 -c 500",
    "thread trace dump instructions all -E -a -t",
    "thread trace dump function-calls all",
    "thread trace dump instructions -c 100",
    "thread trace dump instructions -C -c 100",
    "thread trace dump instructions -C -c 100",
]


def run(lines, env):
    script = os.path.join(OUT, "chunks.ptdb")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    p = subprocess.run([PTDB, "-b", "-s", script], cwd=ROOT, capture_output=True, text=True,
                       timeout=600, env=dict(os.environ, **env))
    # (decode times and the memory held are what differ by design)
    return "".join(l for l in (p.stdout + p.stderr).splitlines(True)
                   if not re.search(r"memory usage|Decoding instructions|Timing for", l))


def compare(k, name, setup):
    bundle = os.path.join(OUT, "chunks-%d-%s" % (k, name))
    shutil.rmtree(bundle, ignore_errors=True)
    out = run(["file " + os.path.join(PROG, name)] + setup + ["trace save " + bundle, "kill"], {})
    if not os.path.exists(os.path.join(bundle, "trace.json")):
        return results.fail("chunks: %s %d" % (name, k), "no bundle saved:\n" + out[-2000:])
    ctf = os.path.join(OUT, "chunks-%d-%s.ctf" % (k, name))
    texts = {}
    for mode, env in (("full", {"PTDB_TRACE_STORE": "full"}),
                      ("0", {"PTDB_TRACE_CHUNK_BYTES": "0"}),
                      ("1000", {"PTDB_TRACE_CHUNK_BYTES": "1000"}),
                      ("3 threads", {"PTDB_TRACE_CHUNK_BYTES": "0", "PTDB_DECODE_THREADS": "3"})):
        texts[mode] = run(["trace load " + bundle] + DUMPS +
                          ["thread trace export ctf -f " + ctf], env)
        with open(ctf) as f:
            texts[mode] += f.read()
    why = []
    if texts["full"].count("\n    [") < 1000 or "error:" in texts["full"]:
        why.append("the full dump is short or has errors:\n" + texts["full"][:3000])
    for mode in ("0", "1000", "3 threads"):
        if texts[mode] != texts["full"]:
            a, b = texts["full"].splitlines(), texts[mode].splitlines()
            i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            why.append("%s: line %d differs:\n  full:    %s\n  indexed: %s"
                       % (mode, i + 1, a[i] if i < len(a) else "(end)", b[i] if i < len(b) else "(end)"))
    if why:
        return results.fail("chunks: %s %d dumps as the full store" % (name, k), "\n".join(why))
    results.ok("chunks: %s %d dumps as the full store (%d lines)" % (name, k, texts["full"].count("\n")))
    stays_parallel(k, name, bundle)


def stays_parallel(k, name, bundle):
    """The parallel indexing pass's segments start from the state the one
    before ended in (the time in force at their PSB's sync point, the CPU
    marks, the last disable): on these traces it never falls back to the
    serial pass ('dump info -v' says which ran), and runs on 3 threads for
    each thread whose trace is long enough."""
    out = run(["trace load " + bundle, "thread trace dump info all -v"],
              {"PTDB_TRACE_CHUNK_BYTES": "0", "PTDB_DECODE_THREADS": "3"})
    passes = re.findall(r"Indexing pass: (\d+) threads?(.*)", out)
    what = "chunks: %s %d indexed in parallel" % (name, k)
    if not passes or any(rest for _, rest in passes) or max(int(n) for n, _ in passes) != 3:
        return results.fail(what, "indexing passes: %r\n%s" % (passes, out[-3000:]))
    results.ok("%s (%s threads)" % (what, ", ".join(n for n, _ in passes)))


def sizes_beyond_memory():
    """A buffer beyond the memory available is an error before tracing
    starts, one beyond half of it a warning; the session goes on."""
    out = run(["file " + os.path.join(PROG, "trace_loop"), "b main", "r",
               "process trace start -s 4GB", "thread trace start -s 700MiB",
               "thread trace stop", "thread trace start -s 100MiB", "kill"],
              {"PTDB_MEM_AVAILABLE": "1GiB"})
    want = ["error: --size 4 GiB is more than the memory this machine has available (1 GiB, "
            "MemAvailable in /proc/meminfo)",
            "warning: --size 700 MiB: reading the trace takes twice that"]
    why = [w for w in want if w not in out]
    if out.count("warning:") != 1 or out.count("error:") != 1:
        why.append("one error and one warning expected")
    if why:
        return results.fail("chunks: sizes beyond the memory available", "\n".join(why) + "\n" + out)
    results.ok("chunks: sizes beyond the memory available")


def mapped():
    """A trace file of 1 MiB or more is mapped, not read, at trace load (and
    decoded where it lies): recurse's trace repeated to 2 MiB dumps the same
    through the full store and through chunks, and 'thread list' shows
    where it ends as the full decode does."""
    src = os.path.join(OUT, "chunks-1-recurse")
    dst = os.path.join(OUT, "chunks-mapped")
    shutil.rmtree(dst, ignore_errors=True)
    if not os.path.exists(os.path.join(src, "trace.json")):
        return results.fail("chunks: a mapped trace file", "no recurse bundle")
    shutil.copytree(src, dst)
    tdir = os.path.join(dst, "threads")
    for f in os.listdir(tdir):
        path = os.path.join(tdir, f)
        with open(path, "rb") as fh:
            data = fh.read()
        data = data[data.find(bytes([2, 0x82] * 8)):]
        with open(path, "wb") as fh:
            fh.write(data * ((2 << 20) // len(data) + 1))
    cmds = ["trace load " + dst, "thread list", "thread trace dump info",
            "thread trace dump instructions -c 3000 -t -e", "thread trace dump instructions -s 200000 -c 500",
            "thread trace dump function-calls", "thread trace dump instructions -c 1"]
    full = run(cmds, {"PTDB_TRACE_STORE": "full"})
    chunked = run(cmds, {"PTDB_DECODE_THREADS": "2"})
    what = "chunks: a mapped trace file (2 MiB) dumps as the full store"
    # thread list reads the end of the trace alone: the last instruction
    listed = re.search(r"thread #1: tid = \d+, (0x[0-9a-f]+)", full)
    total = re.findall(r"total instructions = (\d+)", full)
    last = total and re.search(r"\[\s*%d\] (0x[0-9a-f]+)" % (int(total[-1]) - 1), full)
    if not listed or not last or listed.group(1) != last.group(1):
        return results.fail(what, "thread list's pc %s is not the last instruction's %s" % (
            listed and listed.group(1), last and last.group(1)))
    if full != chunked or "error:" in full or "Raw trace size: 2" not in full:
        a, b = full.splitlines(), chunked.splitlines()
        i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        return results.fail(what, "line %d:\n  full:    %s\n  indexed: %s\n%s" % (
            i + 1, a[i] if i < len(a) else "(end)", b[i] if i < len(b) else "(end)", full[:2000]))
    results.ok(what)


def run_all():
    os.makedirs(OUT, exist_ok=True)
    sizes_beyond_memory()
    for k, (name, setup) in enumerate(CASES):
        compare(k, name, setup)
    mapped()


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
