"""Comparison with lldb-16: the same batch session runs in lldb-16 and in
ptdb on the variable fixtures (tests/programs/vars, -O0, and vars_o2, -O2
PIE), and the lines of frame variable, expression, target variable,
finish's return value, the program's frame lines and memory read's
lines (session "memory read", on globals' data: C strings too, and a
caller frame's register that is not recovered) must be identical; the
"symlinked program" session runs vars through a symlink, whose name
lldb-16 keeps (module name, thread name, argv[0]);
vars_o2_dw4 is vars_o2 with DWARF 4 (.debug_loc, .debug_ranges) instead of 5,
vars_tu has its types in DWARF 4 type units (.debug_types).

Normalized, because they must differ: the debugger's name in the echo,
process ids, and stack addresses (each debugger starts the program with its
own environment, which moves the stack).  Dropped: source listings (their
spacing is a separate matter) and "Process N launched/resuming" lines.

Deliberate differences, named here and in man/ptdb.1:
  - 'target variable' with no name lists the globals in DWARF order; LLDB
    lists them in its name index's order.  Those lines are compared as sets.
  - Thread-local variables: lldb-16 prints "<No TLS data currently exists
    for this thread.>" on these machines; ptdb reads the executable's TLS
    block.  Lines naming tls_ are left out of the globals session.
  - Frames of libc.so.6: only the fixture's own frames are compared here;
    libc's (named and given arguments from libc6-dbg's debug file) are
    compared with lldb-16's by tests/symbols_test.py (S4, S5, S13).
  - Watchpoints: ptdb's watchpoint list, and the line after a new
    watchpoint, say how they are checked when that is not the debug
    registers (software: on a machine that delivers no debug-register
    traps, which ptdb probes).  These VMs never
    deliver debug-register traps, so lldb-16's watchpoints never fire
    here: the session compares setting, listing and changing them only
    (their hits are checked by the transcript tests 0170-0171).
  - The C++ standard library (tests/programs/stl): lldb-16's std::unordered_map
    formatter reads gcc 12's table as empty ("size=0 {}"), and its
    'finish' out of a function returning a std::vector lists the raw
    members under "size=2"; ptdb shows the elements in both, so neither
    is in the session.  'p v[1]' on a vector: lldb-16 calls operator[]
    (and fails when it was not instantiated), ptdb indexes the elements as
    'frame variable' does; the session uses 'v v[1]'.
lldb-16 stops a batch session at the first failing command, so the sessions
hold only commands that succeed; ptdb's error lines are checked by the
transcript tests (0160-0162).
"""
import os
import re
import shutil
import subprocess

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
LLDB = "lldb-16"

EXPRS = [
    "p sum", "p sum + 2", "p/x 255", "p 10/3.0", "p sizeof(int)", "p sizeof(record)",
    "p 'a'", "p/d 'A'", "p 1 < 2", "p !head", "p ~0", "p (char)65", "p -5 / 2",
    "p *head", "p head->next->val", "p r->pts[1].y + 2", "p r->name", "p r->c",
    "p r->grid[1][2]", "p *&r->pts[1]", "p (long)sum * 3", "p origin", "p r->u.f",
    "p 1e7", "p 2.5f", "p head->val == 1 && head->next != 0", "p 1 ? 2.5f : 3",
    "expression -f x -- 16", "p counter = 42", "p counter", "p $rax = 7", "p $rax",
]

