"""Trace bundle tests: save a live trace of each fixture program, load it in
a fresh ptdb (from a copy of the bundle somewhere else) and compare the
dumps byte for byte; hand-written bundles in LLDB's schema (an ELF program,
a raw code image with a hand-assembled Intel PT stream); malformed bundles,
each with its one-line error and nothing loaded.
"""
import json
import os
import re
import shutil
import struct
import subprocess

import results
import session

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
OUT = os.path.join(ROOT, "tests", "out", "bundles")
PROG = os.path.join(ROOT, "tests", "programs")


def ptdb(lines, timeout=120):
    return session.run_script(lines, OUT, timeout)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def fresh_paths(tag):
    """The bundle saved, the bundle moved elsewhere, the live dump and the
    loaded one for a test named tag, none of them left from a last run."""
    saved = os.path.join(OUT, "saved-" + tag)
    moved = os.path.join(OUT, "moved-" + tag)
    live = os.path.join(OUT, "live-%s.txt" % tag)
    post = os.path.join(OUT, "post-%s.txt" % tag)
    for p in (saved, moved):
        shutil.rmtree(p, ignore_errors=True)
    for p in (live, post):
        if os.path.exists(p):
            os.unlink(p)
    return saved, moved, live, post


# program, commands that stop it with its trace recorded
LIVE = [
    ("trace_loop", ["b main", "r", "thread trace start", "b 7", "c"]),
    ("recurse", ["b main", "r", "process trace start --tsc", "b exit", "c"]),
    ("threads", ["b main", "b 4", "b 8", "r", "thread trace start all", "c", "c"]),
    ("signals", ["b main", "r", "process trace start", "process handle SIGUSR1 -s false", "c"]),
    ("divide", ["b main", "r", "process trace start", "c"]),
    ("dlopen", ["b main", "r", "process trace start -s 64KiB", "b exit", "c"]),
    ("vdso", ["b vdso_begin", "b vdso_end", "r", "thread trace start", "c"]),
    ("jit", ["b main", "r", "process trace start", "b exit", "c"]),
]


def round_trip(name, stop, compact):
    tag = name + ("-compact" if compact else "")
    saved, moved, live, post = fresh_paths(tag)
    out1 = ptdb(["file " + os.path.join(PROG, name)] + stop + [
        "thread trace dump instructions all -a -e -F " + live,
        "thread trace dump function-calls all -F " + live + ".calls",
        "trace save %s%s" % ("-c " if compact else "", saved), "kill"])
    if "Trace bundle description file written to: %s/trace.json" % saved not in out1:
        return results.fail("bundle round trip " + tag, "save failed:\n" + out1[-3000:])
    # the bundle is relocatable: paths inside are relative to it
    shutil.move(saved, moved)
    out2 = ptdb(["trace load " + moved, "thread list",
                 "thread trace dump instructions all -a -e -F " + post,
                 "thread trace dump function-calls all -F " + post + ".calls",
                 "thread trace start"])
    why = []
    if "error: Tracing is not supported. Can't trace a non-live process." not in out2:
        why.append("thread trace start on a loaded trace did not fail as expected")
    if not os.path.exists(live) or not os.path.exists(post):
        why.append("a dump is missing")
    else:
        a, b = read(live), read(post)
        if a != b:
            why.append("dumps differ: live %d bytes, loaded %d bytes" % (len(a), len(b)))
        if a.count(b"\n    [") < 10:
            why.append("the live dump has almost no instructions")
    if os.path.exists(live + ".calls") and read(live + ".calls") != read(post + ".calls"):
        why.append("function-calls dumps differ")
    desc = json.load(open(os.path.join(moved, "trace.json")))
    if name == "jit":
        if not any(m["systemPath"].startswith("[anon:") for m in desc["processes"][0]["modules"]):
            why.append("the JIT code's anonymous memory was not saved")
        if b"callq  *%rax\n  0x00007" not in read(live):
            why.append("the JIT code was not traced live")
    if compact:
        mods = [m["systemPath"] for m in desc["processes"][0]["modules"]]
        if not any(m.endswith("/" + name) for m in mods):
            why.append("compact bundle lacks the executable: %s" % mods)
    if why:
        return results.fail("bundle round trip " + tag, "\n".join(why) + "\n" + out2[-3000:])
    results.ok("bundle round trip " + tag)


# ---- code that changed while traced: decoded as it ran, live and loaded ----

CHANGING = ["oracle_smc", "oracle_jit_wx", "oracle_jit_dual", "oracle_code_move", "oracle_nested"]


