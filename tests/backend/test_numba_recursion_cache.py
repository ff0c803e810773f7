"""A recursive helper's numba gradient in a new process: numba's on-disk cache cannot hold
recursive code (loaded, a recursive call jumps to a symbol numba left unresolved, and the
process crashed), so such a module is compiled in each process (backend/numba/recursion.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import numpy as np
import srcdiff

def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)

def f(x):
    return power(x, 4) + power(x, 1)

print(srcdiff.grad(f, jit="numba")(1.3))
"""


def test_a_recursive_gradient_runs_again_in_a_new_process(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {"PYTHONPATH": str(ROOT), "PATH": "", "SRCDIFF_NUMBA_CACHE": str(tmp_path / "cache")}
    for _ in ("first", "second"):  # the second found the first's cache, and crashed
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
                              env=env, check=False)
        assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
        assert abs(float(done.stdout) - (4 * 1.3 ** 3 + 1.0)) < 1e-12
