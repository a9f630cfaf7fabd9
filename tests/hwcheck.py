#!/usr/bin/env python3
"""make hwcheck: the intel-pt backend end to end on a machine with Intel PT.

Prints one verdict line per step and exits 1 if any step failed:

  1 pmu        the intel_pt PMU: its type and capabilities (sysfs)
  2 loop       per-thread trace of mission 1's loop (trace_loop, main to
               line 7): exactly 21 instructions, the same listing as the
               software backend's
  3 wrap       a 4 KiB buffer on a long loop (trace_long): the buffer wraps
               and the newest trace is kept — thousands of instructions,
               the last ones the loop's own, no error at the end
  4 per-cpu    per-CPU tracing with context switches on a 4-thread program
               (hw_threads): each thread's instructions in work() equal its
               per-thread trace's
  5 tsc        -t timestamps of a --tsc trace: every instruction has one,
               and they never go back and do move on
  6 bundle     trace save, then trace load in a fresh ptdb: the same dump

Without Intel PT it says so in one line and exits 0, checking nothing.
--backend software runs steps 2-6 against the software backend (a dry run
of this script where there is no PT; step 1 is skipped).
"""
import os
import re
import shutil
import subprocess
import sys

import session

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
PROG = os.path.join(ROOT, "tests", "programs")
OUT = os.path.join(ROOT, "tests", "out", "hwcheck")
PMU = "/sys/bus/event_source/devices/intel_pt"


def ptdb(lines, timeout=600):
    return session.run_script(lines, OUT, timeout)


def dump_file(path):
    return open(path).read() if os.path.exists(path) else ""


def insns(text):
    """Instruction lines of a dump, without their ids."""
    return [re.sub(r"^ *(->)? *\[ *\d+\] ", "", l) for l in text.splitlines()
            if re.match(r"^( {4}|->  )\[ *\d+\] (\[[^]]*\] )?0x", l)]


def fresh(name):
    p = os.path.join(OUT, name)
    if os.path.isdir(p):
        shutil.rmtree(p)
    elif os.path.exists(p):
        os.unlink(p)
    return p


def step_pmu(backend):
    caps = {}
    cdir = os.path.join(PMU, "caps")
    for c in sorted(os.listdir(cdir)) if os.path.isdir(cdir) else []:
        try:
            caps[c] = open(os.path.join(cdir, c)).read().strip()
        except OSError:
            pass
    ptype = open(os.path.join(PMU, "type")).read().strip()
    detail = "type %s; caps %s" % (ptype, " ".join("%s=%s" % kv for kv in caps.items()) or "none")
    if not ptype.isdigit():
        return False, detail
    return True, detail


def loop_dump(backend, path):
    return ptdb(["file " + os.path.join(PROG, "trace_loop"), "b main", "r",
                 "thread trace start --backend " + backend, "b 7", "c",
                 "thread trace dump instructions -a -F " + path, "kill"])


def step_loop(backend):
    hw, sw = fresh("loop-%s.txt" % backend), fresh("loop-software.txt")
    out = loop_dump(backend, hw)
    if backend != "software":
        out += loop_dump("software", sw)
    a, b = dump_file(hw), dump_file(sw if backend != "software" else hw)
    if "total instructions = 21" not in a:
        return False, "expected 21 instructions:\n" + (a or out)[-1500:]
    if insns(a) != insns(b):
        return False, "the listing differs from the software backend's:\n" + a + "\n" + b
    return True, "21 instructions, the same as the software backend's"


def step_wrap(backend):
    path = fresh("wrap.txt")
    out = ptdb(["file " + os.path.join(PROG, "trace_long"), "b main", "r",
                "thread trace start -s 4KiB --backend " + backend, "b 20", "c",
                "thread trace dump info", "thread trace dump instructions -c 200 -F " + path,
                "kill"])
    text = dump_file(path)
    m = re.search(r"total instructions = (\d+)", text)
    total = int(m.group(1)) if m else 0
    lines = insns(text)
    why = []
    if total < 2000:
        why.append("%d instructions from a 4 KiB buffer (expected thousands)" % total)
    if "(error)" in text:
        why.append("errors among the newest 200 items")
    # the newest instructions are the loop's (its condition, line 10)
    last_ctx = [l for l in text.splitlines() if l.startswith("  trace_long`")]
    if not lines or not last_ctx or not re.search(r"trace_long\.c:10\b", last_ctx[-1]):
        why.append("the newest instructions are not the loop's (last context %r)" %
                   (last_ctx[-1] if last_ctx else None))
    if "Raw trace size: 4 KiB" not in out:
        why.append("dump info does not show a 4 KiB raw trace")
    if why:
        return False, "; ".join(why) + "\n" + out[-1500:]
    return True, "%d instructions kept from a wrapped 4 KiB buffer, the newest the loop's" % total


def work_range():
    out = subprocess.run(["nm", os.path.join(PROG, "hw_threads")], capture_output=True,
                         text=True).stdout
    syms = sorted((int(a, 16), n) for a, t, n in
                  (l.split() for l in out.splitlines() if len(l.split()) == 3) if t in "tT")
    for i, (a, n) in enumerate(syms):
        if n == "work":
            return a, syms[i + 1][0]
    return None


