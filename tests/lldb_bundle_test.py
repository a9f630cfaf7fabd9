"""Bundles in LLDB's exact form, written by hand from LLDB's intel-pt schema
('trace schema intel-pt') and the shapes of the trace.json files its own
tests load, not produced by ptdb:

  L1  a 20-byte build id as LLDB writes it (dashes after bytes 4, 6, 8, 10
      and 16), as plain hex, in either case: all match the file (compared
      as bytes); one different byte is refused
  L2  load addresses as a number, a decimal string and a hex string
  L3  a kernel trace ("kernel", "cpus", no "processes"): one thread per CPU,
      the kernel image at LLDB's default address or at the one given;
      timeZero above 2^63 as a number; saved again as a kernel bundle
  L4  a trace whose module is missing lists its errors (LLDB's
      trace_bad_image)
  L5  cpuInfo values as uint64 (LLDB reads them so); trace save writes
      timeZero as a decimal string, as LLDB does
  L6  two processes in one bundle
"""
import json
import os
import shutil
import struct

import results
import session

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
OUT = os.path.join(ROOT, "tests", "out", "lldb-bundles")
PROG = os.path.join(ROOT, "tests", "programs")
CPU = {"vendor": "GenuineIntel", "family": 6, "model": 85, "stepping": 4}


def ptdb(lines, timeout=120):
    return session.run_script(lines, OUT, timeout)


def build_id(path):
    """The NT_GNU_BUILD_ID bytes of an ELF file (from its section headers)."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
    for i in range(shnum):
        sh = shoff + i * shentsize
        stype, = struct.unpack_from("<I", data, sh + 4)
        off, size = struct.unpack_from("<QQ", data, sh + 0x18)
        if stype != 7:      # SHT_NOTE
            continue
        p = off
        while p + 12 <= off + size:
            nsz, dsz, ntype = struct.unpack_from("<III", data, p)
            name = data[p + 12:p + 12 + nsz]
            desc = p + 12 + ((nsz + 3) & ~3)
            if ntype == 3 and name == b"GNU\0":
                return data[desc:desc + dsz]
            p = desc + ((dsz + 3) & ~3)
    return None


def lldb_uuid(b):
    """LLDB's UUID text: upper case, dashes after bytes 4, 6, 8, 10, 16."""
    s = ""
    for i, x in enumerate(b):
        if i in (4, 6, 8) or (i >= 10 and (i - 10) % 6 == 0):
            s += "-"
        s += "%02X" % x
    return s


def write(d, desc, files):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    with open(os.path.join(d, "trace.json"), "w") as f:
        json.dump(desc, f, indent=2)


