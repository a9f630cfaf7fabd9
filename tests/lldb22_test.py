"""ptdb's bundles in LLDB itself (lldb-22, Debian's, with its intel-pt
plugin; it cannot record here, but it loads and decodes bundles):

  X1..X5  a bundle of each kind ptdb writes -- per thread, per thread with
          TSC, several threads, per CPU with context switches, a wrapped
          ring -- loads in lldb-22 as saved, and lldb-22's 'thread trace
          dump instructions -f -r -a' of every thread lists exactly ptdb's
          instruction addresses (and errors at the same places)
  X6      lldb-22's own 'trace save' of each of those bundles (a bundle
          LLDB wrote) loads in ptdb and decodes identically
  X7      two processes in one bundle (two of those, their "processes" in
          one trace.json: ptdb saves one process per bundle), each process
          the same in lldb-22 and in ptdb, and as lldb-22 saves it
  X8      the same words: 'dump instructions -f', '-k', '-j -k' over the
          program's own code (the call and branch notes), '-E' with TSC (the
          events, their order and times), 'dump info' (its item, event
          and error counts, but for the enable events LLDB does not show),
          on a bundle whose trace runs where no module is (errors) too
  X9      a bundle of code that changed while traced (a W^X JIT whose page
          is unmapped before the save: its PIPs, its "codePages" file)
          loads in lldb-22, which lists ptdb's instructions up to the JIT
          code (the code pages are ptdb's own: LLDB sees no memory there)

lldb-22 stops a batch session at the first command that fails, so an
error there shows in the text compared.
"""
import json
import os
import re
import shutil
import subprocess

import results
import session

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
OUT = os.path.join(ROOT, "tests", "out", "lldb22")
PROG = os.path.join(ROOT, "tests", "programs")
# Debian's lldb-22 when installed, else its program that 'make deps' takes
# out of the package (lldb-22 and lldb-16 cannot be installed together)
LLDB = shutil.which("lldb-22") or os.path.join(ROOT, "tests", "deps", "lldb-22", "usr", "lib",
                                               "llvm-22", "bin", "lldb")

# name, program, commands that stop it with its trace recorded
KINDS = [
    ("per thread", "recurse", ["b main", "r", "thread trace start", "b exit", "c"]),
    ("per thread, TSC", "recurse", ["b main", "r", "process trace start --tsc", "b exit", "c"]),
    ("several threads", "threads", ["b main", "b 4", "b 8", "r", "thread trace start all",
                                    "c", "c"]),
    ("per CPU", "threads", ["b main", "b 4", "b 8", "r",
                            "process trace start --per-cpu-tracing", "c", "c"]),
    ("wrapped", "trace_long", ["b main", "b 20", "r", "thread trace start", "c"]),
]


def ptdb(lines, timeout=300):
    return session.run_script(lines, OUT, timeout)


def lldb(lines, timeout=300):
    args = [LLDB, "-b", "--no-lldbinit"]
    for l in lines:
        args += ["-o", l]
    p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return p.stdout + p.stderr


def dump_items(text, item):
    """{tid: [address or 'error']} of a debugger's instruction dumps, an
    item a line matching the regex item (its first group the address or
    '(error)') after each 'thread #N: tid = T' line."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"thread #\d+: tid = (\d+)", line)
        if m:
            cur = out.setdefault(int(m.group(1)), [])
            continue
        m = re.match(item, line)
        if cur is not None and m:
            cur.append("error" if m.group(1) == "(error)" else int(m.group(1), 16))
    return out


def ptdb_items(text):
    """ptdb's dumps (-r, oldest first): dump_items."""
    return dump_items(text, r"    \[ *\d*\] (0x[0-9a-f]+|\(error\))")


def lldb_items(text):
    """lldb-22's dumps (-f -r): dump_items."""
    return dump_items(text, r" +\d+: (0x[0-9a-f]+|\(error\))")


def thread_count(d):
    j = json.load(open(os.path.join(d, "trace.json")))
    if j.get("processes"):
        return len(j["processes"][0]["threads"])
    return len(j.get("cpus", []))


def lldb_dump(d, extra=()):
    """lldb-22's items of every thread of the bundle in d (its first
    process), and the whole text."""
    cmds = ["trace load " + os.path.join(d, "trace.json")]
    for i in range(1, thread_count(d) + 1):
        cmds.append("thread trace dump instructions %d -f -r -a" % i)
    text = lldb(cmds + list(extra))
    return lldb_items(text), text


