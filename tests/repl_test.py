"""REPL tests under a real pseudo-terminal: completion, history, Ctrl-C, Ctrl-D."""
import os
import pty
import re
import select
import signal
import tempfile
import time

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")


class Pty:
    def __init__(self, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(PTDB, [PTDB], env)
        self.buf = b""

    def read_until(self, text, timeout=20.0):
        end = time.time() + timeout
        while text.encode() not in self.buf and time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.1)
            if r:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:
                    break
                if not data:
                    break
                self.buf += data
        return text.encode() in self.buf

    def send(self, s):
        os.write(self.fd, s.encode())

    def close(self):
        if self.fd is None:  # closed already (wait_exit saw ptdb exit)
            return None
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == 0:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                return None
            return status
        finally:
            os.close(self.fd)
            self.fd = None

    def wait_exit(self, timeout=30.0):
        end = time.time() + timeout
        while time.time() < end:
            self.read_until("\x00", 0.1)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                self.fd = None
                return status
        return self.close()


def session(tmp):
    env = dict(os.environ, HOME=tmp, PTDB_HISTORY=os.path.join(tmp, "hist"), TERM="xterm")
    return Pty(env)


def run_steps(p, steps):
    """Sends each command at a prompt and waits for its text; the error or None."""
    for cmd, until in steps:
        p.read_until("(ptdb) ")
        p.buf = b""
        p.send(cmd + "\r")
        if not p.read_until(until, 60):
            return "'%s' did not give '%s': %r" % (cmd, until, p.buf[-300:])
    return None


def quit_session(p):
    """'quit' at the next prompt: the error, or None once ptdb has exited."""
    p.read_until("(ptdb) ")
    p.send("quit\r")
    st = p.wait_exit()
    if st is None or not os.WIFEXITED(st):
        return "ptdb did not exit after quit"
    return None


def kill_and_quit(p):
    """Kills the process at the next prompt and quits: the error or None."""
    p.read_until("(ptdb) ")
    p.send("kill\r")
    return quit_session(p)


def close(p):
    """Ends ptdb if it still runs (for a test's finally)."""
    try:
        p.close()
    except OSError:
        pass


def t_completion(tmp):
    p = session(tmp)
    try:
        if not p.read_until("(ptdb) "):
            return "no prompt"
        p.send("sett\t")
        if not p.read_until("ings "):
            return "sett<TAB> did not complete to 'settings '"
        p.send("sh\t\r")
        if not p.read_until("stop-on-error (boolean)"):
            return "'settings sh<TAB>' did not complete and run 'settings show'"
        p.buf = b""
        p.read_until("(ptdb) ")
        p.send("thr\t")
        if not p.read_until("ead "):
            return "thr<TAB> did not complete to 'thread '"
        p.send("ba\t")
        if not p.read_until("cktrace "):
            return "'thread ba<TAB>' did not complete to 'thread backtrace '"
        p.buf = b""
        p.send("\r")
        if not p.read_until("invalid target"):
            return "'thread backtrace' without a target did not say so"
        p.read_until("(ptdb) ")
        p.send("quit\r")
        st = p.wait_exit()
        if st is None or not os.WIFEXITED(st) or os.WEXITSTATUS(st) != 0:
            return "quit did not exit cleanly"
    finally:
        close(p)
    return None


