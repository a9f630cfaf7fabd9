"""Per-CPU tracing with the software backend: each thread's dump split out
of the one CPU trace equals, instruction for instruction, its dump when the
same program is traced per thread (the collector's schedule counts blocks,
not time); a per-CPU trace saved as a bundle loads and dumps the same."""
import os
import re
import shutil

import results
from bundle_test import OUT, PROG, ptdb, read

# program, setup, run, the threads whose whole trace must match (others run
# beside them for a schedule-dependent time: their shorter trace must be a
# prefix of the longer). In threads, thread 2 goes on creating thread 3's
# stack while thread 3 runs to its breakpoint, so where thread 2 is when the
# process stops depends on the kernel's schedule.
CASES = [
    ("threads", ["b main", "b 4", "b 8", "r"], ["c", "c"], [1, 3]),
    ("oracle_threads", ["b main", "r"], ["b worker_end", "c"], [2]),
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


def same(a, b, exact):
    if exact is None:
        return a == b
    ta, tb = per_thread(a), per_thread(b)
    if sorted(ta) != sorted(tb):
        return False
    for k in ta:
        x, y = ta[k], tb[k]
        if k in exact and x != y:
            return False
        n = min(len(x), len(y))
        if x[:n] != y[:n] or n < 100:
            return False
    return True


def dump(name, setup, run, mode, extra=()):
    path = os.path.join(OUT, "percpu-%s-%s.txt" % (name, mode or "thread"))
    if os.path.exists(path):
        os.unlink(path)
    out = ptdb(["file " + os.path.join(PROG, name)] + setup +
               ["process trace start -s 16MiB %s" % mode] + run +
               ["thread trace dump instructions all -a -F " + path,
                "thread trace dump info all"] + list(extra) + ["kill"])
    text = read(path).decode() if os.path.exists(path) else ""
    # the same program twice: only the thread ids differ
    return re.sub(r"tid = \d+", "tid = T", text), out


def equal_to_per_thread(name, setup, run, exact):
    a, out_a = dump(name, setup, run, "")
    bundle = os.path.join(OUT, "percpu-bundle-" + name)
    shutil.rmtree(bundle, ignore_errors=True)
    b, out_b = dump(name, setup, run, "--per-cpu-tracing", ["trace save " + bundle])
    why = []
    if a.count("\n    [") < 100:
        why.append("the per-thread dump has almost no instructions")
    if not same(a, b, exact):
        why.append("per-CPU and per-thread dumps differ (%d vs %d bytes)" % (len(b), len(a)))
    if "Continuous executions of this thread:" not in out_b:
        why.append("dump info shows no per-CPU figures")
    post = os.path.join(OUT, "percpu-%s-loaded.txt" % name)
    out_c = ptdb(["trace load " + bundle, "thread trace dump instructions all -a -F " + post])
    if not os.path.exists(post) or re.sub(r"tid = \d+", "tid = T", read(post).decode()) != b:
        why.append("the per-CPU bundle does not dump the same after loading:\n" + out_c[-1500:])
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