def ptdb_dump(d):
    text = ptdb(["trace load " + d, "thread trace dump instructions all -a -r"])
    return ptdb_items(text), text


def differ(a, b):
    """Where two {tid: items} first differ, in words (None: identical)."""
    if sorted(a) != sorted(b):
        return "threads %s against %s" % (sorted(a), sorted(b))
    for tid in sorted(a):
        x, y = a[tid], b[tid]
        if x != y:
            i = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
            return "tid %d: %d against %d items, first difference at item %d" % (
                tid, len(x), len(y), i)
    return None


def compare(name, d, why_prefix=""):
    """lldb-22 and ptdb on the bundle d: the same items; returns what
    differs (a list of lines)."""
    mine, mtext = ptdb_dump(d)
    theirs, ltext = lldb_dump(d)
    why = []
    if not mine or not any(len(v) > 3 for v in mine.values()):
        why.append("%sptdb lists (almost) nothing:\n%s" % (why_prefix, mtext[-1500:]))
    elif "error:" in ltext:
        why.append("%slldb-22: %s" % (why_prefix, "\n".join(
            l for l in ltext.splitlines() if "error" in l)[:1500]))
    else:
        diff = differ(mine, theirs)
        if diff:
            why.append("%sptdb against lldb-22: %s" % (why_prefix, diff))
    return why, mine


def resaved(name, d, mine):
    """lldb-22 saves the bundle it loaded; ptdb loads that one and lists
    the same items."""
    again = d + ".lldb"
    shutil.rmtree(again, ignore_errors=True)
    text = lldb(["trace load " + os.path.join(d, "trace.json"), "trace save " + again])
    if "error" in text or not os.path.exists(os.path.join(again, "trace.json")):
        return ["lldb-22 did not save it:\n" + text[-1500:]]
    theirs, ptext = ptdb_dump(again)
    diff = differ(mine, theirs)
    if diff or "error:" in ptext:
        return ["the bundle lldb-22 saved, in ptdb: %s\n%s" % (diff, ptext[-1500:])]
    return []


def kinds():
    """Returns the bundles saved."""
    saved = []
    for name, prog, stop in KINDS:
        d = os.path.join(OUT, re.sub(r"[^a-z]+", "-", name.lower()))
        shutil.rmtree(d, ignore_errors=True)
        out = ptdb(["file " + os.path.join(PROG, prog)] + stop + ["trace save " + d, "kill"])
        if "written to" not in out:
            results.fail("lldb-22: %s bundle" % name, out[-2000:])
            continue
        saved.append(d)
        why, mine = compare(name, d)
        if name == "wrapped" and "wrapped" not in out:
            why.append("the trace did not wrap:\n" + out[-1500:])
        if why:
            results.fail("lldb-22: %s bundle" % name, "\n".join(why))
        else:
            results.ok("lldb-22: %s bundle (%d items)" % (name, sum(map(len, mine.values()))))
        why = resaved(name, d, mine) if mine else ["nothing to compare"]
        if why:
            results.fail("lldb-22: %s bundle saved by lldb-22, in ptdb" % name, "\n".join(why))
        else:
            results.ok("lldb-22: %s bundle saved by lldb-22, in ptdb" % name)
    return saved


