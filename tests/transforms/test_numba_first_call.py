"""The first call of a gradient in a fresh process: what it must not pay for.

numba imports SciPy; a program whose gradient calls a helper of the user's own must not then
import srcdiff's SciPy rules (``scipy.stats`` alone takes about half a second of CPU):
no SciPy rule is for a user's Python function.  benchmarks/numba_first_call.py measures the
whole first call, cold and warm.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import sys
import scipy  # as numba does
import numpy as np
import srcdiff

def helper(v, k):
    return v * k + np.sin(v)

def f(x):
    return np.sum(helper(x, 2.0) * helper(x, 0.5))

g = srcdiff.grad(f)(np.array([0.1, 0.2]))
want = (2.0 + np.cos([0.1, 0.2])) * (0.5 * np.array([0.1, 0.2]) + np.sin([0.1, 0.2])) \\
    + (0.5 + np.cos([0.1, 0.2])) * (2.0 * np.array([0.1, 0.2]) + np.sin([0.1, 0.2]))
assert np.allclose(g, want), (g, want)
print("scipy.stats" in sys.modules, "scipy.special" in sys.modules)
"""


def _run(code: str, folder: Path) -> subprocess.CompletedProcess:
    script = folder / "child.py"  # a file: srcdiff reads the functions' source
    script.write_text(code)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=folder,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""}, check=False)


def test_a_users_helper_does_not_load_the_scipy_rules(tmp_path):
    done = _run(CHILD, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


SCIPY_CHILD = """
import numpy as np
import scipy.special
import srcdiff

def f(x):
    return np.sum(scipy.special.expit(x))

g = srcdiff.grad(f)(np.array([0.1, -0.3]))
s = 1 / (1 + np.exp(-np.array([0.1, -0.3])))
assert np.allclose(g, s * (1 - s)), g
print("ok")
"""


def test_a_scipy_function_still_finds_its_rule(tmp_path):
    done = _run(SCIPY_CHILD, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


NUMBA_CHILD = """
import sys
import numpy as np
import srcdiff

def f(x):
    return np.sum(np.sin(x) * x)

x = np.array([0.3, -1.2])
g = srcdiff.grad(f, jit="numba")(x)
assert np.allclose(g, np.cos(x) * x + np.sin(x)), g
print("scipy.special" in sys.modules)
"""


def _run_numba(code: str, folder: Path) -> subprocess.CompletedProcess:
    script = folder / "child.py"
    script.write_text(code)
    env = {"PYTHONPATH": str(ROOT), "PATH": "", "SRCDIFF_NUMBA_CACHE": str(folder / "cache")}
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=folder,
                          env=env, check=False)


def test_a_numba_gradient_calling_no_scipy_imports_no_scipy_special(tmp_path):
    """SciPy's compiled special functions are registered when a gradient calls them, not when
    srcdiff's numba helpers are imported (that import took a tenth of a second)."""
    done = _run_numba(NUMBA_CHILD, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


BESSEL_CHILD = """
import numpy as np
import scipy.special as sc
import srcdiff

def f(x):
    return np.sum(sc.j0(x) * x) + np.sum(sc.gammainc(2.5, x))

x = np.array([0.4, 1.3])
g = srcdiff.grad(f, jit="numba")(x)
h = 1e-6
want = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(2)]
assert np.allclose(g, want, rtol=1e-6), (g, want)
print("ok")
"""


@pytest.mark.slow
def test_scipys_compiled_functions_load_from_the_cache_in_a_new_process(tmp_path):
    """The second process loads the compiled gradient from numba's cache without typing a
    call: the names of SciPy's functions it calls must be registered first (else numba's
    loaded code jumps to no address: the process crashed)."""
    for _ in ("compiles", "loads"):
        done = _run_numba(BESSEL_CHILD, tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == "ok"


def test_import_srcdiff_loads_no_scipy_sympy_nor_numba(tmp_path):
    """What only some programs need is imported where it is used: SciPy's rules when a program
    reaches SciPy, sympy by `srcdiff.check`, numba by ``jit="numba"``."""
    done = _run("import sys, srcdiff\n"
                "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'sympy', 'numba', 'llvmlite'}))\n",
                tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