def per_thread_work(text, rng):
    """{thread index: [instructions in work()]}."""
    res, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"thread #(\d+):", line)
        if m:
            cur = res.setdefault(int(m.group(1)), [])
            continue
        m = re.match(r"^(?: {4}|->  )\[ *\d+\] (0x[0-9a-f]+)", line)
        if m and cur is not None and rng[0] <= int(m.group(1), 16) < rng[1]:
            cur.append(line.split("] ", 1)[1])
    return res


def step_percpu(backend, iters):
    rng = work_range()
    if not rng:
        return False, "no symbol 'work' in hw_threads"
    dumps, switches = {}, 0
    for mode in ("", "--per-cpu-tracing"):
        path = fresh("percpu%s.txt" % mode.replace("-", "_"))
        out = ptdb(["file " + os.path.join(PROG, "hw_threads"),
                    "settings set target.run-args %d" % iters, "b main", "b work_done", "r",
                    "process trace start -s 16MiB --backend %s %s" % (backend, mode), "c",
                    "thread trace dump instructions all -a -F " + path,
                    "thread trace dump info all", "kill"])
        dumps[mode] = per_thread_work(dump_file(path), rng)
        if "error:" in out:
            return False, "%s: %s" % (mode or "per-thread", out[-1500:])
        if mode:
            recs = [int(n) for n in re.findall(r"Context switches: (\d+) records", out)]
            if not recs or not max(recs):
                return False, "no context switches recorded per CPU\n" + out[-1500:]
            switches = max(recs)
            if "Context switches lost" in out:
                return False, "context switches were lost\n" + out[-1500:]
    a, b = dumps[""], dumps["--per-cpu-tracing"]
    workers = [k for k in a if a[k]]
    if len(workers) != 4:
        return False, "%d threads ran work() in the per-thread trace, expected 4" % len(workers)
    bad = [k for k in workers if a[k] != b.get(k)]
    if bad:
        return False, "threads %s: per-CPU differs from per-thread (%s vs %s instructions)" % (
            bad, [len(a[k]) for k in bad], [len(b.get(k, [])) for k in bad])
    return True, "4 threads, %s instructions in work() each, equal per CPU and per thread " \
        "(%d context-switch records)" % ("/".join(str(len(a[k])) for k in workers), switches)


def step_tsc(backend):
    path = fresh("tsc.txt")
    out = ptdb(["file " + os.path.join(PROG, "trace_long"), "b main", "r",
                "thread trace start -s 1MiB --tsc --backend " + backend, "b 20", "c",
                "thread trace dump instructions -t -c 5000 -F " + path, "kill"])
    lines = insns(dump_file(path))
    ns = [float(m.group(1)) for m in (re.match(r"\[([\d.]+) ns\]", l) for l in lines) if m]
    if not lines or len(ns) != len(lines):
        return False, "%d of %d instructions have a time\n%s" % (len(ns), len(lines), out[-1500:])
    if any(y < x for x, y in zip(ns, ns[1:])) or ns[-1] <= ns[0]:
        return False, "times do not increase: %s ... %s" % (ns[:3], ns[-3:])
    return True, "%d timestamps, increasing over %.0f ns" % (len(ns), ns[-1] - ns[0])


def step_bundle(backend):
    d, live, post = fresh("bundle"), fresh("bundle-live.txt"), fresh("bundle-post.txt")
    out = ptdb(["file " + os.path.join(PROG, "trace_loop"), "b main", "r",
                "thread trace start --backend " + backend, "b 7", "c",
                "thread trace dump instructions -a -F " + live, "trace save " + d, "kill"])
    out += ptdb(["trace load " + d, "thread trace dump instructions -a -F " + post])
    a, b = dump_file(live), dump_file(post)
    if not a or a != b:
        return False, "the loaded dump differs from the live one\n" + out[-1500:]
    return True, "saved and loaded: the same %d instructions" % len(insns(a))


def main():
    backend = "intel-pt"
    if "--backend" in sys.argv[1:]:
        backend = sys.argv[sys.argv.index("--backend") + 1]
    if backend == "intel-pt" and not os.path.exists(os.path.join(PMU, "type")):
        print("hwcheck: no Intel PT on this machine (%s/type is missing): nothing was checked."
              % PMU)
        return 0
    os.makedirs(OUT, exist_ok=True)
    steps = [("pmu", step_pmu), ("loop", step_loop), ("wrap", step_wrap),
             ("per-cpu", lambda b: step_percpu(b, 200000 if b == "intel-pt" else 300)),
             ("tsc", step_tsc), ("bundle", step_bundle)]
    failed = 0
    for i, (name, fn) in enumerate(steps, 1):
        if name == "pmu" and backend != "intel-pt":
            print("hwcheck: %d %s: skipped (--backend %s)" % (i, name, backend))
            continue
        try:
            ok, detail = fn(backend)
        except (OSError, subprocess.TimeoutExpired) as e:
            ok, detail = False, str(e)
        failed += not ok
        first, _, rest = detail.partition("\n")
        print("hwcheck: %d %s: %s: %s" % (i, name, "PASS" if ok else "FAIL", first))
        for l in rest.splitlines():
            print("hwcheck:     " + l)
        sys.stdout.flush()
    print("hwcheck: %s" % ("all steps passed" if not failed else "%d step%s failed" %
                           (failed, "" if failed == 1 else "s")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