def changing_code(name, engine):
    """The fixture rewrites, moves or unmaps its code (or runs trampolines
    on its stack) between oracle_begin and oracle_end; at oracle_end the
    trace dumps without a decode error, every instruction readable, and
    the saved bundle, loaded elsewhere, dumps the same."""
    tag = "%s-%s" % (name, engine)
    saved, moved, live, post = fresh_paths(tag)
    out1 = ptdb(["settings set trace.software.engine " + engine,
                 "file " + os.path.join(PROG, name), "b oracle_begin", "b oracle_end", "r",
                 "thread trace start", "c",
                 "thread trace dump instructions -a -e -F " + live,
                 "thread trace dump function-calls -F " + live + ".calls",
                 "trace save " + saved, "kill"])
    if "Trace bundle description file written to: %s/trace.json" % saved not in out1:
        return results.fail("changing code " + tag, "save failed:\n" + out1[-3000:])
    shutil.move(saved, moved)
    ptdb(["trace load " + moved, "thread trace dump instructions -a -e -F " + post,
          "thread trace dump function-calls -F " + post + ".calls"])
    why = []
    a = read(live) if os.path.exists(live) else b""
    b = read(post) if os.path.exists(post) else b""
    if a.count(b"\n    [") < 500:
        why.append("the live dump has almost no instructions")
    for what in (b"error", b"<unreadable>"):
        if what in a:
            why.append("the live dump has %d lines with %r" % (a.count(what), what))
    if a != b:
        why.append("dumps differ: live %d bytes, loaded %d bytes" % (len(a), len(b)))
    calls = [read(f + ".calls") if os.path.exists(f + ".calls") else b"" for f in (live, post)]
    if not calls[0] or calls[0] != calls[1] or b"error" in calls[0]:
        why.append("function-calls dumps differ or fail:\n%s\n%s" % (calls[0][-800:], calls[1][-800:]))
    if why:
        return results.fail("changing code " + tag, "\n".join(why))
    results.ok("changing code " + tag)


def loaded_code(name, engine):
    """The code a loaded bundle kept as it ran, read by disassemble and
    memory read (changing_code's bundle of a JIT fixture, whose page holds
    6 rounds of code and is gone, or wiped, at the save): the newest
    version outside replay; the one the cursor's instruction ran in while
    replaying (round 0's, round 5's), the stop report's too."""
    tag = "%s-%s" % (name, engine)
    moved = os.path.join(OUT, "moved-" + tag)
    live = os.path.join(OUT, "live-%s.txt" % tag)
    if not os.path.exists(live) or not os.path.isdir(moved):
        return results.fail("loaded code pages " + tag, "changing_code left no bundle")
    dump = read(live).decode(errors="replace")
    r0 = re.search(r"\[\s*(\d+)\] (0x[0-9a-f]+)\s+movl\s+\$0x3, %ecx", dump)
    r5 = re.search(r"\[\s*(\d+)\] (0x[0-9a-f]+)\s+movl\s+\$0x8, %ecx", dump)
    if not r0 or not r5:
        return results.fail("loaded code pages " + tag, "no JIT rounds in the live dump")
    page = int(r0.group(2), 16)
    out = ptdb(["trace load " + moved,
                "disassemble -s 0x%x -c 3" % page, "memory read -c 8 0x%x" % page,
                "thread trace goto " + r0.group(1),
                "disassemble -s 0x%x -c 2" % page, "memory read -c 8 0x%x" % page, "x/2i $pc",
                "thread trace goto " + r5.group(1),
                "disassemble -s 0x%x -c 3" % page, "memory read -c 8 0x%x" % page])
    parts = out.split("(ptdb) ")
    want = [("disassemble -s", ["0x%x: nop" % page, "0x%x: movl   $0x8, %%ecx" % (page + 2)]),
            ("memory read", ["0x%x: 90 90 b9 08 00 00 00 31" % page]),
            ("thread trace goto", ["replaying: instruction " + r0.group(1),
                                   "->  0x%x: movl   $0x3, %%ecx" % page]),
            ("disassemble -s", ["->  0x%x: movl   $0x3, %%ecx" % page, "0x%x: xorl" % (page + 5)]),
            ("memory read", ["0x%x: b9 03 00 00 00 31 c0 05" % page]),
            ("x/2i", ["->  0x%x: b9 03 00 00 00  movl   $0x3, %%ecx" % page]),
            ("thread trace goto", ["replaying: instruction " + r5.group(1)]),
            ("disassemble -s", ["0x%x: nop" % page, "->  0x%x: movl   $0x8, %%ecx" % (page + 2)]),
            ("memory read", ["0x%x: 90 90 b9 08 00 00 00 31" % page])]
    why = []
    cmds = [p for p in parts[1:] if not p.startswith("trace load")][:len(want)]
    for (cmd, lines), got in zip(want, cmds + [""] * (len(want) - len(cmds))):
        if not got.startswith(cmd) or any(w not in got for w in lines) or "error" in got:
            why.append("%s: want %s, got:\n%s" % (cmd, lines, got))
    if why:
        return results.fail("loaded code pages " + tag, "\n".join(why))
    results.ok("loaded code pages " + tag)


# ---- a raw code image and a hand-assembled Intel PT stream ----

RAW_BASE = 0x100000
# mov $3,%ecx; dec %ecx; jnz -4; nop
RAW_CODE = bytes([0xb9, 0x03, 0x00, 0x00, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0x90])


