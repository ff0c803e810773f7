"""Second order at a tie (#24): exact where the tie persists near the point, NaN where it may
end, never another number.

A tie's share jumps where the tie ends, so in a gradient srcdiff differentiates again its
derivative is NaN at the tie, wherever the tie holds (not only where the direction moves an
operand: an operand can be stationary at the tie and still curved).  Where srcdiff proves that
the two operands are one function near the point (the same primitives from the same values, up
to a clip / maximum / minimum that strictly selects an operand there: PPO's clipped objective
inside its band), the share is constant nearby and its derivative 0: exact.

References: closed forms by hand, and second differences of the function itself."""

import math

import numpy as np
import pytest

import srcdiff


def second_difference(f, x, u, v, h=1e-4):
    """u^T H v of f at x, from values of f alone (float64, exact to about 1e-7 relative)."""
    def at(a, b):
        return f(x + a * h * u + b * h * v)
    return (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h)


def numeric_hessian(f, x):
    n = x.size
    eye = np.eye(n)
    return np.array([[second_difference(f, x, eye[i], eye[j]) for j in range(n)] for i in range(n)])


def every_second_order(f, x, *rest):
    """The Hessian of f at x by every second-order transformation, each as a full matrix."""
    n = x.size
    eye = np.eye(n)
    yield "hessian", srcdiff.hessian(f)(x, *rest)
    yield "jacobian(grad)", srcdiff.jacobian(srcdiff.grad(f))(x, *rest)
    yield "hvp", np.stack([srcdiff.hvp(f, x, eye[i], *rest) for i in range(n)], axis=1)
    grad = srcdiff.grad(f)
    zeros = [np.zeros_like(r) for r in rest]
    yield "jvp(grad)", np.stack([srcdiff.jvp(grad, (x, *rest), (eye[i], *zeros))[1] for i in range(n)], axis=1)


# ---- ties that persist: PPO's clipped objective and its spellings ---------------------------

def ppo(ratio, adv, eps=0.2):
    return -np.mean(np.minimum(ratio * adv, np.clip(ratio, 1.0 - eps, 1.0 + eps) * adv))


def ppo_log(logp, old, adv):  # the red team's: the ratio as exp of a log-ratio
    ratio = np.exp(logp - old)
    clipped = np.clip(ratio, 0.8, 1.2)
    return -np.mean(np.minimum(ratio * adv, clipped * adv))


def ppo_swapped(ratio, adv):  # the operands the other way round, the product too
    return -np.sum(np.minimum(adv * np.clip(ratio, 0.9, 1.1), adv * ratio))


def ppo_maximum(ratio, adv):  # the pessimistic bound as a maximum of losses
    return np.sum(np.maximum(-ratio * adv, -np.clip(ratio, 0.9, 1.1) * adv))


def ppo_array_bounds(ratio, adv):
    low, high = 1.0 - 0.1 * np.ones(ratio.shape), 1.0 + 0.1 * np.ones(ratio.shape)
    return -np.sum(np.minimum(np.sin(ratio) * adv, np.sin(np.clip(ratio, low, high)) * adv))


def ppo_squared(ratio, adv):  # curvature on both sides: the Hessian is not 0
    return np.sum(np.minimum(ratio ** 2 * adv, np.clip(ratio, 0.5, 1.5) ** 2 * adv))


def same_operand(x):
    return np.sum(np.maximum(x * x, x * x) + np.minimum(np.sin(x), np.sin(x)))


def clip_then_maximum(x):  # maximum(x, 0) strictly selects x where x > 0: the tie persists there
    return np.sum(np.minimum(np.exp(np.maximum(x, 0.0)), np.exp(x)))


