"""The red team's wave 28b: 118 more programs written the way ML practitioners and statisticians
write them (redteam_wave28b_programs.py: losses, layers, parameter trees, regularisers;
redteam_wave28b_bayes.py: log posteriors and likelihoods with math.lgamma and scipy.special,
optimisers unrolled, EM-like updates, Monte Carlo with a generator seeded inside), each through
grad, value_and_grad, jvp, vjp, jacobian, a tree of the argument, float32, hessian, hvp,
per-example gradients and jit="numba", against float64 central differences.  Special points
across transformations are in test_special_points28.py.

Census of the 118 programs before the fixes (ok / n/a / refused at the user's line / WRONG / bad
error; n/a: per-example gradients of a function not shaped ``f(params, x, y)``, hvp of another
argument than the first, float32 of a float argument, a Hessian whose second differences are
unstable; one program, a namedtuple of parameters, had no reference: the harness's leaves did not
read namedtuples, tests/transforms/leaves.py now does):
grad, value_and_grad, jvp, vjp, jacobian, tree 113/0/3/1/0 each; float32 108/5/3/1/0; hessian
113/4/0/0/0; hvp 96/18/2/1/0; vmap 64/51/1/1/0; numba 109/0/7/1/0.
After: grad, value_and_grad, jvp, vjp, jacobian, tree 115/0/3/0/0 each; float32 110/5/3/0/0; hessian
115/3/0/0/0; hvp 98/18/2/0/0; vmap 66/51/1/0/0; numba 111/0/7/0/0.
Refused by every transformation at the user's line: ``np.pad`` with a width computed from a shape
(``k // 2`` of ``W.shape[2]``: "must be a constant here", 2 programs) and ``rng.normal(theta[0],
...)``, a draw whose distribution's parameters carry a gradient (on purpose: write
``mu + sd * eps``).  Refused by numba alone, at the user's line (numba's reach, left to the numba
backend's owners): a name a number before a loop and an array in it (power iteration's ``v``,
Sinkhorn's ``u``) and ``rng.choice``.

Found:

1. WRONG (NaN where the derivative is 0): a sigmoid written out, ``1.0 / (1.0 + np.exp(-z))``, at
   saturation (ordinal regression's thresholds padded with ``-np.inf`` / ``np.inf`` and gathered by
   the labels; a logit below -709, -88 in float32).  The optimiser's logistic pass
   (backend/optimize/logistic.py) rewrote the adjoint's ``s / d * e`` into ``s * (1.0 - s)`` inside
   one product of the backward sweep only, so it stayed ``0 * inf``:
   - in grad, value_and_grad, float32, numba, where the adjoint was split over two statements
     (``t_bar = -(s_bar * s / d)`` then ``z_bar = t_bar * e``: arrays read through an index keep
     their adjoints in statements of their own): the pass now follows names read once from one
     product to the next;
   - in vjp and a tree of the argument (whose wrapper calls the vjp), for every such sigmoid: the
     pullback is optimised as a function of its own, which cannot see the forward sweep's
     ``d = 1.0 + e``; the pass now runs on the pullback with the outer function's definitions
     (driver/compile.py), and looks through the ``unbroadcast(p, like)`` the pullback keeps (its
     shapes are not known there) where `like` has the shape of `e` (summing over axes along which
     `e` is constant commutes with ``* e``);
   - in jvp and hvp, for every such sigmoid: forward mode's tangent ``-(d_dot * s / d)`` of a
     ``d_dot`` that is ``u_dot * e`` is ``inf / inf``; the pass now rewrites tangents too (``* e``
     leaves ``e_dot``, ``/ d`` becomes ``* (1.0 - s)``; driver/forward.py runs it on jvp's code).
   Variants: redteam_wave28b_sigmoid.py.
2. OPEN, WRONG (NaN where the derivative is 0): the Hessian (hessian, hvp) of
   ``np.sum(1.0 / (1.0 + np.exp(-z)))`` at ``z = -inf`` (it differentiated the gradient's
   ``(1.0 - 1.0 / d) / d``, whose tangent is ``inf / inf``; fixed in reach 29: the sigmoid written out
   is lowered as one call of srcdiff's logistic function, test_reach29_sigmoid.py), and
   ``(np.inf - mu) / np.exp(log_s)`` differentiated in `log_s`, ``0 * inf`` in every transformation
   (an infinite value times a zero adjoint, as in JAX).  ``scipy.special.expit`` is right everywhere
   and is the workaround for both.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix
from . import redteam_wave28b_bayes as bayes
from . import redteam_wave28b_programs as programs_module
from . import redteam_wave28b_sigmoid as sigmoid

ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap")


def programs():
    return (corpus.from_table(programs_module.PROGRAMS, "w28b", "redteam_wave28b_programs", 28)
            + corpus.from_table(bayes.PROGRAMS, "w28b", "redteam_wave28b_bayes", 28))


def _name(p):
    return p.name.partition(":")[2]



#: the default run's rows (one of each kind of program)
KEPT = {"huber_tf", "namedtuple_params", "gru_time_loop", "student_t_lgamma_nu", "reparam_elbo", "ordinal_logit"}

#: refused by grad at the user's line, and so by every other transformation
#: (conv1d_channels_stride_pad and its _x row, accepted since wave 34, agree in every transformation)
REFUSED = {"mc_expectation_normal_draws"}

#: transformations a program is NaN in (open: 2)
SATURATED_OPEN: dict = {}


def _assert_ok(program, transforms):
    """Every transformation of `transforms` agrees on `program`, or does not apply to it (n/a)."""
    transforms = tuple(t for t in transforms if t not in SATURATED_OPEN.get(_name(program), ()))
    matrix.assert_ok_or_na(program, transforms)


def accepted():
    return [p for p in programs() if _name(p) not in REFUSED]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in accepted()], ids=_name)
def test_first_order(program):
    _assert_ok(program, (*matrix.FIRST_ORDER, "jacobian", "float32"))


@pytest.mark.slow
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_every_transformation(program):
    _assert_ok(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in
                                     enumerate(p for p in programs() if _name(p) in REFUSED)], ids=_name)
def test_what_grad_refuses_every_transformation_refuses_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "jvp", "vjp", "jacobian", "hvp"))


# ---- 1. a sigmoid written out, saturated, its adjoint split over two statements ----


SIGMOID = corpus.from_table(sigmoid.PROGRAMS, "w28b", "redteam_wave28b_sigmoid", 28)
#: every transformation NaN (an infinite value times a zero adjoint): open
SIGMOID_OPEN = {"probit_like_logistic_cdf"}
SIGMOID_FIXED = [p for p in SIGMOID if _name(p) not in SIGMOID_OPEN]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("program", [corpus.slow_unless(i < 3, p) for i, p in enumerate(SIGMOID_FIXED)], ids=_name)
def test_saturated_sigmoid_grad_value_and_grad_float32_hessian(program):
    _assert_ok(program, ("grad", "value_and_grad", "jacobian", "float32", "hessian", "vmap"))


@pytest.mark.slow
@pytest.mark.parametrize("program", SIGMOID_FIXED, ids=_name)
def test_saturated_sigmoid_numba(program):
    _assert_ok(program, ("numba",))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_saturated_sigmoid_is_zero_at_infinite_thresholds():
    """The thresholds' rows at -inf and inf contribute exactly 0 (not NaN), and the rest is central
    differences'."""
    w, x, k = np.array([0.2, -0.4, 0.1]), np.random.default_rng(1).standard_normal((6, 3)), np.array([0, 1, 2, 2, 1, 0])
    with np.errstate(all="ignore"):
        got = srcdiff.grad(sigmoid.ordinal_thresholds_padded)(w, x, k)
    np.testing.assert_allclose(got, central_difference(sigmoid.ordinal_thresholds_padded, (w, x, k), 0), rtol=1e-6)
    eta = np.array([0.3, -0.2, 0.1, 0.4])
    with np.errstate(all="ignore"):
        g = srcdiff.grad(sigmoid.gathered_once)(eta[:3], np.array([0, 1, 3]))
    assert g[0] == 0.0 and g[2] == 0.0 and np.isfinite(g[1])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("program", [corpus.slow_unless(i < 2, p) for i, p in enumerate(SIGMOID_FIXED)], ids=_name)
