"""What the red team's sixteenth wave found wrong, continued (classes 4-8; 1-3 and the wave's summary are in
test_redteam_wave16_findings.py): random draws under jit="numba" and jacobian, a root at the edge of its
domain, ties between elements of one array at second order, and the maximum spelled two ways at a tie.
References are float64 central differences (tests/numeric.py) or the closed form; never srcdiff."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from .test_redteam_wave16_findings import _assert_agrees, _first_order, _nan_or_agrees

# ---- 4. SILENT under jit="numba": draws from np.random's global stream -----------------------------------
# A loss that draws from NumPy's global stream (dropout written ``np.random.rand(n) > p``) is differentiated
# by grad at the draw f makes (``np.random.seed(s)`` before the call: the same numbers).  jit="numba" compiles
# the draw, and numba's np.random is a stream of its own that ``np.random.seed`` does not reach: the compiled
# gradient belongs to other numbers.  The first call of each signature is checked against the Python gradient
# and refused when they differ (with a wrong reason: "numba's integers ... wrap around"); once a call happens
# to draw the same mask, later calls are not checked and return the gradient of another mask, silently.


def coin_loss(x):
    keep = np.random.rand() > 0.5
    return np.sum(x ** 2) if keep else np.sum(3.0 * x)


# Fixed: such a draw is refused at its line under jit="numba" (rules/draws.py, driver/lowering.py).
def test_numba_gradient_of_a_global_random_draw():
    x = np.array([1.0, 2.0])
    g = srcdiff.grad(coin_loss, jit="numba")
    wrong = []
    for seed in range(40):
        np.random.seed(seed)
        keep = np.random.rand() > 0.5
        want = 2.0 * x if keep else np.full(2, 3.0)
        np.random.seed(seed)
        try:
            got = g(x)
        except srcdiff.SrcDiffError as exc:  # refused at the draw's line: never silently wrong
            assert "test_redteam_wave16_findings_more.py:" in str(exc).splitlines()[0], exc
            continue
        if not np.allclose(got, want):
            wrong.append((seed, got, want))
    assert not wrong, wrong


# ---- 5. SILENT: jacobian and second order of a function drawing from np.random's global stream ----------------
# ``srcdiff.jacobian(f)`` of a vector function and ``srcdiff.jacobian(srcdiff.grad(f))`` run f's forward code
# more than once, so after ``np.random.seed(0)`` they return the derivative at a later draw than the one f (and
# grad, value_and_grad, jvp, vjp, hvp) makes: the Jacobian of ``np.exp(x * np.random.rand(3))`` is
# ``diag(s * exp(x * s))`` for the second draw s, not the first.  (``hessian``'s first call for a signature
# does the same; later calls agree, but take two draws where f takes one.)


def noisy_exp_map(x):
    s = np.random.rand(3)
    return np.exp(x * s)


def noisy_exp_sum(x):
    s = np.random.rand(3)
    return np.sum(np.exp(x * s))


# Fixed: refused at the draw's line by every transformation that runs the code more than once a call
# (rules/draws.py, driver/lowering.py); where one computes, it is the derivative at f's own draw.
@pytest.mark.parametrize("which", ["jacobian", "jacobian_of_grad", "hessian", "vmap"])
def test_jacobian_of_a_global_random_draw(which):
    x = np.array([0.5, -1.0, 2.0])
    np.random.seed(0)
    s = np.random.rand(3)
    np.random.seed(0)
    try:
        if which == "jacobian":
            got, want = srcdiff.jacobian(noisy_exp_map)(x), np.diag(s * np.exp(x * s))
        elif which == "jacobian_of_grad":
            got, want = srcdiff.jacobian(srcdiff.grad(noisy_exp_sum))(x), np.diag(s * s * np.exp(x * s))
        elif which == "hessian":
            got, want = srcdiff.hessian(noisy_exp_sum)(x), np.diag(s * s * np.exp(x * s))
        else:
            got, want = srcdiff.vmap(srcdiff.grad(noisy_exp_sum))(np.stack([x, x])), np.stack([s * np.exp(x * s)] * 2)
    except srcdiff.SrcDiffError as exc:
        assert "test_redteam_wave16_findings_more.py:" in str(exc).splitlines()[0], exc
        return
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_first_order_of_a_global_random_draw_is_exact():
    x = np.array([0.5, -1.0, 2.0])
    np.random.seed(0)
    s = np.random.rand(3)
    np.random.seed(0)
    np.testing.assert_allclose(srcdiff.grad(noisy_exp_sum)(x), s * np.exp(x * s), rtol=1e-12)
    np.random.seed(0)
    try:  # forward over the gradient's code made to be differentiated again: refused with the Jacobians
        product = srcdiff.hvp(noisy_exp_sum, x, np.ones(3))
    except srcdiff.SrcDiffError as exc:
        assert "test_redteam_wave16_findings_more.py:" in str(exc).splitlines()[0], exc
    else:
        np.testing.assert_allclose(product, s * s * np.exp(x * s), rtol=1e-12)


# ---- 6. a root at the edge of its domain whose radicand moves: 0, not the documented NaN ---------------------
# docs/guarantees.md says ``np.sqrt(s) ** 2`` "is not rewritten ... so its derivative at s = 0 is the honest NaN
# of np.sqrt at 0", and also that a zero adjoint of a root at the edge of its domain "passes nothing on"
# (exact for ``np.sqrt(np.sum(x ** 2)) ** 3``, whose radicand is stationary).  The second rule wins: grad, vjp
# and numba give 0 for ``np.sqrt(s) ** 2`` and for ``np.arccos(c) ** 2`` at c = 1, where the function's one-sided
# derivative is 1 (and -2), and jvp gives NaN: two answers for one derivative, neither the documented one.
# FIXED (ad/zero_factors.py, vanishing_adjoints): the zero adjoint is held only where the root's power p m is above
# 1 (``np.sqrt(s) ** 3``) or the radicand is a sum of squares; here the honest NaN.


def sqrt_then_square(s):
    return np.sqrt(s) ** 2


def arccos_squared(c):
    return np.arccos(c) ** 2


@pytest.mark.parametrize("f, x, one_sided", [(sqrt_then_square, 0.0, 1.0), (arccos_squared, 1.0, -2.0)],
                         ids=["sqrt_then_square", "arccos_squared"])
def test_root_at_the_edge_of_its_domain(f, x, one_sided):
    h = 1e-7
    side = (f(x + h) - f(x)) / h if one_sided > 0 else (f(x) - f(x - h)) / h
    assert np.isclose(side, one_sided, rtol=1e-5)
    got = {"grad": srcdiff.grad(f)(x), "vjp": srcdiff.vjp(f, x)[1](1.0),
           "numba": srcdiff.grad(f, jit="numba")(x)}
    _nan_or_agrees(got, one_sided)


# ---- 7. SILENT at second order: a tie between elements of one array is read as persistent ---------------------
# docs/guarantees.md: at a tie, the share's derivative is NaN wherever the tie holds, unless srcdiff proves the
# tie persistent (the same primitives on the same values); ties of np.max / np.min reductions share equally at
# first order.  Where the two tied operands are elements (or slices, or rows) of one array, and wherever an
# ``np.max`` reduction ties, hessian, hvp, jacobian(grad) and jvp(grad) give the finite half-share Hessian, as if
# the tie persisted: ``np.maximum(np.sin(v[0]), np.sin(v[1]))`` at v[0] == v[1] gives diag(-sin(v)/2), where
# moving v[0] alone ends the tie and the one-sided second differences are -sin(v[0]) and 0.  The same tie between
# two arguments is NaN, as documented.  It meets users at a zero initialisation: the multiclass hinge
# ``np.max(X @ W, axis=1)`` at W = 0 and ``np.max(W @ x) ** 2`` tie every class, max pooling ties equal inputs.


def max_of_two_items(v):
    return np.maximum(np.sin(v[0]), np.sin(v[1]))


def max_reduction_of_sines(v):
    return np.max(np.sin(v))


def max_pool_pairs(x):
    return np.sum(np.max(x.reshape(2, 2), axis=1) ** 2)


def hinge_max_over_classes(W, X):
    return np.sum(np.max(X @ W, axis=1) ** 2)


_X2 = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 1.0]])
_REDUCTION = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "OPEN: a tie inside an np.max reduction keeps its share's derivative 0, which keeps the max subtracted "
    "for stability exact at ties (softmax cross-entropy at W = 0); max pooling and a hinge have no Hessian there"))
ITEM_TIES = [
    (max_of_two_items, (np.array([0.3, 0.3]),)),
    pytest.param(max_reduction_of_sines, (np.array([0.3, 0.3, -1.0]),), marks=_REDUCTION),
    pytest.param(max_pool_pairs, (np.array([0.5, 0.5, -1.0, 2.0]),), marks=_REDUCTION),
    pytest.param(hinge_max_over_classes, (np.zeros((3, 2)), _X2), marks=_REDUCTION),
]


def _one_sided_second(f, args, k, h=1e-4):
    """The second differences of f along coordinate k of its first argument, to the right and to the left."""
    x = np.asarray(args[0], dtype=float)
    e = np.zeros_like(x)
    e.flat[k] = h
    f0 = f(x, *args[1:])
    right = (f(x + 2 * e, *args[1:]) - 2 * f(x + e, *args[1:]) + f0) / h ** 2
    left = (f(x - 2 * e, *args[1:]) - 2 * f(x - e, *args[1:]) + f0) / h ** 2
    return right, left


# Fixed: two operands read from one array with different indices are not one function (ad/ties.py compares
# what each call reads besides its operands); variants: tests/transforms/test_ties16.py.  Open (strict xfail):
# ties inside np.max / np.min reductions, whose share keeps derivative 0 so that the max subtracted for
# stability stays exact at a tie (a share through `tie` there made softmax cross-entropy's Hessian NaN at W = 0).
@pytest.mark.parametrize("f, args", ITEM_TIES, ids=lambda c: getattr(c, "__name__", ""))
def test_tie_between_elements_of_one_array_at_second_order(f, args):
    right, left = _one_sided_second(f, args, 0)
    assert abs(right - left) > 1e-2, (right, left)  # the tie ends along the first coordinate: no second derivative
    n = np.size(args[0])
    H = np.asarray(srcdiff.hessian(f)(*args), dtype=float).reshape(n, n)
    assert np.isnan(H[0, 0]), H


def test_the_same_tie_between_two_arguments_is_nan():
    def two_args(a, b):
        return np.maximum(np.sin(a), np.sin(b))
    assert np.isnan(srcdiff.hessian(two_args, wrt=(0, 1))(0.3, 0.3)).all()


# ---- 8. SILENT: the maximum spelled two ways at a tie does not cancel ---------------------------------------
# At a tie np.max shares the gradient equally, but the maximum read as ``np.sort(v)[-1]`` or gathered as
# ``v[np.argmax(v)]`` gives it all to one element (the sort's stable order, argmax's first index).  A function
# that uses both spellings of one maximum is smooth where they cancel, and its gradient is not exact:
# ``np.sort(v)[-1] - np.max(v) + np.sum(v)`` (= sum(v)) at v = [1, 1, 0] gives [0.5, 1.5, 1], truth [1, 1, 1], in
# grad and jvp alike.  docs/guarantees.md's "kinks that cancel" lists abs, maximum, minimum, fmax, fmin, clip
# and builtin max/min, not sort or an argmax gather; the class is the two conventions meeting.


def sort_last_minus_max(v):
    return np.sort(v)[-1] - np.max(v) + np.sum(v)


def argmax_gather_minus_max(v):
    return v[np.argmax(v)] - np.max(v) + np.sum(v)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="np.sort / argmax gathers take one side of a tie, np.max shares it: they do not cancel")
@pytest.mark.parametrize("f", [sort_last_minus_max, argmax_gather_minus_max], ids=lambda f: f.__name__)
def test_maximum_spelled_two_ways_at_a_tie(f):
    v = np.array([1.0, 1.0, 0.0])
    want = central_difference(f, (v,), 0)
    assert np.allclose(want, 1.0)
    _assert_agrees(_first_order(f, (v,)), want)
