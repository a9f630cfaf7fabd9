"""Hostile and bad input: each case is one command whose output must hold
exactly one line 'error: ...' (given exactly here), after which the next
command of the same session works.  Fixture files (non-ELF, 32-bit,
truncated, corrupt DWARF, a directory, an unreadable file, a program whose
source is gone) are made in tests/out/hostile/ from copies of the fixtures.

  H1  commands without a target: unknown, ambiguous, argument counts, quotes
  H2  commands on a stopped process: sizes, thread indices, 'all' mixed
      with indices, options after '--'
  H3  files given to 'file' and 'source list'; FIFOs given as the program,
      to 'file', 'trace load', 'command source' and '-s' (refused at once;
      a script that is a pipe with its writer there, as '-s <(...)', runs;
      -s on a FIFO with no writer once waited forever); a program whose
      path holds a newline
  H4  files written on a full disk (a file size limit): 'thread trace
      dump instructions -F' (with -t, -C), 'function-calls -F', 'export
      ctf -f' each say so
"""
import os
import shutil
import struct
import subprocess

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
PROG = os.path.join(ROOT, "tests", "programs")
OUT = os.path.join(ROOT, "tests", "out", "hostile")
LOOP = os.path.join(PROG, "trace_loop")

# (bad command, its exact error line) -- each followed by 'version'
NO_TARGET = [
    ("frobnicate", "error: 'frobnicate' is not a valid command."),
    ("t", "error: ambiguous command 't'. Possible matches: target thread trace"),
    ("thread tr", "error: 'thread trace' is a group of commands; try 'help thread trace'."),
    ("file", "error: 'file' requires 1 argument"),
    ("file a b", "error: 'file' takes at most 1 argument"),
    ("version extra", "error: 'version' takes no arguments"),
    ("'unterminated", "error: unterminated quote in command line"),
    ("settings set nosuch 1", "error: invalid setting: 'nosuch' (see 'settings show')"),
    ("breakpoint set", "error: breakpoint set needs a location: -n <name>, -f <file> -l <line>, "
     "-a <address>"),
    ("thread trace start", "error: Process not available."),
    ("memory read -c abc 0", "error: invalid value for option '-c': invalid number: \"abc\""),
    ("memory read -c 99999999999999999999 0",
     "error: invalid value for option '-c': number out of range: \"99999999999999999999\""),
    ("process attach -p abc", "error: invalid process id 'abc'"),
    ("settings set target.run-args " + "x " * 1500, None),   # long value: no overrun
]

STOPPED = [
    ("thread trace start --size -1", "error: invalid --size: invalid size: \"-1\""),
    ("thread trace start --size 99999999999TB", "error: invalid --size: size too large: \"99999999999TB\""),
    ("thread trace start --size lots", "error: invalid --size: invalid size: \"lots\""),
    ("thread trace start --size 12XB",
     "error: invalid --size: invalid size: \"12XB\" (use a number with an optional unit: B, KiB, MiB, GiB)"),
    ("thread trace start -s", "error: option '-s' requires a value <size>"),
    ("process trace start -l -5", "error: invalid --total-size-limit: invalid size: \"-5\""),
    ("thread trace start 7", "error: no thread with index: \"7\""),
    ("thread trace start all 1", "error: 'all' cannot be combined with thread indices"),
    ("thread trace start 1 all", "error: 'all' cannot be combined with thread indices"),
    ("thread trace start " + " ".join(["1"] * 1500), None),   # repeated index: counts once
    ("thread trace stop 1", None),
    ("thread select 9", "error: invalid thread #9."),
    ("thread backtrace 5", "error: invalid thread #5."),
    ("thread trace start -- -s 4KiB", "error: invalid thread specification: \"-s\""),
    ("thread trace dump instructions -- -c", "error: invalid thread specification: \"-c\""),
    ("frame select 40", "error: Frame index (40) out of range."),
    ("memory read -c -1 0x401000", "error: invalid value for option '-c': invalid number: \"-1\""),
]


def write(path, data, mode=0o644):
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)


def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        name = data[stroff + h[0]:data.index(b"\0", stroff + h[0])].decode()
        out[name] = (h[4], h[5])
    return out


def scrambled(data, names):
    data = bytearray(data)
    sec = sections(data)
    for n in names:
        off, size = sec[n]
        for i in range(off, off + size):
            data[i] = (i * 151 + 7) & 0xff
    return bytes(data)


def make_files():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(os.path.join(OUT, "adir"))
    elf = open(LOOP, "rb").read()
    write(os.path.join(OUT, "notelf"), b"#!/bin/sh\necho not an ELF file\n", 0o755)
    write(os.path.join(OUT, "empty"), b"")
    e32 = bytearray(elf)
    e32[4] = 1      # EI_CLASS: ELFCLASS32
    write(os.path.join(OUT, "elf32"), bytes(e32), 0o755)
    write(os.path.join(OUT, "truncated"), elf[:3000], 0o755)
    write(os.path.join(OUT, "bad-info"), scrambled(elf, [".debug_info"]), 0o755)
    write(os.path.join(OUT, "bad-line"), scrambled(elf, [".debug_line"]), 0o755)
    write(os.path.join(OUT, "noread"), elf, 0o000)
    src = os.path.join(OUT, "gone.c")
    shutil.copy(os.path.join(PROG, "trace_loop.c"), src)
    subprocess.run(["gcc", "-g", "-O0", "-no-pie", "-o", os.path.join(OUT, "gone"), src], check=True)
    os.unlink(src)


