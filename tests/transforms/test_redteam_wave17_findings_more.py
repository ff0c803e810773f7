"""What the red team's seventeenth wave found, continued (classes 4-7; see test_redteam_wave17_findings.py for
how the wave ran and classes 1-3).  References are float64 central differences or the function's own values.

4. SILENT (vmap): a question of shape asked of a value computed from a batched argument (``x[None].shape[0]``,
   ``len(np.atleast_2d(x))``, ``x.reshape(1, -1).shape[0]``, ``np.vstack([x]).shape[0]``, ``len(x[x > 0])``) was
   answered for ``x[0]``, the first row of the argument, not for the value asked about: ``x[None].shape[0] * x``
   came out 3 * x for rows of length 3 (truth: x), and a count of a mask was the first example's length.  Fixed
   (a minimal change) in ad/batching.py: only ``x.shape`` / ``len(x)`` / ``np.size(x)`` of a batched name itself
   is answered from its first row; the rest is refused at the user's line.
5. Refused, reasonable: the safe-division idiom ``np.divide(a, b, out=np.zeros_like(a), where=b > 0)`` (and
   ``np.log(p, out=np.zeros_like(p), where=p > 0)`` in an entropy) was refused, "unsupported arguments for
   numpy.divide: out".  Fixed in frontend/out_arguments.py: a ufunc whose ``out=`` is an array made in the call
   with known values is ``np.where(where, ufunc(...), out)``.
6. Refused, naming no line (vmap): ``vmap(functools.partial(loss, power=3))`` ("srcdiff differentiates Python
   functions; got partial"), which grad takes.  Fixed in api/vmap.py: what a partial (or a method) binds is
   passed as arguments of their own, the same for every example; a method's instance is then refused where its
   arrays are read (test_redteam_wave17_open.py).
7. numba only, and naming generated code: ``jvp(..., jit="numba")`` of ``gammaln(a.sum())`` (a scipy.special
   function of a number the code computes; 5 of 40 rows) and ``hvp(grad(f, jit="numba"), ...)`` of rollouts and
   likelihoods (7 of 48, refused at ``two_compartment_rk2_grad:1``) failed in numba's compiler: the tangent
   ``np.broadcast_to(t, np.shape(y))`` of a number y is a broadcast to ``()``, which numba's broadcast_to does not
   compile.  Fixed in backend/numba (spelling.py, shape_tuples.py): to the shape ``()`` a number is its own
   broadcast.  (jvp and jacobian with jit of a recursive helper, which test_numba_second_order.py had as located
   refusals, compile with it too.)
8. Refused, reasonable: ``x * np.var(H)`` / ``np.std(H) ** 2`` of complex data H (a spectrum's spread) beside a
   differentiated x: "a differentiated value meets a complex number", though np.var and np.std are real.  Fixed
   (one line) in ad/activity.py: they stop a complex value, as np.abs does; x inside them is still refused.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from numeric import central_difference
from scipy.special import gammaln

import srcdiff

from .redteam_wave17_science import two_compartment_rk2

# ---- 4. vmap: the shape of a value computed from a batched argument -------------------------------------------


def leading_of_new_axis(x):
    return x[None].shape[0] * x


def length_of_atleast_2d(x):
    return len(np.atleast_2d(x)) * x


def rows_of_reshape(x):
    return x.reshape(1, -1).shape[0] * x


def rows_of_vstack(x):
    return np.vstack([x]).shape[0] * x


def count_of_positives(x):
    return len(x[x > 0]) * x


def columns_of_transpose(x):
    return x.T.shape[0] * np.sum(x)


def own_shape(x):
    return x.shape[0] * x + len(x) + np.size(x)


ROWS = np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.6], [-0.2, 0.9, 0.5]])


@pytest.mark.parametrize("f", [leading_of_new_axis, length_of_atleast_2d, rows_of_reshape, rows_of_vstack,
                               count_of_positives], ids=lambda f: f.__name__)
def test_vmap_of_a_shape_of_a_computed_value_is_right_or_refused(f):
    try:
        got = srcdiff.vmap(f)(ROWS)
    except srcdiff.SrcDiffError as exc:
        assert "test_redteam_wave17_findings_more.py:" in str(exc).splitlines()[0]
        return
    np.testing.assert_allclose(got, np.stack([f(x) for x in ROWS]), rtol=1e-12)


def test_vmap_of_the_transpose_of_a_matrix_row():
    batch = np.arange(12.0).reshape(2, 2, 3)  # each example 2 x 3: x.T.shape[0] is 3
    try:
        got = srcdiff.vmap(columns_of_transpose)(batch)
    except srcdiff.SrcDiffError:
        return
    np.testing.assert_allclose(got, [columns_of_transpose(x) for x in batch], rtol=1e-12)


def test_vmap_of_a_batched_names_own_shape():
    np.testing.assert_allclose(srcdiff.vmap(own_shape)(ROWS), np.stack([own_shape(x) for x in ROWS]), rtol=1e-12)


# ---- 5. the safe-division idiom ---------------------------------------------------------------------------------


def safe_divide(a, b):
    r = np.divide(a, b, out=np.zeros_like(a), where=b != 0)
    return np.sum(r ** 2)


def entropy_rows(P):
    return -np.sum(P * np.log(P, out=np.zeros_like(P), where=P > 0), axis=1).sum()


def column_normalise(W, w):
    s = W.sum(axis=0)
    P = np.divide(W, s, out=np.zeros_like(W), where=s > 0)
    return np.sum(P * w)


def divide_into_full(a, b):
    return np.sum(np.true_divide(a, b, out=np.full(a.shape, -1.0), where=np.abs(b) > 0.5) ** 3)


SAFE = [(safe_divide, (np.array([1.0, 2.0, -0.5, 0.7]), np.array([0.5, 0.0, 2.0, -1.0])), 0),
        (entropy_rows, (np.array([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]]),), 0),
        (column_normalise, (np.array([[1.0, 0.3, 2.0], [0.5, 0.2, 1.0]]), np.array([1.0, -2.0, 0.5])), 0),
        (divide_into_full, (np.array([1.0, 2.0, -0.5]), np.array([0.3, 2.0, -1.0])), 1)]


@pytest.mark.parametrize("f,args,wrt", SAFE, ids=[f.__name__ for f, _, _ in SAFE])
def test_the_safe_division_idiom(f, args, wrt):
    want = central_difference(f, args, wrt)
    np.testing.assert_allclose(srcdiff.grad(f, wrt=wrt)(*args), want, rtol=1e-6, atol=1e-9)
    value, got = srcdiff.value_and_grad(f, wrt=wrt)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    v = np.random.default_rng(3).normal(size=np.shape(args[wrt]))
    _, tangent = srcdiff.jvp(f, args, tuple(v if i == wrt else None for i in range(len(args))))
    assert np.isclose(tangent, np.sum(want * v), rtol=1e-6)


def divide_into_empty(a, b):
    return np.sum(np.divide(a, b, out=np.empty_like(a), where=b != 0))


def divide_into_a_name(a, b):
    out = np.zeros_like(a)
    np.divide(a, b, out=out, where=b != 0)
    return np.sum(out)


@pytest.mark.parametrize("f", [divide_into_empty, divide_into_a_name], ids=lambda f: f.__name__)
def test_an_out_array_of_unknown_values_is_still_refused(f):
    # np.empty_like's unselected places hold whatever memory held; a name written where the test holds keeps
    # its other values (a partial write): both refused at the line, not guessed
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(np.array([1.0, 2.0]), np.array([0.5, 0.0]))
    assert "test_redteam_wave17_findings_more.py:" in str(info.value).splitlines()[0]


# ---- 6. vmap of a partial --------------------------------------------------------------------------------------


def weighted_power(x, w, power=2.0, shift=0.0):
    return np.sum(w * np.abs(x - shift) ** power)


PARTIALS = [(functools.partial(weighted_power, power=3.0), (0, None)),
            (functools.partial(weighted_power, shift=0.5), (0, 0)),
            (functools.partial(weighted_power, np.array([0.5, 1.5, 2.5])), (0, None))]


@pytest.mark.parametrize("f,axes", PARTIALS, ids=["keyword", "keyword_after_a_default", "positional"])
def test_vmap_of_a_partial(f, axes):
    batch = np.array([[0.3, -1.2, 0.8], [1.1, 0.4, -0.6]])
    second = batch + 2.0 if axes[1] == 0 else (np.ones(3) if len(f.args) == 0 else 3.0)
    got = srcdiff.vmap(f, in_axes=axes)(batch, second)
    want = [f(batch[k], second[k] if axes[1] == 0 else second) for k in range(2)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


# ---- 7. numba: a tangent broadcast to the shape of a number ------------------------------------------------------

X3 = np.array([0.7, -1.3, 0.4])


def gammaln_of_sum(a):
    return gammaln(a.sum())


def dirichlet_norm(a, P):
    alpha = np.exp(a)
    return -(3 * (gammaln(alpha.sum()) - gammaln(alpha).sum()) + np.sum((alpha - 1) * P))


@pytest.mark.parametrize("f,args", [(gammaln_of_sum, (X3 + 2.0,)), (dirichlet_norm, (X3, np.array([0.2, 0.3, 0.5])))],
                         ids=["gammaln_of_sum", "dirichlet_norm"])
def test_jvp_numba_of_a_scipy_function_of_a_number(f, args):
    v = np.array([1.0, -0.5, 0.25])
    _, tangent = srcdiff.jvp(f, args, (v,) + (None,) * (len(args) - 1), jit="numba")
    assert np.isclose(tangent, central_difference(f, args, 0) @ v, rtol=1e-6)


def test_hvp_of_a_numba_gradient_of_a_rollout():
    k, v = np.array([0.3, 0.2, 0.15]), np.array([1.0, -0.5, 0.25])
    g = srcdiff.grad(two_compartment_rk2)
    want = (g(k + 1e-5 * v) - g(k - 1e-5 * v)) / 2e-5
    np.testing.assert_allclose(srcdiff.hvp(srcdiff.grad(two_compartment_rk2, jit="numba"), k, v), want, rtol=1e-5)


def test_jvp_and_jacobian_numba_of_a_recursive_helper():
    from .test_numba_second_order import lambda_free_recursive, recursive_loss
    x, v = np.array([1.0, 0.5, -0.3]), np.array([0.3, -1.0, 2.0])
    value, tangent = srcdiff.jvp(recursive_loss, (x,), (v,), jit="numba")
    assert value == pytest.approx(recursive_loss(x), rel=1e-12)
    assert np.isclose(tangent, central_difference(recursive_loss, (x,), 0) @ v, rtol=1e-6)
    J = srcdiff.jacobian(lambda_free_recursive, jit="numba")(x)
    columns = [(lambda_free_recursive(x + e) - lambda_free_recursive(x - e)) / 2e-6 for e in np.eye(3) * 1e-6]
    np.testing.assert_allclose(J, np.stack(columns, axis=-1), rtol=1e-6, atol=1e-9)


# ---- 8. np.var / np.std of complex data ----------------------------------------------------------------------

W = np.array([0.5, 2.0, 1.0])


def complex_variance(x, w):
    H = 1.0 / (1.0 + 1j * w)
    return x * np.var(H) + x * np.std(H)


def complex_std_squared(x, w):
    H = np.exp(1j * w) / (2.0 + 1j * w)
    return x ** 2 * np.std(H) ** 2


@pytest.mark.parametrize("f", [complex_variance, complex_std_squared], ids=lambda f: f.__name__)
def test_the_spread_of_complex_data(f):
    want = central_difference(f, (1.5, W), 0)
    assert np.isclose(srcdiff.grad(f)(1.5, W), want, rtol=1e-6)
    _, tangent = srcdiff.jvp(f, (1.5, W), (1.0, None))
    assert np.isclose(tangent, want, rtol=1e-6)
    np.testing.assert_allclose(srcdiff.vmap(f, in_axes=(0, None))(np.array([1.5, -0.5]), W),
                               [f(1.5, W), f(-0.5, W)], rtol=1e-12)


def variance_of_a_product(x, w):
    H = 1.0 / (1.0 + 1j * w)
    return np.var(x * H)


def test_a_differentiated_value_inside_the_spread_is_still_refused():
    with pytest.raises(srcdiff.SrcDiffError, match="meets a complex number") as info:
        srcdiff.grad(variance_of_a_product)(1.5, W)
    assert "test_redteam_wave17_findings_more.py:" in str(info.value).splitlines()[0]