PERSISTENT = [  # (function, x, other arguments, the Hessian by hand)
    (ppo, np.array([1.0, 0.95, 1.1, 1.15]), (np.array([1.0, -2.0, 0.5, -0.3]),), lambda x, a: np.zeros((4, 4))),
    (ppo_swapped, np.array([1.0, 0.95, 1.05]), (np.array([1.0, -2.0, 0.5]),), lambda x, a: np.zeros((3, 3))),
    (ppo_maximum, np.array([1.0, 0.95, 1.05]), (np.array([1.0, -2.0, 0.5]),), lambda x, a: np.zeros((3, 3))),
    (ppo_array_bounds, np.array([1.0, 0.95, 1.05]), (np.array([1.0, -2.0, 0.5]),),
     lambda x, a: np.diag(np.sin(x) * a)),
    (ppo_squared, np.array([1.0, 0.7, 1.3]), (np.array([1.0, -2.0, 0.5]),), lambda x, a: np.diag(2.0 * a)),
    (same_operand, np.array([0.0, 1.0, -0.5]), (), lambda x: np.diag(2.0 - np.sin(x))),
    (clip_then_maximum, np.array([0.5, 1.0, 2.0]), (), lambda x: np.diag(np.exp(x))),
]
PERSISTENT_IDS = [p[0].__name__ for p in PERSISTENT]


@pytest.mark.parametrize("f, x, rest, exact", PERSISTENT, ids=PERSISTENT_IDS)
def test_a_persistent_tie_is_exact_at_second_order(f, x, rest, exact):
    expected = exact(x, *rest)
    numeric = numeric_hessian(lambda v: f(v, *rest), x)
    np.testing.assert_allclose(numeric, expected, atol=1e-6)  # the reference itself
    for name, H in every_second_order(f, x, *rest):
        assert not np.isnan(H).any(), name
        np.testing.assert_allclose(H, expected, rtol=1e-12, atol=1e-14, err_msg=name)


def test_the_red_teams_ppo_loss_inside_the_band_against_second_differences():
    rng = np.random.default_rng(5)
    logp, old, adv = 0.05 * rng.normal(size=5), 0.05 * rng.normal(size=5), rng.normal(size=5)
    assert np.all(np.abs(np.exp(logp - old) - 1.0) < 0.2)  # strictly inside the band
    expected = np.diag(-np.exp(logp - old) * adv / 5)
    np.testing.assert_allclose(numeric_hessian(lambda v: ppo_log(v, old, adv), logp), expected, atol=1e-7)
    for name, H in every_second_order(ppo_log, logp, old, adv):
        np.testing.assert_allclose(H, expected, rtol=1e-12, atol=1e-15, err_msg=name)


def test_ppo_outside_the_band_and_at_its_edge():
    adv = np.array([1.0, -1.0, 1.0, -1.0])
    outside = np.array([1.5, 0.5, 0.5, 1.5])  # the clipped side (a constant) or the ratio alone holds
    expected = np.zeros((4, 4))
    for name, H in every_second_order(ppo, outside, adv):
        np.testing.assert_array_equal(H, expected, err_msg=name)
    edge = np.array([1.2, 1.0])  # at the band's edge the gradient jumps: NaN there, exact (0) inside
    for name, H in every_second_order(ppo, edge, np.array([1.0, 1.0])):
        assert np.isnan(H[0, 0]), name
        assert H[1, 1] == 0.0, name


def test_builtin_min_of_a_scalar_ppo_at_every_order():
    def f(r, adv):
        return min(r * adv, np.clip(r, 0.8, 1.2) * adv) * r
    second = srcdiff.grad(srcdiff.grad(f))
    for r, adv in [(1.0, 2.0), (0.9, -1.5), (1.1, 0.5)]:
        assert second(r, adv) == pytest.approx(2.0 * adv, rel=1e-14)  # f = adv r^2 inside the band
    assert math.isnan(second(1.2, 2.0))  # the band's edge: no second derivative
    assert second(1.5, 2.0) == 0.0  # the clipped side holds: f = 2.4 r


# ---- ties that may end: stationary or touching operands give NaN, never the shares' number --

def maximum_of_a_square(x):  # = x * x: the Hessian is 2 at 0, the shares' would be 1
    return np.sum(np.maximum(x * x, 0.0))


def clip_of_a_square(x):  # = x * x near 0
    return np.sum(np.clip(x * x, 0.0, 4.0))


def touching(x):  # = x * x: the line touches the parabola at x = 1 (equal slopes)
    return np.sum(np.maximum(x * x, 2.0 * x - 1.0))


def abs_of_a_square(x):
    return np.sum(np.abs(x * x * x) + np.abs(x * x))  # |x|^3 + x^2: Hessian 2 at 0


def norm_of_a_square(x):  # = x^2 for one element
    return np.linalg.norm(x * x)