def raw_stream():
    psb = bytes([0x02, 0x82] * 8)
    mode64 = bytes([0x99, 0x01])
    psbend = bytes([0x02, 0x23])
    pge = bytes([0x71]) + struct.pack("<Q", RAW_BASE)[:6]     # TIP.PGE, sext48
    tnt = bytes([0x1c])                                         # taken, taken, not taken
    fup = bytes([0x3d]) + struct.pack("<H", (RAW_BASE + 10) & 0xffff)  # FUP, update16
    pgd = bytes([0x01])                                         # TIP.PGD, suppressed
    return psb + mode64 + psbend + mode64 + pge + tnt + fup + pgd


def write_raw_bundle(d, desc=None):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "traces"))
    with open(os.path.join(d, "code.bin"), "wb") as f:
        f.write(RAW_CODE)
    with open(os.path.join(d, "traces", "t1.trace"), "wb") as f:
        f.write(raw_stream())
    if desc is None:
        desc = {
            "type": "intel-pt",
            "cpuInfo": {"vendor": "GenuineIntel", "family": 6, "model": 85, "stepping": 4},
            "processes": [{
                "pid": 1000,
                "threads": [{"tid": 1001, "iptTrace": "traces/t1.trace"}],
                "modules": [{"systemPath": "/fw/code.bin", "file": "code.bin",
                             "loadAddress": "0x100000"}],
            }],
        }
    with open(os.path.join(d, "trace.json"), "w") as f:
        json.dump(desc, f, indent=2)
    return desc


def raw_image():
    d = os.path.join(OUT, "raw")
    write_raw_bundle(d)
    out = ptdb(["trace load -v " + d, "thread list",
                "thread trace dump instructions -a -r", "thread trace dump info",
                "image list", "disassemble -s 0x100000 -c 4"])
    want = ["Loaded the trace of process 1000: 1 thread (1 traced), 1 module.",
            "thread #1: tid = 1001, total instructions = 8",
            "module /fw/code.bin at 0x0000000000100000",
            "CPU: GenuineIntel, family 6, model 85, stepping 4"]
    why = ["missing: %r" % w for w in want if w not in out]
    addrs = [l.split()[1] for l in out.splitlines() if l.startswith("    [")]
    expect = ["0x%016x" % a for a in (RAW_BASE, RAW_BASE + 5, RAW_BASE + 7, RAW_BASE + 5,
                                        RAW_BASE + 7, RAW_BASE + 5, RAW_BASE + 7, RAW_BASE + 9)]
    if addrs[:8] != expect:
        why.append("instructions %s, expected %s" % (addrs, expect))
    if "error:" in out:
        why.append("an error was printed")
    if why:
        return results.fail("bundle raw image", "\n".join(why) + "\n" + out)
    results.ok("bundle raw image")


def lldb_style_elf():
    """An ELF program's bundle as LLDB writes it: absolute systemPath, no
    file copy, a decimal-string load address, no triple, extra keys."""
    src = os.path.join(OUT, "saved-trace_loop-for-lldb")
    shutil.rmtree(src, ignore_errors=True)
    exe = os.path.join(PROG, "trace_loop")
    out = ptdb(["file " + exe, "b main", "r", "thread trace start", "b 7", "c",
                "thread trace dump instructions -a -F " + src + ".live",
                "trace save -c " + src, "kill"])
    if "written to" not in out:
        return results.fail("bundle in LLDB's style", out[-2000:])
    mine = json.load(open(os.path.join(src, "trace.json")))
    tid = mine["processes"][0]["threads"][0]["tid"]
    d = os.path.join(OUT, "lldb-style")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    shutil.copy(os.path.join(src, "threads", "%d.intelpt_trace" % tid), os.path.join(d, "thread.trace"))
    exe_mod = [m for m in mine["processes"][0]["modules"] if m["systemPath"] == exe][0]
    desc = {
        "type": "intel-pt",
        "cpuInfo": {"vendor": "unknown", "family": 0, "model": 0, "stepping": 0},
        "processes": [{
            "pid": 4242,
            "threads": [{"tid": tid, "iptTrace": os.path.join(d, "thread.trace")}],
            "modules": [{"systemPath": exe,
                         "loadAddress": str(int(exe_mod["loadAddress"], 16)),
                         "uuid": exe_mod["uuid"]}],
        }],
        "tscPerfZeroConversion": {"timeMult": 1398101, "timeShift": 22, "timeZero": 12345},
    }
    with open(os.path.join(d, "trace.json"), "w") as f:
        json.dump(desc, f)
    out = ptdb(["trace load -v " + os.path.join(d, "trace.json"),
                "trace load -v --allow-outside " + os.path.join(d, "trace.json"),
                "thread trace dump instructions -a -F " + d + ".post", "image lookup -n main"])
    why = []
    # the program lies outside the bundle: refused, then read when allowed
    refused = ("error: %s/trace.json:traceBundle.processes[0].modules[0].systemPath: '%s' lies "
               "outside the bundle's directory (read it with 'trace load --allow-outside')"
               % (d, os.path.realpath(exe)))
    said = ("warning: %s/trace.json:traceBundle.processes[0].modules[0].systemPath: %s "
            "(outside the bundle's directory)" % (d, os.path.realpath(exe)))
    if refused not in out:
        why.append("the program outside the bundle was not refused")
    if said not in out:
        why.append("the program read outside the bundle was not named")
    if "Absolute path: traceBundle.processes[0].threads[0].iptTrace" not in out:
        why.append("absolute paths not reported with -v")
    if "TSC conversion: timeMult 1398101, timeShift 22, timeZero 12345" not in out:
        why.append("TSC conversion not read")
    if not os.path.exists(d + ".post") or read(src + ".live") != read(d + ".post"):
        why.append("the dump differs from the live one")
    if "Summary: trace_loop`main" not in out:
        why.append("image lookup failed")
    if why:
        return results.fail("bundle in LLDB's style", "\n".join(why) + "\n" + out)
    results.ok("bundle in LLDB's style")


