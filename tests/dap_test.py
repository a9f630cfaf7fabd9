"""The Debug Adapter Protocol front end (ptdb --dap): tests/dap/dap_test.js
drives it with @vscode/debugadapter-testsupport's DebugClient (node; the npm
packages are installed into tests/dap/node_modules by 'make deps') over the
fixture programs, and runs the same non-reverse session against
lldb-vscode-16 for comparison.  Each of its 'ok - ' / 'not ok - ' lines is
one result here."""
import os
import shutil
import subprocess

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = os.path.join(ROOT, "tests", "dap")
PROGRAMS = ["vars", "recurse", "threads", "shapes", "tgt_spin", "inline_o2"]


def run_all():
    if not shutil.which("node"):
        results.skip("dap", "node is not installed (make deps installs nodejs)")
        return
    if not os.path.isdir(os.path.join(DIR, "node_modules", "@vscode", "debugadapter-testsupport")):
        results.skip("dap", "the npm packages are not installed in tests/dap (run 'make deps')")
        return
    missing = [p for p in PROGRAMS if not os.path.exists(os.path.join(ROOT, "tests", "programs", p))]
    if missing:
        results.fail("dap", "fixture programs not built: %s (make programs)" % ", ".join(missing))
        return
    try:
        p = subprocess.run(["node", os.path.join(DIR, "dap_test.js")], cwd=DIR,
                           capture_output=True, text=True, timeout=1800)
    except subprocess.TimeoutExpired:
        results.fail("dap", "timed out after 1800 s")
        return
    seen = 0
    total = None
    detail = []
    for line in p.stdout.splitlines():
        if line.startswith("sessions: "):
            total = int(line.split()[1])
        elif line.startswith("#"):
            detail.append(line[2:])
        elif line.startswith("ok - "):
            seen += 1
            results.ok(line[5:])
            detail = []
        elif line.startswith("not ok - "):
            seen += 1
            results.fail(line[9:], "\n".join(detail))
            detail = []
    # a failure's detail comes after its line
    if detail:
        print("\n".join("#   " + d for d in detail))
    if not seen or p.returncode != 0 or total != seen:
        results.fail("dap", "dap_test.js exited with status %d after %d of %s sessions\n%s" % (
            p.returncode, seen, total, p.stderr[-2000:]))
