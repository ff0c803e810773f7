"""What the red team's twelfth wave found and fixed, each a class with variants of its own, through
every transformation (and `srcdiff.vmap`, which this wave stressed).  References are float64 central
differences of the function (the matrix's own through `matrix.run`, tests/numeric.py for values
written out here), never srcdiff's."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special
from numeric import central_difference

import srcdiff

from .corpus import Program
from .matrix import assert_every_transformation, assert_numba_agrees_or_refuses, not_ok, run

HERE = "test_redteam_wave12_findings.py"
R = np.random.default_rng(12)


def _program(f, *args, wrt=0) -> Program:
    return Program(f"w12_findings:{f.__name__}", f, args, wrt, HERE)


def per_example(f, xs, *rest, wrt=0):
    """Central differences of f at each example of the batch `xs` (the batched argument `wrt`)."""
    out = []
    for x in xs:
        args = list(rest)
        args.insert(wrt, x)
        out.append(central_difference(f, args, wrt))
    return np.stack(out)


# ---- 1. a `try` body's augmented assignment crashed its probe (WRONG kind: a crash at the user's line) ----
# ``try: total += a / (b - 1.0) except ZeroDivisionError: total += a``: the probe that runs the body to
# learn which handler Python takes was given the names the body reads, and ``total += ...`` was not
# counted as a read of total: UnboundLocalError inside the generated code, reported at the user's line
# as if the code were wrong (and `srcdiff.check` crashed on it).  FIXED: frontend/try_blocks.py counts an
# augmented assignment's target as read.


def try_augmented_in_loop(x, y):
    total = 0.0
    for a, b in zip(x, y):
        try:
            total += float(a) / (b - 1.0)
        except ZeroDivisionError:
            total += float(a)
    return total


def try_augmented_minus(x, y):
    acc = 1.0
    for a, b in zip(x, y):
        try:
            acc -= float(a) * float(a) / (b - 2.0)  # Python floats raise at b == 2
        except ZeroDivisionError:
            acc -= a
    return acc


def try_augmented_product(a, b):
    scale = 2.0
    try:
        scale *= a / (b - 1.0)
    except ZeroDivisionError:
        scale *= a * a
    return scale


def try_handler_augmented(x, d):
    out = x * x
    try:
        out += 1.0 / d
    except ZeroDivisionError:
        out += x
    return out


TRIES = [(try_augmented_in_loop, (R.normal(size=3), (0.5, 1.0, 2.0))),
         (try_augmented_in_loop, (R.normal(size=3), (0.5, 3.0, 2.0))),
         (try_augmented_minus, (R.normal(size=3), (2.0, 0.5, 3.0))),
         (try_augmented_product, (0.7, 1.0)), (try_augmented_product, (0.7, 3.0)),
         (try_handler_augmented, (0.4, 0.0)), (try_handler_augmented, (0.4, 2.0))]


def test_try_with_augmented_assignment_under_check_and_numba():
    report = srcdiff.gradcheck(try_augmented_in_loop, R.normal(size=3), (0.5, 1.0, 2.0))
    assert report, str(report)
    assert_numba_agrees_or_refuses(_program(try_augmented_product, 0.7, 1.0))


# ---- 2. vmap of a function with defaults crashed (KeyError) or refused -------------------------------------
# ``srcdiff.vmap(srcdiff.grad(f))(xs)`` with ``def f(x, n=4)`` raised KeyError: 'n' (the binder of the
# gradient was given the batched arguments only); vmap of the plain function refused ("the number of
# axes ... not known").  FIXED: api/vmap.py passes the defaults a call leaves out, unbatched.


def bernstein_sum(x, n=4, scale=2.0):
    return scale * np.sum(x ** n * (1 - x))


def with_config(w, x, cfg=None):
    cfg = cfg or {"p": 2.0}
    return np.sum(np.abs(x * w) ** cfg["p"])


def test_vmap_passes_defaults():
    xs = R.uniform(0.1, 0.9, size=(3, 4))
    got = srcdiff.vmap(srcdiff.grad(bernstein_sum))(xs)
    np.testing.assert_allclose(got, per_example(bernstein_sum, xs), rtol=1e-6, atol=1e-8)
    got = srcdiff.vmap(srcdiff.grad(bernstein_sum), in_axes=(0, None))(xs, 3)
    np.testing.assert_allclose(got, per_example(bernstein_sum, xs, 3), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcdiff.vmap(bernstein_sum)(xs), [bernstein_sum(x) for x in xs])
    x = R.normal(size=4)
    np.testing.assert_allclose(srcdiff.vmap(with_config, in_axes=(0, None))(xs, x), [with_config(w, x) for w in xs])


# ---- 3. vmap of np.linalg.norm(x, ord) lost its ord: a SILENT WRONG value ----------------------------------
# ``srcdiff.vmap(lambda x: np.linalg.norm(x, np.inf))`` ran ``np.linalg.norm(x, 1)`` on the batch: the
# batching rule of reductions took ``np.linalg.norm`` for a method (its receiver ``np.linalg`` is not the
# name ``np``), so the axis went where the ord was: one number (a matrix norm) for the whole batch.
# FIXED: ad/batching_rules.py tells a module path (np.linalg, scipy.special) from a method's receiver.


def norm_inf(x):
    return np.linalg.norm(x, np.inf)


def norm_minus_inf(x):
    return np.linalg.norm(x, -np.inf) + np.linalg.norm(x, 1)


def norm_three(x):
    return np.linalg.norm(x, 3) + np.linalg.norm(x, ord=0.5)


@pytest.mark.parametrize("f", [norm_inf, norm_minus_inf, norm_three])
def test_vmap_of_a_vector_norm_keeps_its_ord(f):
    xs = np.array([[0.3, -1.7, 0.9, 1.2], [0.5, 0.2, -0.1, 0.3], [2.0, -0.4, 0.6, 0.1]])
    np.testing.assert_allclose(srcdiff.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)


# ---- 4. vmap of a test holding a call or an index: a SILENT WRONG value and gradient -----------------------
# A comparison kept whole (no gradient) was batched by substituting whole batches for its names:
# ``np.where(x > np.mean(x), ...)`` compared every example with the batch's mean, and vmap(grad) of
# ``np.max`` (whose gradient tests ``t == np.max(t)``) gave 0 for every example but the one holding
# the batch's maximum: silently wrong numbers.  FIXED: ad/batching.py batches such a test only when it
# is made of operators and elementwise NumPy calls (np.abs(r) <= c); a reduction or an index inside it
# is refused at the user's line where its value is used.


def above_mean(x):
    return np.sum(np.where(x > np.mean(x), x ** 2, 0.0))


def share_of_max(x):
    m = np.max(x)
    return np.sum(np.where(x == m, 1.0, 0.0) * x)


def first_sign(x):
    return np.sum(np.where(x[0] > 0.0, x ** 2, -x))


def huber_abs_test(x):
    return np.sum(np.where(np.abs(x) <= 1.0, 0.5 * x ** 2, np.abs(x) - 0.5))


XS = np.array([[-0.3, -1.7, 0.9, 1.2], [0.5, 0.2, -0.1, 0.3]])


def _batched_grad(f):
    return srcdiff.vmap(srcdiff.grad(f))


@pytest.mark.parametrize("f, batched", [(above_mean, srcdiff.vmap), (share_of_max, _batched_grad),
                                        (first_sign, srcdiff.vmap), (above_mean, _batched_grad)])
def test_vmap_refuses_a_test_with_a_reduction_inside(f, batched):
    with pytest.raises(srcdiff.SrcDiffError, match="computes a value inside it") as info:
        batched(f)(XS)
    assert HERE in str(info.value)


def test_vmap_batches_elementwise_calls_in_a_test():
    np.testing.assert_allclose(srcdiff.vmap(huber_abs_test)(XS), [huber_abs_test(x) for x in XS])
    got = srcdiff.vmap(srcdiff.grad(huber_abs_test))(XS)
    np.testing.assert_allclose(got, per_example(huber_abs_test, XS), rtol=1e-6, atol=1e-8)


# ---- 5. vmap of gradients through np.where, softmax, logsumexp, cumsum: refused, now batched ----------------
# The adjoint of np.where's branches (`select`) and the reductions of SciPy and the scans had no
# batching rule: vmap(grad(loss)) of a Huber loss, a mixture's logsumexp or a softmax policy refused.
# FIXED: `select_rows` (ad/batching_runtime.py) and the reduce kind for scipy.special.logsumexp /
# softmax / log_softmax, np.cumsum and np.cumprod.


def clipped(x):
    return np.sum(np.where(x > 0.25, np.sqrt(np.abs(x)), x ** 2))


def mixture(mu, x):
    lp = -0.5 * (x[:, None] - mu[None, :]) ** 2
    return -np.sum(scipy.special.logsumexp(lp, axis=1))


def policy(theta):
    p = scipy.special.softmax(theta)
    return np.sum(p * np.arange(theta.size)) + scipy.special.logsumexp(theta) \
        + np.sum(scipy.special.log_softmax(theta) ** 2)


def scans(x):
    return np.sum(np.cumsum(x) ** 2) + np.sum(np.cumprod(1.0 + 0.1 * x))


BATCHED = [(clipped, (), XS), (mixture, (R.normal(size=5),), R.normal(size=(3, 2))),
           (policy, (), R.normal(size=(3, 4))), (scans, (), R.normal(size=(3, 4)))]


@pytest.mark.parametrize("f, rest, xs", BATCHED, ids=[b[0].__name__ for b in BATCHED])
def test_vmap_of_grad_batches_selects_and_reductions(f, rest, xs):
    in_axes = (0,) + (None,) * len(rest)
    np.testing.assert_allclose(srcdiff.vmap(f, in_axes=in_axes)(xs, *rest), [f(x, *rest) for x in xs], rtol=1e-10)
    try:
        got = srcdiff.vmap(srcdiff.grad(f), in_axes=in_axes)(xs, *rest)
    except srcdiff.SrcDiffError as exc:  # refused at the user's line, saying it is vmap's limit
        assert HERE in str(exc) and "batching" in str(exc), str(exc)
        return
    np.testing.assert_allclose(got, per_example(f, xs, *rest), rtol=1e-6, atol=1e-8)


def test_a_batched_gradients_refusal_says_it_is_batching():
    with pytest.raises(srcdiff.SrcDiffError, match="batching its gradient") as info:
        srcdiff.vmap(srcdiff.grad(share_of_max))(XS)
    assert "differentiating its gradient again" not in str(info.value)


# ---- 6. the thin SVD's vectors at a zero singular value: a SILENT WRONG Hessian ------------------------------
# ``np.linalg.norm(A @ B, "nuc")`` of a 3x2 A and a 2x3 B (rank 2): its third singular value is
# 1e-16, not 0, so the SVD vectors' derivative divided by it and the Hessian was finite noise (error
# 2.5; 8e4 for the sum of singular values of a rank-deficient square matrix).  The derivative needs
# full rank (docs/guarantees.md).  FIXED: rules/decomposition_helpers.py reads a singular value
# below NumPy's matrix_rank tolerance as NaN there: the honest NaN, not a number.


def nuclear_of_product(A, B):
    return np.linalg.norm(A @ B, "nuc")


def singular_sum(X):
    return np.sum(np.linalg.svd(X, compute_uv=False))


def test_svd_vectors_at_a_zero_singular_value_are_nan_not_noise():
    A, B = R.normal(size=(3, 2)), R.normal(size=(2, 3))
    H = srcdiff.hessian(nuclear_of_product)(A, B)
    assert np.isnan(H).any()
    assert np.isnan(srcdiff.hessian(singular_sum)(A @ B)).any()


def test_svd_vectors_at_full_rank_stay_exact():
    A = R.normal(size=(3, 2))
    g = srcdiff.grad(srcdiff.grad(lambda_free_singular_sum))(0.3)
    eps = 1e-5
    want = (central_difference(lambda_free_singular_sum, [0.3 + eps], 0)
            - central_difference(lambda_free_singular_sum, [0.3 - eps], 0)) / (2 * eps)
    assert abs(g - want) < 1e-4 * max(1.0, abs(want))
    assert not np.isnan(srcdiff.hessian(nuclear_of_product)(A, R.normal(size=(2, 2)))).any()


def lambda_free_singular_sum(t):
    X = np.array([[1.0, t], [t * t, 2.0], [0.5, -t]])
    return np.sum(np.linalg.svd(X, compute_uv=False))


# ---- 7. a distance at 0 with a zero adjoint gave NaN (Matérn kernels' diagonal) --------------------------------
# ``r = np.sqrt(np.sum((X[:, None] - X[None]) ** 2, -1))`` is 0 on the diagonal, and a Matérn kernel's
# k'(0) = 0, so the root's adjoint was 0 / 0 = NaN and every input's gradient NaN, though the kernel is
# smooth there.  FIXED: ad/zero_factors.py holds a zero adjoint still through the root of a sum of
# squares (np.sum of squares, d @ d, a * a + b * b), the minimum of its operand (as it did for a root
# raised to a power above 1); a nonzero adjoint there keeps the honest NaN.


def matern32(X):
    r = np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1))
    return np.sum((1 + math.sqrt(3.0) * r) * np.exp(-math.sqrt(3.0) * r))


def matern52_ell(log_ell, X):
    r = np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)) / np.exp(log_ell)
    s5 = math.sqrt(5.0)
    return np.sum((1.0 + s5 * r + 5.0 / 3.0 * r ** 2) * np.exp(-s5 * r))


def pair_dot_distance(x, y):
    d = x - y
    r = np.sqrt(d @ d)
    return np.cos(r) + r * r


def scalar_distance(a, b):
    r = math.sqrt(a * a + b * b)
    return math.cosh(r) + math.exp(-r) * (1 + r)


DISTANCES = [(matern32, (R.normal(size=(4, 2)),)), (matern52_ell, (0.2, R.normal(size=(4, 2)))),
             (pair_dot_distance, (np.array([0.5, -0.2]), np.array([0.5, -0.2]))),
             (scalar_distance, (0.0, 0.0)), (scalar_distance, (0.3, -0.4))]


def test_a_distance_with_a_nonzero_adjoint_at_zero_stays_nan():
    def kinked(x, y):
        return np.sqrt(np.sum((x - y) ** 2))
    g = srcdiff.grad(kinked)(np.array([0.5, 1.0]), np.array([0.5, 1.0]))
    assert not np.isfinite(g).all()  # |d| at 0 has no derivative: never a silent number


def test_matern_in_float32_and_numba():
    X = R.normal(size=(4, 2))
    got = srcdiff.grad(matern32)(X.astype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, central_difference(matern32, [X], 0), rtol=2e-3, atol=2e-3)
    assert_numba_agrees_or_refuses(_program(matern32, X))


# ---- 8. math.prod of an array was refused ---------------------------------------------------------------------
# ``math.prod(x[:3])`` of a 1-D array: refused ("of a list written in the call").  FIXED:
# lower/number_calls.py reads it as np.prod's rule (exact where an item is 0).


def prod_slices(x):
    return math.prod(x[:3]) + math.prod(x)


def prod_of_sines(x):
    return math.prod(np.sin(x)) ** 2


PRODUCTS = [(prod_slices, (np.array([0.0, 1.5, -0.5, 2.0]),)), (prod_slices, (np.array([0.3, 1.5, -0.5, 2.0]),)),
            (prod_of_sines, (np.array([0.3, 1.5, -0.5]),))]


# ---- every class's variants through every transformation: one table ---------------------------------

TABLE = TRIES + DISTANCES + PRODUCTS
IDS = [f"{f.__name__}-{k}" for k, (f, _) in enumerate(TABLE)]


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_wave12_findings_first_order(f, args):
    row = run(_program(f, *args), ("grad", "value_and_grad", "jvp", "vjp", "tree"))
    assert not row.excluded, row.excluded
    assert not not_ok(row), not_ok(row)


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_wave12_findings_hessian_and_every_transformation(f, args):
    if f in (matern32, matern52_ell, pair_dot_distance, scalar_distance):
        pytest.skip("the distance's second derivative at 0 stays NaN (test_redteam_wave12_open.py)")
    assert_every_transformation(_program(f, *args))
