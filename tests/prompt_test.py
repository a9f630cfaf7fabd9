"""The prompt as a person meets it, under a real pseudo-terminal: Ctrl-C at
the prompt, the program's own terminal (its output relayed around the
progress line, keys typed reaching it), quit with a live process, Enter
repeating the last command, Tab completion, and the words of errors."""
import os
import re
import subprocess
import tempfile

import results
from repl_test import PTDB, ROOT, close, kill_and_quit, quit_session, run_steps, session

ROUNDS = os.path.join(ROOT, "tests/programs/tty_rounds")


def screen_lines(data):
    """The lines a terminal shows for data: '\\r' goes back to the start
    of the line, what follows writes over it; escape sequences dropped."""
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", data).decode("utf-8", "replace")
    lines, cur, col = [], [], 0
    for ch in text:
        if ch == "\n":
            lines.append("".join(cur).rstrip())
            cur, col = [], 0
        elif ch == "\r":
            col = 0
        elif ch == "\b":
            col = max(0, col - 1)
        elif ch >= " ":
            if col < len(cur):
                cur[col] = ch
            else:
                cur.extend(" " * (col - len(cur)))
                cur.append(ch)
            col += 1
    lines.append("".join(cur).rstrip())
    return lines


def t_ctrl_c_stopped(tmp):
    """Ctrl-C at the prompt while the process is stopped only clears the
    line: the next 'c' runs on to the exit (no SIGINT left for the program)."""
    p = session(tmp)
    try:
        why = run_steps(p, (("file " + ROUNDS, "Current executable"), ("b main", "Breakpoint 1:"),
                            ("r 1", "stop reason = breakpoint 1.1")))
        if why:
            return why
        p.read_until("(ptdb) ")
        p.buf = b""
        p.send("\x03")
        if not p.read_until("(ptdb) "):
            return "no new prompt after Ctrl-C: %r" % p.buf[-300:]
        p.buf = b""
        p.send("c\r")
        if not p.read_until("name? ", 60):
            return "'c' after Ctrl-C did not run on: %r" % p.buf[-400:]
        p.send("x\r")
        if not p.read_until("exited with status = 0", 60):
            return "the program did not run to its exit: %r" % p.buf[-400:]
        if b"SIGINT" in p.buf:
            return "a SIGINT was left for the program: %r" % p.buf[-400:]
        return kill_and_quit(p)
    finally:
        close(p)


def t_traced_output(tmp):
    """A program that prints while a traced 'continue' shows its progress
    line: no progress text stays in the program's lines on the screen (the
    line is cleared before each chunk and drawn again after), and the keys
    typed while it runs reach it."""
    p = session(tmp)
    try:
        why = run_steps(p, (("file " + ROUNDS, "Current executable"), ("b main", "Breakpoint 1:"),
                            ("r", "stop reason = breakpoint 1.1"),
                            ("thread trace start -s 16MiB", "(ptdb) ")))
        if why:
            return why
        p.read_until("(ptdb) ")
        p.buf = b""
        p.send("c\r")
        if not p.read_until("name? ", 600):
            return "the traced continue did not reach the question: %r" % p.buf[-400:]
        p.send("Bob\r")
        if not p.read_until("exited with status = 0", 600):
            return "no exit after the answer: %r" % p.buf[-400:]
        p.read_until("(ptdb) ")
        if b"Tracing: " not in p.buf:
            return "no progress line in 3 s of traced run: %r" % p.buf[-600:]
        lines = screen_lines(p.buf)
        rounds = [l for l in lines if "round" in l]
        if len(rounds) != 8:
            return "not 8 round lines on the screen: %r" % lines
        mixed = [l for l in lines if "Tracing" in l and l != l.lstrip("T")]
        mixed += [l for l in rounds if "Tracing" in l]
        if mixed:
            return "progress text in the program's lines: %r" % mixed
        if "name? Bob" not in lines or "got: Bob" not in lines:
            return "the answer typed did not reach the program: %r" % lines[-8:]
        return quit_session(p)
    finally:
        close(p)


def t_quit_asks(tmp):
    """'quit' with a launched live process asks as LLDB asks ('n' keeps
    it), says that a held trace goes too, and an empty answer quits; batch
    mode quits without asking."""
    p = session(tmp)
    try:
        why = run_steps(p, (("file " + ROUNDS, "Current executable"), ("b main", "Breakpoint 1:"),
                            ("r", "stop reason = breakpoint 1.1")))
        if why:
            return why
        pid = re.search(rb"Process (\d+) launched", p.buf).group(1).decode()
        ask = "Quitting ptdb will kill one or more processes"
        why = run_steps(p, (("quit", ask + ". Do you really want to proceed: [Y/n] "),))
        if why:
            return why
        p.send("n\r")
        why = run_steps(p, (("process status", "Process %s stopped" % pid),
                            ("thread trace start", "(ptdb) "),
                            ("quit", ask + " and drop the trace it holds. "
                             "Do you really want to proceed: [Y/n] ")))
        if why:
            return why
        p.send("\r")
        st = p.wait_exit()
        if st is None or not os.WIFEXITED(st) or os.WEXITSTATUS(st) != 0:
            return "an empty answer did not quit: %r" % p.buf[-300:]
        if os.path.exists("/proc/%s/status" % pid):
            with open("/proc/%s/status" % pid) as f:
                if "zombie" not in f.read():
                    return "the process lives on after quit"
    finally:
        close(p)
    out = subprocess.run([PTDB, "-b", "-o", "b main", "-o", "r", "-o", "quit", ROUNDS],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=60).stdout
    if "Quitting" in out:
        return "batch mode asked: %r" % out[-300:]
    return None


