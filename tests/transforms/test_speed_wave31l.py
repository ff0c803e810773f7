"""Classes of slow generated code found on Gaussian likelihoods through a Cholesky factor (issue 26's
mvn_cho row and the held-out variants of benchmarks/variants31_linalg.py), each fixed in the optimizer
for every program of its kind:

* the two triangular solves of a ``cho_solve`` (or one solve whose sum of squares is taken) gave the
  factor's adjoint two products ``-tril(p q^T)`` (n d^2 each) and then ``cholesky_adjoint``'s O(d^3)
  products; they depend on the factor through its matrix alone, so the matrix's adjoint is
  ``-Phi(p1 p2^T + p2 p1^T)`` in closed form: one product (backend/optimize/cholesky_pairs.py,
  ``solve_pair_adjoint`` in rules/triangular.py);
* the log determinant's diagonal seed went through the general Cholesky adjoint (three products and
  an inverse): a diagonal seed now takes one product (rules/triangular.py's ``diagonal_adjoint``);
* a backward solve whose right-hand side is written ``k * b`` (``(0.5 * R).T`` against ``R.T``,
  ``np.einsum(',ij->ji', 0.5, R)``) compared its seed element by element at run time
  (``proportion``, a pass over it); now ``k * x`` as written, an answer's scale passed on to the
  second solve of the pair, and seeds that call pure functions considered
  (backend/optimize/repeated_solves.py);
* ``scipy.linalg.solve_triangular``'s result had no shape, so the seed fills and ``unbroadcast``
  calls around it stayed (rules/scipy_linalg.py: the right-hand side's shape);
* a gated cell's adjoint of its pre-activations, read as ``a[:, :n]`` and ``a[:, n:]``, was made
  each step as zeros, a write and an addition to zeros: now one join where the pieces' shapes are
  proved, else ``np.empty`` and two writes (backend/optimize/slice_joins.py; two slices only: three
  or more may overlap for some values of their bounds, and stay as they were).

Census of the nine programs below through every transformation (grad, value_and_grad, hessian, jvp,
vjp, numba, check, trees) against float64 central differences, before (the fold switched off) ->
after: 72 ok -> 72 ok; none WRONG, none refused, no bad error (the fold is for the NumPy code of
grad and value_and_grad; code srcdiff reads back, hessians and numba's keep the factor's adjoint).

Each program also runs against float64 central differences and against the unoptimised (debug)
gradient, and in float32.
"""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, speed_checks, wave31l_programs


def programs():
    return corpus.from_table(wave31l_programs.PROGRAMS, "wave31l", "test_speed_wave31l", 31)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_optimised_equals_debug(program):
    speed_checks.assert_optimised_equals_debug(program, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in enumerate(programs())],
                         ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_numba_included(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def _source(f, *args, wrt=0):
    g = srcdiff.grad(f, wrt=wrt)
    g(*args)
    return "\n".join(line for line in g.source.splitlines() if not line.strip().startswith("#"))


def _program(name):
    return next(p for p in programs() if p.name.endswith(":" + name))


@pytest.mark.parametrize("name", ["cho_pair", "tri_squares", "tri_vector", "cho_other_seed", "cho_slogdet"])
def test_solves_fold_into_the_matrix_adjoint(name):
    """No ``-tril(p q^T)`` term is left to the factor's adjoint; the scale of a seed written k * b is
    not searched for at run time."""
    p = _program(name)
    source = _source(p.func, *p.args, wrt=p.wrt)
    assert "solve_pair_adjoint(" in source and "np.tril(" not in source, source
    assert ("proportion(" in source) == (name == "cho_other_seed"), source


def test_a_factor_read_elsewhere_keeps_its_adjoint():
    p = _program("cho_factor_read")
    source = _source(p.func, *p.args, wrt=p.wrt)
    assert "cholesky_adjoint(" in source and "solve_pair_adjoint(" in source


def test_diagonal_seed_is_the_general_adjoint():
    from srcdiff.rules.triangular import diagonal_adjoint, symbolic_adjoint
    rng = np.random.default_rng(7)
    for n in (1, 4, 40):
        A = rng.standard_normal((n, n))
        L = np.linalg.cholesky(A @ A.T + n * np.eye(n))
        d = rng.standard_normal(n)
        np.testing.assert_allclose(diagonal_adjoint(d, L), symbolic_adjoint(np.diag(d), L), rtol=1e-12, atol=1e-14)


def test_pair_fold_is_the_general_adjoint():
    """-Phi(p1 p2^T + p2 p1^T) is what cholesky_adjoint makes of -tril(p1 q1^T) - tril(p2 q2^T) when
    p1 = L^-T q2 and p2 = L^-T q1, for a vector and for a matrix of right-hand sides."""
    import scipy.linalg as sl

    from srcdiff.rules.runtime import cholesky_adjoint
    from srcdiff.rules.triangular import solve_pair_adjoint
    rng = np.random.default_rng(8)
    A = rng.standard_normal((5, 5))
    L = np.linalg.cholesky(A @ A.T + np.eye(5))
    for shape in ((5,), (5, 3)):
        q1, q2 = rng.standard_normal(shape), rng.standard_normal(shape)
        p1, p2 = (sl.solve_triangular(L, q, lower=True, trans=1) for q in (q2, q1))
        g = -np.tril(p1.reshape(5, -1) @ q1.reshape(5, -1).T) - np.tril(p2.reshape(5, -1) @ q2.reshape(5, -1).T)
        np.testing.assert_allclose(-solve_pair_adjoint(p1, p2), cholesky_adjoint(g, L), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name", ["gated_slices", "written_gates"])
def test_slices_written_once_into_empty(name):
    p = _program(name)
    source = _source(p.func, *p.args, wrt=p.wrt)
    assert "np.empty(" in source and "[:, :n] +=" not in source, source


def test_three_slices_keep_their_zeros():
    p = _program("three_slices")
    source = _source(p.func, *p.args, wrt=p.wrt)
    assert "np.empty(" not in source and "np.zeros(" in source, source
