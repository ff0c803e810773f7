"""What the red team's eleventh wave found and fixed, each a class with variants of its own, through
every transformation.  References are float64 central differences of the function (the matrix's
own through `matrix.run`, tests/numeric.py for values written out here)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.special
import scipy.stats
from numeric import central_difference

import srcdiff

from .corpus import Program
from .matrix import FIRST_ORDER, assert_every_transformation, assert_numba_agrees_or_refuses, assert_ok, not_ok, run

HERE = "test_redteam_wave11_findings.py"


def _program(f, *args, wrt=0) -> Program:
    return Program(f"w11_findings:{f.__name__}", f, args, wrt, HERE)


# ---- 1. zip(xs, itertools.count(k)) crashed the generated code, and check called it a MISMATCH --------
# ``sum(p * w for p, w in zip(partial, itertools.count(1)))``: the count was kept as an opaque value and
# the loop over the zip asked for ``len(count)``: a TypeError inside the gradient (reported at the
# user's line, as if the code were wrong), which `srcdiff.check` took for an error of the gradient and
# reported as "MISMATCH" on a function whose gradient was never computed.  FIXED: lower/loops.py reads
# ``itertools.count(start, step)`` inside a zip as the finite list zip takes of it,
# ``[start + step * n for n in range(len(xs))]``; a zip of counts only is refused at its line.


def count_weights(x):
    return sum(p * w for p, w in zip(x * x, itertools.count(1)))


def accumulated_count(x):
    partial = list(itertools.accumulate(x * x))
    return sum(p * w for p, w in zip(partial, itertools.count(1)))


def float_count_loop(x):
    total = 0.0
    for xi, t in zip(x, itertools.count(0.5, 0.25)):
        total = total + math.sin(t) * xi ** 2
    return total


def keyword_count_first(x):
    return sum(a * k for k, a in zip(itertools.count(start=2, step=3), np.tanh(x)))


def count_with_n_outside(x):
    n = 3.0  # the list zip reads of the count names its index n: the user's n is another
    total = sum(a * k for a, k in zip(x, itertools.count()))
    return total * n + n


COUNTED = [count_weights, accumulated_count, float_count_loop, keyword_count_first, count_with_n_outside]
X4 = np.array([0.3, -1.2, 0.8, 0.5])


def test_zip_with_itertools_count_in_float32_and_numba():
    x = X4.astype(np.float32)
    got = srcdiff.grad(count_weights)(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, 2 * x * np.arange(1, 5), rtol=1e-6)
    assert_numba_agrees_or_refuses(_program(float_count_loop, X4))


def count_only(x):
    total = 0.0
    for a, b in zip(itertools.count(), itertools.count(1)):
        total = total + x * a * b
        if a > 2:
            break
    return total


def test_a_zip_of_counts_only_is_refused_at_its_line():
    with pytest.raises(srcdiff.SrcDiffError, match="never ends") as info:
        srcdiff.grad(count_only)(0.5)
    assert HERE in str(info.value)


def test_gradcheck_no_longer_reports_a_mismatch_for_a_counted_zip():
    report = srcdiff.gradcheck(accumulated_count, X4)
    assert report, str(report)


@pytest.mark.slow
def test_check_no_longer_reports_a_mismatch_for_a_counted_zip():
    report = srcdiff.check(accumulated_count, X4, timeout=2.0, progress=False)
    assert report, str(report)


# ---- 2. arithmetic on a static parameter was refused: ``np.partition(sq, keep - 1)`` ------------------
# A parameter used as a static argument (``axis=axis``, ``kth=keep``) is specialised on its value, but
# ``keep - 1``, ``2 * k + 1`` or ``(n_seg + 1, 2)`` were refused as "must be a constant here".  FIXED:
# lower/static_values.py evaluates arithmetic on numbers and static parameters, each asked for as a
# bare one is (a new value of the parameter builds the gradient again).


def trimmed(w, X, y, keep=5):
    sq = (X @ w - y) ** 2
    return np.sum(np.partition(sq, keep - 1)[:keep])


def rolled(x, k=2):
    return np.sum(np.roll(x, 2 * k - 1) * x)


def reshaped_segments(z, n_seg=3):
    states = z.reshape(n_seg + 1, 2)
    return np.sum(np.diff(states, axis=0) ** 2) + np.sum(np.sin(states[0]))


def summed_axis_loop(X, lag=1):
    total = 0.0
    for _ in range(2):
        total = total + np.sum(X[:, lag + 1:] * X[:, :-(lag + 1)])
    return total


R = np.random.default_rng(11)
STATIC = [(trimmed, (R.normal(size=3), R.normal(size=(8, 3)), R.normal(size=8))),
          (rolled, (R.normal(size=5),)), (reshaped_segments, (R.normal(size=8),)),
          (summed_axis_loop, (R.normal(size=(3, 5)),))]


def test_arithmetic_of_a_static_parameter_takes_each_value():
    w, X, y = STATIC[0][1]
    gradient = srcdiff.grad(trimmed)
    for keep in (2, 5, 8):
        want = central_difference(lambda w_, k=keep: trimmed(w_, X, y, k), (w,), 0)
        np.testing.assert_allclose(gradient(w, X, y, keep=keep), want, rtol=1e-6, atol=1e-9)
    x = STATIC[1][1][0]
    for k in (0, 1, 3):
        np.testing.assert_allclose(srcdiff.grad(rolled)(x, k), central_difference(lambda v, k=k: rolled(v, k), (x,), 0),
                                   rtol=1e-6, atol=1e-9)


# ---- 3. rules: math.lgamma, math.gamma, math.copysign, scipy.special.erfcx ---------------------------


def math_special(t):
    a, b = t
    return math.lgamma(a) * b + math.gamma(b) + math.copysign(a * a, b - 0.5) + math.copysign(b, -1.0)


def lgamma_negative(a):
    return math.lgamma(a) + math.gamma(a) ** 2


def copysign_in_loop(x):
    total = 0.0
    for k in range(3):
        total = total + math.copysign(x - k, x + 0.5) * k
    return total


def erfcx_mills(x):
    return np.sum(np.log(scipy.special.erfcx(x)) - x ** 2)


def erfcx_tail(x):
    return np.sum(scipy.special.erfcx(3.0 * x) * x)


RULED = [(math_special, ((1.7, 0.4),)), (math_special, ((2.5, 0.9),)), (lgamma_negative, (-1.7,)),
         (copysign_in_loop, (0.8,)), (erfcx_mills, (np.array([-1.0, 0.3, 2.0, 8.0]),)),
         (erfcx_tail, (np.array([0.5, 4.0, 12.0]),))]


# ---- every class's variants through every transformation: one table ---------------------------------
# The first-order transformations run on every row; the Hessian with the rest (EVERY) is a sampled
# family (tests/sampling.py: one row in six by default, every row with ``-m slow``).

TABLE = ([(f, (X4,)) for f in COUNTED] + STATIC + RULED)
IDS = [f"{f.__name__}-{k}" for k, (f, _) in enumerate(TABLE)]


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_wave11_findings_first_order(f, args):
    row = run(_program(f, *args), ("grad", "value_and_grad", "jvp", "vjp"))
    assert not row.excluded, row.excluded
    assert not not_ok(row), not_ok(row)


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_wave11_findings_hessian_and_every_transformation(f, args):
    assert_every_transformation(_program(f, *args))


def test_erfcx_where_erfc_underflows():
    x = np.array([30.0, 100.0])
    want = 2 * x * scipy.special.erfcx(x) - 2 / np.sqrt(np.pi)
    np.testing.assert_allclose(srcdiff.grad(lambda_free_erfcx)(x), want, rtol=1e-10)
    assert np.all(np.isfinite(srcdiff.hessian(lambda_free_erfcx)(x)))


def lambda_free_erfcx(x):
    return np.sum(scipy.special.erfcx(x))


@pytest.mark.parametrize("f, x", [(erfcx_mills, np.array([-1.0, 0.3, 2.0, 8.0])),
                                  (erfcx_tail, np.array([0.5, 4.0, 12.0]))], ids=["mills", "tail"])
def test_erfcx_under_numba_is_scipys_own(f, x):  # SciPy's compiled erfcx (backend/numba/cython_special.py)
    pytest.importorskip("numba")
    np.testing.assert_allclose(srcdiff.grad(f, jit="numba")(x), central_difference(f, (x,), 0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(srcdiff.grad(f, jit="numba")(x), srcdiff.grad(f)(x), rtol=1e-13, atol=0)
    np.testing.assert_allclose(srcdiff.hessian(f, jit="numba")(x), srcdiff.hessian(f)(x), rtol=1e-12, atol=1e-300)


def test_copysign_at_zero_follows_abs():
    # |x| with a sign: abs's convention 0 at x = 0 (docs/guarantees.md), never NaN
    assert srcdiff.grad(copysign_zero)(0.0) == 0.0
    assert srcdiff.grad(copysign_zero)(0.5) == -1.0
    assert srcdiff.grad(copysign_zero)(-0.5) == 1.0


def copysign_zero(x):
    return math.copysign(x, -2.0)


# ---- 4. scipy.stats.multivariate_normal had no tangent: jvp refused what grad took -------------------
# ``-np.sum(multivariate_normal.logpdf(X, mean=mu, cov=cov))`` was differentiated by grad, vjp and hessian
# but refused by jvp ("has no tangent rule").  FIXED: rules/scipy_stats.py gives logpdf and pdf the
# transposes of their adjoints, ``-sum(Sigma^-1 (x - mean) * (x_dot - mean_dot), axis=-1)``.


def mvn_rows(mu, X):
    cov = np.array([[1.0, 0.3], [0.3, 0.5]])
    return -np.sum(scipy.stats.multivariate_normal.logpdf(X, mean=mu, cov=cov))


def mvn_diagonal_pdf(x, mu):
    return (scipy.stats.multivariate_normal.pdf(x, mu, np.array([0.5, 2.0]))
            + scipy.stats.multivariate_normal.logpdf(x, mu, 0.7))


def mvn_in_loop(mu, X):
    total = 0.0
    for scale in (0.5, 1.5):
        total = total + np.sum(scipy.stats.multivariate_normal.logpdf(X * scale, mu, np.eye(2) * scale))
    return total


MVN = [(mvn_rows, (R.normal(size=2), R.normal(size=(5, 2))), 0),
       (mvn_rows, (R.normal(size=2), R.normal(size=(5, 2))), 1),
       (mvn_diagonal_pdf, (R.normal(size=2), R.normal(size=2)), 0),
       (mvn_diagonal_pdf, (R.normal(size=2), R.normal(size=2)), 1),
       (mvn_in_loop, (R.normal(size=2), R.normal(size=(3, 2))), 0)]


@pytest.mark.parametrize("f, args, wrt", MVN, ids=[f"{f.__name__}-{w}" for f, _, w in MVN])
def test_multivariate_normal_in_forward_mode(f, args, wrt):
    assert_ok(_program(f, *args, wrt=wrt), ("jvp", "hessian"))


# ---- 5. np.block had no rule: a KKT matrix ``np.block([[Q, A.T], [A, 0]])`` was refused --------------
# FIXED: frontend/call_forms.py reads ``np.block`` of a list of rows as np.concatenate of the rows (each
# joined along the last axis, its items raised by np.atleast_2d) along the axis before, and of a flat
# list as one join of 1-D items: what np.block computes, in rules srcdiff has.


def kkt_block(Q_raw, c, A, b):
    Q = Q_raw @ Q_raw.T + np.eye(Q_raw.shape[0])
    m = A.shape[0]
    KKT = np.block([[Q, A.T], [A, np.zeros((m, m))]])
    sol = np.linalg.solve(KKT, np.concatenate([-c, b]))
    x = sol[: Q.shape[0]]
    return 0.5 * x @ Q @ x + c @ x


def flat_block(a, b):
    v = np.block([a, np.sin(b), 2.0])
    return np.sum(v ** 2 * np.arange(1.0, v.size + 1))


def rows_and_numbers_block(a, B):
    M = np.block([[a, 1.0], [B[0], B[0, 0]]])
    return np.sum(M @ M.T)


def block_in_loop(D, E):
    total = 0.0
    for k in range(2):
        M = np.block([[D * (k + 1), E], [E.T, np.eye(E.shape[1])]])
        total = total + np.sum(np.tanh(M)) + np.trace(M @ M)
    return total


BLOCKS = [(kkt_block, (0.5 * R.normal(size=(3, 3)), R.normal(size=3), R.normal(size=(1, 3)), R.normal(size=1)), 0),
          (kkt_block, (0.5 * R.normal(size=(3, 3)), R.normal(size=3), R.normal(size=(1, 3)), R.normal(size=1)), 2),
          (flat_block, (R.normal(size=2), R.normal(size=3)), 1),
          (rows_and_numbers_block, (R.normal(size=2), R.normal(size=(2, 2))), 0),
          (block_in_loop, (R.normal(size=(2, 2)), R.normal(size=(2, 3))), 1)]


@pytest.mark.parametrize("f, args, wrt", BLOCKS, ids=[f"{f.__name__}-{w}" for f, _, w in BLOCKS])
def test_np_block(f, args, wrt):
    assert_ok(_program(f, *args, wrt=wrt), FIRST_ORDER)


def test_np_block_hessian_and_float32():
    assert_every_transformation(_program(kkt_block, *BLOCKS[0][1]))
    a, b = (v.astype(np.float32) for v in BLOCKS[2][1])
    got = srcdiff.grad(flat_block, wrt=1)(a, b)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, central_difference(flat_block, (a.astype(float), b.astype(float)), 1), rtol=1e-4)
