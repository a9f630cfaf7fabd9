"""Replays the committed fuzz corpus (tests/fuzz/corpus/<harness>/) through
each harness's replay driver (tests/fuzz/replay-<harness>, built with the
normal compiler by make check): every input that once crashed or hung
ptdb stays fixed.  Under SANITIZE=1 the drivers carry ASan and UBSan, so a
memory error or undefined behaviour on a corpus file fails here too."""
import glob
import os
import subprocess
import time

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "tests", "fuzz")


def run_all():
    names = sorted(os.path.basename(p)[5:-2] for p in glob.glob(os.path.join(FUZZ, "fuzz_*.c")))
    for h in names:
        name = "fuzz corpus replay " + h
        drv = os.path.join(FUZZ, "replay-" + h)
        corpus = os.path.join(FUZZ, "corpus", h)
        n = len(os.listdir(corpus)) if os.path.isdir(corpus) else 0
        if not os.path.exists(drv):
            results.fail(name, "%s is not built (make check builds it)" % drv)
            continue
        if n == 0:
            results.fail(name, "empty corpus " + corpus)
            continue
        t = time.time()
        try:
            p = subprocess.run([drv, corpus], cwd=ROOT, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            results.fail(name, "timed out after 300 s (an input hangs)")
            continue
        last = p.stdout.strip().splitlines()[-1:] or [""]
        if p.returncode != 0 or last[0] != "replayed %d inputs" % n:
            tail = p.stdout.strip().splitlines()[-3:]
            results.fail(name, "exit %d after\n%s\n%s" % (p.returncode, "\n".join(tail), p.stderr[-3000:]))
            continue
        print("# %s: %d inputs in %.1f s" % (h, n, time.time() - t))
        results.ok(name)


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