def t_history(tmp):
    p = session(tmp)
    if not p.read_until("(ptdb) "):
        p.close()
        return "no prompt"
    p.send("version\r")
    p.read_until("ptdb version")
    p.buf = b""
    p.send("\x1b[A\r")  # up arrow recalls 'version'
    ok = p.read_until("ptdb version")
    # keep what followed: the prompt may have come in the same read
    p.buf = p.buf[p.buf.find(b"ptdb version") + 12:] if ok else b""
    p.read_until("(ptdb) ")  # keys typed before the prompt race the tty mode
    time.sleep(0.1)
    p.send("\x04")  # Ctrl-D exits
    st = p.wait_exit()
    if not ok:
        return "up arrow did not recall the previous command"
    if st is None or not os.WIFEXITED(st):
        return "Ctrl-D did not exit: %r" % p.buf[-300:]
    with open(os.path.join(tmp, "hist")) as f:
        if "version" not in f.read():
            return "history file does not hold 'version'"
    # A new session sees the saved history.
    p = session(tmp)
    p.read_until("(ptdb) ")
    p.buf = b""
    p.send("\x1b[A\r")
    ok = p.read_until("ptdb version")
    p.send("quit\r")
    p.wait_exit()
    return None if ok else "history was not loaded by a new session"


def t_ctrl_c(tmp):
    """Ctrl-C at the prompt drops the half-typed line and gives a new prompt,
    both as the terminal's ^C and as a SIGINT sent to ptdb."""
    p = session(tmp)
    if not p.read_until("(ptdb) "):
        p.close()
        return "no prompt"
    for how in ("keystroke", "signal"):
        p.send("bogus-half-typed")
        if not p.read_until("bogus-half-typed"):
            p.close()
            return "the typed text was not echoed"
        p.buf = b""
        if how == "keystroke":
            p.send("\x03")
        else:
            os.kill(p.pid, signal.SIGINT)
        if not p.read_until("(ptdb) ", 20):
            p.close()
            return "no new prompt after Ctrl-C (%s)" % how
        p.buf = b""
        p.send("version\r")
        ok = p.read_until("ptdb version", 20)
        if b"not a valid command" in p.buf:
            p.close()
            return "Ctrl-C (%s) did not clear the line" % how
        if not ok:
            p.close()
            return "ptdb did not survive Ctrl-C (%s) or did not answer" % how
        p.read_until("(ptdb) ", 10)
    return quit_session(p)


def t_interrupt(tmp):
    """Ctrl-C while the inferior runs stops it and gives the prompt back;
    so does a SIGINT sent to ptdb alone (it stops the inferior itself)."""
    p = session(tmp)
    if not p.read_until("(ptdb) "):
        p.close()
        return "no prompt"
    p.send("file %s\r" % os.path.join(ROOT, "tests/programs/tgt_spin"))
    p.read_until("Current executable set")
    # in main's endless loop before any Ctrl-C, so the stops are there
    p.send("b main\r")
    p.read_until("Breakpoint 1:")
    p.send("r\r")
    if not p.read_until("stop reason = breakpoint 1.1"):
        p.close()
        return "process did not launch"
    p.read_until("(ptdb) ")
    p.send("breakpoint delete 1\r")
    p.read_until("1 breakpoints deleted")
    p.read_until("(ptdb) ")
    p.buf = b""
    p.send("c\r")
    if not p.read_until("resuming"):
        p.close()
        return "no 'resuming' line"
    p.buf = b""
    p.send("\x03")  # the terminal's ^C: SIGINT to ptdb only (the program has its own terminal)
    if not p.read_until("stop reason = signal SIGSTOP"):
        p.close()
        return "terminal Ctrl-C did not stop the inferior: %r" % p.buf[-300:]
    p.read_until("(ptdb) ")
    p.buf = b""
    p.send("c\r")
    p.read_until("resuming")
    os.kill(p.pid, signal.SIGINT)  # ptdb alone: it must SIGSTOP the inferior
    if not p.read_until("stop reason = signal SIGSTOP"):
        p.close()
        return "SIGINT to ptdb did not stop the inferior: %r" % p.buf[-300:]
    p.read_until("(ptdb) ")
    p.buf = b""
    p.send("bt\r")
    ok = p.read_until("tgt_spin`main")
    p.read_until("(ptdb) ")
    p.send("quit\r")
    p.read_until("Do you really want to proceed: [Y/n] ")  # a launched process lives
    p.send("y\r")
    st = p.wait_exit()
    if not ok:
        return "no backtrace after the interrupt: %r" % p.buf[-300:]
    if st is None or not os.WIFEXITED(st):
        return "ptdb did not exit after quit"
    return None