FILES = [
    ("file tests/out/hostile/notelf", "error: '%s/notelf' is not an ELF file" % OUT),
    ("file tests/out/hostile/empty", "error: '%s/empty' is not an ELF file" % OUT),
    ("file tests/out/hostile/elf32", "error: '%s/elf32' is not an x86-64 ELF file" % OUT),
    ("file tests/out/hostile/truncated",
     "error: '%s/truncated' is truncated: its loadable segments reach past the end of the file" % OUT),
    ("file tests/out/hostile/adir", "error: '%s/adir' is a directory" % OUT),
    ("file /dev/zero", "error: '/dev/zero' is not a regular file"),
    ("file tests/out/hostile/nosuch",
     "error: unable to find executable 'tests/out/hostile/nosuch': No such file or directory"),
    ("file tests/out/hostile/gone", None),
    ("source list -n main", "error: cannot read source file '%s/gone.c': No such file or directory" % OUT),
    ("source list -f tests/out/hostile/adir -l 1",
     "error: cannot read source file '%s/adir': not a regular file" % OUT),
    ("b main", None),
]

# corrupt DWARF: the target loads (ELF symbols work) with one warning line
DWARF = [
    ("bad-info", "warning: '%s/bad-info' has corrupt debug information (bad unit header in "
     ".debug_info: DW_DLE_HEADER_LEN_BIGGER_THAN_SECSIZE:" % OUT),
    ("bad-line", "warning: '%s/bad-line' has corrupt debug information (bad line table in "
     ".debug_line: DW_DLE_HEADER_LEN_BIGGER_THAN_SECSIZE:" % OUT),
]