# ---- malformed bundles: (name, mutation of the description or files, error) ----

def mutate(desc, path, value):
    """Sets desc[path...] = value (value None deletes)."""
    cur = desc
    for k in path[:-1]:
        cur = cur[k]
    if value is None:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value


P0 = ["processes", 0]
T0 = P0 + ["threads", 0]
M0 = P0 + ["modules", 0]

MALFORMED = [
    ("no trace.json", "rm:trace.json", "{d}/trace.json: cannot read the trace bundle description: No such file or directory"),
    ("truncated JSON", "text:{\"type\": \"intel-pt\", \"cpuInfo\": {", "{j}:1: invalid JSON: unexpected end of file"),
    ("trailing text", "text:{\"type\": \"intel-pt\"} x", "{j}:1: invalid JSON: text after the end of the value"),
    ("root not an object", "text:[1, 2]", "{j}:traceBundle: expected an object, got an array"),
    ("type missing", (["type"], None), "{j}:traceBundle: missing value for \"type\""),
    ("type unknown", (["type"], "amd-ibs"), "{j}:traceBundle.type: unsupported trace type \"amd-ibs\" (expected \"intel-pt\")"),
    ("cpuInfo missing", (["cpuInfo"], None), "{j}:traceBundle: missing value for \"cpuInfo\""),
    ("cpu vendor not a string", (["cpuInfo", "vendor"], 5), "{j}:traceBundle.cpuInfo.vendor: expected a string, got an integer"),
    ("cpu family a string", (["cpuInfo", "family"], "6"), "{j}:traceBundle.cpuInfo.family: expected an integer, got a string"),
    # cpuInfo values are uint64 as LLDB reads them: a negative one is out
    ("cpu model out of range", (["cpuInfo", "model"], -1), "{j}:traceBundle.cpuInfo.model: expected an unsigned integer, got -1"),
    ("processes not an array", (["processes"], {"pid": 1}), "{j}:traceBundle.processes: expected an array, got an object"),
    ("process not an object", (P0, 7), "{j}:traceBundle.processes[0]: expected an object, got an integer"),
    ("pid missing", (P0 + ["pid"], None), "{j}:traceBundle.processes[0]: missing value for \"pid\""),
    ("tid a string", (T0 + ["tid"], "1001"), "{j}:traceBundle.processes[0].threads[0].tid: expected an integer, got a string"),
    ("tid negative", (T0 + ["tid"], -3), "{j}:traceBundle.processes[0].threads[0].tid: -3 is out of range (0 to 2147483647)"),
    ("tid twice", (P0 + ["threads"], [{"tid": 5}, {"tid": 5}]), "{j}:traceBundle.processes[0].threads[1]: thread 5 is listed twice (also at traceBundle.processes[0].threads[0])"),
    # ptdb's wrap fields (LLDB ignores them)
    ("wrapped not a boolean", (T0 + ["wrapped"], 1), "{j}:traceBundle.processes[0].threads[0].wrapped: expected a boolean, got an integer"),
    ("bytesWritten negative", (T0 + ["bytesWritten"], -1), "{j}:traceBundle.processes[0].threads[0].bytesWritten: expected an unsigned integer, got -1"),
    ("trace file missing", (T0 + ["iptTrace"], "traces/none.trace"), "{j}:traceBundle.processes[0].threads[0].iptTrace: cannot read '{d}/traces/none.trace': No such file or directory"),
    ("trace is a directory", (T0 + ["iptTrace"], "traces"), "{j}:traceBundle.processes[0].threads[0].iptTrace: '{d}/traces' is not a regular file"),
    ("modules missing", (P0 + ["modules"], None), "{j}:traceBundle.processes[0]: missing value for \"modules\""),
    ("systemPath missing", (M0 + ["systemPath"], None), "{j}:traceBundle.processes[0].modules[0]: missing value for \"systemPath\""),
    ("bad load address", (M0 + ["loadAddress"], "0xZZ"), "{j}:traceBundle.processes[0].modules[0].loadAddress: expected an integer, a decimal string or a hex string, got \"0xZZ\""),
    ("negative load address", (M0 + ["loadAddress"], -4096), "{j}:traceBundle.processes[0].modules[0].loadAddress: expected an unsigned integer, got -4096"),
    # json-c saturates numbers past 64 bits: refused, as the string form is
    ("load address 2^64 as a number", (M0 + ["loadAddress"], 2 ** 64), "{j}:1: the number 18446744073709551616 does not fit in 64 bits"),
    ("load address 2^64 as a string", (M0 + ["loadAddress"], str(2 ** 64)), "{j}:traceBundle.processes[0].modules[0].loadAddress: expected an integer, a decimal string or a hex string, got \"18446744073709551616\""),
    ("load address a float", (M0 + ["loadAddress"], 1.5), "{j}:traceBundle.processes[0].modules[0].loadAddress: expected an integer, a decimal string or a hex string, got a number with a fraction"),
    ("module file missing", (M0 + ["file"], "gone.bin"), "{j}:traceBundle.processes[0].modules[0].file: cannot read '{d}/gone.bin': No such file or directory"),
    ("empty module", "empty:code.bin", "{j}:traceBundle.processes[0].modules[0]: '{d}/code.bin' is empty or not a file"),
    ("truncated ELF", "elf-truncated", "{j}:traceBundle.processes[0].modules[0].file: '{d}/prog' is truncated: its loadable segments reach past the end of the file"),
    ("32-bit ELF", "elf32", "{j}:traceBundle.processes[0].modules[0]: '{d}/prog' is not an x86-64 ELF file"),
    ("uuid mismatch", "elf-uuid", "{j}:traceBundle.processes[0].modules[0].uuid: \"DEADBEEF-0000\" is not the build ID of '{d}/prog' ("),
    ("cpus without TSC conversion", (["cpus"], [{"id": 0, "iptTrace": "code.bin", "contextSwitchTrace": "code.bin"}]), "{j}:traceBundle.cpus: per-CPU traces (\"cpus\") and per-thread traces (\"iptTrace\") cannot be mixed"),
    ("TSC shift out of range", (["tscPerfZeroConversion"], {"timeMult": 1, "timeShift": 99, "timeZero": 0}), "{j}:traceBundle.tscPerfZeroConversion.timeShift: 99 is out of range (0 to 63)"),
    # every process is checked at load, not only the one loaded first
    ("two processes, the second's module broken", "two-processes", "{j}:traceBundle.processes[1].modules[0]: "),
    ("no processes", (["processes"], []), "{j}:traceBundle: no processes: the bundle describes nothing to load"),
    # ptdb's code pages (LLDB ignores them)
    ("code pages missing", (P0 + ["codePages"], "none.bin"), "{j}:traceBundle.processes[0].codePages: cannot read '{d}/none.bin': No such file or directory"),
    ("code pages not ptdb's", (P0 + ["codePages"], "code.bin"), "{j}:traceBundle.processes[0].codePages: the code pages file is not one ptdb wrote"),
]