def t_interrupt_dump(tmp):
    """A long dump shows its progress on the terminal's stderr (when the
    listing goes to a file) and Ctrl-C stops it, to a file or to the
    terminal, with 'error: interrupted'; the session and its decoded trace
    stay usable."""
    p = session(tmp)
    closed = False
    if not p.read_until("(ptdb) "):
        p.close()
        return "no prompt"
    try:
        for cmd, until in (("file %s" % os.path.join(ROOT, "tests/programs/trace_long"), "Current executable"),
                           ("b main", "(ptdb) "), ("r", "stop reason"),
                           ("thread trace start -s 4MiB", "(ptdb) "), ("b 21", "(ptdb) "),
                           ("c", "stop reason = breakpoint 2.1")):
            p.buf = b""
            p.send(cmd + "\r")
            if not p.read_until(until, 120):
                return "'%s' did not give '%s': %r" % (cmd, until, p.buf[-300:])
            p.read_until("(ptdb) ", 20)
        # the file is a FIFO the test reads: the dump goes only as fast as
        # it is read, so it is still running when Ctrl-C comes (the whole
        # trace is dumped in well under a second otherwise)
        out = os.path.join(tmp, "dump.fifo")
        os.mkfifo(out)
        rfd = os.open(out, os.O_RDONLY | os.O_NONBLOCK)
        try:
            p.buf = b""
            p.send("thread trace dump instructions -a -F %s\r" % out)
            # read the listing a little at a time until the progress line
            # shows (it shows after a moment), then not until Ctrl-C
            data = b""
            for _ in range(600):
                if p.read_until("Dumping thread #1: ", 0.05):
                    break
                if select.select([rfd], [], [], 0)[0]:
                    data += os.read(rfd, 4096)
            if b"Dumping thread #1: " not in p.buf:
                return "no progress line while dumping to a file: %r" % p.buf[-300:]
            p.send("\x03")
            while True:
                r, _, _ = select.select([rfd], [], [], 30)
                if not r:
                    return "the dump to a file neither ended nor wrote"
                chunk = os.read(rfd, 65536)
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(rfd)
        if not p.read_until("error: interrupted", 20) or not p.read_until("(ptdb) ", 20):
            return "Ctrl-C did not interrupt the dump to a file: %r" % p.buf[-300:]
        if not re.search(rb"%(\^C)?\r +\rerror: interrupted", p.buf):
            return "the progress line was not cleared: %r" % p.buf[-300:]
        lines = data.count(b"\n")
        if not 0 < lines < 4500016:
            return "the interrupted dump wrote %d lines" % lines
        p.buf = b""
        p.send("thread trace dump instructions -a\r")
        if not p.read_until("] 0x0000", 30):
            return "the dump to the terminal did not start: %r" % p.buf[-300:]
        p.send("\x03")
        if not p.read_until("error: interrupted", 30) or not p.read_until("(ptdb) ", 20):
            return "Ctrl-C did not interrupt the dump to the terminal: %r" % p.buf[-300:]
        if b"[4500015]" in p.buf:
            return "the dump ran to its end despite Ctrl-C"
        p.buf = b""
        p.send("thread trace dump instructions -c 1\r")
        if not p.read_until("[4500015] 0x", 30):
            return "no dump after the interrupts: %r" % p.buf[-300:]
        p.read_until("(ptdb) ", 20)
        p.send("quit\r")
        p.read_until("Do you really want to proceed: [Y/n] ")  # a launched process lives
        p.send("y\r")
        st = p.wait_exit()
        closed = True
        if st is None or not os.WIFEXITED(st):
            return "ptdb did not exit after quit"
        return None
    finally:
        if not closed:
            p.close()