def session(lines, pre=None, timeout=120):
    script = os.path.join(OUT, "script.ptdb")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(script, 0o644)
    # one pipe for both streams: each command's error lines follow its echo
    p = subprocess.run((pre or []) + [PTDB, "-b", "-s", script], cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    return p.stdout


def split(out):
    """{command: its output lines}, in order (commands may repeat: a list)."""
    res, cur = [], None
    for l in out.splitlines():
        if l.startswith("(ptdb) "):
            cur = (l[7:], [])
            res.append(cur)
        elif cur:
            cur[1].append(l)
    return res


def check_cases(tag, cases, prefix, follow="version", want_follow="ptdb version 0.1.0"):
    lines = list(prefix)
    for c, _ in cases:
        lines += [c, follow]
    out = session(lines)
    got = split(out)[len(prefix):]
    for i, (c, want) in enumerate(cases):
        name = "%s %s" % (tag, c if len(c) < 60 else c[:57] + "...")
        if 2 * i + 1 >= len(got):
            results.fail(name, "session ended early\n" + out[-3000:])
            continue
        (cmd, o), (_, fo) = got[2 * i], got[2 * i + 1]
        errs = [l for l in o if l.startswith("error:")]
        why = []
        if want is None and errs:
            why.append("unexpected error: %s" % errs)
        if want is not None and errs != [want]:
            why.append("want exactly [%r]\n got %r" % (want, errs))
        if want_follow not in "\n".join(fo) or any(l.startswith("error:") for l in fo):
            why.append("the next command (%s) did not work: %s" % (follow, fo))
        if why:
            results.fail(name, "\n".join(why))
        else:
            results.ok(name)


def noread():
    name = "H3 file without read permission"
    path = os.path.join(OUT, "noread")
    pre = None
    if os.geteuid() == 0:
        # root reads whatever the mode says: run ptdb as 'nobody' instead
        if not shutil.which("setpriv"):
            return results.ok(name + " (skipped: root and no setpriv to drop privileges)")
        pre = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        os.chmod(OUT, 0o755)
    out = session(["file " + path, "version"], pre)
    got = split(out)
    want = "error: cannot open '%s': Permission denied" % path
    errs = [l for l in got[0][1] if l.startswith("error:")] if got else []
    if errs != [want] or len(got) < 2 or "ptdb version" not in "\n".join(got[1][1]):
        return results.fail(name, "want exactly [%r]\n%s" % (want, out))
    results.ok(name)


def fifos():
    """A FIFO with no writer: every command that reads a file refuses it
    at once (before, opening it waited forever)."""
    fifo = os.path.join(OUT, "fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    cases = [
        (["file " + fifo], "error: '%s' is not a regular file" % fifo),
        (["trace load " + fifo], "error: %s: not a regular file" % fifo),
        (["command source " + fifo], "error: cannot open command file '%s': a FIFO with no writer" % fifo),
        (["--", fifo], "error: '%s' is not a regular file" % fifo),
        (["-s", fifo], "error: cannot open command file '%s': a FIFO with no writer" % fifo),
        (["-s", OUT], "error: cannot open command file '%s': not a regular file" % OUT),
    ]
    for args, want in cases:
        name = "H3 a FIFO: " + " ".join(args).replace(OUT + "/", "")
        cmd = [PTDB, "-b"] + (args if args[0] in ("--", "-s") else ["-o", args[0]]) + ["-o", "version"]
        try:
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=30,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            results.fail(name, "ptdb still waits on the FIFO after 30 s")
            continue
        errs = [l for l in p.stderr.splitlines() if l.startswith("error:")]
        if errs != [want]:
            results.fail(name, "want exactly [%r]\n got %r\n%s" % (want, errs, p.stdout))
        else:
            results.ok(name)


def script_pipe():
    """-s on a pipe whose writer is there ('-s <(...)'): its commands run
    (a FIFO is refused only when nobody writes to it)."""
    name = "H3 -s on a pipe with a writer runs its commands"
    r, w = os.pipe()
    p = subprocess.Popen([PTDB, "-b", "-s", "/dev/fd/%d" % r], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, pass_fds=(r,), stdin=subprocess.DEVNULL)
    os.close(r)
    os.write(w, b"version\n")
    os.close(w)
    try:
        out = p.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        p.kill()
        out = p.communicate()[0]
        return results.fail(name, "ptdb still waits on the pipe after 30 s\n" + out)
    if "(ptdb) version" not in out or "ptdb version" not in out or p.returncode != 0:
        return results.fail(name, "exit %d\n%s" % (p.returncode, out))
    results.ok(name)


def newline_path():
    """A program whose path holds a newline (/proc/PID/maps writes it as
    \\012): its module is found where it is mapped, 'b main' is hit."""
    name = "H3 a program whose path holds a newline"
    d = os.path.join(OUT, "new\nline")
    os.makedirs(d, exist_ok=True)
    prog = os.path.join(d, "prog")
    shutil.copy(LOOP, prog)
    p = subprocess.run([PTDB, "-b", "-o", "b main", "-o", "r", "-o", "image list", "-o", "kill",
                        "--", prog], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    out = p.stdout + p.stderr
    if "stop reason = breakpoint 1.1" not in out or "prog`main at trace_loop.c" not in out:
        return results.fail(name, out[-3000:])
    results.ok(name)


def full_disk():
    """Each file a command writes is checked to its end: with a file size
    limit (as a full disk: writes fail, here with EFBIG), every dump to a
    file says it could not write it."""
    import resource
    import signal
    files = [os.path.join(OUT, "full-%d.txt" % i) for i in range(5)]
    cmds = ["thread trace dump instructions -a -F " + files[0],
            "thread trace dump instructions -a -t -F " + files[1],
            "thread trace dump instructions -c 10",
            "thread trace dump instructions -C -c 100000 -F " + files[2],
            "thread trace dump function-calls -F " + files[3],
            "thread trace export ctf -f " + files[4]]
    script = os.path.join(OUT, "full.ptdb")
    with open(script, "w") as f:
        f.write("\n".join(["file " + os.path.join(PROG, "divide"), "b main", "r",
                           "process trace start --tsc", "c"] + cmds + ["kill"]) + "\n")

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # EFBIG, as ENOSPC
        resource.setrlimit(resource.RLIMIT_FSIZE, (8 << 10, 8 << 10))
    p = subprocess.run([PTDB, "-b", "-s", script], cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=300, preexec_fn=limit,
                       stdin=subprocess.DEVNULL)
    got = dict(split(p.stdout))
    for c, f in zip([cmds[0], cmds[1], cmds[3], cmds[4], cmds[5]], files):
        name = "H4 a full disk: " + c.replace(OUT + "/", "")
        want = "error: cannot write '%s': File too large" % f
        errs = [l for l in got.get(c, []) if l.startswith("error:")]
        if errs != [want]:
            results.fail(name, "want exactly [%r]\n got %r\n%s" % (want, errs, p.stdout[-3000:]))
        else:
            results.ok(name)


def dwarf():
    for f, want in DWARF:
        name = "H3 corrupt DWARF (%s): one warning, ELF symbols still work" % f
        out = session(["file tests/out/hostile/" + f, "b main", "image lookup -n main"])
        got = split(out)
        warn = [l for l in got[0][1] if l.startswith(("warning:", "error:"))] if got else []
        why = []
        if len(warn) != 1 or not warn[0].startswith(want):
            why.append("want one line starting %r, got %r" % (want, warn))
        if "Breakpoint 1: where = %s`main, address = 0x" % f not in out:
            why.append("'b main' did not resolve through the ELF symbols")
        if "1 match found" not in out or "error:" in out:
            why.append("image lookup failed")
        if why:
            results.fail(name, "\n".join(why) + "\n" + out[-2000:])
        else:
            results.ok(name)


def run_all():
    make_files()
    check_cases("H1", NO_TARGET, [])
    check_cases("H2", STOPPED, ["file " + LOOP, "b main", "r"], follow="thread list",
                want_follow="* thread #1: tid = ")
    check_cases("H3", FILES, [])
    noread()
    fifos()
    script_pipe()
    newline_path()
    full_disk()
    dwarf()


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
