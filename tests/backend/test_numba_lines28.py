"""jit="numba" refusals name the user's file and line (numba_lines28_programs.py, numba28_programs.py).

Since wave 29 a number before a ``for`` loop over a constant range that makes it an array compiles
(power_step, returned_step, helper_step: backend/numba/taints.py); a ``while`` loop (which may not
run) and a computed number are refused at the line still.

1. A value that is a number on one path and an array on another (``b = 1.0`` before a loop making it
   ``A @ np.ones(3) * b``, in a for or a while loop, the two sides of a branch, the value returned, a
   helper the function calls) was refused at the ``def`` line: the literal before the loop keeps no line
   in the generated code, and numba names the loop or the function.  The refusal now names the line
   that assigns the number (backend/numba/join_lines.py), in every transformation with jit="numba".
2. ``srcdiff.jacobian(f, jit="numba")`` of a function given a tree with a string leaf, which it passes
   to a gradient it calls, was refused with no line ("cannot differentiate layers_loss with respect to
   'p_act'"): the value was computed by the flattened function run as Python, which calls that gradient
   with the string among the leaves it differentiates.  The user's function gives the value now, and
   what numba cannot compile is refused at the user's line.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import srcdiff

from . import numba28_programs, numba_lines28_programs
from .numba28_programs import CALLED_VALUE_AND_GRAD, STRING_LEAVES

pytest.importorskip("numba")

A = np.array([[1.3, 0.2, -0.4], [0.1, 0.9, 0.3], [-0.2, 0.5, 1.1]])


def _line_of(module, marker: str) -> int:
    """The line of `module`'s file holding `marker`."""
    return _lines_of(module, marker)[0]


def _lines_of(module, *markers: str) -> list[int]:
    """The lines of `module`'s file holding any of `markers`."""
    with open(module.__file__, encoding="utf-8") as file:
        return [i for i, text in enumerate(file, start=1) if any(m in text for m in markers)]


def _refusal(run) -> str:
    """The first line of the SrcDiffError `run()` raises."""
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        run()
    return str(caught.value)


def _central_gradient(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = eps
        out[k] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


TRANSFORMS = {
    "grad": lambda f: srcdiff.grad(f, jit="numba")(A),
    "value_and_grad": lambda f: srcdiff.value_and_grad(f, jit="numba")(A),
    "vjp": lambda f: srcdiff.vjp(f, A, jit="numba")[1](1.0),
    "jvp": lambda f: srcdiff.jvp(f, (A,), (np.ones_like(A),), jit="numba"),
    "hessian": lambda f: srcdiff.hessian(f, jit="numba")(A),
    "jacobian": lambda f: srcdiff.jacobian(f, jit="numba")(A),
}
PROGRAMS = ["power_step", "while_step", "returned_step", "helper_step", "branch_dot_step", "computed_number_step"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_plain_grad_differentiates_them(name):
    """Each program is differentiable (plain grad agrees with central differences): only numba refuses."""
    f = getattr(numba_lines28_programs, name)
    np.testing.assert_allclose(srcdiff.grad(f)(A), _central_gradient(f, A), rtol=1e-6, atol=1e-8)


#: compiled since wave 29 (backend/numba/taints.py: the promoted number's uses followed in the order
#: the statements run), the others refused at the number's line still: (program, transformation)
#: (a ``while`` loop may not run: its number stays one after it; a computed number is not promoted)
COMPILED = {(name, t) for name in ("returned_step", "power_step", "helper_step") for t in TRANSFORMS}


def _want(name: str, transform: str):
    """central differences of the function (first order) or of its plain gradient (Hessian, Jacobian)."""
    f = getattr(numba_lines28_programs, name)
    g = _central_gradient(f, A)
    if transform in ("grad", "vjp"):
        return g
    if transform == "value_and_grad":
        return f(A), g
    if transform == "jvp":
        return f(A), np.sum(g * np.ones_like(A))
    plain = srcdiff.grad(f)
    rows = [_central_gradient(lambda y, k=k: plain(y)[k], A, 1e-5) for k in np.ndindex(A.shape)]
    return np.reshape(rows, A.shape * 2) if transform == "hessian" else g


def _cells():
    """(name, transformation), the Hessians and the compiled cells in the slow set but one (numba compiles
    for seconds a cell; a refusal comes after typing)."""
    for name in PROGRAMS:
        for t in TRANSFORMS:
            slow = t == "hessian" or (name, t) in COMPILED and (name, t) != ("power_step", "grad")
            yield pytest.param(name, t, marks=pytest.mark.slow if slow else (), id=f"{name}-{t}")


@pytest.mark.parametrize("name,transform", list(_cells()))
def test_a_number_then_an_array_compiles_or_is_refused_at_the_numbers_line(name, transform):
    f = getattr(numba_lines28_programs, name)
    if (name, transform) in COMPILED:
        got, want = TRANSFORMS[transform](f), _want(name, transform)
        for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        return
    text = _refusal(lambda: TRANSFORMS[transform](f))
    lines = _lines_of(numba_lines28_programs, f"# NUMBER {name}", f"# ARRAY {name}")
    first = text.splitlines()[0]
    assert any(f"numba_lines28_programs.py:{line}:" in first for line in lines), text
    assert "a number on" in first and "array" in first, text
    assert "def " not in text.splitlines()[1], text


def test_the_branch_sides_number_is_named_where_grad_does_not_compile_it():
    """A number on one side of a branch and an array on the other: grad promotes it (exact there);
    forward mode refuses it at the number's line."""
    f = numba_lines28_programs.branch_step
    np.testing.assert_allclose(srcdiff.grad(f, jit="numba")(A), _central_gradient(f, A), rtol=1e-6, atol=1e-8)
    text = _refusal(lambda: TRANSFORMS["jacobian"](f))
    assert f"numba_lines28_programs.py:{_line_of(numba_lines28_programs, '# NUMBER branch_step')}:" in text, text


def _string_case(row):
    _, f, make, _ = row
    return f, list(make(np.random.default_rng(28)))


@pytest.mark.parametrize("row", [pytest.param(r, id=r[0], marks=() if r[0] == "string_leaf_step" else pytest.mark.slow)
                                 for r in STRING_LEAVES])
def test_jacobian_of_a_tree_with_a_string_names_the_line(row):
    """The string leaf's zeros (an optional numba cannot type) are refused at the called gradient's line."""
    f, args = _string_case(row)
    text = _refusal(lambda: srcdiff.jacobian(f, jit="numba")(*args))
    line = _line_of(numba28_programs, 'if p["act"] == "sq"')
    assert f"{os.path.basename(numba28_programs.__file__)}:{line}:" in text.splitlines()[0], text


@pytest.mark.slow
def test_jacobian_of_a_called_value_and_grad_of_a_tree_names_the_line():
    f, args = _string_case(CALLED_VALUE_AND_GRAD)
    text = _refusal(lambda: srcdiff.jacobian(f, jit="numba")(*args))
    line = _line_of(numba28_programs, "v, g = vg_layers(p, x)")
    assert f"numba28_programs.py:{line}:" in text.splitlines()[0], text
