"""The red team's wave 31h: 48 programs (redteam_wave31h_programs.py) at the edges of wave 31's
rewrites: two-operand einsums (matrix-vector, batched, ``...``, implicit alphabetical output, a repeated
operand, integer and float32 data), Cholesky solve pairs (``lower=False``, ``trans='T'/'C'/1``,
``unit_diagonal``, ``check_finite=False``, the order that is no inverse, two factors, the right-hand side
as the parameter), zeros written by two slices (empty, negative, computed, overlapping, gapped, by
column), nested selections and float masks with NaN / inf / -0.0, sums of products (float32, integer,
2-d, broadcast, by axis), unpacking, ``f(*theta)``, setdefault and dict comprehensions.  Each goes
through grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree, float32 and check against
float64 central differences, the optimised gradient against the debug one, and (slow) jit="numba";
vmap(grad) is called twice with other batch sizes, dtypes and after a module constant changes.

Census (48 programs; ok / n/a / refused at the user's line / WRONG / BAD), after the fixes:
every cell ok but einsum_two_params' hvp (n/a: wrt=1), unpack_setdefault's every cell (refused at the
line: keys computed when the function runs, in a dict read as a tree, as documented) and
chol_matrix_rhs under numba (refused at the line: numba has no solve_triangular of a matrix).
No WRONG value found.

Found and fixed:

1. BAD (an internal UnboundLocalError reported at the user's line): hvp of a Cholesky pair with respect
   to its right-hand side (``x = solve_triangular(L.T, solve_triangular(L, b, lower=True), lower=False)``,
   M constant, ``0.5 * np.sum(x * b)`` or ``0.5 * np.sum(x * x)``): "cannot access local variable
   'solve_seed_'".  backend/optimize/repeated_solves.py held a nested solve's right-hand side out of its
   statement as a seed, then rewrote the solve inside that seed as if it were still in the statement:
   its own seed went after the statement that read it.  A solve held out now lives in the seed's
   statement (rows chol_b_param, chol_b_squares, chol_b_upper, chol_b_twice,
   chol_rhs_matrix_param).
2. Refused with a wrong reason: ``acc.setdefault(k, 1.0)`` alone as a statement (constant keys) was
   "the value of `acc[k]` is computed and thrown away: this statement has no effect";
   frontend/setdefault_calls.py left the read behind.  Rows unpack_setdefault_names,
   unpack_setdefault_alone.

``grad(f, debug=True)`` stopped at a NaN computed from NaN data even where np.where masks it
(select_nested_where_nan); since wave 32a it raises only when what the gradient returns is not finite.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix, speed_checks
from . import redteam_wave31h_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA)
#: the rows the default run keeps (one or two of each group; `-m slow` runs them all)
KEPT = {"einsum_implicit_alphabetical", "chol_b_squares", "slice_overlap", "select_mask_neg_zero",
        "dot_2d", "unpack_setdefault_alone"}
#: refused at the user's line: keys computed when the function runs, in a dict read as a tree
REFUSED = {"unpack_setdefault"}
NUMBA_REFUSED = {"unpack_setdefault"}  # (chol_matrix_rhs's strided right-hand side: numba/triangular.py, wave 32d)


def programs():
    return corpus.from_table(w.PROGRAMS, "w31h", "redteam_wave31h_programs", 31)


def _name(p):
    return p.name.partition(":")[2]


def accepted():
    return [p for p in programs() if _name(p) not in REFUSED]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in accepted()], ids=_name)
def test_every_transformation(program):
    """grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree, float32 and check."""
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in accepted()], ids=_name)
def test_optimised_equals_debug(program):
    speed_checks.assert_near_central_differences(program)
    speed_checks.assert_optimised_equals_debug(program, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in REFUSED], ids=_name)
def test_refused_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "hessian"))


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)


def _per_example(x):
    return np.stack([srcdiff.grad(w.vmapped)(row) for row in x])


def test_vmap_twice_other_sizes_dtypes_and_constant(monkeypatch):
    """vmap(grad) reused: a second batch size, float32, and after the module constant it reads changes
    (the fast path's last plan must not answer for another shape, dtype or constant)."""
    g = srcdiff.vmap(srcdiff.grad(w.vmapped))
    rng = np.random.default_rng(31)
    for n in (3, 5, 1, 5):
        x = rng.uniform(-1, 1, (n, 3))
        np.testing.assert_allclose(g(x), _per_example(x), rtol=1e-12)
    x32 = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    got = g(x32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _per_example(x32.astype(np.float64)), rtol=2e-5, atol=2e-5)
    x = rng.uniform(-1, 1, (4, 3))
    before = g(x)
    monkeypatch.setattr(w, "SCALE", 3.0)
    after = g(x)
    np.testing.assert_allclose(after, _per_example(x), rtol=1e-12)
    assert not np.allclose(before, after)


def test_unpacking_the_wrong_count_is_refused():
    """``a, b, c = x`` of an array of 4: Python's ValueError, never a gradient of the first three."""
    with pytest.raises((ValueError, srcdiff.SrcDiffError)):
        srcdiff.grad(w.unpack_array)(np.ones(4))
    with pytest.raises((TypeError, ValueError, srcdiff.SrcDiffError)):
        srcdiff.grad(w.star_theta)(np.ones(4))