def two_processes(saved):
    """Two processes in one bundle (LLDB makes a target of each): two of
    ptdb's bundles above, their "processes" put in one trace.json; each
    process of it in lldb-22 ('target select') lists ptdb's instructions,
    and so does lldb-22's re-saved bundle in ptdb."""
    name = "two processes"
    d = os.path.join(OUT, "two-processes")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    procs, desc = [], None
    for k, src in enumerate(saved):
        desc = json.load(open(os.path.join(src, "trace.json")))
        shutil.copytree(src, os.path.join(d, "p%d" % k))
        for p in desc["processes"]:
            for t in p["threads"]:
                t["iptTrace"] = "p%d/%s" % (k, t["iptTrace"])
            for m in p["modules"]:
                m["file"] = "p%d/%s" % (k, m["file"])
            if "codePages" in p:
                p["codePages"] = "p%d/%s" % (k, p["codePages"])
            procs.append(p)
    desc["processes"] = procs
    with open(os.path.join(d, "trace.json"), "w") as f:
        json.dump(desc, f, indent=2)
    why = []
    for k in range(len(procs)):
        sel = ["target select %d" % k]
        nth = len(procs[k]["threads"])
        mtext = ptdb(["trace load " + d] + sel + ["thread trace dump instructions all -a -r"])
        ltext = lldb(["trace load " + os.path.join(d, "trace.json")] + sel +
                     ["thread trace dump instructions %d -f -r -a" % (i + 1) for i in range(nth)])
        mine, theirs = ptdb_items(mtext), lldb_items(ltext)
        diff = differ(mine, theirs) if mine else "ptdb lists nothing:\n" + mtext[-1500:]
        if "error:" in ltext:
            diff = "lldb-22: " + ltext[-1500:]
        if diff:
            why.append("process #%d: %s" % (k, diff))
        elif k == 1:
            again = d + ".lldb"
            shutil.rmtree(again, ignore_errors=True)
            text = lldb(["trace load " + os.path.join(d, "trace.json"), "trace save " + again])
            ptext = ptdb(["trace load " + again] + sel + ["thread trace dump instructions all -a -r"])
            diff = differ(mine, ptdb_items(ptext))
            if diff or "error" in text:
                why.append("lldb-22's saved bundle, process #%d in ptdb: %s\n%s%s" % (
                    k, diff, text[-800:], ptext[-800:]))
    if why:
        return results.fail("lldb-22: %s bundle" % name, "\n".join(why))
    results.ok("lldb-22: %s bundle, and as lldb-22 saves it" % name)


def listing(text, pat):
    """Instruction lines with their ids taken off, headers as they are."""
    out = []
    for line in text.splitlines():
        line = line.rstrip()
        m = re.match(pat, line)
        if m:
            out.append("    " + m.group(1))
        elif line.startswith("  ") and not line.startswith("    "):
            out.append(line)
    return out


def info_counts(text):
    """{what: count} of a 'dump info' text: items, events by kind, errors
    (enable events, which LLDB has not, taken off the items and events)."""
    c = {}
    for k, pat in (("items", r"Total number of trace items: (\d+)"),
                   ("events", r"Number of individual events: (\d+)"),
                   ("errors", r"Number of individual errors: (\d+)")):
        m = re.search(pat, text)
        c[k] = int(m.group(1)) if m else None
    for m in re.finditer(r"^      ([a-zA-Z ]+(?:tracing|point|tick|changed)): (\d+)$", text, re.M):
        c[m.group(1)] = int(m.group(2))
    enables = sum(c.pop(k, 0) for k in ("software enabled tracing", "hardware enabled tracing"))
    if c["items"] is not None:
        c["items"] -= enables
        c["events"] -= enables
    return c


def events(text, pat):
    """The event lines of a -E dump, ids taken off (LLDB's '0x0x0' offset
    read as ptdb writes it; ptdb's enable events, which LLDB has not, left
    out)."""
    out = []
    for line in text.splitlines():
        m = re.match(pat, line)
        if m and "enabled tracing" not in m.group(1):
            out.append(m.group(1).replace("0x0x", "0x"))
    return out


