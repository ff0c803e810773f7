"""What the red team's seventeenth wave found that is still open: no wrong answer (test_redteam_wave17_findings.py
holds those, fixed), but reasonable code refused, refusals that name no line, and refusals of one transformation
that the others accept.  Each class is a strict xfail naming it, with a few variants; the reference is float64
central differences of the function (tests/numeric.py) or the function's own value, never srcdiff.

Classes (counts from the wave's 227 rows; see the findings module's docstring for how they ran):
  1. vmap refuses a method or a callable instance (grad takes both): named no line, now at the line that reads
     the instance's arrays; a functools.partial is batched (fixed in api/vmap.py, test_redteam_wave17_findings.py).
  2. vmap refuses common spellings: ``np.array([a, b, c])`` of batched numbers ("stack(list) of a tuple of batched
     values"), builtin ``abs``, ``np.cross``, ``np.append``, ``x.copy()`` then writes, ``.ravel()``, a write into a
     local array ("setitem has no batching rule"); vmap(grad(f)) refuses about half the rows' gradients.
  3. numba only: ``vmap(..., jit="numba")`` refused srcdiff's own helper ``broadcast_rows`` (fixed in wave 27:
     backend/numba/row_helpers.py, test_numba27.py); a helper with a
     default array parameter (``def f(q, p=np.array([...]))``) called with one argument (a strict xfail until
     wave 32 found it passing: every transformation agrees, numba included); a list of lists
     argument (``wins[i][j]``: "cannot reflect element of reflected container", which hvp of a numba gradient
     reports at the generated code's line ``bradley_terry_grad:1``); jvp / hvp through numba's compiler on
     ``np.broadcast_to(t, ())`` are fixed (findings class 7).
  4. hvp refuses ``[logp[a, b] for a, b in zip(text[:-1], text[1:])]`` (a list argument sliced in the
     generated gradient) where hessian accepts it.
  5. Python containers refused at the line: ``R[i][j] = ...`` into a list of lists, ``list(filter(...))``,
     ``list(zip(*rows))``, ``items.pop()`` / ``insert``, ``params.setdefault``, ``nonlocal``, ``deque.append``,
     ``defaultdict(list)`` appends, ``copy.deepcopy(params)``, ``f(*x[:3])`` of a local function, a
     classmethod handed to srcdiff (``cls`` "used as a static argument").
  6. Complex numbers: a transfer function with differentiated coefficients (``1 / (1j * w * C)``) is refused
     ("meets a complex number"); np.std / np.var of complex data is fixed (findings class 8).
  7. ``np.trapezoid(y, dx=1.0 / len(x))``: "1.0 / len(x) must be a constant here" (len is known per call).
"""

from __future__ import annotations

import collections

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from .corpus import Program
from .matrix import assert_numba_included
from .redteam_wave17_callables import _MODEL, LinearModel
from .redteam_wave17_graphs import bigram_perplexity

HERE = "test_redteam_wave17_open.py"


def xfail(reason):
    return pytest.mark.xfail(strict=True, reason=reason)


X3 = np.array([0.7, -1.3, 0.4])


# ---- 1. vmap of what grad takes -------------------------------------------------------------------------------

class Scaled:
    def __init__(self, c):
        self.c = c

    def __call__(self, x):
        return self.c * np.sum(x ** 2)


@pytest.mark.parametrize("f", [_MODEL.loss, Scaled(2.0)], ids=["bound_method", "callable_instance"])
def test_vmap_of_what_grad_takes(f):  # (open since wave 17: runs one example at a time since wave 26)
    xs = np.stack([X3, 2 * X3])
    np.testing.assert_allclose(srcdiff.vmap(f, per_example="allow")(xs), [f(x) for x in xs], rtol=1e-12)


@pytest.mark.parametrize("f", [_MODEL.loss, Scaled(2.0)], ids=["bound_method", "callable_instance"])
def test_vmap_of_a_method_runs_one_example_at_a_time_naming_the_line(f):
    mapped = srcdiff.vmap(f, per_example="allow")
    mapped(np.stack([X3, 2 * X3]))
    assert ".py:" in mapped.per_example.splitlines()[0]


def test_grad_takes_them():
    for f in (_MODEL.loss, Scaled(2.0)):
        np.testing.assert_allclose(srcdiff.grad(f)(X3), central_difference(f, (X3,), 0), rtol=1e-6)
    assert LinearModel.huber is not None


# ---- 2. vmap's reach --------------------------------------------------------------------------------------------

def sir_rhs(u):
    S, I, R = u
    return np.array([-0.5 * S * I, 0.5 * S * I - 0.2 * I, 0.2 * I])


def abs_builtin(x):
    return sum(abs(v) ** 1.5 for v in x)


def cross_rotate(u):
    return np.cross(u, np.array([1.0, 0.5, -0.2]))


def written_copy(x):
    y = x.copy()
    y[0] = y[1] * 2.0
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [sir_rhs, abs_builtin], ids=lambda f: f.__name__)
def test_vmap_of_common_spellings(f):  # (open since wave 17: np.array of batched numbers is a list of rows since 26)
    xs = np.stack([X3, 0.5 * X3 + 0.1])
    np.testing.assert_allclose(srcdiff.vmap(f, per_example="allow")(xs), np.stack([f(x) for x in xs]), rtol=1e-12)


