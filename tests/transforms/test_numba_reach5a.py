"""jit="numba" on library code it refused before: SciPy's ``logsumexp`` / ``softmax`` /
``log_softmax`` differentiated by their rules (never through SciPy's array-API source) with
numba versions of their values (backend/numba/scipy_reductions.py); the Bessel functions,
``gammainc`` and ``erfinv`` called in SciPy's compiled code (backend/numba/cython_special.py).

Each program's numba gradient agrees with float64 central differences and with the plain
NumPy gradient; the numba functions agree with SciPy's own; float32 stays float32.  numba
compiles for seconds per program: most programs are marked slow, one of each class runs by
default.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

numba = pytest.importorskip("numba")
sc = pytest.importorskip("scipy.special")
from scipy.special import log_softmax, logsumexp, softmax  # noqa: E402  after the skip


def _rng(seed):
    return np.random.default_rng(seed)


def _check(func, args, wrt=0, rtol=1e-5):
    got = srcdiff.grad(func, wrt=wrt, jit="numba")(*args)
    plain = srcdiff.grad(func, wrt=wrt)(*args)
    assert np.shape(got) == np.shape(args[wrt])
    np.testing.assert_allclose(got, central_difference(func, args, wrt), rtol=rtol, atol=1e-6)
    np.testing.assert_allclose(got, plain, rtol=1e-10, atol=1e-12)
    return got


def _case(name, func, args, wrt=0, default=False):
    return pytest.param(func, args, wrt, id=name, marks=() if default else pytest.mark.slow)


# ---- logsumexp, softmax, log_softmax: the numba functions against SciPy ---------------------

@pytest.fixture(scope="module")
def reductions():
    from srcdiff.backend.numba import scipy_reductions
    return scipy_reductions


def test_logsumexp_agrees_with_scipy(reductions):
    lse = reductions.scipy_logsumexp
    a = _rng(0).normal(size=(3, 4, 2)) * 30.0
    b = _rng(1).uniform(0.5, 2.0, size=(4, 1))
    cases = [(numba.njit(lambda a: lse(a, 1, None, False)), (a,), dict(axis=1)),
             (numba.njit(lambda a: lse(a, -1, None, True)), (a,), dict(axis=-1, keepdims=True)),
             (numba.njit(lambda a: lse(a, None, None, False)), (a,), {}),
             (numba.njit(lambda a, b: lse(a, (0, 2), b, True)), (a, b), dict(axis=(0, 2), keepdims=True)),
             (numba.njit(lambda a, b: lse(a, None, b, False)), (a, b), {})]
    for compiled, args, options in cases:
        want = sc.logsumexp(args[0], b=args[1] if len(args) > 1 else None, **options)
        got = compiled(*args)
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-13)
    edges = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [0.0, 1.0], [1e300, 1e300], [np.nan, 0.0]])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(numba.njit(lambda a: lse(a, 1, None, False))(edges),
                                      sc.logsumexp(edges, axis=1))


@pytest.mark.slow  # numba compiles SciPy's three reductions for two dtypes: 20 s; the programs below use them
def test_softmax_and_log_softmax_agree_with_scipy(reductions):
    x = _rng(2).normal(size=(4, 3)) * 10.0
    soft = numba.njit(lambda x: reductions.scipy_softmax(x, 0))
    log_soft = numba.njit(lambda x: reductions.scipy_log_softmax(x, None))
    np.testing.assert_allclose(soft(x), softmax(x, axis=0), rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(log_soft(x), log_softmax(x), rtol=1e-13, atol=1e-14)  # sums in another order
    x32 = x.astype(np.float32)
    assert soft(x32).dtype == np.float32 and log_soft(x32).dtype == np.float32
    assert numba.njit(lambda a: reductions.scipy_logsumexp(a, 1, None, False))(x32).dtype == np.float32


# ---- programs calling them --------------------------------------------------------------

def mixture(locs, x):
    comps = -0.5 * (x[:, None] - locs[None, :]) ** 2
    return np.sum(logsumexp(comps, axis=1) * x)


def weighted_mixture(locs, x):
    comps = -0.5 * (x[:, None] - locs[None, :]) ** 2
    return np.sum(logsumexp(comps, 1, b=locs ** 2 + 0.5, keepdims=True))


def weights_gradient(w, x):
    return logsumexp(x, b=np.exp(w)) + np.sum(logsumexp(np.outer(x, w), axis=0, b=w * w))


def log_normaliser(z):
    return np.sum(z * np.arange(4.0) - logsumexp(z))


def softmax_terms(z):
    return np.sum(sc.softmax(z, axis=0) * np.arange(4.0)) + np.sum(sc.log_softmax(z * 2)[1])


def attention(q, k):
    scores = q @ k.T / np.sqrt(3.0)
    p = softmax(scores, axis=-1)
    return np.sum(p * np.log(p + 1.0)) - np.sum(log_softmax(scores, axis=1)[:, 0])


def classifier(w, x, labels):
    logits = x @ w
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(logp[np.arange(len(labels)), labels])


def scalar_logsumexp(t):
    return logsumexp(np.array([t, 2.0 * t, -t])) * t


PROGRAMS = [
    _case("mixture: logsumexp along an axis", mixture, (_rng(3).normal(size=3), _rng(4).normal(size=6)),
          default=True),
    _case("weights b and keepdims, by position", weighted_mixture, (_rng(5).normal(size=3), _rng(6).normal(size=6))),
    _case("the gradient to the weights b", weights_gradient, (_rng(7).normal(size=3), _rng(8).normal(size=3))),
    _case("a whole-array logsumexp", log_normaliser, (_rng(9).normal(size=4),)),
    _case("softmax and log_softmax, scipy.special's attribute", softmax_terms, (_rng(10).normal(size=4),),
          default=True),
    _case("attention: softmax along the last axis", attention, (_rng(11).normal(size=(2, 3)),
                                                                _rng(12).normal(size=(4, 3)))),
    _case("a classifier: keepdims", classifier, (_rng(13).normal(size=(3, 4)), _rng(14).normal(size=(5, 3)),
                                                np.array([0, 3, 1, 2, 0]))),
    _case("a number through logsumexp", scalar_logsumexp, (0.7,)),
]


@pytest.mark.parametrize(("func", "args", "wrt"), PROGRAMS)
def test_scipy_reductions_under_numba(func, args, wrt):
    _check(func, args, wrt)


def test_the_rule_differentiates_logsumexp_not_scipys_source():
    source = srcdiff.grad(weighted_mixture).source
    assert "logsumexp_vjp" not in source and "xp_size" not in source
    assert "logsumexp(comps, 1, b=" in source  # SciPy's own function gives the value


def test_return_sign_still_reads_scipys_source():
    def signed(a):
        value, sign = logsumexp(a, return_sign=True)
        return value * sign
    a = _rng(15).normal(size=4)
    np.testing.assert_allclose(srcdiff.grad(signed)(a), central_difference(signed, (a,), 0), rtol=1e-6)


@pytest.mark.slow
def test_scipy_reductions_in_float32_stay_float32():
    w = _rng(16).normal(size=(3, 4)).astype(np.float32)
    x = _rng(17).normal(size=(5, 3)).astype(np.float32)
    got = srcdiff.grad(classifier, jit="numba")(w, x, np.array([0, 3, 1, 2, 0]))
    assert got.dtype == np.float32
    want = central_difference(classifier, (w.astype(np.float64), x.astype(np.float64), np.array([0, 3, 1, 2, 0])), 0)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-4)


# ---- SciPy's compiled special functions (cython_special) ----------------------------------

def _compiled(function, arity):
    if arity == 1:
        return numba.njit(lambda x: function(x))
    return numba.njit(lambda x, y: function(x, y))


def test_cython_special_functions_are_scipys_own(special_module):
    from srcdiff.backend.numba.cython_special import EXPORTS
    x = np.concatenate([np.linspace(-5.0, 30.0, 41), [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-300]])
    p = np.concatenate([np.linspace(-0.999, 0.999, 21), [-1.0, 1.0, 0.0, 2.0]])
    for name, (_, arity) in EXPORTS.items():
        f = getattr(special_module, f"scipy_{name}")
        with np.errstate(all="ignore"):
            if arity == 1:
                arg = p + (1.0 if name == "erfcinv" else 0.0) if "inv" in name else x
                got, want = _compiled(f, 1)(arg), getattr(sc, name)(arg)
            else:
                got, want = _compiled(f, 2)(2.0, np.abs(x)), getattr(sc, name)(2.0, np.abs(x))
        np.testing.assert_array_equal(got, want, err_msg=name)
    j0 = numba.njit(lambda a: special_module.scipy_j0(a))
    assert j0(x.astype(np.float32)).dtype == np.float32 and j0(2.0) == sc.j0(2.0)


@pytest.fixture(scope="module")
def special_module():
    from srcdiff.backend.numba import special
    return special


def bessel_terms(x):
    return np.sum(sc.j0(x) * sc.i1(x) + sc.y1(x + 3.0) - sc.i0e(x)) + np.sum(sc.jv(2.5, x) * sc.iv(1, x))


def incomplete_gamma(x):
    return np.sum(sc.gammainc(2.5, x) * x) + np.sum(sc.gammaincc(1.5, x * 2.0))


def inverse_error(p):
    return np.sum(sc.erfinv(p) ** 2) + np.sum(sc.erfcinv(1.0 - 0.5 * p))


def bessel_yn(x):
    from scipy.special import yn  # noqa: F401  the name is read by the program
    return np.sum(yn(2, x) * x) + np.sum(sc.i1e(x) * sc.yv(0.5, x))


COMPILED = [
    _case("Bessel j0, i1, y1, i0e, jv, iv", bessel_terms, (np.array([0.4, 1.3, 2.2, 3.9]),), default=True),
    _case("gammainc, gammaincc", incomplete_gamma, (np.array([0.4, 1.3, 2.2]),)),
    _case("erfinv, erfcinv", inverse_error, (np.array([-0.6, 0.1, 0.7]),)),
    _case("yn, i1e, yv by a name imported from SciPy", bessel_yn, (np.array([0.6, 1.7]),)),
]


@pytest.mark.parametrize(("func", "args", "wrt"), COMPILED)
def test_scipy_compiled_functions_under_numba(func, args, wrt):
    _check(func, args, wrt)


# ---- numerical calculus and the decompositions' run-time helpers ---------------------------

def cumprod_weighted(x):
    return np.sum(np.cumprod(x) * np.arange(1.0, 6.0))


def sorted_weights(x):
    return np.sum(np.sort(x) * np.arange(1.0, 6.0))


def polynomial(p, x):
    return np.sum(np.polyval(p, x) ** 2) + np.polyval(p, 0.5)


def padded_differences(x):
    return np.sum(np.diff(x, prepend=0.0, append=x[0]) ** 2) + np.sum(np.diff(x, prepend=x[:2]) * x[:1])


def finite_gradients(x):
    return np.sum(np.gradient(x) ** 2) + np.sum(np.gradient(x, 0.5, edge_order=2) * x)


def moving_grid(x):
    return np.sum(np.linspace(x[0], x[1], 5) ** 2) + np.sum(np.linspace(x[2], x[3], 4, endpoint=False) * x[4])


def singular_values(m):
    return np.sum(np.linalg.svd(m, compute_uv=False) ** 2 * np.array([3.0, 2.0, 1.0]))


def symmetric_spectrum(m):
    return np.sum(np.linalg.eigvalsh(m + m.T) ** 3) + np.sum(np.linalg.eigvalsh(m @ m.T, UPLO="U") * np.arange(3.0))


def matrix_norms(m):
    return (np.linalg.norm(m, 2) + np.linalg.norm(m, -2) + np.linalg.norm(m, "nuc") + np.linalg.norm(m, 1)
            + np.linalg.norm(m, -1) + np.linalg.norm(m, np.inf) + np.linalg.norm(m, -np.inf))


def eigenpairs(m):
    w, v = np.linalg.eigh(m + m.T)
    return np.sum(w ** 2) + np.sum(v[:, 0] ** 2 * np.arange(3.0))


def eigenvalues_of_eigh(m):
    w, _ = np.linalg.eigh(m, UPLO="U")  # m is not symmetric: its upper triangle is read
    return np.sum(w ** 3) + np.sum(np.linalg.eigvalsh(m, "L") * np.arange(3.0))


def thin_svd(m):
    u, s, vt = np.linalg.svd(m, full_matrices=False)
    return np.sum(u[:, 0] * s[0]) + np.sum(vt ** 2 * np.arange(3.0)) + np.sum(s * np.array([1.0, 0.5, 0.2]))


def singular_values_of_svd(m):
    _, s, _ = np.linalg.svd(m)
    return np.sum(s ** 2)


def qr_parts(m):
    q, r = np.linalg.qr(m)
    return np.sum(r ** 2 * np.arange(3.0)) + np.sum(q[:, 0] * np.array([1.0, -2.0, 0.5, 1.5]))


MATRIX = _rng(20).normal(size=(3, 3)) + np.diag([3.0, 1.0, -2.0])
TALL = _rng(26).normal(size=(4, 3))
CALCULUS = [
    _case("cumprod", cumprod_weighted, (np.array([0.7, -1.2, 1.5, 0.4, 2.0]),), default=True),
    _case("cumprod through a zero", cumprod_weighted, (np.array([0.7, -1.2, 0.0, 0.4, 2.0]),)),
    _case("sort", sorted_weights, (np.array([0.3, -1.0, 2.2, 0.9, -0.4]),)),
    _case("polyval: the coefficients", polynomial, (_rng(21).normal(size=4), np.array([0.2, -0.7, 1.1]))),
    _case("polyval: the points", polynomial, (_rng(22).normal(size=4), np.array([0.2, -0.7, 1.1])), wrt=1),
    _case("diff with prepend and append", padded_differences, (_rng(23).normal(size=5),)),
    _case("np.gradient, both edge orders", finite_gradients, (_rng(24).normal(size=6),)),
    _case("linspace of differentiated endpoints", moving_grid, (_rng(25).normal(size=5),)),
    _case("the singular values", singular_values, (MATRIX,), default=True),
    _case("eigvalsh, both triangles", symmetric_spectrum, (MATRIX,)),
    _case("the matrix norms", matrix_norms, (MATRIX,)),
    _case("eigh: eigenvalues and eigenvectors", eigenpairs, (MATRIX,), default=True),
    _case("eigh: the eigenvalues only, upper triangle", eigenvalues_of_eigh, (MATRIX,)),
    _case("the thin svd: every part", thin_svd, (TALL.T @ TALL + MATRIX,)),
    _case("svd: the singular values only", singular_values_of_svd, (MATRIX,)),
    _case("qr of a tall matrix", qr_parts, (TALL,)),
]


@pytest.mark.parametrize(("func", "args", "wrt"), CALCULUS)
def test_calculus_and_decompositions_under_numba(func, args, wrt):
    _check(func, args, wrt)


@pytest.mark.slow
def test_decomposition_helpers_keep_float32():
    m = MATRIX.astype(np.float32)
    for func in (singular_values, symmetric_spectrum, matrix_norms, eigenpairs):
        got = srcdiff.grad(func, jit="numba")(m)
        assert got.dtype == np.float32, func.__name__
        np.testing.assert_allclose(got, central_difference(func, (MATRIX,), 0), rtol=2e-3, atol=2e-3)


# ---- NumPy calls numba takes otherwise ------------------------------------------------------

def angle_between(a, b):
    c = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
    return np.arccos(np.clip(c, -1.0, 1.0)) + np.clip(a[0], None, 0.5) * np.clip(b[1] * 3.0, -0.2, 0.2)


def causal_mask(w, x):
    n = x.shape[0]
    scores = (x @ w) @ x.T
    causal = np.tril(np.ones((n, n), dtype=bool))
    return np.sum(np.where(causal, scores, 0.0) ** 2) + np.sum(np.zeros((n, 2), dtype=float) + w[0])


SPELLED = [
    _case("np.clip of numbers", angle_between, (np.array([0.3, -1.2, 0.8]), np.array([0.5, 0.1, -0.7])), default=True),
    _case("np.ones(..., dtype=bool)", causal_mask, (_rng(27).normal(size=(2, 2)), _rng(28).normal(size=(3, 2)))),
]


@pytest.mark.parametrize(("func", "args", "wrt"), SPELLED)
def test_numpy_spellings_under_numba(func, args, wrt):
    _check(func, args, wrt)


# ---- scipy.signal's 1-D convolutions ------------------------------------------------------------

def test_convolutions_agree_with_scipy():
    import scipy.signal as signal

    from srcdiff.backend.numba.convolutions import signal_convolve, signal_correlate
    every = numba.njit(lambda a, v: (signal_convolve(a, v, "full"), signal_convolve(a, v, "same"),
                                     signal_convolve(a, v, "valid"), signal_correlate(a, v, "full"),
                                     signal_correlate(a, v, "same"), signal_correlate(a, v, "valid")))
    r = _rng(29)
    for n, m in ((6, 3), (3, 6), (5, 5), (4, 1), (1, 4), (7, 2)):
        a, v = r.normal(size=n), r.normal(size=m)
        want = [f(a, v, mode=mode) for f in (signal.convolve, signal.correlate) for mode in ("full", "same", "valid")]
        for got, expected in zip(every(a, v), want):
            assert got.shape == expected.shape
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-13)


def smoothing(x, k):
    import scipy.signal
    y = scipy.signal.convolve(x, k, mode="same")
    return np.sum((y - x) ** 2) + np.sum(scipy.signal.correlate(x, k, "valid", method="direct") * x[:4])


CONVOLUTIONS = [
    _case("scipy.signal.convolve, correlate: the signal", smoothing, (_rng(30).normal(size=6),
                                                                      np.array([0.25, 0.5, 0.3])), default=True),
    _case("scipy.signal.convolve, correlate: the kernel", smoothing, (_rng(31).normal(size=6),
                                                                      np.array([0.25, 0.5, 0.3])), wrt=1),
]


@pytest.mark.parametrize(("func", "args", "wrt"), CONVOLUTIONS)
def test_scipy_convolutions_under_numba(func, args, wrt):
    _check(func, args, wrt)