def make_malformed(d, how):
    desc = write_raw_bundle(d)
    j = os.path.join(d, "trace.json")

    def rewrite():
        with open(j, "w") as f:
            json.dump(desc, f)
    if isinstance(how, tuple):
        mutate(desc, how[0], how[1])
        rewrite()
    elif how == "rm:trace.json":
        os.unlink(j)
    elif how.startswith("text:"):
        with open(j, "w") as f:
            f.write(how[5:])
    elif how.startswith("empty:"):
        open(os.path.join(d, how[6:]), "w").close()
    elif how.startswith("elf"):
        data = read(os.path.join(PROG, "trace_loop"))
        if how == "elf-truncated":
            data = data[:2000]
        elif how == "elf32":
            data = data[:4] + b"\x01" + data[5:]
        with open(os.path.join(d, "prog"), "wb") as f:
            f.write(data)
        desc["processes"][0]["modules"] = [{"systemPath": "/bin/prog", "file": "prog",
                                            "loadAddress": "0x400000"}]
        if how == "elf-uuid":
            desc["processes"][0]["modules"][0]["uuid"] = "DEADBEEF-0000"
        rewrite()
    elif how == "two-processes":
        desc["processes"].append(json.loads(json.dumps(desc["processes"][0])))
        desc["processes"][1]["pid"] = 7
        desc["processes"][1]["modules"][0]["file"] = "broken.elf"
        with open(os.path.join(d, "broken.elf"), "wb") as f:
            f.write(b"\x7fELF" + b"\x02\x01\x01" + b"\0" * 20)
        rewrite()


