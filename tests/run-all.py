#!/usr/bin/env python3
"""Runs every ptdb test and prints one summary line 'N passed, N failed'.

Usage: tests/run-all.py UNIT_BINARY...

Unit binaries print 'ok - name' / 'not ok - name' per test (tests/unit/test.h).
Then the transcript tests (tests/transcripts/*.test, see transcripts.py), the
REPL tests under a pty (tests/repl_test.py), the prompt as a person meets it
(tests/prompt_test.py), the Chrome trace export checks
(tests/check_ctf.py), the man page checks (tests/check_man.py), the trace
bundle tests (tests/bundle_test.py), bundles in LLDB's own form
(tests/lldb_bundle_test.py), ptdb's bundles in lldb-22 and lldb-22's in
ptdb (tests/lldb22_test.py), the per-CPU tracing tests
(tests/percpu_test.py), the decoded trace read through chunks against the
full store (tests/chunks_test.py), the fuzz corpus replay (tests/fuzz_replay.py), the
hostile input tests (tests/hostile_test.py), the process tests
(tests/process_test.py), interrupts in every state (tests/interrupt_test.py),
the symbol tests (tests/symbols_test.py), the 64-thread stress test
(tests/stress_test.py), interrupt storms and attach cycles on 4 traced
threads (tests/stress_sigint_test.py), the two software engines on every tracing transcript
(tests/engine_test.py), valgrind memcheck on the transcripts of mission §1
(tests/valgrind_test.py), the comparison of variables and expressions
with lldb-16 (tests/lldb_compare_test.py) and on real programs built from
Debian's sources (tests/real_compare_test.py), the layering of the code's
rooms (tests/layers_test.py: no include or call from a room into one
above it, no circle between rooms) and the layers of cmd/ and
core/symbols/ (no trace/ header seen by cmd/, no call or include circle:
tests/layers_cmd_test.py), the files' and functions' sizes
(tests/layers_size_test.py), the Debug Adapter Protocol
sessions (tests/dap_test.py, node), Debian's luajit and a Go program traced
from start to exit under both engines (tests/runtimes_test.py) run; each
reports results through
tests/results.py.
"""
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402
import transcripts  # noqa: E402
import watch_test  # noqa: E402
import repl_test  # noqa: E402
import prompt_test  # noqa: E402
import check_man  # noqa: E402
import bundle_test  # noqa: E402
import lldb_bundle_test  # noqa: E402
import lldb22_test  # noqa: E402
import hwcheck_test  # noqa: E402
import percpu_test  # noqa: E402
import check_ctf  # noqa: E402
import valgrind_test  # noqa: E402
import process_test  # noqa: E402
import interrupt_test  # noqa: E402
import attach_test  # noqa: E402
import fuzz_replay  # noqa: E402
import hostile_test  # noqa: E402
import stress_test  # noqa: E402
import stress_sigint_test  # noqa: E402
import lldb_compare_test  # noqa: E402
import step_o2_test  # noqa: E402
import breakpoint_threads_test  # noqa: E402
import real_compare_test  # noqa: E402
import symbols_test  # noqa: E402
import engine_test  # noqa: E402
import layers_cmd_test  # noqa: E402
import layers_test  # noqa: E402
import layers_size_test  # noqa: E402
import dap_test  # noqa: E402
import chunks_test  # noqa: E402
import runtimes_test  # noqa: E402


def run_unit(binary, ok=results.ok, fail=results.fail):
    try:
        p = subprocess.run([binary], capture_output=True, text=True, timeout=1800)
    except subprocess.TimeoutExpired:
        fail(binary, "timed out after 1800 s (a hang: test-oracle takes 3.5 min under load)")
        return
    seen = 0
    detail = []
    for line in p.stdout.splitlines():
        if line.startswith("#"):
            detail.append(line)
        elif line.startswith("ok - "):
            seen += 1
            ok("%s: %s" % (os.path.basename(binary), line[5:]))
            detail = []
        elif line.startswith("not ok - "):
            seen += 1
            fail("%s: %s" % (os.path.basename(binary), line[9:]), "\n".join(detail))
            detail = []
    if p.returncode != 0 and (p.returncode < 0 or seen == 0 or not any(
            l.startswith("not ok") for l in p.stdout.splitlines())):
        fail(os.path.basename(binary),
             "exited with status %d\n%s" % (p.returncode, p.stderr[-2000:]))


# Run beside the unit binaries (which write nothing they share): batch
# runs of ptdb that wait on nothing but ptdb.  The rest run after both.
BESIDE_UNITS = [engine_test]
SUITES = [layers_test, repl_test, prompt_test, bundle_test, lldb_bundle_test, lldb22_test, hwcheck_test,
          percpu_test, check_ctf,
          check_man, fuzz_replay, hostile_test, process_test, interrupt_test, attach_test,
          stress_test, stress_sigint_test, symbols_test, lldb_compare_test, step_o2_test,
          breakpoint_threads_test,
          real_compare_test, engine_test, watch_test,
          valgrind_test, layers_cmd_test, layers_size_test, dap_test, chunks_test, runtimes_test]


def main():
    # T=NAME (make check T=0031, T=test-xfer, T=bundle_test) runs only the
    # unit binaries, transcripts and suites whose name contains NAME.
    only = os.environ.get("T") or None
    times = []

    def timed(name, fn, *args):
        t0 = time.time()
        fn(*args)
        times.append((name, time.time() - t0))
    # the unit binaries run in a second lane while the transcripts (then
    # the suites that only replay transcripts) run in this one; their
    # results are reported when both are done, in order
    units, unit_times = [], []

    def unit_lane():
        for b in sys.argv[1:]:
            if only is None or only in os.path.basename(b):
                t0 = time.time()
                run_unit(b, lambda n: units.append((n, None)),
                         lambda n, why="": units.append((n, why)))
                unit_times.append((os.path.basename(b), time.time() - t0))
    lane = threading.Thread(target=unit_lane)
    t_all = time.time()
    lane.start()
    timed("transcripts", transcripts.run_all, only)
    for suite in BESIDE_UNITS:
        if only is None or only in suite.__name__:
            timed(suite.__name__, suite.run_all)
    lane.join()
    times.append(("(both lanes)", time.time() - t_all))
    times.extend(unit_times)
    for name, why in units:
        results.ok(name) if why is None else results.fail(name, why)
    for suite in SUITES:
        if suite not in BESIDE_UNITS and (only is None or only in suite.__name__):
            timed(suite.__name__, suite.run_all)
    # where the time goes (the summary stays the last line)
    for name, secs in sorted(times, key=lambda x: -x[1]):
        print("# time: %-18s %7.1f s" % (name, secs))
    print("# time: %-18s %7.1f s" % ("total (wall)", time.time() - t_all))
    return results.summary()


if __name__ == "__main__":
    sys.exit(main())
