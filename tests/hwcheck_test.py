"""make hwcheck's steps against the software backend (hwcheck.py --backend
software), so that the script stays right where there is no Intel PT to run
it on."""
import os
import subprocess
import sys

import results

HERE = os.path.dirname(os.path.abspath(__file__))


def run_all():
    try:
        p = subprocess.run([sys.executable, os.path.join(HERE, "hwcheck.py"), "--backend", "software"],
                           capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        results.fail("hwcheck dry run (software backend)", "timed out after 900 s")
        return
    if p.returncode == 0 and "hwcheck: all steps passed" in p.stdout:
        results.ok("hwcheck dry run (software backend)")
    else:
        results.fail("hwcheck dry run (software backend)", p.stdout[-3000:] + p.stderr[-1000:])


if __name__ == "__main__":
    run_all()
    sys.exit(results.summary())