def uuid_forms():
    exe = os.path.join(PROG, "trace_loop")
    bid = build_id(exe)
    if not bid or len(bid) != 20:
        return results.fail("LLDB bundle: uuid forms", "trace_loop has no 20-byte build id")
    src = os.path.join(OUT, "saved-loop")
    shutil.rmtree(src, ignore_errors=True)
    live = src + ".live"
    out = ptdb(["file " + exe, "b main", "r", "thread trace start", "b 7", "c",
                "thread trace dump instructions -a -F " + live, "trace save -c " + src, "kill"])
    if "written to" not in out:
        return results.fail("LLDB bundle: uuid forms", out[-2000:])
    mine = json.load(open(os.path.join(src, "trace.json")))
    tid = mine["processes"][0]["threads"][0]["tid"]
    trace = open(os.path.join(src, "threads", "%d.intelpt_trace" % tid), "rb").read()
    lldb = lldb_uuid(bid)
    assert lldb.count("-") == 5
    other = bytearray(bid)
    other[19] ^= 1
    forms = [("LLDB's dashed form", lldb, True),
             ("dashed, lower case", lldb.lower(), True),
             ("plain hex", bid.hex(), True),
             ("plain hex, upper case", bid.hex().upper(), True),
             ("one byte different", lldb_uuid(bytes(other)), False)]
    why = []
    for what, uuid, good in forms:
        d = os.path.join(OUT, "uuid")
        desc = {"type": "intel-pt", "cpuInfo": CPU,
                "processes": [{"pid": 4242, "triple": "x86_64-*-linux",
                               "threads": [{"tid": tid, "iptTrace": "thread.trace"}],
                               "modules": [{"systemPath": exe, "file": exe,
                                            "loadAddress": 4194304, "uuid": uuid}]}]}
        write(d, desc, {"thread.trace": trace})
        post = os.path.join(OUT, "uuid.post")
        if os.path.exists(post):
            os.unlink(post)
        # the program is read where it is: outside the bundle, allowed
        out = ptdb(["trace load --allow-outside " + d, "thread trace dump instructions -a -F " + post])
        out = "\n".join(l for l in out.splitlines() if not l.startswith("warning: ") or
                         "(outside the bundle's directory)" not in l)
        if good:
            if "error:" in out or not os.path.exists(post) or \
                    open(post).read() != open(live).read():
                why.append("%s (%s) not accepted:\n%s" % (what, uuid, out))
        else:
            want = "modules[0].uuid: \"%s\" is not the build ID of '%s'" % (uuid, exe)
            if want not in out or "Loaded" in out:
                why.append("%s (%s) not refused:\n%s" % (what, uuid, out))
    if why:
        return results.fail("LLDB bundle: uuid forms", "\n".join(why))
    results.ok("LLDB bundle: uuid forms")


# A raw code image: mov $3,%ecx; dec %ecx; jnz -4; nop
CODE = bytes([0xb9, 0x03, 0x00, 0x00, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0x90])


def stream(base):
    """PSB+, TIP.PGE at base (sext48), TNT taken/taken/not taken, FUP at
    base+10, TIP.PGD: the loop above run to its end."""
    psb = bytes([0x02, 0x82] * 8)
    mode64 = bytes([0x99, 0x01])
    psbend = bytes([0x02, 0x23])
    pge = bytes([0x71]) + struct.pack("<Q", base)[:6]
    tnt = bytes([0x1c])
    fup = bytes([0x3d]) + struct.pack("<H", (base + 10) & 0xffff)
    return psb + mode64 + psbend + mode64 + pge + tnt + fup + bytes([0x01])


def loop_addrs(base):
    return ["0x%016x" % a for a in (base, base + 5, base + 7, base + 5, base + 7,
                                    base + 5, base + 7, base + 9)]


def addrs_of(out):
    return [l.split()[1] for l in out.splitlines() if l.startswith("    [")]


def raw_bundle(load, base=0x100000):
    return ({"type": "intel-pt", "cpuInfo": CPU,
             "processes": [{"pid": 1234, "triple": "x86_64-*-linux",
                            "threads": [{"tid": 3842849, "iptTrace": "3842849.trace"}],
                            "modules": [{"systemPath": "/fw/code.bin", "file": "code.bin",
                                         "loadAddress": load}]}]},
            {"3842849.trace": stream(base), "code.bin": CODE})


def load_addresses():
    why = []
    for load in (1048576, "1048576", "0x100000"):
        d = os.path.join(OUT, "load")
        desc, files = raw_bundle(load)
        write(d, desc, files)
        out = ptdb(["trace load " + d, "thread trace dump instructions -a -r"])
        if addrs_of(out) != loop_addrs(0x100000) or "error" in out:
            why.append("loadAddress %r:\n%s" % (load, out))
    if why:
        return results.fail("LLDB bundle: load address forms", "\n".join(why))
    results.ok("LLDB bundle: load address forms")


