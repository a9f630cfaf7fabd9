"""Per-CPU tracing with the software backend: each thread's dump split out
of the one CPU trace equals, instruction for instruction, its dump when the
same program is traced per thread (the collector's schedule counts blocks,
not time: per-CPU tracing takes turns, one emulated CPU, so the per-thread
run takes turns too, PTDB_CACHE_TURNS, not the cache engine's threads in
parallel, whose schedule is the machine's); a per-CPU trace saved as a
bundle loads and dumps the same."""
import os
import re
import shutil

import results
import session
from bundle_test import OUT, PROG, ptdb, read

# program, setup, run: every thread's whole dump must match (the collector
# steps system calls that return at once and takes a new thread at its
# parent's clone, so the schedule never waits on the kernel's timing).
CASES = [
    ("threads", ["b main", "b 4", "b 8", "r"], ["c", "c"]),
    ("oracle_threads", ["b main", "r"], ["b worker_end", "c"]),
]


def per_thread(text):
    """{thread index: [instruction lines]} of a dump."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"thread #(\d+):", line)
        if m:
            cur = out.setdefault(int(m.group(1)), [])
        elif cur is not None and line.startswith("    ["):
            cur.append(line)
    return out


def dump(name, setup, run, mode, extra=()):
    path = os.path.join(OUT, "percpu-%s-%s.txt" % (name, mode or "thread"))
    if os.path.exists(path):
        os.unlink(path)
    out = session.run_script(["file " + os.path.join(PROG, name)] + setup +
                             ["process trace start -s 16MiB %s" % mode] + run +
                             ["thread trace dump instructions all -a -F " + path,
                              "thread trace dump info all"] + list(extra) + ["kill"], OUT, 120,
                             None if mode else {"PTDB_CACHE_TURNS": "1"})
    text = read(path).decode() if os.path.exists(path) else ""
    # the same program twice: only the thread ids differ
    return re.sub(r"tid = \d+", "tid = T", text), out


def increasing_times(text):
    """-t on a per-CPU trace: every instruction has a time, and each
    thread's times never go back and do move on."""
    why = []
    for k, lines in per_thread(text).items():
        ns = [float(m.group(1)) for m in (re.search(r"\[ *\d+\] \[([\d.]+) ns\]", x) for x in lines) if m]
        if len(ns) != len(lines) or not ns:
            why.append("thread #%d: %d of %d instructions have a time" % (k, len(ns), len(lines)))
        elif any(b < a for a, b in zip(ns, ns[1:])) or ns[-1] <= ns[0]:
            why.append("thread #%d: -t times do not increase (%s ... %s)" % (k, ns[:3], ns[-3:]))
    return why


def equal_to_per_thread(name, setup, run):
    a, out_a = dump(name, setup, run, "")
    bundle = os.path.join(OUT, "percpu-bundle-" + name)
    shutil.rmtree(bundle, ignore_errors=True)
    b, out_b = dump(name, setup, run, "--per-cpu-tracing", ["trace save " + bundle])
    why = []
    if a.count("\n    [") < 100:
        why.append("the per-thread dump has almost no instructions")
    if a != b:
        count = lambda t: {k: len(v) for k, v in per_thread(t).items()}
        why.append("per-CPU and per-thread dumps differ: instructions per thread %s vs %s"
                   % (count(b), count(a)))
    if "Continuous executions of this thread:" not in out_b:
        why.append("dump info shows no per-CPU figures")
    post = os.path.join(OUT, "percpu-%s-loaded.txt" % name)
    timed = os.path.join(OUT, "percpu-%s-times.txt" % name)
    out_c = ptdb(["trace load " + bundle, "thread trace dump instructions all -a -F " + post,
                  "thread trace dump instructions all -a -t -F " + timed])
    if not os.path.exists(post) or re.sub(r"tid = \d+", "tid = T", read(post).decode()) != b:
        why.append("the per-CPU bundle does not dump the same after loading:\n" + out_c[-1500:])
    why += increasing_times(read(timed).decode() if os.path.exists(timed) else "")
    if why:
        return results.fail("per-CPU equals per-thread: " + name, "\n".join(why) + "\n" + out_b[-2000:])
    results.ok("per-CPU equals per-thread: " + name)


def run_all():
    os.makedirs(OUT, exist_ok=True)
    for c in CASES:
        equal_to_per_thread(*c)


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
