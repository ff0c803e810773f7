"""jit="numba" on what it refused before: SciPy's special functions (numba versions in
backend/numba/special.py, checked against SciPy itself), and NumPy calls numba lacks that the
backend now spells (backend/numba/array_calls.py, arrays.py, linalg_more.py).  Each program agrees with float64 central
differences and with the plain NumPy gradient; float32 where it applies.

numba compiles for seconds per program: most programs are marked slow (``pytest -m slow``, run
before a release); the default run keeps the cheapest few, and the one-argument functions against SciPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

numba = pytest.importorskip("numba")
sc = pytest.importorskip("scipy.special")


def _rng(seed):
    return np.random.default_rng(seed)


# ---- the special functions against SciPy ---------------------------------------------------

def _points():
    r = _rng(0)
    edges = [0.0, -0.0, 1.0, 2.0, -1.0, -2.5, 1.4616321449683623, 0.5, np.inf, -np.inf, np.nan, 1e-300, 171.5,
             172.0, -2.0000076, -8.4e-6, 1e-9, 35.0]
    return np.concatenate([r.uniform(-30, 30, 1500), r.uniform(0, 3, 1500), 10 ** r.uniform(-8, 8, 800),
                           -(10 ** r.uniform(-8, 3, 800)), edges])


def _agree(got, want, rtol=1e-12, atol=1e-14):
    got, want = np.asarray(got), np.asarray(want)
    same = (np.isnan(got) & np.isnan(want)) | (got == want)
    with np.errstate(invalid="ignore"):
        close = np.abs(got - want) <= atol + rtol * np.abs(want)
    bad = ~(same | close)
    assert not bad.any(), (np.flatnonzero(bad)[:5], got[bad][:5], want[bad][:5])


UNARY = ["gammaln", "gamma", "rgamma", "digamma", "psi", "erf", "erfc", "ndtr", "log_ndtr", "expit", "log_expit",
         "entr"]


@pytest.fixture(scope="module")
def special():
    from srcdiff.backend.numba import special
    return special


def _compiled(function, arity):
    if arity == 1:
        return numba.njit(lambda x: function(x))
    return numba.njit(lambda x, y: function(x, y))


def test_one_argument_functions_agree_with_scipy(special):
    from srcdiff.backend.numba.scipy_calls import helper_name
    x = _points()
    for name in UNARY:
        got = _compiled(getattr(special, helper_name(name)), 1)(x)
        with np.errstate(all="ignore"):
            _agree(got, getattr(sc, name)(x))


def test_functions_of_a_probability_agree_with_scipy(special):
    r = _rng(1)
    p = np.concatenate([r.uniform(0, 1, 2000), 10 ** r.uniform(-300, 0, 1000), 1 - 10 ** r.uniform(-16, 0, 1000),
                        [0.0, 1.0, 0.5, 0.5 + 1e-12, -1.0, 2.0, np.nan]])
    with np.errstate(all="ignore"):
        _agree(_compiled(special.scipy_logit, 1)(p), sc.logit(p))
        _agree(_compiled(special.scipy_ndtri, 1)(p), sc.ndtri(p))


@pytest.mark.parametrize("order", [0, 1, 2, 3, 5])
def test_polygamma_agrees_with_scipy(special, order):
    x = _points()
    with np.errstate(all="ignore"):
        _agree(_compiled(special.scipy_polygamma, 2)(float(order), x), sc.polygamma(order, x))
    assert np.isnan(_compiled(special.scipy_polygamma, 2)(1.5, 2.0))  # a fractional order, as SciPy


@pytest.mark.slow
def test_two_argument_functions_agree_with_scipy(special):
    x = _points()
    y = _rng(2).permutation(x)
    for name in ("xlogy", "xlog1py", "rel_entr"):
        with np.errstate(all="ignore"):
            _agree(_compiled(getattr(special, f"scipy_{name}"), 2)(x, y), getattr(sc, name)(x, y), rtol=5e-12)
    r = _rng(3)
    a, b = 10 ** r.uniform(-3, 2.5, 2000), 10 ** r.uniform(-3, 2.5, 2000)
    a = np.concatenate([a, [1e7, 3.0, -2.0, -2.0, -1.5, 0.0]])
    b = np.concatenate([b, [0.5, 1e8, 1.0, 4.0, 2.0, 1.0]])
    for name in ("betaln", "beta"):
        with np.errstate(all="ignore"):
            _agree(_compiled(getattr(special, f"scipy_{name}"), 2)(a, b), getattr(sc, name)(a, b), rtol=5e-12)


@pytest.mark.slow
def test_broadcasting_and_dtypes_follow_scipy(special):
    f = _compiled(special.scipy_xlogy, 2)
    a, b = np.arange(1.0, 7.0).reshape(2, 3), np.arange(3, dtype=np.float32) + 1.5
    np.testing.assert_allclose(f(a, b), sc.xlogy(a, b), rtol=1e-12)
    np.testing.assert_allclose(f(a.T[::2], 3.0), sc.xlogy(a.T[::2], 3.0), rtol=1e-12)
    np.testing.assert_allclose(f(2.0, a[:, 1]), sc.xlogy(2.0, a[:, 1]), rtol=1e-12)
    assert f(b, b).dtype == np.float32 and f(np.arange(3), b).dtype == np.float64
    g = _compiled(special.scipy_gammaln, 1)
    assert g(b).dtype == np.float32 and g(a).dtype == np.float64
    assert g(2.5) == pytest.approx(sc.gammaln(2.5), rel=1e-14)


# ---- programs calling SciPy's special functions, under numba ---------------------------------

def negbin_loglik(log_r, k):
    from scipy.special import digamma, gammaln  # noqa: F401  the name is read by the program below
    r = np.exp(log_r)
    return np.sum(gammaln(k + r) - gammaln(r) - gammaln(k + 1.0) + r * log_r - (r + k) * np.log1p(r))


def logistic_terms(w, x, y):
    z = x @ w
    return np.sum(sc.xlogy(y, sc.expit(z)) + sc.xlog1py(1.0 - y, -sc.expit(z))) + np.sum(sc.log_expit(-z))


def probit(w, x):
    z = x @ w
    return np.sum(sc.log_ndtr(z)) + np.sum(sc.ndtr(z * 0.5)) + np.sum(sc.erf(z) * sc.erfc(z))


def gamma_family(a):
    return np.sum(sc.digamma(a) * sc.betaln(a, 2.5) + sc.polygamma(1, a)) + np.sum(sc.gamma(a) * sc.rgamma(a + 1.0))


def logit_entropy(p):
    return np.sum(sc.logit(p) ** 2) + np.sum(sc.entr(p)) + np.sum(sc.rel_entr(p, 0.3))


def scalar_gammaln(t):
    from scipy import special
    return special.gammaln(t) * special.psi(t) + sc.ndtri(0.2 + 0.1 * t)


SCIPY_PROGRAMS = [
    ("negative binomial (gammaln, digamma in the adjoint)", negbin_loglik,
     (_rng(4).normal(size=4) * 0.3, np.array([0.0, 2.0, 5.0, 1.0])), 0, True),
    ("xlogy, xlog1py, expit, log_expit", logistic_terms,
     (_rng(5).normal(size=3), _rng(6).normal(size=(5, 3)), np.array([0.0, 1.0, 1.0, 0.0, 1.0])), 0, False),
    ("log_ndtr, ndtr, erf, erfc", probit, (_rng(7).normal(size=3), _rng(8).normal(size=(4, 3))), 0, False),
    ("digamma, betaln, polygamma, gamma, rgamma", gamma_family, (np.array([0.7, 1.5, 3.2]),), 0, False),
    ("logit, entr, rel_entr", logit_entropy, (np.array([0.2, 0.45, 0.7]),), 0, False),
    ("a number: gammaln, psi, ndtri by a module alias", scalar_gammaln, (1.3,), 0, False),
]


def _check(func, args, wrt, rtol=1e-5):
    got = srcdiff.grad(func, wrt=wrt, jit="numba")(*args)
    plain = srcdiff.grad(func, wrt=wrt)(*args)
    assert np.shape(got) == np.shape(args[wrt])
    np.testing.assert_allclose(got, central_difference(func, args, wrt), rtol=rtol, atol=1e-6)
    np.testing.assert_allclose(got, plain, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("func", "args", "wrt"), [
    pytest.param(f, a, w, id=name, marks=() if default else pytest.mark.slow)
    for name, f, a, w, default in SCIPY_PROGRAMS])
def test_scipy_special_programs_under_numba(func, args, wrt):
    _check(func, args, wrt)


@pytest.mark.slow
def test_scipy_special_in_float32_stays_float32():
    w = _rng(9).normal(size=3).astype(np.float32)
    x = _rng(10).normal(size=(5, 3)).astype(np.float32)
    y = np.array([0.0, 1.0, 1.0, 0.0, 1.0], dtype=np.float32)
    got = srcdiff.grad(logistic_terms, jit="numba")(w, x, y)
    assert got.dtype == np.float32
    want = central_difference(logistic_terms, (w.astype(float), x.astype(float), y.astype(float)), 0)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-4)


# ---- NumPy's array building calls and products numba lacks ----------------------------------

def tiled(x, w):
    return np.sum(np.tile(x, (2, 3)) * w) + np.sum(np.tile(x[0], 2) ** 2)


def repeated(x, w):
    return np.sum(np.repeat(x, 2, axis=-1) * w[:, :6]) + np.sum(np.repeat(x, [1, 3], axis=0) ** 2)


def squeezed(x, y):
    return np.sum(np.squeeze(x, axis=0) * y) + np.sum(np.squeeze(x[:, :, None], axis=(0, 2)) ** 3)


def dtype_tests(x):
    scale = np.ndim(x) * np.issubdtype(x.dtype, np.floating) + np.issubdtype(np.result_type(x), np.floating)
    return np.sum(x * np.ones_like(x, dtype=float) * scale) + np.sum(np.full_like(x, 2.0, dtype=float) * x ** 2)


def contracted(x, y, z):
    return np.sum(np.tensordot(x, y) ** 2) + np.sum(np.tensordot(x, z, axes=([0, 2], [2, 1])) ** 2) + \
        np.sum(np.tensordot(x[0], z[0], axes=1))


def stacked_rows(x, y):
    return np.sum(np.vstack([x, y]) ** 2 * np.arange(9.0).reshape(3, 3))


def real_parts(x):
    return np.sum(np.real(x) * np.sin(np.real(x)))


def cholesky_factor(a, w):
    return np.sum(np.linalg.cholesky(a @ a.T + 3.0 * np.eye(3)) * w)


def stack_times_vector(x, v):
    return np.sum((x @ v) ** 2) + np.sum((v[:3] @ x) ** 2)


def inner_zero_d(x, y):
    return np.sum(np.inner(np.asarray(x), y) ** 2)


def masked_and_paired(x):
    m = x[0] > 0.0  # (a 2-D mask numba cannot index with: refused)
    rows, cols = np.array([0, 1, 1, 0]), np.array([2, 0, 2, 2])
    return np.sum(x[0][m] ** 2) + np.sum(x[rows, cols] ** 3)


def triangle_area(v):
    a, b, c = v[0], v[1], v[2]
    return 0.5 * np.linalg.norm(np.cross(b - a, c - a))


def mesh_area(vertices, faces):
    a = vertices[faces[:, 1]] - vertices[faces[:, 0]]
    b = vertices[faces[:, 2]] - vertices[faces[:, 0]]
    n = np.cross(a, b)
    return 0.5 * np.sum(np.sqrt(np.sum(n * n, axis=1)))


def shoelace(x, y):
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def heat(u):
    lap = np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1) + np.roll(u, -3, axis=-1) - 4.0 * u
    return np.sum(lap ** 2)


def smoothness(x):
    d2 = np.diff(x, n=2)
    return np.sum(d2 ** 2) + np.sum(np.diff(x.reshape(2, -1), axis=1) ** 2) + \
        np.sum(np.diff(x.reshape(2, -1), n=2, axis=-1) ** 3)


def zero_dimensional_writes(x):
    out = np.zeros(())
    out[()] = x[0] * 3.0
    return out * x[1] + np.sum(np.asarray(x[2])[()] ** 2)


def appended(x):
    values = []
    for k in range(3):
        values.append(x[k] * (k + 1.0))
    return np.sum(np.stack(values) ** 2)


def resampled(y, xs):
    grid = np.linspace(0.0, 1.0, len(y))
    return np.sum(np.sin(np.interp(xs, grid, y))) + np.interp(0.3, grid, y) ** 2


ARRAY_PROGRAMS = [
    ("np.interp: the knots' values", resampled,
     (_rng(49).normal(size=5), np.array([-0.2, 0.1, 0.25, 0.6, 1.0, 1.3, 0.0, 0.93])), 0, False),
    ("np.interp: the query points", resampled,
     (_rng(49).normal(size=5), np.array([-0.2, 0.1, 0.3, 0.6, 0.99, 1.3, 0.07, 0.93])), 1, False),
    ("v[()] of a number and of a 0-d array", zero_dimensional_writes, (_rng(47).normal(size=3),), 0, False),
    ("np.stack of numbers appended to a list", appended, (_rng(48).normal(size=3),), 0, False),
    ("np.cross of two vectors", triangle_area, (_rng(40).normal(size=(3, 3)),), 0, True),
    ("np.cross of rows", mesh_area, (_rng(41).normal(size=(5, 3)), np.array([[0, 1, 2], [1, 3, 4], [4, 2, 0]])), 0,
     False),
    ("np.roll of a vector", shoelace, (_rng(42).normal(size=5), _rng(43).normal(size=5)), 0, True),
    ("np.roll along axes", heat, (_rng(44).normal(size=(4, 5)),), 0, False),
    ("np.diff: n=, axis=", smoothness, (_rng(45).normal(size=8),), 0, False),
    ("np.tile", tiled, (_rng(11).normal(size=(2, 3)), _rng(12).normal(size=(4, 9))), 0, True),
    ("np.repeat along an axis, counts per item", repeated, (_rng(13).normal(size=(2, 3)), _rng(14).normal(size=(2, 6))),
     0, False),
    ("np.squeeze of given axes", squeezed, (_rng(15).normal(size=(1, 3)), _rng(16).normal(size=3)), 0, False),
    ("np.ndim, issubdtype, ones_like/full_like with dtype", dtype_tests, (_rng(17).normal(size=(2, 3)),), 0, False),
    ("np.tensordot: default, pairs of axes, one axis", contracted,
     (_rng(18).normal(size=(2, 3, 4)), _rng(19).normal(size=(3, 4, 2)), _rng(20).normal(size=(5, 4, 2))), 0, False),
    ("np.tensordot, the second operand", contracted,
     (_rng(18).normal(size=(2, 3, 4)), _rng(19).normal(size=(3, 4, 2)), _rng(20).normal(size=(5, 4, 2))), 2, False),
    ("np.vstack of a row and a matrix", stacked_rows, (_rng(21).normal(size=3), _rng(22).normal(size=(2, 3))), 1,
     False),
    ("np.real", real_parts, (_rng(23).normal(size=4),), 0, False),
    ("np.linalg.cholesky", cholesky_factor, (_rng(24).normal(size=(3, 3)), _rng(25).normal(size=(3, 3))), 0, False),
    ("a stack of matrices times a vector", stack_times_vector,
     (_rng(26).normal(size=(2, 3, 4)), _rng(27).normal(size=4)), 0, False),
    ("a stack of matrices times a vector, the vector", stack_times_vector,
     (_rng(26).normal(size=(2, 3, 4)), _rng(27).normal(size=4)), 1, False),
    ("np.inner of a 0-d array", inner_zero_d, (1.7, _rng(28).normal(size=(2, 3))), 1, False),
    ("a boolean mask and a pair of index arrays", masked_and_paired, (_rng(29).normal(size=(2, 3)),), 0, False),
]


@pytest.mark.parametrize(("func", "args", "wrt"), [
    pytest.param(f, a, w, id=name, marks=() if default else pytest.mark.slow)
    for name, f, a, w, default in ARRAY_PROGRAMS])
def test_array_calls_under_numba(func, args, wrt):
    _check(func, args, wrt)


@pytest.mark.slow
def test_tile_and_tensordot_in_float32():
    x = _rng(30).normal(size=(2, 3)).astype(np.float32)
    w = _rng(31).normal(size=(4, 9)).astype(np.float32)
    got = srcdiff.grad(tiled, jit="numba")(x, w)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, central_difference(tiled, (x.astype(float), w.astype(float)), 0), rtol=1e-4,
                               atol=1e-4)


@pytest.mark.slow
def test_roll_and_diff_in_float32():
    u = _rng(46).normal(size=(4, 5)).astype(np.float32)
    got = srcdiff.grad(heat, jit="numba")(u)  # (numba computes float32 times 2.0 in float64: the dtype is numba's)
    np.testing.assert_allclose(got, central_difference(heat, (u.astype(float),), 0), rtol=1e-4, atol=1e-3)


def test_a_repeat_whose_counts_do_not_fit_raises_as_numpy_does():
    def wrong_counts(x):
        return np.sum(np.repeat(x, [1, 2, 3], axis=0) ** 2)
    x = _rng(32).normal(size=(2, 3))
    with pytest.raises((ValueError, srcdiff.SrcDiffError)):
        srcdiff.grad(wrong_counts, jit="numba")(x)