def kernel():
    why = []
    for load in (None, "0xffffffff82000000"):
        base = 0xffffffff81000000 if load is None else int(load, 16)
        d = os.path.join(OUT, "kernel")
        k = {"file": "vmlinux.bin"}
        if load:
            k["loadAddress"] = load
        desc = {"cpus": [{"contextSwitchTrace": "cores/45.perf_context_switch_trace", "id": 45,
                          "iptTrace": "cores/45.intelpt_trace"},
                         {"contextSwitchTrace": "cores/51.perf_context_switch_trace", "id": 51,
                          "iptTrace": "cores/51.intelpt_trace"}],
                "cpuInfo": CPU,
                "tscPerfZeroConversion": {"timeMult": 1076264588, "timeShift": 31,
                                          "timeZero": 18433473881008870804},
                "kernel": k, "type": "intel-pt"}
        write(d, desc, {"vmlinux.bin": CODE})
        os.makedirs(os.path.join(d, "cores"))
        for c in (45, 51):
            with open(os.path.join(d, "cores", "%d.intelpt_trace" % c), "wb") as f:
                f.write(stream(base))
            open(os.path.join(d, "cores", "%d.perf_context_switch_trace" % c), "wb").close()
        out = ptdb(["trace load -v " + d, "thread list",
                    "thread trace dump instructions 1 -a -r",
                    "thread trace dump instructions 2 -a -r", "image list"])
        want = ["Loaded the trace of process 1: 2 threads (2 traced), 1 module.",
                "thread #1: tid = 45, total instructions = 8",
                "thread #2: tid = 51, total instructions = 8",
                "module %s/vmlinux.bin at 0x%016x" % (d, base),
                "TSC conversion: timeMult 1076264588, timeShift 31, timeZero 18433473881008870804"]
        miss = [w for w in want if w not in out]
        if miss or addrs_of(out) != loop_addrs(base) * 2 or "error" in out:
            why.append("kernel at %s: missing %r\n%s" % (load or "the default", miss, out))
        # saved again as a kernel bundle, as LLDB saves one, and loaded back
        saved = os.path.join(OUT, "kernel-saved")
        shutil.rmtree(saved, ignore_errors=True)
        out = ptdb(["trace load " + d, "trace save " + saved, "trace load " + saved,
                    "thread trace dump instructions 1 -a -r",
                    "thread trace dump instructions 2 -a -r"])
        try:
            j = json.load(open(os.path.join(saved, "trace.json")))
            if j.get("processes") != [] or [c["id"] for c in j.get("cpus", [])] != [45, 51] or \
                    int(j["kernel"]["loadAddress"], 16) != base or \
                    not os.path.exists(os.path.join(saved, j["kernel"]["file"])):
                why.append("saved as %s" % json.dumps(j))
        except (OSError, KeyError, ValueError) as e:
            why.append("no kernel bundle saved (%s)\n%s" % (e, out))
        if addrs_of(out) != loop_addrs(base) * 2 or "error" in out:
            why.append("the saved kernel bundle does not dump the same:\n" + out)
    if why:
        return results.fail("LLDB bundle: kernel trace", "\n".join(why))
    results.ok("LLDB bundle: kernel trace")


def errors_only():
    """LLDB's trace_bad_image: the module is not where the trace ran."""
    d = os.path.join(OUT, "bad-image")
    desc, files = raw_bundle(16777200)
    write(d, desc, files)
    out = ptdb(["trace load " + d, "thread trace dump instructions",
                "thread trace dump instructions -j"])
    lines = out.splitlines()
    why = []
    try:
        i = lines.index("thread #1: tid = 3842849, total instructions = 0")
        if lines[i + 1] != "    ...missing instructions" or \
                not lines[i + 2].startswith("    [ ] (error) ") or \
                "0x0000000000100000" not in lines[i + 2]:
            why.append("the error is not listed")
        js = json.loads([l for l in lines if l.startswith("[")][0])
        if not js or "error" not in js[0]:
            why.append("the error is not in the JSON")
    except (ValueError, IndexError) as e:
        why.append("unexpected output (%s)" % e)
    if why:
        return results.fail("LLDB bundle: errors-only trace", "\n".join(why) + "\n" + out)
    results.ok("LLDB bundle: errors-only trace")