def t_trace_progress(tmp):
    """A traced continue that takes seconds shows a progress line on the
    terminal (instructions, rate, buffer fill), rewritten in place and
    cleared before the stop is reported: under either software engine (the
    fixture computes for a second of wall time, however fast it is traced)."""
    for engine in ("ptrace", "cache"):
        why = trace_progress(tmp, engine)
        if why:
            return "engine %s: %s" % (engine, why)
    return None


def progress_run(tmp, steps, what, line, cleared):
    """After steps, 'c' to second_over's breakpoint 2.1 shows a progress
    line (regex line, its first group the instructions counted) on the
    terminal, cleared (regex cleared) before the stop: the error or None."""
    p = session(tmp)
    try:
        why = run_steps(p, steps + (("b second_over", "Breakpoint 2:"),))
        if why:
            return why
        p.read_until("(ptdb) ")
        p.buf = b""
        p.send("c\r")
        if not p.read_until("stop reason = breakpoint 2.1", 600):
            return "the %s did not stop at second_over: %r" % (what, p.buf[-300:])
        m = re.search(line, p.buf)
        if not m or int(m.group(1)) == 0:
            return "no progress line during the %s: %r" % (what, p.buf[-600:])
        if not re.search(cleared, p.buf):
            return "the progress line was not cleared before the stop: %r" % p.buf[-600:]
        return kill_and_quit(p)
    finally:
        close(p)


def trace_progress(tmp, engine):
    steps = (("settings set trace.software.engine " + engine, "(ptdb) "),
             ("file %s" % os.path.join(ROOT, "tests/programs/trace_second"), "Current executable"),
             ("b main", "Breakpoint 1:"), ("r", "stop reason = breakpoint 1.1"),
             ("thread trace start -s 16MiB", "(ptdb) "))
    # (the buffer's fill, or 'wrapped' once a fast engine filled it before
    # the first line)
    return progress_run(tmp, steps, "traced continue",
                        rb"\rTracing: (\d+) instructions, [0-9.]+ M/s, buffer (?:\d+% full|wrapped)",
                        rb"Tracing: [^\n]*\r +\rProcess \d+ stopped")


def t_watch_progress(tmp):
    """Watchpoints checked by single-stepping (target.hardware-watchpoints
    false, as on a machine without debug-register traps, and
    trace.software.engine ptrace: no code cache): setting one says
    so, and a continue that takes seconds shows its progress on the
    terminal (instructions stepped, rate), cleared before the stop."""
    steps = (("settings set target.hardware-watchpoints false", "(ptdb) "),
             ("settings set trace.software.engine ptrace", "(ptdb) "),
             ("file %s" % os.path.join(ROOT, "tests/programs/trace_second"), "Current executable"),
             ("b main", "Breakpoint 1:"), ("r", "stop reason = breakpoint 1.1"),
             ("watchpoint set variable sink", "Note: watchpoints are checked by single-stepping"))
    return progress_run(tmp, steps, "continue",
                        rb"\rChecking watchpoints by single-stepping: (\d+) instructions, \d+/s "
                        rb"\(Ctrl-C stops\)",
                        rb"Checking watchpoints[^\n]*\r +\rProcess \d+ stopped")


def t_relaunch(tmp):
    """'r' with a live process asks on a terminal: 'n' keeps the process,
    an empty answer (yes) kills it and launches a new one."""
    p = session(tmp)
    try:
        steps = (("file %s" % os.path.join(ROOT, "tests/programs/trace_loop"), "Current executable"),
                 ("b main", "Breakpoint 1:"), ("r", "stop reason = breakpoint 1.1"))
        why = run_steps(p, steps)
        if why:
            return why
        m = re.search(rb"Process (\d+) launched", p.buf)
        p.read_until("(ptdb) ")
        p.buf = b""
        p.send("r\r")
        if not p.read_until("kill it and restart?: [Y/n] "):
            return "no question: %r" % p.buf[-300:]
        p.send("n\r")
        p.read_until("(ptdb) ")
        p.buf = b""
        p.send("process status\r")
        if not p.read_until("(ptdb) ") or b"Process %s stopped" % m.group(1) not in p.buf:
            return "'n' did not keep the process: %r" % p.buf[-300:]
        p.buf = b""
        p.send("r\r")
        if not p.read_until("kill it and restart?: [Y/n] "):
            return "no question the second time: %r" % p.buf[-300:]
        p.send("\r")
        if not p.read_until("stop reason = breakpoint 1.1", 60):
            return "yes did not relaunch: %r" % p.buf[-300:]
        if b"Process %s exited with status = 9" % m.group(1) not in p.buf:
            return "the old process's end was not reported: %r" % p.buf[-300:]
        return kill_and_quit(p)
    finally:
        close(p)