SESSIONS = [
    ("vars -O0", "tests/programs/vars", [
        "b add", "b walk", "r", "v", "v -T", "v -f x a b", "bt", "frame info",
        "finish", "c", "v", "v *head", "v head->next->val", "v head->next->next->next",
        "v r->pts", "v *r", "v -f x sum", "v -T *head", "v -L *head", "v head[1]",
        "v r->pts[1].y", "up", "v", "v -L argc ch", "v argc ch r rec.pts[1] n1.next->val",
        "target variable", "target variable counter origin.y", "down",
        "v -T *r", "v -f x *r", "v -L r->pts", "v r->grid", "v r->grid[1]", "v r->grid[1][2]",
        "v -f d r->name", "v r->u", "v -T r->u", "v &sum", "v r->op",
    ] + EXPRS + ["up", "v -f x ch", "v -f c argc", "v argv[0]", "v *argv", "v -f u rec.c",
                 "v -T argv", "v -L argc", "v -f c ch",
                 # LLDB's "without asking"
                 "breakpoint delete -f 1", "breakpoint delete --force", "breakpoint list"]),
    ("vars -O2", "tests/programs/vars_o2", [
        "b vars.c:35", "b vars.c:42", "r", "v", "bt", "finish", "c", "v", "frame info",
        "v *head", "p *r", "up", "v", "frame info", "v n1 rec.pts", "p n1.next->val",
        "target variable",
    ]),
    ("vars -O2 DWARF 4", "tests/programs/vars_o2_dw4", [
        "b vars.c:35", "b vars.c:42", "r", "v", "bt", "finish", "c", "v", "frame info",
        "v *head", "p *r", "up", "v", "frame info", "v n1 rec.pts", "p n1.next->val",
        "target variable",
    ]),
    ("vars type units", "tests/programs/vars_tu", [
        "b add", "b walk", "r", "v", "finish", "c", "v", "v *head", "v *r", "v -T *r",
        "v r->pts[1]", "p *head", "p r->c", "p sizeof(record)", "up", "v", "target variable",
    ]),
    ("globals", "tests/programs/globals", [
        "b bump", "r", "v", "v calls", "target variable", "p *g_ptr + 1", "p g_ratio * 3",
        "p g_name", "p sizeof(g_name)", "c", "v", "v calls", "target variable g_count g_ptr",
    ]),
]
SESSIONS.append(("shapes C++", "tests/programs/shapes", [
    "b measure", "r", "v", "v s", "p s", "frame info", "p total", "p s.id", "p s.name",
    "p s.id + total", "finish", "v", "v r.origin", "v r", "p r.w * r.h", "p label", "v ref",
    "p ref", "p r.name", "p r.origin", "p &r.origin", "p sizeof(geo::Point)",
]))
# dynamic types (lldb-16's default: the class whose vtable the object
# points to), in frame variable, expression, frame lines and -d
SESSIONS.append(("dynamic types C++", "tests/programs/dyn_types", [
    "b take", "r", "v", "frame info", "bt 2", "up", "v", "v -T h", "v *p", "v *pm", "v pm->m",
    "v pm->b", "v -d no-dynamic-values p pm r", "p p", "p pm", "p po", "p cp", "p r", "p *p",
    "p h", "p vp", "expression -d no-dynamic-values -- pm", "c", "v", "v -T", "finish",
    # references: a small flat object's on one line, an empty class's, a char *'s
    "b refs", "c", "v", "v -T pl",
]))
SESSIONS.append(("watchpoints", "tests/programs/watch", [
    "b worker", "r", "watchpoint set variable shared",
    "watchpoint set expression -w read -s 4 -- &counter",
    "watchpoint set expression -w read_write -- &wide", "watchpoint set variable -w read bytes[3]",
    "watchpoint list", "watchpoint list -b", 'watchpoint modify -c "local == 5" 1',
    "watchpoint disable 2", "watchpoint list", "watchpoint enable 2", "watchpoint delete 3",
    "watchpoint list -b",
]))
SESSIONS.append(("stl C++", "tests/programs/stl", [
    "b greet", "b consume", "r", "v who", "bt", "finish", "c", "v", "bt", "up",
    "v s empty v ev names pts m st l up upp unull sp sp2 wp pr made g", "v -T v", "v -R v",
    "p v", "p s", "p m", "p sp", "p up", "p unull", "v v[1]", "v st[2]", "v l[1]", "v pts[1]",
    "v names[1]", "v pts[1].y", "v dq fl op none bs at mm", "v dq[2]", "v fl[1]",
    "p bs", "p dq", "p v.size()", "p m.size()", "p greet(s)",
    # methods of libstdc++'s without DWARF of their own: typed by the
    # class's declarations (the non-const overload for a non-const object)
    "p s.size()", "p s.empty()", "p s.c_str()", "p s.data()", "p g.length()",
]))
# memory read's address is any expression (a pointer's value, &var,
# &array[i], a register), 'x/NFU' GDB's count, format and unit; lines as
# lldb-16 cuts them (8 bytes as hex, one decimal number, 16 as bytes);
# without an address it goes on after the last read
SESSIONS.append(("memory read", "tests/programs/globals", [
    "b bump", "r", "x/8xb &g_count", "x g_ptr", "x &g_ratio", "memory read -c 4 &g_name[2]",
    "x/4dw &g_count", "x/2xg &g_ratio", "x/2xh g_ptr", "memory read -f x -c 2 g_ptr",
    "x/8xb $rip", "x/2ub &g_name[1]", "memory read -f c -c 12 &g_name[1]",
    "memory read -f x -s 2 -c 9 &g_count", "memory read", "x/4xb &g_count", "memory read",
    "memory read -c 3", "memory read &g_name[0] &g_name[4]", "memory read",
    # sections named inside their segments (PT_LOAD[N]), any address expression
    "image lookup -a $pc", "image lookup -a bump", "image lookup -a printf",
    "image lookup -n main",
    # C strings (x/s, -f s), and a caller frame's registers not recovered
    "x/s &g_name", "x/2s &g_name[1]", "memory read -f s -s 4 &g_name", "x/s",
    "memory read -f c-string -c 2 &g_name", "up", "register read rflags rax", "down",
]))
# frame lines summarize arguments as lldb-16 does (strings by their text,
# cut at 1024 with "...", NULL as 0x0, "pair @ addr" for a struct holding
# a pointer to data)
SESSIONS.append(("frame arguments", "tests/programs/frame_args", [
    "b take", "r", "bt", "frame info", "v name n buf len nul ms pr sp", "p buf", "p *name",
    "p ms", "up", "frame info", "down", "frame info",
]))
# C++ names (an anonymous namespace's class, const methods, nested
# namespaces) and 's' over the standard library (step-avoid-regexp ^std::)
SESSIONS.append(("C++ names", "tests/programs/cxx_names", [
    "b Runner::run", "b twice", "r", "bt", "frame info", "c", "bt", "s", "s", "s", "s", "s",
    "frame info", "finish",
]))
# overloaded names: breakpoint locations numbered as lldb-16 numbers them
# (the DWARF's functions last defined first, then a template's instance),
# a static function named from DWARF with clang's parameter types
SESSIONS.append(("C++ overloads", "tests/programs/cxx_names", [
    "b outer::pick", "b outer::grab", "breakpoint list", "r", "frame info", "c", "c", "c",
    "image lookup -a $pc", "disassemble -c 1", "finish", "c", "c", "frame info",
]))
# libstdc++'s strings and vectors: frame lines (name="hello", v=size=3),
# frame variable and p ("size=3 { [0] = 1 ... }")
SESSIONS.append(("libstdc++ values", "tests/programs/cxx_names", [
    "b cxx_names.cpp:43", "r", "bt", "frame info", "v v", "p v", "v none", "v s2",
    # a pointer to one shows its summary alone, as lldb-16's libstdc++
    # summaries do not skip pointers
    "p &v", "p &s2", "p &names", "v &none",
]))
# every signal lldb-16 knows, by its names, with its default policy
SESSIONS.append(("process handle", "tests/programs/vars", [
    "b main", "r", "process handle SIGPROF -s false",
    "process handle SIGWINCH -n false", "process handle SIGURG -p true",
    "process handle SIGRTMIN+3 -s false", "process handle SIGIOT SIGPOLL",
    "process handle SIGUSR1 -s true -n false", "process handle SIGRTMAX-2 SIG32 SIGSTKFLT",
    "process handle",  # last: lldb-16's batch mode ends after it
]))
# a program named through a symlink runs under that name, as lldb-16 runs
# it: its module's name in frames, its argv[0] (the link made by run_all)
LINK = "tests/out/vars_link"
SESSIONS.append(("symlinked program", LINK, [
    "b add", "r", "bt", "frame info", "up", "v argv[0]", "p argv[0]", "frame info",
]))
SKIP = {"globals": re.compile(r"\btls_"),
        "watchpoints": re.compile(r"^Watchpoints are checked by: |^Note: watchpoints are checked ")}