def test_saturated_sigmoid_forward_mode_and_second_order(program):
    _assert_ok(program, ("jvp", "hvp"))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in enumerate(SIGMOID_FIXED)], ids=_name)
def test_saturated_sigmoid_vjp_and_tree(program):
    _assert_ok(program, ("vjp", "tree"))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_saturated_sigmoid_tangent_is_zero():
    """jvp's tangent of ``1.0 / (1.0 + np.exp(-z))`` at z = -800 and -inf is 0 (was inf / inf = NaN), vjp's
    pullback gives 0 too, and both are the sigmoid's derivative elsewhere."""
    z = np.array([-800.0, -np.inf, 0.3, 800.0])
    s = 1.0 / (1.0 + np.exp(-z[2]))
    want = np.array([0.0, 0.0, s * (1 - s), 0.0])
    with np.errstate(all="ignore"):
        for k in range(4):
            tangent = srcdiff.jvp(_sum_of_sigmoids, (z,), (np.eye(4)[k],))[1]
            np.testing.assert_allclose(tangent, want[k], atol=1e-300)
        np.testing.assert_allclose(srcdiff.vjp(_sum_of_sigmoids, z)[1](1.0), want, atol=1e-300)
        np.testing.assert_allclose(srcdiff.jvp(_scalar_sigmoid, (-800.0,), (1.0,))[1], 0.0)
        np.testing.assert_allclose(srcdiff.vjp(_scalar_sigmoid, -800.0)[1](1.0), 0.0)


def _sum_of_sigmoids(z):
    return np.sum(1.0 / (1.0 + np.exp(-z)))


def _scalar_sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_saturated_sigmoid_hessian():
    """Fixed in reach 29: the sigmoid written out is lowered as srcdiff's logistic (test_reach29_sigmoid.py)."""
    z = np.array([-np.inf, 0.3])
    s = 1.0 / (1.0 + np.exp(-0.3))
    with np.errstate(all="ignore"):
        got = srcdiff.hessian(_sum_of_sigmoids)(z)
    np.testing.assert_allclose(got, np.diag([0.0, s * (1 - s) * (1 - 2 * s)]), atol=1e-12)
