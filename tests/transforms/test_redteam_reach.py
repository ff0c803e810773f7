"""The red team of issue 25 (redteam_reach.py): each program's gradient against float64 central
differences, its jvp against the same differences along a random direction, and its Hessian
against second differences where the input is small.  A program srcdiff refuses is tested as
a refusal at the user's line with its message; a WRONG answer is a strict xfail naming it.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

from . import corpus, redteam_reach

#: refused by grad (and so by every transformation): name -> (text of the refused line, message)
REFUSED: dict = {}  # none left: rfft_power's complex spectrum is read as its real and imaginary parts

#: refused by one transformation only: (transformation, name) -> (text of the line, message)
REFUSED_BY: dict = {}  # none left: logsumexp (a decorated library helper) and solve of run-time shapes go through


#: WRONG answers and crashes found, each a strict xfail: (transformation, name) -> why
BROKEN: dict = {}  # none left: the tuple-index second order the red team found is fixed

HESSIAN_MAX = 12  # entries of the differentiated argument: second differences stay cheap


def _args(name, make):
    return tuple(make(corpus._seed(f"redteam:{name}")))


def _line_of(func, text: str) -> int:
    lines, start = inspect.getsourcelines(func)
    hits = [start + i for i, line in enumerate(lines) if text in line]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def _expect_refusal(func, text, message, call):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        call()
    first = str(info.value).splitlines()[0]
    assert f"redteam_reach.py:{_line_of(func, text)}:" in first, first
    assert message in first, first


def _quiet(f):
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f(*args)
    return run


def _zero_tangent(a):
    if isinstance(a, float):
        return 0.0
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return np.zeros_like(a)
    return None


def _cases(transform):
    out = []
    for name, func, make, wrt in redteam_reach.REACH:
        marks = ()
        if (transform, name) in BROKEN:
            marks = pytest.mark.xfail(strict=True, reason=BROKEN[transform, name])
        out.append(pytest.param(name, func, make, wrt, id=name, marks=marks))
    return out


def test_the_red_team_wrote_fifteen_programs_of_each_kind():
    for group in (redteam_reach.STATISTICS, redteam_reach.SIGNAL, redteam_reach.GEOMETRY):
        assert len({func for _, func, _, _ in group}) >= 15
    names = [name for name, *_ in redteam_reach.REACH]
    assert len(names) == len(set(names))
    assert set(REFUSED) | {n for _, n in REFUSED_BY} | {n for _, n in BROKEN} <= set(names)


@pytest.mark.parametrize("name, func, make, wrt", _cases("grad"))
def test_grad_against_central_differences(name, func, make, wrt):
    args = _args(name, make)
    call = lambda: srcdiff.grad(func, wrt=wrt)(*args)  # noqa: E731
    if name in REFUSED:
        _expect_refusal(func, *REFUSED[name], call)
        return
    expected = central_difference(_quiet(func), args, wrt)
    np.testing.assert_allclose(call(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, func, make, wrt", _cases("jvp"))
def test_jvp_against_central_differences(name, func, make, wrt):
    args = _args(name, make)
    rng = np.random.default_rng(len(name))
    x = args[wrt]
    t = rng.normal(size=np.shape(x)) if isinstance(x, np.ndarray) else 0.7
    # one tangent per positional parameter: the direction on `wrt`, zeros on other floats, None on data
    tangents = tuple(t if i == wrt else _zero_tangent(a) for i, a in enumerate(args))
    call = lambda: srcdiff.jvp(func, args, tangents)  # noqa: E731
    if name in REFUSED or ("jvp", name) in REFUSED_BY:
        _expect_refusal(func, *(REFUSED.get(name) or REFUSED_BY["jvp", name]), call)
        return
    value, tangent = call()
    expected = np.sum(central_difference(_quiet(func), args, wrt) * t)
    np.testing.assert_allclose(value, func(*args), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tangent, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, func, make, wrt", _cases("hessian"))
def test_hessian_against_second_differences(name, func, make, wrt):
    args = _args(name, make)
    size = np.size(args[wrt])
    if size > HESSIAN_MAX:
        pytest.skip(f"{size} entries: second differences too slow here (the matrix uses hvp)")
    call = lambda: srcdiff.hessian(func, wrt=wrt)(*args)  # noqa: E731
    if name in REFUSED or ("hessian", name) in REFUSED_BY:
        _expect_refusal(func, *(REFUSED.get(name) or REFUSED_BY["hessian", name]), call)
        return

    def moved(z, *others):
        rest = list(others)
        rest.insert(wrt, z if isinstance(args[wrt], np.ndarray) else float(z))
        return _quiet(func)(*rest)

    expected = hessian_difference(moved, (args[wrt], *args[:wrt], *args[wrt + 1:]))
    got = np.asarray(call())
    scale = max(1.0, np.max(np.abs(expected)))
    np.testing.assert_allclose(got.reshape(size, size), expected.reshape(size, size), rtol=1e-4, atol=1e-4 * scale)


def _diagonal_squares(A):
    return np.sum(A[np.diag_indices(3)] ** 2)


@pytest.mark.parametrize("transform", ["hessian", "hvp"])
def test_second_order_through_a_tuple_index(transform):
    """The smallest reproduction: d2/dA2 sum(A[diag]**2) is 2 on the diagonal entries, 0 elsewhere."""
    A = np.arange(9.0).reshape(3, 3) / 10 + 0.1
    expected = np.zeros((3, 3, 3, 3))
    for i in range(3):
        expected[i, i, i, i] = 2.0
    np.testing.assert_allclose(hessian_difference(_diagonal_squares, (A,)), expected, atol=1e-6)  # the reference
    if transform == "hessian":
        np.testing.assert_allclose(srcdiff.hessian(_diagonal_squares)(A), expected, atol=1e-9)
    else:
        V = np.eye(3)
        np.testing.assert_allclose(srcdiff.hvp(_diagonal_squares, A, V), np.einsum("ijkl,kl->ij", expected, V),
                                   atol=1e-9)
