"""One name, one code (backend/numba/naming.py): numba must never link one overload's code
for another's.

numba names compiled code by qualified name, argument types and a per-process count, and
keeps those names in its on-disk cache: two closures of one factory (one per ufunc) met
under one name across two processes, and a gradient of ``np.sin`` ran ``np.tanh``.  The
subprocess test reproduces that with numba's own ``overload`` (the control) and shows
srcdiff's does not.
"""

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcdiff.backend.numba import naming  # noqa: E402

PACKAGE = Path(naming.__file__).parent

HELPERS = '''
import numpy as np
from {module} import overload


def factory(ufunc, scale):
    def stub(x):
        return x
    stub.__name__ = stub.__qualname__ = "stub_" + ufunc.__name__

    @overload(stub)
    def typer(x):
        def impl(x):  # big enough that LLVM keeps it a function of its own
            s = 0.0
            for i in range(x.shape[0]):
                s += ufunc(x[i]) * scale + np.cos(s) * 1e-300
            return s
        return impl
    return stub


first = factory(np.sin, 2.0)
second = factory(np.tanh, 3.0)
'''

CALLER = '''
from helpers import {which}


def f(x):
    return {which}(x)
'''

RUN = '''
import sys
import numba
import numpy as np
import caller_first, caller_second
F = numba.njit(cache=True)(caller_first.f)
G = numba.njit(cache=True)(caller_second.f)
x = np.array([0.3, -0.5, 0.9])
if sys.argv[1] == "second":
    G(x)
print(repr(F(x)))
'''


def _first_after_second(folder: Path, module: str) -> tuple[float, float]:
    """first's value computed alone (compiled, cached), then in a new process that compiles
    second before it loads first from the cache."""
    folder.mkdir()
    (folder / "helpers.py").write_text(HELPERS.format(module=module))
    (folder / "caller_first.py").write_text(CALLER.format(which="first"))
    (folder / "caller_second.py").write_text(CALLER.format(which="second"))
    (folder / "run.py").write_text(RUN)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(folder / "cache"), "NUMBA_OPT": "0",
           "PYTHONPATH": os.pathsep.join([str(folder), str(PACKAGE.parents[2])])}

    def run(order):
        done = subprocess.run([sys.executable, "run.py", order], cwd=folder, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return float(done.stdout.strip().splitlines()[-1])
    return run("first"), run("second")


def test_two_closures_of_one_factory_never_share_compiled_code(tmp_path):
    alone, after = _first_after_second(tmp_path / "numba", "numba.extending")
    if alone == after:
        pytest.skip("numba no longer confuses two closures of one name across processes: nothing to guard")
    alone, after = _first_after_second(tmp_path / "srcdiff", "srcdiff.backend.numba.naming")
    assert alone == after
    x = np.array([0.3, -0.5, 0.9])
    assert alone == pytest.approx(np.sum(2.0 * np.sin(x)))


def test_names_follow_the_code():
    def factory(scale):
        return lambda x: x * scale
    two, three, again = factory(2.0), factory(3.0), factory(2.0)
    assert two.__qualname__ == three.__qualname__  # what numba would see
    names = [naming.unique(f, factory).__qualname__ for f in (two, three, again)]
    assert names[0] != names[1] and names[0] == names[2]
    assert "<" not in names[0]
    a = naming.made("def impl(x):\n    return x * DTYPE(2)\n", DTYPE=np.float32)
    b = naming.made("def impl(x):\n    return x * DTYPE(2)\n", DTYPE=np.float64)
    c = naming.made("def impl(x):\n    return x * DTYPE(2)\n", DTYPE=np.float32)
    assert a.__qualname__ != b.__qualname__ and a.__qualname__ == c.__qualname__
    assert a.__module__ == naming.__name__  # importable: numba's cache rebuilds its environment from it


def test_module_level_functions_keep_their_names():
    assert naming.unique(np.sum, None) is np.sum
    assert naming.unique(_plain, None).__qualname__ == "_plain"


def _plain(x):
    return x


def test_every_numba_module_takes_overload_and_made_from_naming():
    """numba's own ``overload``, an ``exec`` or an ``njit`` of a closure elsewhere would bring the
    confusion back."""
    for path in sorted(PACKAGE.glob("*.py")):
        if path.name == "naming.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "numba.extending":
                assert all(a.name != "overload" for a in node.names), f"{path.name} imports numba's overload"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "exec":
                assert path.name == "entry.py", f"{path.name} makes a function with exec: use naming.made"
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):  # njit of a function made at run time
                inner = [n for n in ast.walk(node) if n is not node and isinstance(n, ast.FunctionDef)]
                for made in inner:
                    assert not any(isinstance(d, ast.Name) and d.id == "njit" or
                                   isinstance(d, ast.Call) and getattr(d.func, "id", "") == "njit"
                                   for d in made.decorator_list), f"{path.name}: @njit on {made.name}: use compiled()"
                body = node.body if isinstance(node.body, list) else [node.body]
                calls = [n for s in body for n in ast.walk(s) if isinstance(n, ast.Call)
                         and getattr(n.func, "id", "") == "njit"]
                assert not calls, f"{path.name}: njit(...) of a function made at run time: use naming.compiled"