def malformed():
    good = os.path.join(OUT, "good")
    write_raw_bundle(good)
    for i, (name, how, err) in enumerate(MALFORMED):
        d = os.path.join(OUT, "bad-%02d" % i)
        make_malformed(d, how)
        want = "error: " + err.format(d=d, j=os.path.join(d, "trace.json"))
        # a good bundle first: a failed load must leave it in place
        out = ptdb(["trace load " + good, "trace load " + d, "thread list", "image list"])
        lines = [l for l in out.splitlines() if l.startswith("error:")]
        why = []
        if len(lines) != 1 or not lines[0].startswith(want):
            why.append("expected one line starting with\n  %s\ngot\n  %s" % (want, "\n  ".join(lines)))
        if "* thread #1: tid = 1001" not in out or "/fw/code.bin" not in out.replace(good + "/code.bin", "/fw/code.bin"):
            why.append("the earlier bundle did not stay loaded")
        if why:
            results.fail("malformed bundle: " + name, "\n".join(why) + "\n" + out[-2000:])
        else:
            results.ok("malformed bundle: " + name)


def escapes_and_sizes():
    """Files that leave the bundle's directory (through .., a symlink or an
    absolute path) are refused unless allowed, then load with a warning
    naming where they really are; a trace file or a
    description too large to read whole is refused in one clear line (sparse
    files: nothing is written)."""
    base = os.path.join(OUT, "esc")
    shutil.rmtree(base, ignore_errors=True)
    outside = os.path.join(base, "elsewhere")
    os.makedirs(outside)
    with open(os.path.join(outside, "code.bin"), "wb") as f:
        f.write(RAW_CODE)
    real = os.path.realpath(os.path.join(outside, "code.bin"))
    cases = []
    d = os.path.join(base, "dotdot")
    desc = write_raw_bundle(d)
    desc["processes"][0]["modules"][0]["file"] = "../elsewhere/code.bin"
    write_raw_bundle(d, desc)
    cases.append(("through ..", d))
    d = os.path.join(base, "symlink")
    write_raw_bundle(d)
    os.unlink(os.path.join(d, "code.bin"))
    os.symlink(os.path.join(outside, "code.bin"), os.path.join(d, "code.bin"))
    cases.append(("through a symlink", d))
    d = os.path.join(base, "absolute")
    desc = write_raw_bundle(d)
    desc["processes"][0]["modules"][0]["file"] = os.path.join(outside, "code.bin")
    write_raw_bundle(d, desc)
    cases.append(("by an absolute path", d))
    for name, d in cases:
        # refused, the earlier target kept; read with --allow-outside (or
        # the setting), and named
        out = ptdb(["trace load " + d,
                    "trace load --allow-outside " + d, "thread trace dump instructions -a -r",
                    "settings set trace.load-outside-files true", "trace load " + d])
        refused = ("error: %s/trace.json:traceBundle.processes[0].modules[0].file: '%s' lies outside "
                   "the bundle's directory (read it with 'trace load --allow-outside')" % (d, real))
        said = ("warning: %s/trace.json:traceBundle.processes[0].modules[0].file: %s "
                "(outside the bundle's directory)" % (d, real))
        want = [refused, said,
                "Loaded the trace of process 1000: 1 thread (1 traced), 1 module.",
                "thread #1: tid = 1001, total instructions = 8"]
        why = ["missing: %r" % w for w in want if w not in out]
        if out.count("error:") != 1 or out.count(said) != 2:
            why.append("expected one error and two warnings")
        if why:
            results.fail("bundle file outside its directory " + name, "\n".join(why) + "\n" + out)
        else:
            results.ok("bundle file outside its directory " + name)
    # sizes: a 64 GiB trace file and a 65 MiB description, both sparse
    d = os.path.join(base, "huge-trace")
    write_raw_bundle(d)
    trace = os.path.join(d, "traces", "t1.trace")
    os.truncate(trace, 64 << 30)
    huge_json = os.path.join(base, "huge-json")
    write_raw_bundle(huge_json)
    os.truncate(os.path.join(huge_json, "trace.json"), 65 << 20)
    out = ptdb(["trace load " + d, "trace load " + huge_json, "thread list"])
    shutil.rmtree(d)    # (sparse, but nothing else should trip over them)
    shutil.rmtree(huge_json)
    lines = [l for l in out.splitlines() if l.startswith("error:")]
    want = ["error: %s/trace.json:traceBundle.processes[0].threads[0].iptTrace: '%s' is %d bytes; "
            "ptdb decodes traces in memory and reads at most " % (d, trace, 64 << 30),
            "error: %s/trace.json" % huge_json]
    why = []
    if len(lines) != 3 or not lines[0].startswith(want[0]) or not lines[1].startswith(want[1]):
        why.append("expected two load errors starting with\n  %s\ngot\n  %s"
                   % ("\n  ".join(want), "\n  ".join(lines)))
    if why:
        return results.fail("bundle files too large to read", "\n".join(why) + "\n" + out)
    results.ok("bundle files too large to read")


