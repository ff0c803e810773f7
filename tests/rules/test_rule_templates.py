"""Rules whose adjoint depends on the operands' ndim, static arguments or optional operands:
every branch of each template function, against central differences.

Operands of unknown ndim come from ``np.moveaxis(x, 0, 0)``, a no-op whose result shape
srcdiff does not infer, so the rule must pick the form that is right for any ndim.  Where
the ndim is known, the module docs promise the textbook adjoint (``g @ y.T``), which the
last tests read in the generated source.
"""

import numpy as np
import pytest

import srcdiff
from srcdiff import SrcDiffError


def unknown(a):
    """`a` itself, with a shape srcdiff does not know when it generates the gradient."""
    return np.moveaxis(a, 0, 0)


# ---- np.clip with one or no bound ----

def test_clip_with_no_bounds_passes_the_gradient_through(check_gradient, rng):
    x = rng.normal(size=4)
    (g,) = check_gradient(lambda x: np.sum(np.clip(x, None, None) ** 2), (x,))
    np.testing.assert_allclose(g, 2 * x, rtol=1e-12)


def test_clip_with_only_an_upper_bound_differentiates_the_bound(check_gradient, rng):
    x, hi = rng.normal(size=4), rng.normal(size=4)
    check_gradient(lambda x, hi: np.sum(np.clip(x, None, hi) ** 2), (x, hi), wrt=(0, 1))


def test_clip_with_only_a_lower_bound_differentiates_the_bound(check_gradient, rng):
    x, lo = rng.normal(size=4), rng.normal(size=4)
    check_gradient(lambda x, lo: np.sum(np.clip(x, lo, None) ** 2), (x, lo), wrt=(0, 1))


# ---- products ----

def test_dot_with_a_number_differentiates_the_number(check_gradient, rng):
    v = rng.normal(size=3)
    (gv, gs) = check_gradient(lambda v, s: np.sum(np.dot(v, s) ** 2), (v, 1.5), wrt=(0, 1))
    assert gs == pytest.approx(2 * 1.5 * np.sum(v * v), rel=1e-12)
    check_gradient(lambda s, v: np.sum(np.dot(s, v) ** 2), (1.5, v), wrt=(0, 1))


@pytest.mark.parametrize("shapes", [((2, 3), (3,)), ((2, 3), (3, 4)), ((3,), (3, 2)), ((3,), (3,))])
def test_dot_of_operands_of_unknown_ndim(check_gradient, rng, shapes):
    x, y = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    check_gradient(lambda x, y: np.sum(np.sin(np.dot(unknown(x), y))), (x, y), wrt=(0, 1))
    check_gradient(lambda x, y: np.sum(np.sin(np.dot(x, unknown(y)))), (x, y), wrt=(0, 1))


@pytest.mark.parametrize("shapes", [((2, 3), (4, 3)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 2, 3), (3,))])
def test_inner_of_operands_of_unknown_ndim(check_gradient, rng, shapes):
    x, y = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    check_gradient(lambda x, y: np.sum(np.sin(np.inner(x, y))), (x, y), wrt=(0, 1))
    check_gradient(lambda x, y: np.sum(np.sin(np.inner(unknown(x), y))), (x, y), wrt=(0, 1))
    check_gradient(lambda x, y: np.sum(np.sin(np.inner(x, unknown(y)))), (x, y), wrt=(0, 1))


@pytest.mark.parametrize("subscripts", ["ij,jk", "ij, jk -> ik", "i j,j k->i k", "ij,jk->ki"])
def test_einsum_with_an_implicit_output_or_spaces(check_gradient, rng, subscripts):
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    check_gradient(lambda a, b: np.sum(np.sin(np.einsum(subscripts, a, b))), (a, b), wrt=(0, 1))


def test_diag_of_a_vector_of_unknown_ndim_builds_a_matrix(check_gradient, rng):
    v = rng.normal(size=3)
    check_gradient(lambda v: np.sum(np.sin(np.diag(unknown(v))) * np.arange(9.0).reshape(3, 3)), (v,))


def test_diag_of_a_matrix_of_unknown_ndim_takes_its_diagonal(check_gradient, rng):
    m = rng.normal(size=(3, 3))
    check_gradient(lambda m: np.sum(np.sin(np.diag(unknown(m), 1))), (m,))


# ---- norms: the matrix norms with no rule are refused, never differentiated as vectors ----

def test_frobenius_norm_of_a_matrix(check_gradient, rng):
    m = rng.normal(size=(2, 3))
    (g,) = check_gradient(lambda m: np.linalg.norm(m, "fro"), (m,))
    np.testing.assert_allclose(g, m / np.sqrt(np.sum(m * m)), rtol=1e-12)


@pytest.mark.parametrize("order", [2, 1, np.inf])
def test_matrix_norms_of_other_orders_have_rules(order, check_gradient):
    m = np.array([[1.0, 2.0], [3.0, 4.5]])  # distinct singular values, no ties of row or column sums
    check_gradient(lambda m: np.linalg.norm(m, order), (m,))


def test_a_matrix_norm_numpy_does_not_define_is_refused():
    m = np.array([[1.0, 2.0], [3.0, 4.5]])
    with pytest.raises(SrcDiffError, match="numpy.linalg.norm with ord="):
        srcdiff.grad(lambda m: np.linalg.norm(m, 3))(m)


# ---- joined ----

@pytest.mark.parametrize("shapes", [((2, 3), (2, 1)), ((3,), (2,))])
def test_hstack_of_operands_of_unknown_ndim(check_gradient, rng, shapes):
    a, b = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    weights = np.arange(1.0, 1.0 + np.hstack([a, b]).size).reshape(np.hstack([a, b]).shape)
    check_gradient(lambda a, b: np.sum(np.hstack([unknown(a), unknown(b)]) * weights), (a, b), wrt=(0, 1))


# ---- the textbook form where the ndim is known ----

def _backward(f, *args):
    """The backward sweep's code, without the comments that quote the user's lines."""
    source = srcdiff.grad(f, wrt=tuple(range(len(args)))).source_for(*args).partition("# backward")[2]
    return "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))


def test_known_ndims_get_the_textbook_adjoints():
    m, v, w = np.ones((3, 3)) + np.eye(3), np.ones(3), np.ones((3, 2))
    assert "np.linalg.solve(a.T, " in _backward(lambda a, b: np.sum(np.linalg.solve(a, b)), m, w)
    assert "np.swapaxes" not in _backward(lambda a: np.sum(np.linalg.inv(a)), m)
    assert ".T" in _backward(lambda a: np.sum(np.linalg.inv(a)), m)
    assert "matmul_adjoint" not in _backward(lambda a, b: np.sum(np.sin(a @ b)), v, v)
    assert "matmul_adjoint" not in _backward(lambda a, b: np.sum(np.sin(np.dot(a, b))), m, w)
    assert "dot_adjoint" not in _backward(lambda a, b: np.sum(np.sin(np.dot(a, b))), m, w)
    assert "np.transpose" not in _backward(lambda a: np.sum(np.sin(a.T) * w.T), w)
    assert "np.ndim" not in _backward(lambda a, b: np.sum(np.sin(np.inner(a, b))), m, w.T)


def test_transpose_attribute_of_a_3d_array(check_gradient, rng):
    a = rng.normal(size=(2, 3, 4))
    check_gradient(lambda a: np.sum(np.sin(a.T) * np.arange(24.0).reshape(4, 3, 2)), (a,))
    check_gradient(lambda a: np.sum(np.sin(unknown(a).T) * np.arange(24.0).reshape(4, 3, 2)), (a,))
