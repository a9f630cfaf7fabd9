"""Helpers for tests that drive ptdb and wait for conditions, never times:
until() polls a condition, Session runs ptdb on pipes and waits for lines of
its output.  The deadlines only turn a hang into a failure."""
import os
import signal
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTDB = os.path.join(ROOT, "ptdb")
DEADLINE = 60.0


def until(cond, timeout=DEADLINE):
    """Polls cond until it holds; False at the deadline."""
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


def run_script(lines, out, timeout, env=None):
    """ptdb -b -s on lines (written to out/script.ptdb): its stdout and
    stderr, one after the other (env: variables added to ptdb's)."""
    script = os.path.join(out, "script.ptdb")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    p = subprocess.run([PTDB, "-b", "-s", script], cwd=ROOT, capture_output=True,
                       text=True, timeout=timeout, env=dict(os.environ, **env) if env else None)
    return p.stdout + p.stderr


def syscall_nr(pid):
    try:
        with open("/proc/%d/syscall" % pid) as f:
            return f.read().split()[0]
    except (OSError, IndexError):
        return None


class Session:
    """ptdb at a prompt on pipes; its output collected by a thread."""

    def __init__(self, args=()):
        self.p = subprocess.Popen([PTDB] + list(args), cwd=ROOT, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        self.cv = threading.Condition()
        self.eof = False
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.p.stdout:
            with self.cv:
                self.lines.append(line)
                self.cv.notify_all()
        with self.cv:
            self.eof = True
            self.cv.notify_all()

    def send(self, *cmds):
        try:
            self.p.stdin.write("".join(c + "\n" for c in cmds))
            self.p.stdin.flush()
        except BrokenPipeError:
            pass

    def wait_for(self, text, start=0, timeout=DEADLINE):
        """Index just past the first line from start containing text, or None."""
        end = time.time() + timeout
        with self.cv:
            while True:
                for i in range(start, len(self.lines)):
                    if text in self.lines[i]:
                        return i + 1
                left = end - time.time()
                if self.eof or left <= 0:
                    return None
                self.cv.wait(left)

    def interrupt_detach(self, pid, why, start=0, stop="stop reason = signal SIGSTOP"):
        """Ctrl-C (SIGINT to ptdb) until the stop line, then `detach` until
        its line: True, else False with what did not happen added to why."""
        self.p.send_signal(signal.SIGINT)
        if self.wait_for(stop, start) is None:
            why.append("SIGINT did not stop the process")
            return False
        self.send("detach")
        if self.wait_for("Process %d detached" % pid, start) is None:
            why.append("no 'detached' line")
            return False
        return True

    def output(self):
        with self.cv:
            return "".join(self.lines)

    def finish(self, timeout=DEADLINE):
        """Waits for ptdb to exit; its status, or None if it does not."""
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            rc = None
        self.t.join(5)
        return rc
