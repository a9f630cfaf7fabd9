"""Valgrind memcheck on the transcripts of mission §1 (single thread: start,
step, dump, stop, errors): each still passes under memcheck, which reports
no error and no definitely or indirectly lost block.  ptdb only: the
inferiors it launches are not run under valgrind.  Skipped for a sanitizer
build (ASan and memcheck do not mix) and without valgrind."""
import os
import re
import shutil

import results
import transcripts

ROOT = transcripts.ROOT
CASES = ["0030-trace-single-thread.test", "0031-trace-to-line-7.test", "0036-trace-dump-options.test"]


def sanitized():
    with open(transcripts.PTDB, "rb") as f:
        return b"__asan_init" in f.read()


def run_all():
    if not shutil.which("valgrind"):
        return results.skip("valgrind memcheck", "valgrind is not installed (make deps)")
    if sanitized():
        # ASan's build is checked by ASan; the plain build runs these
        print("# valgrind memcheck: not run on the sanitizer build")
        return
    out = os.path.join(ROOT, "tests", "out", "valgrind")
    os.makedirs(out, exist_ok=True)
    for case in CASES:
        log = os.path.join(out, case + ".log")
        if os.path.exists(log):
            os.unlink(log)
        wrap = ["valgrind", "-q", "--log-file=" + log, "--leak-check=full",
                "--show-leak-kinds=definite,indirect", "--errors-for-leak-kinds=definite,indirect",
                "--track-fds=no"]
        failed = results.failed
        transcripts.run_one(os.path.join(ROOT, "tests", "transcripts", case), out, wrap, "valgrind")
        text = open(log).read() if os.path.exists(log) else "(no valgrind log)"
        if results.failed != failed:
            continue    # the transcript itself failed under valgrind: reported
        if re.search(r"==\d+== \S", text) or not os.path.exists(log):
            results.fail("valgrind memcheck " + case, text[-3000:])
        else:
            results.ok("valgrind memcheck " + case)


if __name__ == "__main__":
    import sys
    run_all()
    sys.exit(results.summary())