def t_repeat_memory(tmp):
    """Enter after 'memory read' (here GDB's x/4xb) goes on at the next
    address with the same format, as in lldb-16; after 'n' it steps again;
    after 'source list' it lists on."""
    p = session(tmp)
    try:
        steps = (("file %s" % os.path.join(ROOT, "tests/programs/globals"), "Current executable"),
                 ("b bump", "Breakpoint 1:"), ("r", "stop reason = breakpoint 1.1"),
                 ("x/4xb &g_count", "0x00404028: 0x03 0x00 0x00 0x00\r\n"),
                 ("", "0x0040402c: 0x00 0x00 0x00 0x00\r\n"),
                 ("", "0x00404030: 0x00 0x00 0x00 0x00\r\n"),
                 ("memory read -c 4 &g_name[1]", "0x00402009: 6c 6f 62 61"),
                 ("", "0x0040200d: 6c 73 00"),
                 ("n", "stop reason = step over"), ("", "stop reason = step over"),
                 ("source list -f globals.c -l 1 -c 3", "* expressions. */"),
                 ("", "#include <stdio.h>"))
        why = run_steps(p, steps)
        if why:
            return why
        return kill_and_quit(p)
    finally:
        close(p)


def t_attach(tmp):
    """attach -p, backtrace, detach: the process keeps running afterwards;
    quit after an attach detaches rather than kills."""
    import subprocess
    spin = subprocess.Popen([os.path.join(ROOT, "tests/programs/tgt_spin")])
    try:
        out = subprocess.run([PTDB, "-b", "-o", "process attach -p %d" % spin.pid, "-o", "bt",
                              "-o", "detach"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=60).stdout
        if "Process %d stopped" % spin.pid not in out or "tgt_spin`main" not in out:
            return "attach did not stop in main: %r" % out[-400:]
        if "Process %d detached" % spin.pid not in out:
            return "detach failed: %r" % out[-400:]
        if spin.poll() is not None:
            return "the process died after detach"
        # ptdb has exited: nothing can stop the process any more, so its
        # state now is its state for good
        with open("/proc/%d/status" % spin.pid) as f:
            state = [l for l in f if l.startswith("State:")][0]
        if "t (tracing stop)" in state or "T (stopped)" in state:
            return "the process was left stopped: " + state.strip()
        out = subprocess.run([PTDB, "-b", "-o", "attach %d" % spin.pid, "-o", "quit"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=60).stdout
        if spin.poll() is not None:
            return "quit killed an attached process: %r" % out[-300:]
        return None
    finally:
        spin.kill()
        spin.wait()


def run_all():
    for name, fn in (("completion", t_completion), ("history", t_history), ("ctrl-c", t_ctrl_c),
                     ("interrupt", t_interrupt), ("interrupt dump", t_interrupt_dump),
                     ("attach", t_attach), ("relaunch", t_relaunch),
                     ("Enter goes on after memory read", t_repeat_memory),
                     ("trace progress", t_trace_progress),
                     ("watchpoint progress", t_watch_progress)):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                why = fn(tmp)
            except Exception as e:  # a harness error is a failure, not a crash
                why = "exception: %r" % (e,)
            if why:
                results.fail("repl " + name, why)
            else:
                results.ok("repl " + name)