def hostile_traces():
    """Traces the decoder must survive: code that loops on itself ('jmp .',
    under a TIP.PGE with a packet after it, a TNT or a TIP.PGD, that the
    loop never reaches; a trace that ends at the TIP.PGE ends there) ends in one error
    item instead of a stack overflow or a decode without end; bytes
    without one PSB say that no sync point was found."""
    psb = bytes([0x02, 0x82] * 8)
    mode64, psbend = bytes([0x99, 0x01]), bytes([0x02, 0x23])
    pge = bytes([0x71]) + struct.pack("<Q", RAW_BASE)[:6]
    import random
    rnd = random.Random(32)
    noise = bytes(rnd.randrange(256) for _ in range(1 << 16)).replace(bytes([0x02, 0x82]), b"\0\0")
    cases = [
        ("jmp . under TIP.PGE", bytes([0xeb, 0xfe]), psb + mode64 + psbend + mode64 + pge + b"\x06",
         "(error) endless loop without trace packets: 0x%016x" % RAW_BASE),
        ("jmp . with a TIP.PGD pending", bytes([0xeb, 0xfe]), psb + mode64 + psbend + mode64 + pge + b"\x01",
         "(error) endless loop without trace packets: 0x%016x" % RAW_BASE),
        ("call . under TIP.PGE", bytes([0xe8, 0xfb, 0xff, 0xff, 0xff]),
         psb + mode64 + psbend + mode64 + pge + b"\x06",
         "(error) endless loop without trace packets: 0x%016x" % RAW_BASE),
        ("random bytes", RAW_CODE, noise, "(error) no sync point found"),
    ]
    for name, code, stream, want in cases:
        d = os.path.join(OUT, "hostile-trace")
        write_raw_bundle(d)
        with open(os.path.join(d, "code.bin"), "wb") as f:
            f.write(code)
        with open(os.path.join(d, "traces", "t1.trace"), "wb") as f:
            f.write(stream)
        script = os.path.join(OUT, "script-ht.ptdb")
        with open(script, "w") as f:
            f.write("trace load %s\nthread trace dump instructions -c 2\nthread trace dump info\nversion\n" % d)
        try:
            p = subprocess.run([PTDB, "-b", "-s", script], cwd=ROOT, capture_output=True,
                               text=True, timeout=120)
        except subprocess.TimeoutExpired:
            results.fail("bundle decode: " + name, "the decode did not end in 120 s")
            continue
        out = p.stdout + p.stderr
        why = []
        if p.returncode < 0:
            why.append("ptdb died of signal %d" % -p.returncode)
        if want not in out:
            why.append("missing %r" % want)
        if "ptdb version" not in out:
            why.append("the session did not go on")
        if why:
            results.fail("bundle decode: " + name, "\n".join(why) + "\n" + out[-2000:])
        else:
            results.ok("bundle decode: " + name)


def hostile_save():
    """A bundle is data: a module whose systemPath climbs out (/../../..,
    ../..) is copied by 'trace save' under the new bundle's modules/, never
    where the path points; the saved bundle loads and decodes the same."""
    base = os.path.join(OUT, "hostile-save")
    shutil.rmtree(base, ignore_errors=True)
    victim = os.path.join(base, "victim")
    d = os.path.join(base, "evil")
    desc = write_raw_bundle(d)
    mods = desc["processes"][0]["modules"]
    mods[0]["systemPath"] = "/.." * 12 + victim + "/.bashrc"
    mods.append({"systemPath": "../../victim/rel", "file": "code.bin", "loadAddress": "0x200000"})
    mods.append({"systemPath": "../..", "file": "code.bin", "loadAddress": "0x300000"})
    write_raw_bundle(d, desc)
    out_dir = os.path.join(base, "out")
    out = ptdb(["trace load " + d, "trace save " + out_dir, "trace load " + out_dir,
                "thread trace dump instructions -a -r"])
    why = []
    if os.path.exists(victim):
        why.append("trace save wrote outside its folder: %s" % victim)
    files = []
    for root, _, names in os.walk(out_dir):
        files += [os.path.relpath(os.path.join(root, n), out_dir) for n in names]
    want = sorted(["trace.json", "threads/1001.intelpt_trace",
                   "modules" + victim + "/.bashrc", "modules/victim/rel", "modules/module"])
    if sorted(files) != want:
        why.append("files %s, expected %s" % (sorted(files), want))
    if "thread #1: tid = 1001, total instructions = 8" not in out or "error:" in out:
        why.append("the saved bundle does not load as the first")
    if why:
        return results.fail("bundle save: hostile module paths", "\n".join(why) + "\n" + out)
    results.ok("bundle save: hostile module paths")