def ids(buf):
    return [int(x) for x in re.findall(rb"\[(\d+)\] 0x", buf)]


def t_enter_repeats(tmp):
    """An empty line repeats the previous command as LLDB does: a dump goes
    on from where it stopped with its other options (-c 3: the 3 before),
    memory read reads on, any other command runs again, 'r' does not."""
    p = session(tmp)
    try:
        why = run_steps(p, (("file " + ROUNDS, "Current executable"), ("b main", "Breakpoint 1:"),
                            ("r 1", "stop reason = breakpoint 1.1"),
                            ("thread trace start", "(ptdb) "), ("n", "stop reason = step over"),
                            ("n", "stop reason = step over"),
                            ("thread trace dump instructions -c 3", "(ptdb) ")))
        if why:
            return why
        first = ids(p.buf)
        if len(first) != 3:
            return "dump -c 3 did not show 3 instructions: %r" % p.buf[-400:]
        why = run_steps(p, (("", "(ptdb) "),))
        if why:
            return why
        if ids(p.buf) != [first[0] - 3 + i for i in range(3)]:
            return "Enter after 'dump -c 3' did not show the 3 before %r: %r" % (first, p.buf[-400:])
        why = run_steps(p, (("memory read -f x -s 8 -c 2 $rsp", "(ptdb) "),))
        if why:
            return why
        m = re.search(rb"0x([0-9a-f]+):", p.buf)
        why = run_steps(p, (("", "(ptdb) "),))
        if why:
            return why
        if not m or b"0x%x:" % (int(m.group(1), 16) + 16) not in p.buf:
            return "Enter after memory read did not read on: %r" % p.buf[-300:]
        # the address expression of memory read took $0 (as in lldb-16)
        why = run_steps(p, (("p 40+2", "$1 = 42"), ("", "$2 = 42"), ("kill", "exited with status"),
                            ("r 1", "stop reason = breakpoint 1.1"), ("", "(ptdb) ")))
        if why:
            return why
        if b"launched" in p.buf or b"kill it" in p.buf:
            return "Enter after 'r' launched again: %r" % p.buf[-300:]
        return kill_and_quit(p)
    finally:
        close(p)


def t_completion(tmp):
    """Tab completes what lldb-16 completes: setting names, help paths,
    variables and their members after v, frame variable and p, register
    names, breakpoint ids and thread indexes."""
    p = session(tmp)
    try:
        why = run_steps(p, (("file " + os.path.join(ROOT, "tests/programs/vars"), "Current executable"),
                            ("b 42", "Breakpoint 1:"), ("r", "stop reason = breakpoint 1.1")))
        if why:
            return why
        p.read_until("(ptdb) ")
        cases = (("settings set targ", "et."), ("settings show trace.", "software."),
                 ("help thread trace ", "dump  export  goto  start  stop"),
                 ("v su", "m "), ("frame variable hea", "d "), ("p p->ne", "xt "), ("p r->pt", "s "),
                 ("register read ri", "p "), ("breakpoint delete ", "1 "), ("thread select ", "1 "))
        failed = []
        for typed, comes in cases:
            p.buf = b""
            p.send(typed + "\t")
            if not p.read_until(comes, 10):
                failed.append("%r did not complete with %r: %r" % (typed, comes, p.buf[-200:]))
            p.send("\x15")  # Ctrl-U: the line goes
            p.read_until("\x00", 0.2)
        if failed:
            return "; ".join(failed)
        return kill_and_quit(p)
    finally:
        close(p)


def t_words(tmp):
    """LLDB's words: 'help nosuchcmd' points to apropos; a command that
    needs a process before any says 'Command requires a current process.'."""
    p = session(tmp)
    try:
        why = run_steps(p, (("help nosuchcmd", "Try 'apropos nosuchcmd' for a list of related commands."),
                            ("file " + ROUNDS, "Current executable"),
                            ("bt", "error: Command requires a current process."),
                            ("thread trace dump instructions", "error: Command requires a current process."),
                            ("thread trace start", "error: Process not available.")))
        if why:
            return why
        return quit_session(p)
    finally:
        close(p)


def run_all():
    for name, fn in (("ctrl-c stopped", t_ctrl_c_stopped), ("traced output", t_traced_output),
                     ("quit asks", t_quit_asks), ("enter repeats", t_enter_repeats),
                     ("completion", t_completion), ("words", t_words)):
        try:
            with tempfile.TemporaryDirectory() as tmp:
                why = fn(tmp)
        except Exception as e:  # a harness error is a failure, not a crash
            why = "exception: %r" % (e,)
        if why:
            results.fail("prompt " + name, why)
        else:
            results.ok("prompt " + name)