STACK = re.compile(r"0x00007ff[0-9a-f]{9}")
SOURCE = re.compile(r"^\s*(->)?\s*\d+(\s|$)|^\s+\^\s*$")


def blocks(out, prompt, cmds):
    """The output of each command: what follows its echo up to the next."""
    lines = out.splitlines()
    res, cur, i = {}, None, 0
    for line in lines:
        if i < len(cmds) and line == "(%s) %s" % (prompt, cmds[i]):
            cur = (i, cmds[i])
            res[cur] = []
            i += 1
        elif cur is not None:
            res[cur].append(line)
    return res


RUN_CMDS = ("r", "c", "finish", "n", "s", "next", "step")
REPORT = re.compile(r"^(Process \d+ (stopped|launched|resuming)|\* thread #|Return value:|"
                    r"\s+frame #0:|\s*$)")


def settle(cmds, res):
    """lldb-16 in batch mode prints a run command's stop report whenever
    its event is handled, sometimes several commands later: move the first
    stop report after a run command without one back to it."""
    for i in range(len(cmds)):
        key = (i, cmds[i])
        if key not in res or cmds[i] not in RUN_CMDS:
            continue
        if any(l.startswith("* thread #") for l in res[key]):
            continue
        for j in range(i + 1, len(cmds)):
            later = res.get((j, cmds[j]), [])
            start = next((k for k, l in enumerate(later)
                          if re.match(r"Process \d+ stopped$|\* thread #", l)), None)
            if start is None:
                continue
            end = start
            while end < len(later) and (REPORT.match(later[end]) or SOURCE.match(later[end])):
                end += 1
            res[key] += later[start:end]
            del later[start:end]
            break
    return res


