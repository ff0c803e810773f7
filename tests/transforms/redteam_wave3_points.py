"""The third wave's special points: the red team's programs (redteam_wave3.py) at zeros, ties,
one-element reductions, guarded overflow and masked branches, with the derivative written by
hand (never srcdiff's output).

Each entry is ``Point(name, function, args, wrt, gradient, hessian)``: `gradient` is the exact
gradient at `args` (where the function is differentiable there, or the documented convention
of docs/guarantees.md where a primitive has a kink: `convention` names it), `hessian` the exact
Hessian (None: not checked, e.g. no second derivative exists there).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import redteam_wave3 as w
from . import redteam_wave3_library as lib


@dataclasses.dataclass
class Point:
    name: str
    func: object
    args: tuple
    wrt: int
    gradient: object
    hessian: object = None
    convention: str = ""  # the documented convention the gradient follows at a kink, if any


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, dtype=float)))


X3 = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.5, 0.5, 1.0], [1.0, -1.0, 2.0]])
Y4 = np.array([1.0, -1.0, 1.0, -1.0])
W_TIE = np.array([1.0, 0.25, 0.0])  # X3[0] @ W_TIE = 1: the first margin is exactly 0

XW, WW = np.array([0.3, -1.0, 2.0, 0.5, 1.1]), np.array([0.3, 0.5, 0.7, 0.2, 0.9])
MU = np.sum(WW * XW) / np.sum(WW)
VW = np.sum(WW * (XW - MU) ** 2) / np.sum(WW)

Z = np.array([800.0, -800.0, 0.5, 30.0])
SP = _sigmoid(Z)

POINTS = [
    # a mask that zeroes every residual: gradient 0 (and no 0/0 from the normaliser)
    Point("masked_mse_all_masked", w.masked_mse, (np.array([1.0, 2.0, 3.0]), np.zeros(3), np.zeros(3)), 0,
          np.zeros(3), np.zeros((3, 3))),
    Point("masked_mse_zero_residual", w.masked_mse, (np.ones(3), np.ones(3), np.array([1.0, 0.0, 1.0])), 0,
          np.zeros(3), np.diag([1.0, 0.0, 1.0])),
    # PPO at ratio 1 (logp == old_logp): the minimum's operands tie, both pass ratio' = 1
    Point("clipped_ratio_at_one", w.clipped_ratio_loss, (np.zeros(3), np.zeros(3), np.array([1.0, -2.0, 0.5])), 0,
          -np.array([1.0, -2.0, 0.5]) / 3, np.diag(-np.array([1.0, -2.0, 0.5]) / 3)),  # the tie persists
    # guarded overflow: x = 800 takes the linear branch, exp is never evaluated past 20
    Point("softplus_guarded_overflow", w.softplus_guarded, (Z,), 0, np.where(Z > 20.0, 1.0, SP),
          np.diag(np.where(Z > 20.0, 0.0, SP * (1 - SP)))),
    Point("log_sigmoid_saturated", w.log_sigmoid_sum, (Z,), 0, _sigmoid(-Z), np.diag(-SP * (1 - SP))),
    Point("huberized_logistic_far", w.huberized_logistic,
          (np.array([1.0, 0.0, 0.0]), np.array([[-900.0, 0.0, 0.0], [900.0, 0.0, 0.0]]), np.array([1.0, 1.0])), 0,
          np.array([900.0 - 900.0 * _sigmoid(-900.0), 0.0, 0.0])),
    # squared hinge at a margin of exactly 0: C1, gradient 2 * max(m, 0) * m' = 0 from that row
    Point("hinge_squared_margin_zero", w.hinge_squared, (W_TIE, X3, Y4), 0,
          (2.0 / 4) * sum(max(1.0 - y * (x @ W_TIE), 0.0) * (-y * x) for x, y in zip(X3, Y4)) + 0.02 * W_TIE),
    # clipping a zero gradient: the norm's 1e-12 keeps it finite, the minimum picks 1.0
    Point("grad_clip_zero_gradient", w.grad_clip_norm_step, (np.array([1.0, -2.0, 0.5]), np.zeros(3)), 1,
          -0.2 * np.array([1.0, -2.0, 0.5])),
    # contrastive pairs at distance 0 (the sqrt's 1e-9 keeps it smooth): gradient 0 there
    Point("contrastive_coincident", w.contrastive, (np.array([[0.5, 1.0], [1.0, 2.0], [0.0, 0.0]]),
                                                    np.array([[0.5, 1.0], [1.0, 2.0], [0.0, 0.0]])), 0,
          np.zeros((3, 2))),
    # log cosh written with |r|: the kink of abs cancels (tanh(0) = 0)
    Point("log_cosh_zero_residual", w.log_cosh, (np.array([0.0, 0.5]), np.array([0.0, 0.0])), 0,
          np.array([0.0, np.tanh(0.5)])),
    # smooth L1 at r = 0 and at the switch r = beta (C1: both sides give sign(r))
    Point("smooth_l1_switch", w.smooth_l1, (np.array([0.0, 0.5, -0.5, 2.0]), np.zeros(4)), 0,
          np.array([0.0, 1.0, -1.0, 1.0])),
    # a softmax over one class: the loss is identically 0
    Point("label_smoothing_one_class", w.label_smoothing_ce, (np.array([[0.3], [-2.0]]), np.ones((2, 1))), 0,
          np.zeros((2, 1)), np.zeros((2, 1, 2, 1))),
    # equal logits: the max's tie is shift-invariant, the entropy is at its maximum
    Point("softmax_entropy_tie", w.softmax_entropy, (np.full(4, 0.7),), 0, np.zeros(4)),
    # one-element weighted variance: identically 0 in x and in w
    Point("weighted_variance_single", w.weighted_variance, (np.array([1.3]), np.array([0.4])), 0,
          np.zeros(1), np.zeros((1, 1))),
    Point("weighted_variance_single_w", w.weighted_variance, (np.array([1.3]), np.array([0.4])), 1, np.zeros(1)),
    # a z-score of a constant vector: std is 0 (its 0/0 adjoint must not leak), the loss is 0 nearby
    # to third order: gradient 0
    Point("zscore_constant", w.zscore_loss, (np.full(4, 2.0),), 0, np.zeros(4)),
    # Kepler's equation at M = 0: dE/dM = 1 / (1 - e)
    Point("kepler_at_zero", w.kepler_newton, (np.zeros(2),), 0, np.full(2, 1.0 / 0.7), np.zeros((2, 2))),
    # piecewise energy exactly at the walls (C1): only the 0.1 * x^2 term's slope
    Point("bounded_energy_at_walls", w.bounded_energy, (np.array([1.0, -1.0, 0.0, 2.0]),), 0,
          np.array([0.2, -0.2, 0.0, 1.4])),
    # a point at the origin of a sphere SDF: the norm's documented subgradient 0 at 0
    Point("sphere_sdf_centre", lib.sphere_sdf, (np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]]),), 0,
          np.array([[0.0, 0.0, 0.0], [0.6, 0.8, 0.0]]), convention="norm'(0) = 0"),
    Point("capsule_on_segment", lib.capsule_distance, (np.array([0.5, 0.0]),), 0, np.zeros(2),
          convention="norm'(0) = 0"),
    # one list element, float parameters of a closure
    Point("closure_loss_zero_weights", lib.closure_loss,
          (np.zeros(3), X3, np.array([1.0, 0.0, -1.0, 2.0])), 0,
          2.0 / 4 * X3.T @ (X3 @ np.zeros(3) - np.array([1.0, 0.0, -1.0, 2.0])),
          convention="|w| ** 1.5 at 0: its derivative 0 (exact); its second derivative does not exist"),
    Point("default_eps_norm_zero", lib.default_eps_norm, (np.zeros(3),), 0, np.full(3, 1.0 / np.sqrt(1e-6))),
    Point("gelu_at_zero", w.gelu_tanh, (np.zeros(2),), 0, np.full(2, 0.5), np.diag(np.full(2, 0.7978845608))),
    # a zero vector: the eps of max(norm * norm, eps) takes over, the gradient is b / eps
    Point("cosine_similarity_zero", lib.cosine_similarity_eps, (np.zeros(3), np.array([1.0, -2.0, 0.5])), 0,
          np.array([1.0, -2.0, 0.5]) / 1e-8),
    # saturated probabilities: clipped away from 1, the loss is locally constant
    Point("focal_loss_saturated", lib.focal_loss_clipped, (np.array([20.0, -20.0]), np.array([1.0, 0.0])), 0,
          np.zeros(2), np.zeros((2, 2))),
    # a triplet exactly at the margin: the hinge's tie goes to its second operand (0)
    Point("triplet_at_margin", lib.triplet_margin, (np.array([[0.0, 0.0]]), np.array([[0.5, 0.0]]),
                                                     np.array([[1.0, 0.0]])), 0, np.zeros((1, 2)),
          convention="maximum's tie sends the gradient to its second operand"),
    # an exponentially weighted mean with alpha = 1: m follows the series, each term is (x_t - x_{t-1})^2
    Point("ewma_alpha_one", lib.ewma_loss, (1.0, np.array([0.0, 1.0, 3.0])), 1,
          np.array([-2.0, 2.0 - 4.0, 4.0])),
    # weights of a weighted variance (a vjp once crashed here): dV/dw_i = ((x_i - mu)^2 - V) / sum(w)
    Point("weighted_variance_weights", w.weighted_variance, (XW, WW), 1, ((XW - MU) ** 2 - VW) / WW.sum()),
]
