"""Man page checks: lint, and every command of the tree is documented."""
import os
import re
import shutil
import subprocess

import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lint(page):
    name = "man lint " + os.path.basename(page)
    if shutil.which("mandoc"):
        p = subprocess.run(["mandoc", "-Tlint", "-W", "warning", page], capture_output=True, text=True)
        out = (p.stdout + p.stderr).strip()
        if p.returncode != 0 or out:
            results.fail(name, out)
        else:
            results.ok(name)
    else:
        results.skip(name, "mandoc is not installed (make deps installs it)")


def commands_documented():
    p = subprocess.run([os.path.join(ROOT, "ptdb"), "-b", "-o", "help --all"],
                       capture_output=True, text=True)
    paths = [m.group(1) for m in re.finditer(r"^  (\S.*?) -- ", p.stdout, re.M)]
    with open(os.path.join(ROOT, "man", "ptdb.1")) as f:
        man = f.read()
    documented = set(re.findall(r"^\.It Cm (.+?)(?: Ar .*| Op .*| Oo .*| Fl .*)?$", man, re.M))
    missing = [c for c in paths if c not in documented]
    extra = [c for c in documented if c not in paths]
    if not paths:
        results.fail("man commands", "'help --all' listed no commands")
    elif missing or extra:
        results.fail("man commands", "not in man/ptdb.1: %s; in the page but not ptdb: %s" % (
            ", ".join(missing) or "-", ", ".join(extra) or "-"))
    else:
        results.ok("man commands (%d documented)" % len(paths))


def run_all():
    for page in ("ptdb.1", "ptdb-trace.7", "ptdb-dap.7"):
        lint(os.path.join(ROOT, "man", page))
    commands_documented()
