"""Symbols for real programs: separate debug files and the names ptdb picks.

Fixtures are made in tests/out/symbols/ from tests/programs/symlibc: a copy
stripped of everything (symbols and DWARF) with a .gnu_debuglink, and its
debug file (objcopy --only-keep-debug) put where ptdb must look for it.

  S1  debug file by .gnu_debuglink name in a target.debug-file-search-paths
      directory: local symbols (cmp) and file:line come back
  S2  debug file by build id (DIR/.build-id/xx/yyyy.debug)
  S3  a debuglink file whose CRC does not match is not used; without the
      setting the stripped file has no symbols for its local functions
  S4  libc's debug file from libc6-dbg (/usr/lib/debug/.build-id): libc
      frames get their DWARF names and lines
  S5  the same session in lldb-16: bt from cmp called by libc's qsort has
      the same frames ([inlined] frames of libc's msort included), argument
      lists aside
"""
import os
import re
import shutil
import subprocess

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
PROG = os.path.join(ROOT, "tests", "programs", "symlibc")
OUT = os.path.join(ROOT, "tests", "out", "symbols")


def ptdb(*cmds, prog):
    args = [PTDB, "-b"]
    for c in cmds:
        args += ["-o", c]
    p = subprocess.run(args + ([prog] if prog else []), capture_output=True, text=True, timeout=120)
    return p.stdout + p.stderr


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split()[-1]
    return None


def make_fixtures():
    shutil.rmtree(OUT, ignore_errors=True)
    for d in ("bin", "dbg", "root", "bad"):
        os.makedirs(os.path.join(OUT, d))
    dbg = os.path.join(OUT, "dbg", "symlibc.debug")
    stripped = os.path.join(OUT, "bin", "symlibc")
    subprocess.run(["objcopy", "--only-keep-debug", PROG, dbg], check=True)
    subprocess.run(["objcopy", "--strip-all", "--add-gnu-debuglink=" + dbg, PROG, stripped],
                   check=True)
    bid = build_id(stripped)
    if not bid:
        return None
    os.makedirs(os.path.join(OUT, "root", ".build-id", bid[:2]))
    shutil.copy(dbg, os.path.join(OUT, "root", ".build-id", bid[:2], bid[2:] + ".debug"))
    # same name, one byte changed: the CRC no longer matches
    with open(dbg, "rb") as f:
        data = bytearray(f.read())
    data[-1] ^= 0xff
    with open(os.path.join(OUT, "bad", "symlibc.debug"), "wb") as f:
        f.write(data)
    return stripped


def check(name, out, want, unwanted=()):
    missing = [w for w in want if w not in out]
    present = [u for u in unwanted if u in out]
    if missing or present:
        results.fail(name, "missing: %r\nunexpected: %r\noutput:\n%s" % (missing, present, out))
    else:
        results.ok(name)


def run_all():
    if not os.path.exists(PTDB) or not os.path.exists(PROG):
        results.skip("symbols", "ptdb or tests/programs/symlibc not built")
        return
    if not shutil.which("objcopy") or not shutil.which("readelf"):
        results.skip("symbols", "objcopy/readelf (binutils) not installed")
        return
    stripped = make_fixtures()
    if not stripped:
        results.fail("symbols: fixture", "no build id in tests/programs/symlibc")
        return
    where = "where = symlibc`cmp + 12 at symlibc.c:8:6"
    out = ptdb("settings set target.debug-file-search-paths /nonexistent " + os.path.join(OUT, "dbg"),
               "file " + stripped, "b cmp", "image lookup -n main", prog=None)
    check("symbols: S1 debug file by .gnu_debuglink in a search path", out,
          [where, "Summary: symlibc`main at symlibc.c:14:"])
    out = ptdb("settings set target.debug-file-search-paths " + os.path.join(OUT, "root"),
               "file " + stripped, "b cmp", prog=None)
    check("symbols: S2 debug file by build id", out, [where])
    out = ptdb("settings set target.debug-file-search-paths " + os.path.join(OUT, "bad"),
               "file " + stripped, "b cmp", prog=None)
    check("symbols: S3 a debug file with the wrong CRC is refused", out,
          ["Breakpoint 1: no locations (pending)."], [where])
    out = ptdb("b cmp", prog=stripped)
    check("symbols: S3 no search path, no local symbols", out,
          ["Breakpoint 1: no locations (pending)."], [where])
    if not os.path.isdir("/usr/lib/debug/.build-id"):
        results.skip("symbols: S4", "libc6-dbg is not installed (make deps)")
        return
    out = ptdb("b cmp", "r", "bt", "kill", prog=PROG)
    check("symbols: S4 libc frames named from libc6-dbg", out,
          ["libc.so.6`__libc_start_call_main at libc_start_call_main.h:58:16",
           "libc.so.6`msort_with_tmp"], ["libc.so.6`0x"])
    compare_lldb()


FRAME = re.compile(r"^\s*\*?\s*frame #(\d+): (0x[0-9a-f]{16}) (.*)$")


def frames(out):
    """Frame lines of a bt, argument lists dropped (LLDB prints them,
    ptdb does not yet): 'f(a=1, b=2) at x.c:3' -> 'f at x.c:3'."""
    got = []
    for line in out.splitlines():
        m = FRAME.match(line)
        if not m:
            continue
        text = re.sub(r"(\w)\((?:[^()]|\([^()]*\))*\)( at |$)", r"\1\2", m.group(3))
        got.append("#%s %s %s" % (m.group(1), m.group(2), text))
    return got


def compare_lldb():
    """S5: the same session in lldb-16: bt from a callback inside libc's
    qsort has the same frames (names, [inlined] frames, pcs, file:line)."""
    lldb = shutil.which("lldb-16")
    if not lldb:
        results.skip("symbols: S5 bt against lldb-16", "lldb-16 is not installed (make deps)")
        return
    cmds = ["b cmp", "r", "bt", "kill"]
    args = [lldb, "-b", "-x"]
    for c in cmds:
        args += ["-o", c]
    p = subprocess.run(args + [PROG], capture_output=True, text=True, timeout=120)
    want = [f for f in frames(p.stdout) if True]
    out = ptdb(*cmds, prog=PROG)
    got = frames(out)
    # the stop report's frame #0 and bt's are both listed, in both tools
    if not want or want != got:
        results.fail("symbols: S5 bt against lldb-16",
                     "lldb-16:\n%s\nptdb:\n%s" % ("\n".join(want), "\n".join(got)))
    else:
        results.ok("symbols: S5 bt against lldb-16 (%d frames)" % len(got))