@pytest.mark.parametrize("f", [cross_rotate, written_copy], ids=lambda f: f.__name__)
def test_vmap_batched_since(f):  # np.cross, a write into a copy (ad/batching_moves.py): no longer open
    xs = np.stack([X3, 0.5 * X3 + 0.1])
    np.testing.assert_allclose(srcdiff.vmap(f)(xs), np.stack([f(x) for x in xs]), rtol=1e-12)


# ---- 3. numba only ----------------------------------------------------------------------------------------------

def quat_like(q, p=np.array([0.9, 0.1, -0.3, 0.2])):  # noqa: B008  a default array, as users write it
    return q * p[0] + p[1:].sum()


def through_default(q, w):
    return w @ quat_like(q)


def test_numba_helper_with_a_default_array():
    # (a strict xfail of class 3 until wave 32 found it passing: every transformation, numba included, agrees)
    q, w = np.array([0.3, -0.2, 0.5, 0.1]), np.array([1.0, 2.0, -1.0, 0.5])
    np.testing.assert_allclose(srcdiff.grad(through_default, jit="numba")(q, w),
                               central_difference(through_default, (q, w), 0), rtol=1e-6)
    assert_numba_included(Program("w17_open:through_default", through_default, (q, w), 0, HERE))


# ---- 4. hvp where hessian works ---------------------------------------------------------------------------------

@xfail("4. hvp refuses a list argument sliced in the generated gradient, where hessian accepts it")
def test_hvp_of_bigram_perplexity():
    L = np.random.default_rng(0).normal(size=(4, 4))
    text = [0, 1, 3, 2, 1, 1, 0, 3]
    V = np.random.default_rng(1).normal(size=(4, 4))
    H = srcdiff.hessian(bigram_perplexity)(L, text)  # accepted (and checked by the matrix)
    got = srcdiff.hvp(bigram_perplexity, L, V, text)
    g = srcdiff.grad(bigram_perplexity)
    want = (g(L + 1e-5 * V, text) - g(L - 1e-5 * V, text)) / 2e-5
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-8)
    assert H.shape == (4, 4, 4, 4)


# ---- 5. Python containers ---------------------------------------------------------------------------------------

def romberg_table(k):
    R = [[0.0] * 3 for _ in range(3)]
    for i in range(3):
        xs = np.linspace(0.0, 1.0, 2 ** i + 1)
        fx = 1.0 / (1.0 + k * xs ** 2)
        R[i][0] = (np.sum(fx) - 0.5 * (fx[0] + fx[-1])) / 2 ** i
        for j in range(1, i + 1):
            R[i][j] = R[i][j - 1] + (R[i][j - 1] - R[i - 1][j - 1]) / (4 ** j - 1)
    return R[-1][-1]


def filtered_list(x):
    squares = [v * v for v in x]
    big = list(filter(lambda v: v > 0.3, squares))
    return sum(big)


def popped(x):
    items = list(x)
    last = items.pop()
    return sum(items) * last


def with_nonlocal(x):
    count = 0

    def term(v):
        nonlocal count
        count += 1
        return v * count
    return sum(term(v) for v in x)


def grouped(x, labels):
    groups = collections.defaultdict(list)
    for v, lab in zip(x, labels):
        groups[lab].append(v)
    return sum(sum(vals) ** 2 for vals in groups.values())


def starred_local(x):
    def f(a, b, c):
        return a * b + c ** 2
    return f(*x[:3])


CONTAINERS = [(romberg_table, (1.5,)), (filtered_list, (X3,)), (popped, (X3,)), (with_nonlocal, (X3,)),
              (grouped, (X3, ["a", "b", "a"])), (starred_local, (X3,))]


@xfail("5. Python containers refused at the line (nested list writes, list(filter), pop, nonlocal, "
       "defaultdict appends, f(*x[:3]))")
@pytest.mark.parametrize("f,args", CONTAINERS, ids=[f.__name__ for f, _ in CONTAINERS])
def test_python_containers(f, args):
    np.testing.assert_allclose(srcdiff.grad(f)(*args), central_difference(f, args, 0), rtol=1e-6)


@pytest.mark.parametrize("f,args", CONTAINERS, ids=[f.__name__ for f, _ in CONTAINERS])
def test_python_containers_are_refused_at_the_users_line(f, args):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(*args)
    assert "test_redteam_wave17_open.py:" in str(info.value).splitlines()[0]


# ---- 6. complex numbers -----------------------------------------------------------------------------------------

W = np.array([0.5, 2.0, 1.0])


def rc_filter_power(p, w):
    R, C = p
    H = 1.0 / (1.0 + 1j * w * R * C)
    return np.sum(np.abs(H) ** 2)


@xfail("6. complex numbers: a transfer function of differentiated values")
@pytest.mark.parametrize("f,args", [(rc_filter_power, (np.array([2.0, 0.3]), W))], ids=["rc_filter_power"])
def test_complex_reach(f, args):
    np.testing.assert_allclose(srcdiff.grad(f)(*args), central_difference(f, args, 0), rtol=1e-6)


# ---- 7. a static argument computed from a length ----------------------------------------------------------------

def lorenz_area(x):
    shares = np.cumsum(np.sort(x)) / np.sum(x)
    return np.trapezoid(np.concatenate([[0.0], shares]), dx=1.0 / len(x))


@xfail("7. np.trapezoid(dx=1.0 / len(x)): 'must be a constant here'")
def test_static_argument_from_a_length():
    x = np.array([3.0, 1.0, 4.0, 1.5, 5.0])
    np.testing.assert_allclose(srcdiff.grad(lorenz_area)(x), central_difference(lorenz_area, (x,), 0), rtol=1e-6)