def keep(cmd, line, module):
    if SOURCE.match(line) or line.startswith("Process "):
        return False
    if "frame #" in line and "`" in line:
        return (" %s`" % module) in line
    if cmd in ("r", "c", "finish", "up", "down") or cmd.startswith("b "):
        return line.startswith("Return value:") or line.startswith("* thread")
    return not line.startswith("Breakpoint ") and not line.startswith("Current executable")


def normalize(cmd, lines, module, skip=None):
    out, dropped = [], False
    for l in lines:
        if skip and (skip.search(l) or (dropped and not l.strip())):
            dropped = bool(skip.search(l))  # and the blank line an error value ends with
            continue
        dropped = False
        if keep(cmd, l, module):
            out.append(STACK.sub("0x00007ffSTACK", l.rstrip()))
    while out and not out[-1]:
        out.pop()
    if cmd == "target variable":
        out = sorted(out)
    return out


def run_session(name, prog, cmds):
    module = os.path.basename(prog)
    lldb_args = [LLDB, "-b", "-x"]
    ptdb_args = [PTDB, "-b", "-o", "file " + prog]
    for c in cmds:
        lldb_args += ["-o", c]
        ptdb_args += ["-o", c]
    lldb_args.append(prog)
    try:
        lo = subprocess.run(lldb_args, capture_output=True, text=True, timeout=300, cwd=ROOT,
                            stdin=subprocess.DEVNULL)
        po = subprocess.run(ptdb_args, capture_output=True, text=True, timeout=300, cwd=ROOT,
                            stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        results.fail("lldb compare " + name, "timed out: %s" % e)
        return
    lb = settle(cmds, blocks(lo.stdout + lo.stderr, "lldb", cmds))
    pb = blocks(po.stdout + po.stderr, "ptdb", cmds)
    problems = []
    compared = 0
    for i, c in enumerate(cmds):
        key = (i, c)
        if key not in lb:
            problems.append("lldb-16 did not run '%s' (did an earlier command fail?)" % c)
            break
        if key not in pb:
            problems.append("ptdb did not run '%s'" % c)
            break
        skip = SKIP.get(name)
        want = normalize(c, lb[key], module, skip)
        got = normalize(c, pb[key], module, skip)
        compared += len(want)
        if want != got:
            problems.append("'%s':\n  lldb-16:\n%s\n  ptdb:\n%s" % (
                c, "\n".join("    | " + l for l in want), "\n".join("    | " + l for l in got)))
    if not problems and compared < len(cmds):
        problems.append("only %d lines compared: the sessions' output was not split" % compared)
    if problems:
        results.fail("lldb compare " + name, "\n".join(problems))
    else:
        results.ok("lldb compare %s (%d commands, %d lines identical)" % (name, len(cmds), compared))


def run_all():
    if not shutil.which(LLDB):
        results.skip("lldb compare", "%s is not installed (make deps installs it)" % LLDB)
        return
    link = os.path.join(ROOT, LINK)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(os.path.join("..", "programs", "vars"), link)
    for name, prog, cmds in SESSIONS:
        if not os.path.exists(os.path.join(ROOT, prog)):
            results.fail("lldb compare " + name, "%s is not built (make programs)" % prog)
            continue
        run_session(name, prog, cmds)


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
