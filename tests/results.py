"""Shared pass/fail bookkeeping for ptdb's test runners."""
import sys

passed = 0
failed = 0


def ok(name):
    global passed
    passed += 1
    print("ok - %s" % name)
    sys.stdout.flush()


def fail(name, why=""):
    global failed
    failed += 1
    print("not ok - %s" % name)
    for line in why.rstrip().splitlines():
        print("#   " + line)
    sys.stdout.flush()


def skip(name, why):
    """A test that cannot run here says why and counts as a failure."""
    fail(name, "skipped: " + why)


def summary():
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0
