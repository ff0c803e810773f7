"""Recursive helpers (recursion_programs.py) under every transformation, numba's included:
numba's gradient saves each level's arguments and recomputes its forward values
(backend/numba/recursion.py), so it must agree with central differences, in float32 too;
a recursive helper that writes into its argument is refused at that line."""

import ast
import re

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .recursion_programs import PROGRAMS, power, uses_power


def programs():
    return corpus.from_table(PROGRAMS, "recursion", "recursion_programs", 19)


def _name(p):
    return p.name.partition(":")[2]


DEFAULT = {"uses_power", "mutual", "polynomial_by_horner"}  # the rest: pytest -m slow


def _marked(p):
    return p if _name(p) in DEFAULT else pytest.param(p, marks=pytest.mark.slow)


@pytest.mark.parametrize("program", [_marked(p) for p in programs()], ids=_name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", [_marked(p) for p in programs()], ids=_name)
def test_numba_compiles_and_agrees(program):
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome == matrix.OK, cell.message


@pytest.mark.parametrize("program", [_marked(p) for p in programs() if isinstance(p.args[p.wrt], np.ndarray)],
                         ids=_name)
def test_numba_float32_stays_float32_or_is_refused_at_the_line(program):
    """numba computes a float32 array times a Python float in float64: a level whose value is
    float32 on one path and float64 on the other is refused at its line, as without recursion."""
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in program.args]
    try:
        got = srcdiff.grad(program.func, wrt=program.wrt, jit="numba")(*args)
    except srcdiff.SrcDiffError as exc:
        assert re.search(r"recursion_programs\.py:\d+", str(exc)), exc
        return
    want = central_difference(program.func, program.args, program.wrt)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-4)


def test_numba_hessian_jvp_and_vjp_of_a_recursive_helper():
    x, y = 1.3, 0.7
    hessian = srcdiff.hessian(uses_power, wrt=("x", "y"), jit="numba")(x, y)
    want = [[12 * x * x * y, 4 * x ** 3], [4 * x ** 3, 2.0]]  # of x**4 * y + y**2
    np.testing.assert_allclose(np.array(hessian, dtype=float), want, rtol=1e-10)
    value, tangent = srcdiff.jvp(uses_power, (x, y), (1.0, 0.0), jit="numba")
    np.testing.assert_allclose([value, tangent], [x ** 4 * y + y * y, 4 * x ** 3 * y], rtol=1e-12)
    value, pullback = srcdiff.vjp(power, 1.1, 5, jit="numba")
    np.testing.assert_allclose([value, pullback(2.0)], [1.1 ** 5, 2.0 * 5 * 1.1 ** 4], rtol=1e-12)


def _writes(x, n):
    if n == 0:
        return np.sum(x)
    x[0] = x[0] * 2.0
    return _writes(x, n - 1) * 0.5


def writes_its_argument(x):
    return _writes(x.copy(), 3) + np.sum(x * x)


def test_a_recursive_helper_writing_into_its_argument_is_refused_at_its_line():
    x = np.array([0.5, -1.0, 2.0])
    try:
        got = srcdiff.grad(writes_its_argument)(x.copy())
    except srcdiff.SrcDiffError:  # plain grad refuses the write itself: so must numba, at the line
        with pytest.raises(srcdiff.SrcDiffError, match=r"test_numba_recursion\.py:\d+"):
            srcdiff.grad(writes_its_argument, jit="numba")(x.copy())
        return
    np.testing.assert_allclose(got, central_difference(writes_its_argument, (x,), 0), rtol=1e-6)
    with pytest.raises(srcdiff.SrcDiffError, match=r"test_numba_recursion\.py:\d+.*writes into its argument"):
        srcdiff.grad(writes_its_argument, jit="numba")(x.copy())


@pytest.mark.parametrize(("body", "writes"), [
    ("x[0] = 1.0", True), ("x[i] += v", True), ("x.fill(0.0)", True), ("s.a = 1.0", True),
    ("x = x.copy()\nx[0] = 1.0", False), ("y = x[0] * 2.0", False), ("t = x.sum()", False),
], ids=["item", "augmented", "method", "attribute", "after_rebinding", "read", "reading_method"])
def test_what_counts_as_writing_into_an_argument(body, writes):
    """Recomputing a level from its saved arguments is sound only if it left them unchanged."""
    from srcdiff.backend.numba.recursion import parameter_write
    statements = ast.parse(body).body
    assert (parameter_write(statements, {"x", "s", "i", "v"}) is not None) == writes