def builtin_max_of_a_square(x):
    return max(x * x, 0.0)


STATIONARY = [  # (function, point, the true Hessian there)
    (maximum_of_a_square, np.array([0.0, 1.0]), np.diag([2.0, 2.0])),
    (clip_of_a_square, np.array([0.0, 1.0]), np.diag([2.0, 2.0])),
    (touching, np.array([1.0, 3.0]), np.diag([2.0, 2.0])),
    (abs_of_a_square, np.array([0.0, 1.0]), np.diag([2.0, 8.0])),
    (norm_of_a_square, np.array([0.0]), np.array([[2.0]])),
]


@pytest.mark.parametrize("f, x, truth", STATIONARY, ids=[s[0].__name__ for s in STATIONARY])
def test_a_tie_that_may_end_is_nan_or_exact_never_the_shares_number(f, x, truth):
    np.testing.assert_allclose(numeric_hessian(f, x), truth, atol=1e-3)  # the truth exists (|x|^3: O(h))
    for name, H in every_second_order(f, x):
        H = np.reshape(H, truth.shape)
        assert np.all(np.isnan(H) | np.isclose(H, truth, rtol=1e-12, atol=1e-14)), (name, H)
        assert np.isnan(H[0, 0]), name  # the tie itself: what the shares cannot know


def test_builtin_max_of_a_square_at_its_tie_is_nan():
    assert math.isnan(srcdiff.grad(srcdiff.grad(builtin_max_of_a_square))(0.0))
    assert srcdiff.grad(srcdiff.grad(builtin_max_of_a_square))(0.5) == 2.0


def relu_sum(x):
    return np.sum(np.maximum(x, 0.0))


def hinge_squared(x):
    return np.sum(np.maximum(1.0 - x, 0.0) ** 2)


def abs_sum(x):
    return np.sum(np.abs(x))


@pytest.mark.parametrize("f, x, tied", [(relu_sum, np.array([0.0, 1.0, -1.0]), 0),
                                        (hinge_squared, np.array([1.0, 0.5, 2.0]), 0),
                                        (abs_sum, np.array([0.0, 2.0, -1.0]), 0)])
def test_relu_abs_and_hinge_stay_nan_at_their_kink(f, x, tied):
    for name, H in every_second_order(f, x):
        assert np.isnan(H[tied, tied]), name
        free = [i for i in range(x.size) if i != tied]
        assert not np.isnan(H[np.ix_(free, free)]).any(), name


def test_float32_and_numba_keep_the_persistent_tie_exact():
    x, adv = np.array([1.0, 0.95, 1.05]), np.array([1.0, -2.0, 0.5])
    H = srcdiff.hessian(ppo_squared)(x.astype(np.float32), adv.astype(np.float32))
    assert H.dtype == np.float32
    np.testing.assert_allclose(H, np.diag(2.0 * adv), rtol=1e-6)
    g = srcdiff.grad(ppo_squared, jit="numba")(x, adv)
    np.testing.assert_allclose(g, 2.0 * x * adv, rtol=1e-14)


def reduced_sides(ratio, adv):  # sums of both sides: not elementwise, so not proved (NaN, never wrong)
    return np.minimum(np.sum(ratio * adv), np.sum(np.clip(ratio, 0.9, 1.1) * adv)) * np.sum(ratio)


def value_clipping(v, v_old, ret):  # PPO's value clipping: the sides agree only algebraically
    clipped = v_old + np.clip(v - v_old, -0.2, 0.2)
    return np.sum(np.maximum((v - ret) ** 2, (clipped - ret) ** 2))


def test_sides_that_are_not_proved_the_same_are_nan_where_tied():
    ratio, adv = np.array([1.0, 0.95]), np.array([1.0, -2.0])
    for name, H in every_second_order(reduced_sides, ratio, adv):
        assert np.isnan(H).all(), name
    v, v_old, ret = np.array([1.0, 2.0]), np.array([0.9, 1.5]), np.array([0.0, 0.0])
    for name, H in every_second_order(value_clipping, v, v_old, ret):
        assert np.isnan(H[0, 0]), name  # |v - v_old| < 0.2: tied, truth 2
        assert H[1, 1] == 2.0, name  # clipped: the first side alone holds
