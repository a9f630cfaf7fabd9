"""Chrome Trace Event export checks, beyond what a transcript can say.

'thread trace export ctf' must parse as JSON, hold exactly one complete
("X") event per call segment of 'thread trace dump function-calls -j' (same
function, ids, depth and order) and one instant event per errors segment,
and nest in time: every event lies within its caller's, and events at one
level follow one another, so Perfetto draws a flame chart.  Checked on
recurse (with and without --tsc), oracle (signal handler, longjmp, lazy
binding) and threads (every thread in one file).  Also: function-calls -F
writes what the output shows.
"""
import json
import os
import subprocess
from decimal import Decimal

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "out")


def run(name, lines):
    script = os.path.join(OUT, "ctf-%s.ptdb" % name)
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    p = subprocess.run([os.path.join(ROOT, "ptdb"), "-b", "-s", script], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    return p.returncode, p.stdout


def flatten(trees):
    """Segments of function-calls -j in display order: (tid, tree, depth, node)."""
    out = []
    for t in trees:
        stack = [(0, s) for s in reversed(t["segments"])]
        while stack:
            depth, node = stack.pop()
            out.append((t["tid"], t["tree"], depth, node))
            stack.extend((depth + 1, c) for c in reversed(node["calls"]))
    return out


def ns(v):
    """Microseconds as printed (at most 3 decimals) to integer nanoseconds."""
    return int(Decimal(str(v)) * 1000)


def check_events(calls, ctf, clock):
    """Problems found comparing the export with the call trees."""
    problems = []
    segs = flatten(calls)
    events = ctf["traceEvents"]
    xs = [e for e in events if e.get("ph") == "X"]
    insts = [e for e in events if e.get("ph") == "i"]
    named = {(e["tid"]) for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    want_x = [s for s in segs if "error" not in s[3]]
    if len(xs) != len(want_x):
        problems.append("%d X events, %d call segments" % (len(xs), len(want_x)))
    if len(insts) != len(segs) - len(want_x):
        problems.append("%d instant events, %d errors segments" % (len(insts), len(segs) - len(want_x)))
    if not xs:
        problems.append("no X events")
    for e, (tid, tree, depth, node) in zip(xs, want_x):
        a = e["args"]
        if e["tid"] != tid or a["tree"] != tree or a["depth"] != depth or \
                a["firstId"] != node["firstId"] or a["lastId"] != node["lastId"] or \
                ("function" in node and e["name"] != node["function"]) or \
                bool(a.get("untraced")) != bool(node.get("untraced")) or \
                e.get("cat") != node.get("module", "unknown"):
            problems.append("event %r does not match segment %r at depth %d" % (e, node, depth))
            break
        if clock == "instructions" and not node.get("untraced") and ns(e["ts"]) != node["firstId"] * 1000:
            problems.append("instruction clock: ts %s for first id %d" % (e["ts"], node["firstId"]))
            break
    if ctf.get("displayTimeUnit") != "ns" or ctf.get("otherData", {}).get("clock") not in clock.split("|"):
        problems.append("displayTimeUnit/otherData: %r %r" % (ctf.get("displayTimeUnit"), ctf.get("otherData")))
    # nesting: per thread, each event within the nearest open one a level up
    # and after the previous one at its level
    open_ = {}
    for e in xs:
        tid, d = e["tid"], e["args"]["depth"]
        start, dur = ns(e["ts"]), ns(e["dur"])
        end = start + dur
        if dur < 0 or tid not in named:
            problems.append("event %r: negative duration or unnamed thread" % e)
            break
        stack = open_.setdefault(tid, [])
        while stack and stack[-1][0] >= d:
            pd, ps, pe, pev = stack.pop()
            if pd == d and pe > start:
                problems.append("overlap at depth %d: %r and %r" % (d, pev, e))
        if d > 0 and not (stack and stack[-1][0] == d - 1 and stack[-1][1] <= start and end <= stack[-1][2]):
            problems.append("event %r is not within its caller %r" % (e, stack[-1][3] if stack else None))
        stack.append((d, start, end, e))
        if len(problems) > 5:
            break
    return problems


def scenario(name, program, setup, stops, clock, threads="", extra=None):
    calls = os.path.join(OUT, "ctf-%s-calls.json" % name)
    ctf = os.path.join(OUT, "ctf-%s.json" % name)
    txt = os.path.join(OUT, "ctf-%s-calls.txt" % name)
    for p in (calls, ctf, txt):
        if os.path.exists(p):
            os.remove(p)
    lines = ["file tests/programs/" + program] + setup + stops + [
        "thread trace dump function-calls %s -j -F %s" % (threads, calls),
        "thread trace dump function-calls %s -F %s" % (threads, txt),
        "thread trace dump function-calls %s" % threads,
        "thread trace export ctf %s -f %s" % ("-t all" if threads else "", ctf),
        "kill"]
    rc, out = run(name, lines)
    label = "ctf export " + name
    try:
        with open(calls) as f:
            trees = json.load(f)
        with open(ctf) as f:
            doc = json.load(f)
        with open(txt) as f:
            text = f.read()
    except (OSError, ValueError) as e:
        results.fail(label, "%s\n%s" % (e, out[-3000:]))
        return
    problems = check_events(trees, doc, clock)
    shown = out.split("(ptdb) thread trace dump function-calls %s\n" % threads, 1)[-1]
    if not shown.startswith(text):
        problems.append("function-calls -F wrote something else than the output shows")
    if "error:" in out:
        problems.append("an error: " + [l for l in out.splitlines() if l.startswith("error:")][0])
    if extra:
        problems += extra(trees, doc)
    if rc != 0:
        problems.append("ptdb exited with %d" % rc)
    if problems:
        results.fail(label, "\n".join(problems[:6]))
    else:
        results.ok("%s (%d events)" % (label, len([e for e in doc["traceEvents"] if e.get("ph") == "X"])))


def deep_fact(trees, doc):
    """fact(5) nests five levels below main."""
    depths = [d for _, _, d, n in flatten(trees) if n.get("function") == "fact"]
    return [] if depths and max(depths) == 5 else ["fact's deepest level is %r, expected 5" % depths[-1:]]


def handler_and_longjmp(trees, doc):
    """on_usr1 runs below raise's callees, and longjmp lands back in main."""
    segs = flatten(trees)
    problems = []
    names = [(d, n.get("function")) for _, _, d, n in segs]
    if not any(f == "on_usr1" and d >= 3 for d, f in names):
        problems.append("on_usr1 is not below raise: %r" % [x for x in names if x[1] == "on_usr1"])
    i = max(k for k, (d, f) in enumerate(names) if f == "jump_back")
    after = [x for x in names[i:] if x[0] == 0]
    if not after or after[0][1] != "main":
        problems.append("after jump_back the next top-level segment is %r, not main" % after[:1])
    return problems


def three_threads(trees, doc):
    tids = {t["tid"] for t in trees}
    xt = {e["tid"] for e in doc["traceEvents"] if e.get("ph") == "X"}
    return [] if len(tids) == 3 and tids == xt else ["threads %r in the calls, %r in the export" % (tids, xt)]


def run_all():
    os.makedirs(OUT, exist_ok=True)
    scenario("recurse", "recurse", ["b main", "r", "thread trace start"], ["b 34", "c"],
             "instructions", extra=deep_fact)
    scenario("recurse-tsc", "recurse", ["b main", "r", "thread trace start --tsc"],
             ["b 28", "c", "b 34", "c"], "tsc|ns", extra=deep_fact)
    scenario("oracle", "oracle", ["b oracle_begin", "b oracle_end", "r",
                                  "process handle SIGUSR1 -s false -n false",
                                  "thread trace start -s 16MB"], ["c"], "instructions",
             extra=handler_and_longjmp)
    scenario("threads", "threads", ["b main", "b 4", "b 8", "r", "thread trace start all --tsc"],
             ["c", "c"], "tsc|ns", threads="all", extra=three_threads)
