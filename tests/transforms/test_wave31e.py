"""Classes of slow generated code found on einsum attention and a Cholesky pair spelled with the
factor's transpose (issue 26: benchmarks/variants31_linalg.py's attention_einsum and
mvn_scaled_solve; benchmarks/variants31_einsum.py's batched attention, row dots and bilinear form
written afterwards to check the class), each fixed in the optimizer for every program of its kind:

* ``np.einsum`` without ``optimize=`` never uses BLAS: a two-operand einsum that is a matrix
  product, the user's (``'id,jd->ij'``) and the adjoints rules/einsum_rules.py writes for every
  einsum (``'ij,jd->id'``, ``'ij,id->jd'``), ran about six times ``@``; now ``@`` with ``.T``, or
  ``np.swapaxes(x, -1, -2)`` under leading batch axes, where both operands are known arrays of
  the terms' ndims (backend/optimize/einsum_matmuls.py; run once before statements are inlined,
  while operands are names, and once after the contraction pass).  Traces, axes summed over one
  operand, three operands, ``...`` and list operands stay einsums;
* ``solve_triangular(L.T, b, lower=False)`` (and ``trans=1`` / ``'T'``) gave ``L.T`` an adjoint
  ``-triu(P Q^T)`` added to L's transposed, a spelling `cholesky_pairs` did not read, so the pair
  kept two n d^2 products and the factor's general adjoint; now the solve is read as
  ``solve_triangular(L, b, lower=True, trans=1)`` and the term as ``-tril(Q P^T)``, and the pair
  folds (backend/optimize/transposed_factors.py).  Open: an upper factor held in its own name
  (``U = cholesky(S).T``; upper_pair below) collects U's adjoint, ``-triu`` terms, and passes
  ``U_bar.T`` to the Cholesky adjoint: its solves are read as the factor's, its terms do not fold
  yet (correct, one n d^2 product more).

Ratios grad / hand-written NumPy (benchmarks/variants.py --quick, interleaved runs, before -> after):
attention_einsum 3.3x -> 1.2x, mvn_scaled_solve 2.2x -> 1.3x; written afterwards, measured only:
batched_attention 4.9x -> 1.2x, row_dot_logistic 3.9x -> 0.9x; held out and still open:
bilinear_einsum (``'bi,ij,bj->b'``, three operands: no two-operand product) 11.9x -> 12.4x.

Census of the ten programs below through every transformation (grad, value_and_grad, hessian, jvp,
vjp, numba, check, trees) against float64 central differences, before -> after: 79 ok and one
refused at the user's line (numba: not_products' einsum of a list) -> the same; none WRONG, no bad
error (the passes are for the NumPy code of grad and value_and_grad).

Each program also runs against float64 central differences and against the unoptimised (debug)
gradient, and in float32.
"""

import pytest

import srcdiff

from . import corpus, matrix, speed_checks, wave31e_programs

#: (an einsum of a list display compiles since wave 32d: numba/einsum_lists.py)
NUMBA_REFUSES: dict = {}


def programs():
    return corpus.from_table(wave31e_programs.PROGRAMS, "wave31e", "test_wave31e", 31)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_optimised_equals_debug(program):
    speed_checks.assert_optimised_equals_debug(program, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in enumerate(programs())],
                         ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_numba_included(program, refused=NUMBA_REFUSES)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def _source(name):
    p = next(p for p in programs() if p.name.endswith(":" + name))
    g = srcdiff.grad(p.func, wrt=p.wrt)
    g(*p.args)
    return "\n".join(line for line in g.source.splitlines() if not line.strip().startswith("#"))


@pytest.mark.parametrize("name", ["attention", "batched_attention", "batched_orientations"])
def test_matrix_products_are_matmuls(name):
    source = _source(name)
    assert "np.einsum(" not in source and "@" in source, source


def test_orientations_are_matmuls():
    """Every product with a summed axis is ``@``; the outer products of the vectors' adjoints stay."""
    source = _source("orientations")
    for product in ("C = B.T @ A", "u = x @ A", "v = A @ u", "C @ C.T", "A_bar += B @ C_bar"):
        assert product in source, source
    assert source.count("np.einsum(") == 2 and "'i,j->ij'" in source, source


def test_row_dots_keep_einsum_and_project_by_matmul():
    source = _source("row_dots")
    assert "'ik,ik->i'" in source and "X.T @" in source, source


def test_other_einsums_stay():
    source = _source("not_products")
    assert "'ij,ji->'" in source, source
    # three operands are contracted a pair at a time, the pairs as products (wave 32, einsum_pairs.py)
    assert "'i,ij,j->'" not in source and "r @ W" in source and "W @ r" in source, source
    assert "t1 = [[1.0, 2.0, 0.5]" in source and "np.einsum('ij,jk->ik', A, t1)" in source, source


@pytest.mark.parametrize("name", ["scaled_pair", "transposed_squares"])
def test_transposed_factor_pairs_fold(name):
    source = _source(name)
    assert "solve_pair_adjoint(" in source and "np.triu(" not in source and "np.tril(" not in source, source


def test_unit_diagonal_kept():
    source = _source("transposed_unit")
    assert "sl.solve_triangular(L, t2, lower=True, unit_diagonal=True, trans=1)" in source, source
