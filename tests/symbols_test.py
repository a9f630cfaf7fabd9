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
      the same frames ([inlined] frames of libc's msort included, each with
      its inlined call's own arguments) and the same argument lists
      (pointer values normalized: norm_args)
  S6  tests/programs/inline_o2 (-O2 PIE, DWARF paths under /ptdb-moved):
      bt from malloc through two inlined calls, and the listings of
      'frame select 1..3' through target.source-map, as lldb-16 shows them,
      arguments included; where lldb-16 says <unavailable> ptdb may print
      the value (deliberate: it evaluates DW_OP_entry_value through the
      caller's call site, main's argc and argv here)
  S7  breakpoint locations as lldb-16 places them: b printf (libc's
      __printf at its entry), -O2 functions with several rows at the entry;
      by name at inlined copies too (init_registry and sum, only inlined;
      b malloc: libc's and ld.so's inlined rtld-malloc.h copies), and a
      stop at one: the inlined frame, then its caller at the call site
  S8  target.source-map: no map, no source; a map: breakpoints by the new
      path, stop listings and source list; an odd number of paths refused
  S10 tests/programs/cxxsym (C++): breakpoint locations of b ns::Rect::~Rect,
      ~Rect, ns::Rect::Rect, overloads, templates with and without their
      arguments, and the bt of a thread std::thread created (down to
      clone3), as lldb-16 shows them, module names included (the link
      map's libstdc++.so.6, not the file's libstdc++.so.6.0.30); argument
      lists aside: LLDB lists unnamed parameters as "(null)=..." and ptdb
      leaves them out
  S11 Tab completes function names after 'b' and 'image lookup -n' (a pty)
  S12 addresses: a PIE's run-time address before it runs is in no module
      (LLDB's 'Breakpoint 1: address = ...'), a size-0 symbol (_fini)
      names its address only, an IFUNC (gettimeofday) is found by name
  S13 awkward places, against lldb-16: a thread stopped in clone3 right
      after the syscall that creates another (no CFI covers that code: the
      frames come from the return address at its ret) unwinds down to
      _start, and the new thread's outermost frame is clone3's, not a
      bogus caller (when it is still there: it may have run to its end;
      stopped on its first instruction, the one after clone3's ret, it
      always is, clone3's being its only frame); a signal handler's bt goes through __restore_rt (the
      interrupted frame looked up at its pc) down to main; a stop in the
      vDSO unwinds through libc's clock_gettime.  Frames are compared by
      pc and file:line, and by name except LLDB's versioned symbol name
      for pthread_create (pthread_create@GLIBC_2.2.5; ptdb gives the DWARF
      name, __pthread_create_2_1, and so lists its arguments, which LLDB
      does not for a symbol); the arguments of libc's frames above
      clone3's are compared too (the callee-saved registers pass through a
      frame without CFI unchanged, as LLDB assumes)
  S14 stepping treats an inlined call as a call, as LLDB does: 'n' stops at
      its call site (the inlined frames hidden, frame 0 the caller's line),
      's' there enters it without running; 'finish' in it runs out of it,
      'n' goes on by lldb-16's line entries (its stops, taken from lldb-16;
      GCC's rows interleave lines 28 and 31 here)
  S15 a traced run through qsort in the stripped copy: its function-call
      tree names every function (the program's by synthesized names, libc's
      own PLT entries to its IFUNCs as 'symbol stub for: memcpy'), no bare
      addresses
  S16 image lookup -a of addresses in inlined calls, against lldb-16: the
      summary goes on with one line per caller (the -O2 fixture's, and
      every instruction of libc's _mid_memalign, two calls deep)
  S17 register read names a value pointing into a module's data as
      lldb-16 does, against lldb-16 (register write puts each address in
      rax): objects in .data by their name alone, others as "mod`name",
      "+ N" inside one, a size-0 symbol reaching to the next one or its
      section's end, nothing after a spot no symbol holds; a writable
      segment a PT_TLS at the same address replaces is not resolved
      (globals: its .data and .bss), nor any address in ld.so; heap and
      stack values stay bare
  S9  a traced run of open_state: instruction dumps and the function-call
      tree show the inlined calls ("open_state + 5 [inlined] init_registry")
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
    out = ptdb("b qsort", "r", "thread trace start", "finish", "thread trace dump function-calls",
               "kill", prog=stripped)
    tree = out[out.find("[call tree"):]
    check("symbols: S15 a stripped program's call tree names every function", tree,
          ["symlibc`___lldb_unnamed_symbol10 to", "libc.so.6`__GI___qsort_r at msort.c:",
           "libc.so.6`symbol stub for: memcpy to <+0>"], ["`0x"])
    if not os.path.isdir("/usr/lib/debug/.build-id"):
        results.skip("symbols: S4", "libc6-dbg is not installed (make deps)")
        return
    out = ptdb("b cmp", "r", "bt", "kill", prog=PROG)
    check("symbols: S4 libc frames named from libc6-dbg", out,
          ["libc.so.6`__libc_start_call_main(main=(symlibc`main at symlibc.c:14:1), argc=1, "
           "argv=0x", ") at libc_start_call_main.h:58:16",
           "libc.so.6`msort_with_tmp [inlined] msort_with_tmp(n=2, b=0x"], ["libc.so.6`0x"])
    step_checks()
    compare_lldb()
    cxx_checks()
    awkward_checks()
    completion_check()
    o2 = os.path.join(ROOT, "tests", "programs", "inline_o2")
    fini = subprocess.run(["nm", o2], capture_output=True, text=True).stdout
    fini = [l.split()[0] for l in fini.splitlines() if l.endswith(" _fini")]
    after = "0x%x" % (int(fini[0], 16) + 1) if fini else "0x0"
    out = ptdb("breakpoint set -a 0x555555555307", "b " + after, "b main", "r",
               "image lookup -n gettimeofday", "kill", prog=o2)
    check("symbols: S12 no module, size-0 symbols, IFUNC by name", out,
          ["Breakpoint 1: address = 0x0000555555555307\n",
           "Breakpoint 2: where = inline_o2`%s, address" % after,
           "Summary: libc.so.6`__gettimeofday_ifunc [inlined] dl_vdso_vsym at dl-vdso.h:"],
          ["_fini + 1"])
    source_map_checks()
    lookup_checks()
    regname_checks()
    o2 = os.path.join(ROOT, "tests", "programs", "inline_o2")
    out = ptdb("b open_state", "r", "thread trace start", "finish",
               "thread trace dump instructions -f -c 40", "thread trace dump function-calls",
               "kill", prog=o2)
    ctx = re.search(r"^  inline_o2`open_state \+ \d+ \[inlined\] init_registry( \+ \d+)? "
                    r"at inline_o2\.c:12:11$", out, re.M)
    tree = re.search(r"^inline_o2`open_state \+ \d+ \[inlined\] init_registry( \+ \d+)? "
                     r"at inline_o2\.c:12:11 to \d+:\d+  \[\d+, \d+\]$", out, re.M)
    if ctx and tree:
        results.ok("symbols: S9 inlined calls in trace dumps and call trees")
    else:
        results.fail("symbols: S9 inlined calls in trace dumps and call trees",
                     "dump context %s, call tree %s\n%s" % (bool(ctx), bool(tree), out[-3000:]))


FRAME = re.compile(r"^\s*\*?\s*frame #(\d+): (0x[0-9a-f]{16}) (.*)$")


def strip_args(text):
    """Drops the last balanced parenthesized group before " at " (or the
    end): LLDB's "f(a=1, b=(x`g at y.c:1))" and ptdb's "f(int)" both
    become "f"."""
    at = text.rfind(" at ")
    head, tail = (text[:at], text[at:]) if at >= 0 and text[:at].endswith(")") else (text, "")
    if not head.endswith(")"):
        return text
    depth = 0
    for i in range(len(head) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(head[i], 0)
        if depth == 0:
            return head[:i] + tail
    return text


def norm_args(text):
    """Argument values that differ between runs written <ptr>: pointers
    (stack and heap addresses move with the environment) and pthread_t's
    decimal addresses; names, counts, sizes, NULL, <unavailable> and
    function pointers (by their function) are compared as printed."""
    text = re.sub(r"(?<==)0x[0-9a-f]+(?=[,)])", "<ptr>", text)
    return re.sub(r"(?<=threadid=)\d+", "<ptr>", text)


def frames(out, args=True):
    """Frame lines of a bt, argument values normalized (norm_args), or
    argument lists dropped (args False), and unnamed symbols (LLDB counts
    them, ptdb names them by address) written <unnamed>."""
    got = []
    for line in out.splitlines():
        m = FRAME.match(line)
        if not m:
            continue
        text = norm_args(m.group(3)) if args else strip_args(m.group(3))
        text = re.sub(r"___(lldb|ptdb)_unnamed_symbol\w*", "<unnamed>", text)
        got.append("#%s %s %s" % (m.group(1), m.group(2), text))
    return got


LISTING = re.compile(r"^(->|  ) +(\d+)(\s.*)?$")


def listings(out):
    """Source lines of a listing, whitespace runs squeezed (LLDB puts a tab
    after the line number, ptdb spaces)."""
    return [" ".join(l.split()) for l in out.splitlines() if LISTING.match(l)]


def lldb_run(cmds, prog):
    args = [shutil.which("lldb-16"), "-b", "-x"]
    for c in cmds:
        args += ["-o", c]
    return subprocess.run(args + [prog], capture_output=True, text=True, timeout=120).stdout


def same(name, want, got, unavailable_ok=False):
    """want (lldb-16's lines) equals got (ptdb's); unavailable_ok: an
    argument lldb-16 says is <unavailable> may have a value in ptdb."""
    def match(w, g):
        if not unavailable_ok:
            return w == g
        pat = re.escape(w).replace(re.escape("=<unavailable>"), r"=[^,()]+")
        return re.fullmatch(pat, g) is not None
    if not want or len(want) != len(got) or not all(map(match, want, got)):
        results.fail(name, "lldb-16:\n%s\nptdb:\n%s" % ("\n".join(want), "\n".join(got)))
    else:
        results.ok("%s (%d lines)" % (name, len(got)))


def compare_lldb():
    """S5-S7: the same sessions in lldb-16."""
    if not shutil.which("lldb-16"):
        results.skip("symbols: S5-S7 against lldb-16", "lldb-16 is not installed (make deps)")
        return
    # S5: bt from a callback inside libc's qsort
    cmds = ["b cmp", "r", "bt", "kill"]
    same("symbols: S5 bt through libc's qsort against lldb-16",
         frames(lldb_run(cmds, PROG)), frames(ptdb(*cmds, prog=PROG)))
    # S6: an -O2 PIE: malloc called from a function inlined into another,
    # the frames of both inlined calls selected, listed through a source
    # map; b printf
    o2 = os.path.join(ROOT, "tests", "programs", "inline_o2")
    # (b malloc once at main: its inlined copies in ld.so, planted from the
    # start in ptdb, are hit while ld.so loads the program, where lldb-16
    # leaves them unresolved)
    cmds = ["settings set target.source-map /ptdb-moved " + ROOT, "b main", "r", "b malloc", "c",
            "bt", "frame select 1", "frame select 2", "frame select 3", "kill"]
    lo, po = lldb_run(cmds, o2), ptdb(*cmds, prog=o2)
    same("symbols: S6 -O2 PIE bt with [inlined] frames against lldb-16", frames(lo), frames(po),
         unavailable_ok=True)
    same("symbols: S6 source listings through target.source-map against lldb-16",
         [l for l in listings(lo) if not l.startswith("^")], listings(po))
    cmds = ["b printf", "b open_state", "b main", "r", "breakpoint list", "kill"]
    loc = re.compile(r"^  (\d+\.\d+: where = .*), resolved")
    pick = lambda out: [m.group(1) for m in map(loc.match, out.splitlines()) if m]
    same("symbols: S7 breakpoint locations (b printf, -O2 functions) against lldb-16",
         pick(lldb_run(cmds, o2)), pick(ptdb(*cmds, prog=o2)))
    # S7: breakpoints by name at inlined copies: init_registry and sum
    # exist only inlined into open_state; malloc is libc's and 45 copies of
    # rtld-malloc.h's inline malloc in ld-linux-x86-64.so.2
    cmds = ["b main", "r", "b init_registry", "b sum", "b malloc", "breakpoint list", "kill"]
    lo, po = pick(lldb_run(cmds, o2)), pick(ptdb(*cmds, prog=o2))
    nmalloc = len([l for l in lo if l.startswith("4.")])
    if nmalloc < 2:
        results.fail("symbols: S7 lldb-16 places b malloc at inlined copies",
                     "lldb-16 gave %d locations" % nmalloc)
    same("symbols: S7 b NAME at inlined copies (%d for malloc) against lldb-16" % nmalloc, lo, po)
    # a stop at an inlined copy: the inlined call's frame, then its caller
    # at the call site, both at the breakpoint's address; frame 0 named,
    # as lldb-16 names it, by the function only (the address is in a
    # lexical block of the inlined call)
    cmds = ["b sum", "r", "bt", "kill"]
    unname = lambda fr: [re.sub(r"^(#0 \S+ inline_o2`open_state) \[inlined\] sum ", r"\1 ", f)
                         for f in fr]
    po = ptdb(*cmds, prog=o2)
    same("symbols: S7 stop at an inlined copy: bt against lldb-16",
         unname(frames(lldb_run(cmds, o2), args=False)), unname(frames(po, args=False)))
    stop = re.search(r"stop reason = breakpoint 1\.1\n    frame #0: (0x[0-9a-f]+) inline_o2`open_state "
                     r"at inline_o2\.c:20:6\n", po)
    caller = stop and re.search(r"\n    frame #1: %s inline_o2`open_state\(n=10\) "
                                r"at inline_o2\.c:32:10\n" % stop.group(1), po)
    if caller:
        results.ok("symbols: S7 stop at an inlined copy shows its [inlined] frame")
    else:
        results.fail("symbols: S7 stop at an inlined copy shows its [inlined] frame", po)


def cxx_checks():
    if not shutil.which("lldb-16"):
        return
    prog = os.path.join(ROOT, "tests", "programs", "cxxsym")
    names = ["ns::Rect::~Rect", "~Rect", "ns::Rect::Rect", "Rect", "ns::over", "over(double)",
             "ns::twice", "twice<int>", "ns::Rect::area"]
    cmds = ["b " + n for n in names] + ["breakpoint list"]
    loc = re.compile(r"^  (\d+)\.\d+: where = (.*), address = (?:cxxsym\[)?(0x[0-9a-f]{16})")
    pick = lambda out: sorted("%s: %s %s" % m.groups() for m in map(loc.match, out.splitlines()) if m)
    same("symbols: S10 C++ breakpoint locations against lldb-16", pick(lldb_run(cmds, prog)),
         pick(ptdb(*cmds, prog=prog)))
    cmds = ["b worker", "r", "bt", "kill"]
    same("symbols: S10 bt of a new std::thread against lldb-16",
         frames(lldb_run(cmds, prog), False), frames(ptdb(*cmds, prog=prog), False))


def completion_check():
    import tempfile
    import repl_test
    prog = os.path.join(ROOT, "tests", "programs", "cxxsym")
    with tempfile.TemporaryDirectory() as tmp:
        p = repl_test.session(tmp)
        why = None
        try:
            steps = [("file %s\r" % prog, "Current executable set"),
                     ("b wor\t", "ker "), ("\r", "Breakpoint 1: where = cxxsym`worker + 12"),
                     ("image lookup -n ns::Rect::~R\t", "ect "),
                     ("\r", "Summary: cxxsym`ns::Rect::~Rect() at cxxsym.cpp:12:2"),
                     ("b ns::ov\t", "er "), ("\r", "Breakpoint 2: 2 locations.")]
            if not p.read_until("(ptdb) "):
                why = "no prompt"
            for send, want in steps:
                if why:
                    break
                p.buf = b""
                p.send(send)
                if not p.read_until(want):
                    why = "%r: no %r in %r" % (send, want, p.buf[-300:])
            p.send("quit\r")
            p.wait_exit()
        except Exception as e:  # a harness error is a failure
            why = "exception: %r" % (e,)
    if why:
        results.fail("symbols: S11 Tab completes function names", why)
    else:
        results.ok("symbols: S11 Tab completes function names")


def thread_frames(out, tid_index, args=False):
    """The frames of 'thread #N' in a bt all (argument values normalized
    with args, dropped without)."""
    got, on = [], False
    for line in out.splitlines():
        m = re.match(r"^[ *] thread #(\d+)", line)
        if m:
            on = int(m.group(1)) == tid_index
            continue
        if on:
            got += frames(line, args)
    return got


def awkward_checks():
    if not shutil.which("lldb-16"):
        return
    prog = os.path.join(ROOT, "tests", "programs", "cxxsym")
    out = ptdb("b main", "r", "disassemble -n __clone3", "kill", prog=prog)
    ret = re.search(r"^\s+(0x[0-9a-f]+) <\+\d+>:\s+retq?\s*$", out, re.M)
    sysc = re.search(r"^\s+(0x[0-9a-f]+) <\+\d+>:\s+syscall\s*$", out, re.M)
    if not ret or not sysc:
        results.fail("symbols: S13 clone3", "no ret/syscall in __clone3:\n" + out[-2000:])
        return
    cmds = ["b main", "r", "b " + ret.group(1), "c", "bt all", "kill"]
    lo, po = lldb_run(cmds, prog), ptdb(*cmds, prog=prog)
    strip_ver = lambda fr: [re.sub(r"`\S+@GLIBC_[\d.]+ at |`__pthread_create_2_1 at ", "`pthread_create at ", f)
                            for f in fr]
    same("symbols: S13 bt of a thread in clone3 against lldb-16", strip_ver(thread_frames(lo, 1)),
         strip_ver(thread_frames(po, 1)))
    # the arguments of libc's frames above clone3's: the callee-saved
    # registers pass through a frame without CFI unchanged, as in LLDB
    libc_args = lambda out: [f for f in thread_frames(out, 1, True)
                             if "libc.so.6`" in f and "pthread_create" not in f]
    same("symbols: S13 arguments of the frames above clone3 against lldb-16", libc_args(lo),
         libc_args(po), unavailable_ok=True)
    # where the new thread is depends on scheduling (at clone3's return
    # with nothing run, or further, or already gone: the kernel may run it
    # to its end before the parent reaches the ret); while it is there, its
    # outermost frame is clone3's
    new = thread_frames(po, 2)
    if not re.search(r"^[ *] thread #2", po, re.M) or (new and "`__clone3 at clone3.S:" in new[-1]):
        results.ok("symbols: S13 the thread being created ends at clone3, no bogus frame")
    else:
        results.fail("symbols: S13 the thread being created ends at clone3, no bogus frame",
                     "\n".join(new) + "\n" + po)
    # the new thread stopped on its first instruction after the clone
    # (only the child runs the one after the ret): on a fresh stack without
    # CFI, clone3's frame is the only one
    child = re.search(r"^\s+0x[0-9a-f]+ <\+\d+>:\s+retq?\s*\n\s+(0x[0-9a-f]+) <\+\d+>:", out, re.M)
    po = ptdb("b main", "r", "b " + child.group(1), "c", "bt all", "kill", prog=prog) if child else ""
    new = thread_frames(po.split("(ptdb) bt all")[-1], 2)
    if re.search(r"^\* thread #2, .*stop reason = breakpoint 2\.1$", po, re.M) and \
            len(new) == 1 and "`__clone3 at clone3.S:" in new[0]:
        results.ok("symbols: S13 the new thread at its first instruction: clone3's frame only")
    else:
        results.fail("symbols: S13 the new thread at its first instruction: clone3's frame only",
                     "\n".join(new) + "\n" + (po or out))
    prog = os.path.join(ROOT, "tests", "programs", "signals")
    cmds = ["process handle SIGUSR1 -s false -p true", "b on_usr1", "r", "bt", "kill"]
    same("symbols: S13 bt from a signal handler against lldb-16", frames(lldb_run(cmds, prog)),
         frames(ptdb(*cmds, prog=prog)))
    prog = os.path.join(ROOT, "tests", "programs", "vdso")
    cmds = ["b main", "r", "b __vdso_clock_gettime", "c", "bt", "kill"]
    same("symbols: S13 bt from the vDSO against lldb-16", frames(lldb_run(cmds, prog)),
         frames(ptdb(*cmds, prog=prog)))


def step_checks():
    o2 = os.path.join(ROOT, "tests", "programs", "inline_o2")
    out = ptdb("settings set target.source-map /ptdb-moved " + ROOT, "b open_state", "r", "n", "bt",
               "s", "finish", "n", "n", "kill", prog=o2)
    stop = r"\n(?:[^\n]*\n){2}    frame #0: 0x[0-9a-f]+ inline_o2`"
    op = r"open_state\(n=10\)"
    want = [r"\(ptdb\) n" + stop + op + r" at inline_o2\.c:31:2\n",
            r"\(ptdb\) bt\n.*\n  \* frame #0: 0x[0-9a-f]+ inline_o2`" + op + r" at inline_o2\.c:31:2\n"
            r"    frame #1: 0x[0-9a-f]+ inline_o2`main\(argc=1, argv=0x[0-9a-f]{16}\) "
            r"at inline_o2\.c:39:10\n",
            r"\(ptdb\) s" + stop + r"open_state \[inlined\] init_registry\(n=10, s=<unavailable>\) "
            r"at inline_o2\.c:12:11\n",
            r"\(ptdb\) finish" + stop + op + r" at inline_o2\.c:28:1\n",
            r"\(ptdb\) n" + stop + op + r" at inline_o2\.c:31:2\n"]
    missing = [w for w in want if not re.search(w, out)]
    if missing:
        results.fail("symbols: S14 stepping over, into and out of inlined calls",
                     "missing %r\n%s" % (missing, out))
    else:
        results.ok("symbols: S14 stepping over, into and out of inlined calls")


def summaries(out):
    """Per 'image lookup -a ADDR': its Summary line and the lines under it
    (the inlined calls' callers)."""
    res = {}
    for block in re.split(r"^\((?:lldb|ptdb)\) image lookup -a ", out, flags=re.M)[1:]:
        lines = block.splitlines()
        res[lines[0]] = [l.strip() for l in lines[1:]
                         if l.startswith("      Summary: ") or l.startswith(" " * 15)
                         and "`" in l and not l.lstrip().startswith("(")]
    return res


def lookup_checks():
    """S16 image lookup -a of addresses in inlined calls: LLDB's summary
    goes on with one line per caller ("mod`f + off at call site"); the
    -O2 fixture's addresses before it runs, and every instruction of
    libc's _mid_memalign (calls inlined two deep) live."""
    if not shutil.which("lldb-16"):
        return
    o2 = os.path.join(ROOT, "tests", "programs", "inline_o2")
    cmds = ["image lookup -a 0x11ac", "image lookup -a 0x11b0", "image lookup -a 0x1194"]
    want, got = summaries(lldb_run(cmds, o2)), summaries(ptdb(*cmds, prog=o2))
    same("symbols: S16 image lookup -a in inlined calls (-O2 fixture) against lldb-16",
         [l for k in sorted(want) for l in [k] + want[k]],
         [l for k in sorted(got) for l in [k] + got[k]])
    out = ptdb("b cmp", "r", "disassemble -n _mid_memalign.constprop.0", "kill", prog=PROG)
    addrs = re.findall(r"^(?:->)?\s+(0x[0-9a-f]+) <\+\d+>:", out, re.M)
    cmds = ["b cmp", "r"] + ["image lookup -a " + a for a in addrs] + ["kill"]
    want, got = summaries(lldb_run(cmds, PROG)), summaries(ptdb(*cmds, prog=PROG))
    deep = [k for k in want if len(want[k]) >= 3]
    if len(addrs) < 50 or not deep:
        results.fail("symbols: S16 image lookup -a in libc's inlined calls",
                     "%d addresses, %d two calls deep\n%s" % (len(addrs), len(deep), out[-2000:]))
        return
    same("symbols: S16 image lookup -a in libc's inlined calls against lldb-16 (%d addresses)"
         % len(addrs), [l for k in sorted(want) for l in [k] + want[k]],
         [l for k in sorted(got) for l in [k] + got[k]])


def regname_checks():
    """S17: register read of addresses in a module's data, as lldb-16."""
    if not shutil.which("lldb-16"):
        results.skip("symbols: S17 register read names data", "lldb-16 is not installed")
        return
    spots = [("_IO_stdin_used", 0), ("_IO_stdin_used", 4), ("_IO_stdin_used", 16),
             ("__GNU_EH_FRAME_HDR", 0), ("__abi_tag", 8), ("_DYNAMIC", 0), ("_DYNAMIC", 24),
             ("__do_global_dtors_aux_fini_array_entry", 4), ("_GLOBAL_OFFSET_TABLE_", 8),
             ("__data_start", 0), ("__dso_handle", 4), ("completed.0", 0), ("g_count", 2),
             ("g_name", 3), ("calls.0", 0), ("_edata", 0), ("_end", 0), ("main", 1)]
    for name in ("globals", "symlibc"):
        prog = os.path.join(ROOT, "tests", "programs", name)
        syms = {}
        for l in subprocess.run(["nm", prog], capture_output=True, text=True).stdout.splitlines():
            f = l.split()
            if len(f) == 3:
                syms.setdefault(f[2], int(f[0], 16))
        addrs = [syms[n] + off for n, off in spots if n in syms]
        # ld.so's .data and code, libc's .data and .bss (beside its PT_TLS),
        # libc's .rodata, the stack
        out = ptdb("b main", "r", "p/x (long)&_rtld_global", "p/x (long)&_IO_2_1_stdout_",
                   "p/x (long)&main_arena", "p/x (long)&_dl_catch_exception",
                   "p/x $rsp", "kill", prog=prog)
        addrs += [int(v, 16) for v in re.findall(r"^\(long\) \$\d+ = (0x[0-9a-f]+)$", out, re.M)]
        addrs += [int(v, 16) for v in re.findall(r"^\(unsigned long\) \$\d+ = (0x[0-9a-f]+)$",
                                                 out, re.M)]
        cmds = ["b main", "r"]
        for a in addrs:
            cmds += ["register write rax 0x%x" % a, "register read rax"]
        want = [l.rstrip() for l in lldb_run(cmds + ["kill"], prog).splitlines()
                if l.startswith("     rax = ")]
        got = [l.rstrip() for l in ptdb(*cmds, "kill", prog=prog).splitlines()
               if l.startswith("     rax = ")]
        same("symbols: S17 register read names data as lldb-16 (%s)" % name, want, got)


def source_map_checks():
    """S8: without target.source-map the moved tree's source is not found;
    with it, listings, source list and breakpoints by the new path work;
    an odd number of paths is refused."""
    o2 = os.path.join(ROOT, "tests", "programs", "inline_o2")
    src = os.path.join(ROOT, "tests", "programs", "inline_o2.c")
    out = ptdb("b open_state", "r", "source list -l 31 -c 1", "kill", prog=o2)
    check("symbols: S8 no source map, no source", out,
          ["error: cannot read source file '/ptdb-moved/tests/programs/inline_o2.c'"],
          ["init_registry(&s, n);"])
    out = ptdb("settings set target.source-map /elsewhere /x /ptdb-moved " + ROOT,
               "b " + src + ":33", "r", "source list -l 31 -c 1",
               "settings set target.source-map /a", "kill", prog=o2)
    check("symbols: S8 source map: breakpoint by the new path, listings", out,
          ["Breakpoint 1: where = inline_o2`open_state + ",
           "-> 33   \tfree(s.reg);", "   31   \tinit_registry(&s, n);",
           "error: target.source-map takes pairs of paths: OLD NEW [OLD NEW ...]"])