def save_through_symlinks():
    """trace save --force replaces what it finds in the folder, never
    writing through a symlink planted there (trace.json, threads/)."""
    base = os.path.join(OUT, "save-links")
    shutil.rmtree(base, ignore_errors=True)
    into = os.path.join(base, "into")
    elsewhere = os.path.join(base, "elsewhere")
    os.makedirs(into)
    os.makedirs(elsewhere)
    precious = os.path.join(base, "precious")
    with open(precious, "w") as f:
        f.write("keep")
    os.symlink(precious, os.path.join(into, "trace.json"))
    os.symlink(elsewhere, os.path.join(into, "threads"))
    with open(os.path.join(into, "notes.txt"), "w") as f:
        f.write("mine")
    raw = os.path.join(OUT, "raw-for-links")
    write_raw_bundle(raw)
    out = ptdb(["trace load " + raw, "trace save --force " + into, "trace load " + into,
                "thread trace dump instructions -a -r"])
    why = []
    if open(precious).read() != "keep":
        why.append("the file behind the trace.json symlink was written")
    if os.listdir(elsewhere):
        why.append("the folder behind the threads symlink was written: %s" % os.listdir(elsewhere))
    if os.path.islink(os.path.join(into, "trace.json")) or os.path.islink(os.path.join(into, "threads")):
        why.append("a symlink is still in place")
    if not os.path.exists(os.path.join(into, "notes.txt")):
        why.append("a file of another name was removed")
    if "thread #1: tid = 1001, total instructions = 8" not in out or "error:" in out:
        why.append("the saved bundle does not load")
    if [n for n in os.listdir(base) if n.startswith(".")]:
        why.append("a temporary folder was left: %s" % os.listdir(base))
    if why:
        return results.fail("bundle save through symlinks", "\n".join(why) + "\n" + out)
    results.ok("bundle save through symlinks")


def failed_save():
    """A save that cannot finish (the file size limit, as a full disk)
    says why and leaves nothing that looks saved: no folder, no temporary
    one; into an existing bundle with --force, the old one stays whole."""
    import resource
    import signal
    base = os.path.join(OUT, "save-full")
    shutil.rmtree(base, ignore_errors=True)
    raw = os.path.join(base, "raw")
    write_raw_bundle(raw)
    with open(os.path.join(raw, "code.bin"), "ab") as f:
        f.write(b"\0" * (256 << 10))       # a module larger than the limit
    old = os.path.join(base, "old")
    write_raw_bundle(old)
    old_json = read(os.path.join(old, "trace.json"))
    target = os.path.join(base, "new")
    script = os.path.join(base, "script.ptdb")
    with open(script, "w") as f:
        f.write("trace load %s\ntrace save %s\ntrace save --force %s\n" % (raw, target, old))

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # EFBIG, as ENOSPC
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))
    p = subprocess.run([PTDB, "-b", "-s", script], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, preexec_fn=limit)
    out = p.stdout + p.stderr
    why = []
    errs = [l for l in out.splitlines() if l.startswith("error:")]
    if len(errs) != 2 or not all("File too large" in l for l in errs):
        why.append("expected two 'File too large' errors, got %s" % errs)
    if os.path.exists(target):
        why.append("the failed save left %s" % target)
    if sorted(os.listdir(base)) != ["old", "raw", "script.ptdb"]:
        why.append("left behind: %s" % sorted(os.listdir(base)))
    if read(os.path.join(old, "trace.json")) != old_json or \
            sorted(os.listdir(old)) != ["code.bin", "trace.json", "traces"]:
        why.append("the bundle saved over with --force changed: %s" % os.listdir(old))
    if why:
        return results.fail("bundle save on a full disk", "\n".join(why) + "\n" + out)
    results.ok("bundle save on a full disk")


def save_errors():
    d = os.path.join(OUT, "save-errors")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "full"))
    open(os.path.join(d, "full", "x"), "w").close()
    open(os.path.join(d, "afile"), "w").close()
    out = ptdb(["trace save " + d + "/none",
                "file " + os.path.join(PROG, "trace_loop"), "b main", "r",
                "trace save " + d + "/untraced",
                "thread trace start", "n",
                "trace save " + d + "/full",
                "trace save " + d + "/afile",
                "trace save --force " + d + "/full",
                "trace schema intel-pt", "trace schema foo", "kill"])
    want = ["error: invalid target, create a target using the 'file' command",
            "error: Process is not being traced",
            "error: '%s/full' is not empty; use --force to write the bundle into it" % d,
            "error: '%s/afile' exists and is not a directory" % d,
            "Trace bundle description file written to: %s/full/trace.json" % d,
            "\"loadAddress\": integer | decimal string | hex string",
            "error: no trace plug-in matches the specified type: \"foo\""]
    why = ["missing: %r" % w for w in want if w not in out]
    if why:
        return results.fail("bundle save errors", "\n".join(why) + "\n" + out)
    results.ok("bundle save errors")


def run_all():
    os.makedirs(OUT, exist_ok=True)
    for name, stop in LIVE:
        round_trip(name, stop, False)
    round_trip("recurse", LIVE[1][1], True)
    for name in CHANGING:
        for engine in ("ptrace", "cache"):
            changing_code(name, engine)
            if name in ("oracle_jit_wx", "oracle_jit_dual"):
                loaded_code(name, engine)
    raw_image()
    lldb_style_elf()
    malformed()
    escapes_and_sizes()
    save_errors()
    hostile_traces()
    hostile_save()
    save_through_symlinks()
    failed_save()


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
