"""Wave 33i: NaN Hessians at a tie that holds for every parameter value (wave33i_programs.py).

A Gaussian process's squared distances ``sq[:, None] + sq[None, :] - 2 * z @ z.T`` are clipped at 0
against round-off (``np.maximum(d2, 0.0)``, ``np.clip(d2, 0.0, None)``); their diagonal is exactly
0.0 at most points, on the tie.  The derivable gradient's share there has the derivative NaN (a share
jumps where a tie ends), so every second-order transformation gave NaN in each length scale's row
(forward over reverse) or the whole Hessian, where the truth is a number: the diagonal is 0 for every
parameter value, the tie never ends.  Wave 33b's use masks did not reach it: the adjoint at the
diagonal is not 0.  A zero *tangent* of the tied operand is not a proof either (``np.maximum(x * x,
0)`` at 0 has a zero tangent and the Hessian 2, the shares 1: that keeps its NaN, pinned below).

Fixed by the class: ties.py's persistence proof (a tie that holds on a whole neighbourhood has a
share of derivative 0) now also reads from the program

1. a pairwise squared distance of one matrix with itself (srcdiff/ad/zero_diagonals.py): row and column
   broadcasts of one sum of squares with the same coefficient minus twice the Gram matrix of the same
   matrix (terms in any order, numbers on either factor, ``@`` / ``np.dot``, ``** 2`` / ``z * z`` /
   ``np.square``), or the broadcast form ``np.sum((z[:, None, :] - z[None, :, :]) ** 2, -1)``, tied
   with 0 by ``np.maximum`` either way round or by ``np.clip``'s lower bound: the tie's `persist`
   operand is the diagonal mask (of a 2-D matrix only);
2. a difference of two operands that are one function near the point, tied with 0 (a hinge of a gap
   that is 0 for every parameter): persistent wherever the two sides are proved one function.

First-order code is unchanged (the operand exists only in the gradient made to be differentiated
again): the generated gradient of each of benchmarks/variants.py's 117 rows is the same text.

Census (8 rows x grad, value_and_grad, hessian, jvp, vjp, tree, jacobian, hvp, float32, vmap_grad;
ok / n/a / refused at the user's line / WRONG / BAD):

    before:  66 ok, 0 n/a, 0 refused, 14 WRONG (NaN: hessian and hvp of every row but the one with
             no tie, matern52_sqrt_eps), 0 BAD
    after:   80 ok, 0 n/a, 0 refused,  0 WRONG, 0 BAD

plus jvp(grad), jacobian(grad) and hessian(jit="numba") against central differences of the gradient
(NaN before).  Not a proof, and so kept NaN (pinned below): a zero tangent of the tied operand
(``np.maximum(x * x, 0)`` at 0 has a zero tangent and the Hessian 2, where the shares would say 1).
Open: wave 30h's ``np.clip(x, x[0] * 1.0, 10.0) ** 3`` (sides equal only algebraically) and wave 31a's
squared hinge at a tie whose operand moves (no second derivative there: NaN is honest).
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave33i_programs as w

SECOND = ("hessian", "hvp")
ALL = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree", *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w33i", "wave33i_programs", 33)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "rbf_maximum", p) for p in programs()],
                         ids=_name)
def test_second_order_on_the_diagonal_tie(program):
    matrix.assert_ok(program, SECOND)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, set())


def _central_of_grad(f, x, eps=1e-5):
    g = srcdiff.grad(f)
    return np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("how", ["jvp_of_grad", "jacobian_of_grad", corpus.slow_unless(False, "hessian_numba")])
def test_jvp_and_jacobian_of_grad_and_numba_hessian(how):
    """The other second-order paths (the matrix's hessian and hvp cells are in the tests above)."""
    x = np.array([0.1, -0.2])
    want = _central_of_grad(w.rbf_clip_dot, x)
    if how == "jvp_of_grad":
        got = np.array([srcdiff.jvp(srcdiff.grad(w.rbf_clip_dot), (x,), (e,))[1] for e in np.eye(2)])
    elif how == "jacobian_of_grad":
        got = srcdiff.jacobian(srcdiff.grad(w.rbf_clip_dot))(x)
    else:
        got = srcdiff.hessian(w.rbf_clip_dot, jit="numba")(x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


X1, X2 = w.X[:4], np.random.default_rng(7).normal(size=(4, 2))


def _cross(theta):
    """Distances between two different matrices: no diagonal is tied for every parameter value."""
    a, b = X1 / np.exp(theta), X2 / np.exp(theta)
    d2 = np.sum(a ** 2, axis=1)[:, None] + np.sum(b ** 2, axis=1)[None, :] - 2 * a @ b.T
    return np.sum(np.exp(-np.maximum(d2, 0.0)))


def _stationary(x):
    return np.sum(np.maximum(x * x, 0.0)) + x[1] * x[0]


def test_what_is_not_proved_keeps_its_nan():
    """A tie with a zero tangent that is not a persistent tie (``np.maximum(x * x, 0)`` at 0: truth 2,
    the shares would say 1) keeps the honest NaN in its row; another element's row is exact."""
    h = srcdiff.hessian(_stationary)(np.array([0.0, 0.5]))
    assert np.isnan(h[0, 0])
    assert np.isfinite(_central_of_grad(_cross, np.array([0.1, 0.2]))).all()
    np.testing.assert_allclose(srcdiff.hessian(_cross)(np.array([0.1, 0.2])),
                               _central_of_grad(_cross, np.array([0.1, 0.2])), rtol=1e-6, atol=1e-7)