def fields():
    why = []
    d = os.path.join(OUT, "cpuinfo")
    desc, files = raw_bundle("0x100000")
    desc["cpuInfo"] = {"vendor": "Unknown", "family": 4294967296, "model": 300, "stepping": 256}
    write(d, desc, files)
    out = ptdb(["trace load -v " + d, "thread trace dump instructions -a -r"])
    if "family 4294967296, model 300, stepping 256" not in out or \
            addrs_of(out) != loop_addrs(0x100000):
        why.append("cpuInfo values as uint64:\n" + out)
    src = os.path.join(OUT, "saved-tsc")
    shutil.rmtree(src, ignore_errors=True)
    out = ptdb(["file " + os.path.join(PROG, "trace_loop"), "b main", "r",
                "thread trace start --tsc", "n", "trace save " + src, "kill"])
    try:
        tz = json.load(open(os.path.join(src, "trace.json")))["tscPerfZeroConversion"]["timeZero"]
        if not isinstance(tz, str) or not tz.isdigit():
            why.append("timeZero written as %r, LLDB writes a decimal string" % tz)
    except (OSError, KeyError, ValueError) as e:
        why.append("no tscPerfZeroConversion saved (%s):\n%s" % (e, out))
    if why:
        return results.fail("LLDB bundle: field forms", "\n".join(why))
    results.ok("LLDB bundle: field forms")


def two_processes():
    """Two processes (LLDB makes a target of each): the first is loaded,
    target select loads the other; each decodes against its own module."""
    d = os.path.join(OUT, "two")
    code2 = bytes([0xb9, 0x02]) + CODE[2:]          # the loop, twice
    s2 = stream(0x100000).replace(bytes([0x1c]), bytes([0x0c]))   # taken, not taken
    desc = {"type": "intel-pt", "cpuInfo": CPU,
            "processes": [
                {"pid": 1234, "triple": "x86_64-*-linux",
                 "threads": [{"tid": 1235, "iptTrace": "1235.trace"}],
                 "modules": [{"systemPath": "/fw/code.bin", "file": "code.bin",
                              "loadAddress": "0x100000"}]},
                {"pid": 5678,
                 "threads": [{"tid": 5679, "iptTrace": "5679.trace"},
                             {"tid": 5680}],
                 "modules": [{"systemPath": "/fw/other.bin", "file": "other.bin",
                              "loadAddress": 1048576}]}]}
    write(d, desc, {"1235.trace": stream(0x100000), "5679.trace": s2,
                    "code.bin": CODE, "other.bin": code2})
    out = ptdb(["trace load " + d, "thread trace dump instructions -a -r", "target list",
                "target select 1", "thread list", "thread trace dump instructions -a -r",
                "image list", "target select 5", "target select 0", "image list"])
    base = 0x100000
    two = ["0x%016x" % a for a in (base, base + 5, base + 7, base + 5, base + 7, base + 9)]
    want = ["Loaded the trace of process 1234: 1 thread (1 traced), 1 module.",
            "The bundle holds 2 processes",
            "* target #0: %s/code.bin ( arch=x86_64-*-linux, platform=host, pid=1234, state=stopped )" % d,
            "  target #1: %s/other.bin ( arch=x86_64-*-linux, platform=host, pid=5678, state=stopped )" % d,
            "* target #1: %s/other.bin" % d,
            "thread #1: tid = 5679, total instructions = 6",
            "thread #2: tid = 5680",
            "[  0] 0x0000000000100000 %s/other.bin" % d,
            "error: index 5 is out of range, valid target indexes are 0 - 1",
            "[  0] 0x0000000000100000 %s/code.bin" % d]
    why = ["missing: %r" % w for w in want if w not in out]
    if addrs_of(out) != loop_addrs(base) + two:
        why.append("instructions %s" % addrs_of(out))
    if why:
        return results.fail("LLDB bundle: two processes", "\n".join(why) + "\n" + out)
    results.ok("LLDB bundle: two processes")


def run_all():
    os.makedirs(OUT, exist_ok=True)
    uuid_forms()
    load_addresses()
    kernel()
    errors_only()
    fields()
    two_processes()


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