def same_words(d, tsc):
    """X8 on the per-thread bundle d (and tsc, the same with TSC)."""
    why = []
    mine = ptdb(["trace load " + tsc, "thread trace dump instructions -E -f -a"])
    theirs = lldb(["trace load " + os.path.join(tsc, "trace.json"),
                   "thread trace dump instructions -E -f -a"])
    a, b = events(mine, r"    \[ *\d*\] (\(event\).*)"), events(theirs, r" +\d+: (\(event\).*)")
    if len(a) < 3 or a != b:
        why.append("dump instructions -E (with TSC):\n  ptdb %s\n  lldb %s" % (a, b))
    mine = ptdb(["trace load " + d, "thread trace dump instructions -f -c 40"])
    theirs = lldb(["trace load " + os.path.join(d, "trace.json"),
                   "thread trace dump instructions -f -c 40"])
    a, b = listing(mine, r"    \[ *\d+\] (.*)"), listing(theirs, r"    \d+: (.*)")
    if len(a) < 40 or a != b:
        why.append("dump instructions -f -c 40:\n" + "\n".join(
            "  ptdb: %s\n  lldb: %s" % x for x in zip(a, b) if x[0] != x[1]) or mine + theirs)
    mine = ptdb(["trace load " + d, "thread trace dump instructions -f -c 12 -k"])
    theirs = lldb(["trace load " + os.path.join(d, "trace.json"),
                   "thread trace dump instructions -f -c 12 -k"])
    a, b = listing(mine, r"    \[ *\d+\] (.*)"), listing(theirs, r"    \d+: (.*)")
    if len(a) < 12 or a != b:
        why.append("dump instructions -f -k:\n  ptdb %s\n  lldb %s" % (a, b))
    # JSON: LLDB's keys and values (ids aside: LLDB counts items from 1,
    # ptdb instructions from 0; ptdb adds "instruction")
    mine = ptdb(["trace load " + d, "thread trace dump instructions -f -c 12 -k -j"])
    theirs = lldb(["trace load " + os.path.join(d, "trace.json"),
                   "thread trace dump instructions -f -c 12 -k -j"])
    try:
        a = [{k: v for k, v in x.items() if k not in ("id", "instruction")}
             for x in json.loads([l for l in mine.splitlines() if l.startswith("[")][0])]
        b = [{k: v for k, v in x.items() if k != "id"}
             for x in json.loads([l for l in theirs.splitlines() if l.startswith("[")][0])]
        if len(a) != 12 or a != b:
            why.append("dump instructions -f -k -j:\n  ptdb %s\n  lldb %s" % (a, b))
    except (IndexError, ValueError) as e:
        why.append("dump instructions -j: %s\n%s%s" % (e, mine, theirs))
    # without libc's module (and ptdb's code pages, which hold the code
    # that ran) its code is "no memory mapped": errors
    bad = d + "-nolibc"
    shutil.rmtree(bad, ignore_errors=True)
    shutil.copytree(d, bad)
    desc = json.load(open(os.path.join(bad, "trace.json")))
    desc["processes"][0]["modules"] = [m for m in desc["processes"][0]["modules"]
                                       if "libc.so" not in m["systemPath"]]
    desc["processes"][0].pop("codePages", None)
    with open(os.path.join(bad, "trace.json"), "w") as f:
        json.dump(desc, f)
    for b in (d, bad):
        mine = info_counts(ptdb(["trace load " + b, "thread trace dump info"]))
        theirs = info_counts(lldb(["trace load " + os.path.join(b, "trace.json"),
                                   "thread trace dump info"]))
        if mine != theirs or mine["items"] is None:
            why.append("dump info of %s: ptdb %s, lldb-22 %s" % (os.path.basename(b), mine, theirs))
    if why:
        return results.fail("lldb-22: the same words", "\n".join(why))
    results.ok("lldb-22: the same words (dump instructions -f, -k, -j -k, -E; dump info)")


def changing_code():
    name = "lldb-22: a bundle of code that changed"
    d = os.path.join(OUT, "changing-code")
    shutil.rmtree(d, ignore_errors=True)
    out = ptdb(["file " + os.path.join(PROG, "oracle_jit_wx"), "b oracle_begin", "b oracle_end",
                "r", "thread trace start", "c", "trace save " + d, "kill"])
    if "written to" not in out:
        return results.fail(name, out[-2000:])
    if "codePages" not in open(os.path.join(d, "trace.json")).read():
        return results.fail(name, "the bundle has no code pages")
    mine, mtext = ptdb_dump(d)
    theirs, ltext = lldb_dump(d)
    why = []
    if "error:" in ltext:
        why.append("lldb-22: " + "\n".join(l for l in ltext.splitlines() if "error:" in l)[:1500])
    for tid, items in mine.items():
        if "error" in items:
            why.append("ptdb's dump has errors:\n" + mtext[-1500:])
        got = theirs.get(tid, [])
        k = got.index("error") if "error" in got else len(got)
        if k < 100 or got[:k] != items[:k]:
            why.append("tid %d: lldb-22 lists %d items before its first error, %s ptdb's" % (
                tid, k, "not" if got[:k] != items[:k] else "too few of"))
    if why:
        return results.fail(name, "\n".join(why))
    results.ok(name)


def run_all():
    if not os.access(LLDB, os.X_OK):
        return results.skip("lldb-22", "no lldb-22 (make deps fetches it)")
    os.makedirs(OUT, exist_ok=True)
    saved = kinds()
    if len(saved) >= 2:
        same_words(saved[0], saved[1])
    if len(saved) >= 3:
        two_processes(saved[1:3])      # recurse with TSC, threads
    changing_code()


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
