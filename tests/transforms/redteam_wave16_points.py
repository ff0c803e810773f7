"""The red team's sixteenth wave, continued: special points where the function is still smooth (``x ** 0``,
``x ** 1.0`` and ``x ** 0.0`` at 0 and at negatives, an exponent differentiated at a zero base, powers at
0, a square root of a sum of fourth powers at 0, log1p / expm1 near 0, a softplus guarded by
``np.where`` at |x| = 800, ``np.logaddexp`` at +-1000, a log-sum-exp with ``-inf`` entries from a mask's
log, a softmax over logits masked with ``-np.inf``, a guarded square root at a negative radicand, kinks
that cancel (clip plus the two overflows), an arcsin of a clipped value beyond the bound, tanh saturated,
a cumulative product through a zero, ``np.maximum(x, 0) ** 2.5`` at 0) and float32 arguments through a
whole program (an HMM forward pass, an RK4 fit, a mixture NLL, a 1D FEM solve, an einsum bilinear form, a
cumsum, a softplus, a Kalman filter).  See redteam_wave16.py.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special

from .redteam_wave16_textbook import TEXTBOOK16 as _TB


def M(rng, *shape):
    return rng.normal(size=shape)


def F(a):
    return np.asarray(a, dtype=np.float32)


# ---- powers --------------------------------------------------------------------------------------------


def pow_int_zero_one(x, c):
    return np.sum(c * (x ** 0 + x ** 1 + 0.5 * x ** 2))


def pow_float_one(x, c):
    return np.sum(c * x ** 1.0)


def pow_float_zero(x):
    return np.sum(x ** 0.0 * x + x)


def pow_exponent_at_zero_base(p, base):
    return np.sum(base ** p)


def np_power_cube_at_zero(x):
    return np.sum(np.power(x, 3) + np.power(x, 2))


def float_power_negative(x):
    return np.sum(np.float_power(x, 2) + np.float_power(x, 3))


def sqrt_sum_fourth_at_zero(x, y):
    return np.sqrt(x ** 4 + y ** 4) + x + 2 * y


def root_of_even_power(x):
    return np.sum((x ** 6) ** (1.0 / 3.0))


def math_pow_at_zero(a):
    return math.pow(a, 2) + math.pow(a, 3.0) + a


# ---- near zero and far out ------------------------------------------------------------------------------


def log1p_expm1_tiny(x):
    return np.sum(np.log1p(x) + np.expm1(x) + np.log1p(-x))


def softplus_guarded(x, w):
    sp = np.where(x > 30.0, x, np.log1p(np.exp(x)))
    return np.sum(w * sp)


def logaddexp_far(x):
    return np.sum(np.logaddexp(0.0, x) + np.logaddexp(x, -x))


def logsumexp_mask_log(x, mask):
    return scipy.special.logsumexp(x + np.log(mask))


def softmax_masked_inf(x, mask, y):
    z = np.where(mask, x, -np.inf)
    e = np.exp(z - np.max(z))
    p = e / np.sum(e)
    return np.sum(p * y)


def log_softmax_masked(x, mask, label):
    z = np.where(mask, x, -np.inf)
    logp = z - scipy.special.logsumexp(z)
    return -logp[label]


def sqrt_guarded_negative(x):
    d = 1.0 - x ** 2
    safe = np.where(d > 0, d, 1.0)
    return np.sum(np.where(d > 0, np.sqrt(safe), 0.0))


def clip_plus_overflows(x):
    return np.sum(np.clip(x, -1.0, 1.0) + np.maximum(x - 1.0, 0.0) + np.minimum(x + 1.0, 0.0))


def arcsin_clipped_beyond(x):
    return np.sum(np.arcsin(np.clip(x, -1.0, 1.0)) * np.arange(1.0, len(x) + 1))


def tanh_saturated(x):
    return np.sum(np.tanh(x) * x)


def cumprod_through_zero(x):
    return np.sum(np.cumprod(x))


def prod_through_zero_axis(X):
    return np.sum(np.prod(X, axis=1) ** 2) + np.sum(np.prod(X, axis=0))


def relu_power_two_and_half(x):
    return np.sum(np.maximum(x, 0.0) ** 2.5)


def log_expit_far(x):
    return np.sum(scipy.special.log_expit(x) + scipy.special.expit(x))


def exp_underflow_tail(x):
    return np.sum(np.exp(-x ** 2) * x + np.exp(-np.abs(x) * 10))


def log_ndtr_tail(x):
    return np.sum(scipy.special.log_ndtr(x))


def where_constant_branch_inf(x):
    y = np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), -1e3)
    return np.sum(y * x)


# ---- float32 throughout --------------------------------------------------------------------------------


def hmm_f32(logits_A, log_B, obs):
    log_A = logits_A - scipy.special.logsumexp(logits_A, axis=1, keepdims=True)
    alpha = log_B[:, obs[0]] - np.float32(np.log(3.0))
    for t in range(1, len(obs)):
        alpha = scipy.special.logsumexp(alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]
    return -scipy.special.logsumexp(alpha)


def mixture_f32(logits, means, x):
    logw = logits - scipy.special.logsumexp(logits)
    comp = -0.5 * (x[:, None] - means[None, :]) ** 2
    return -np.sum(scipy.special.logsumexp(comp + logw, axis=1))


def einsum_bilinear_f32(A, x, y):
    return np.einsum("i,ij,j->", x, A, y) + np.einsum("ij,ij->", A, A)


def cumsum_f32(x):
    c = np.cumsum(x)
    return np.sum(c ** 2) / np.float32(len(x))


def softplus_f32(x, w):
    return np.sum(w * np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20)))))


def spring_f32(x, k=2.0):
    d = np.diff(x) - np.float32(1.0)
    return np.float32(0.5 * k) * np.sum(d * d) + np.sum(np.cos(x))


def _tb(name):
    return next(row for row in _TB if row[0] == name)


def _f32_of(name, new):
    """The textbook program `name` with every float argument as float32."""
    _, f, make, wrt = _tb(name)

    def cast(r):
        return tuple(F(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in make(r))
    return (new, f, cast, wrt)


#: sqrt_sum_fourth_at_zero and root_of_even_power are NaN where the derivative is finite (a power stationary at 0
#: under a root): test_redteam_wave16_findings.py pins them, so they are not rows of the matrix.
POINTS16 = [
    ("w16_pow_int_zero_one", pow_int_zero_one, lambda r: (np.array([0.0, -1.0, 2.0]), M(r, 3)), 0),
    ("w16_pow_float_one", pow_float_one, lambda r: (np.array([0.0, -1.5, 2.0]), M(r, 3)), 0),
    ("w16_pow_float_zero", pow_float_zero, lambda r: (np.array([0.0, -1.5, 2.0]),), 0),
    ("w16_pow_exponent_zero_base", pow_exponent_at_zero_base,
     lambda r: (np.array([2.0, 1.5, 3.0]), np.array([0.0, 1.5, 2.0])), 0),
    ("w16_np_power_cube_at_zero", np_power_cube_at_zero, lambda r: (np.array([0.0, 0.5, -1.0]),), 0),
    ("w16_float_power_negative", float_power_negative, lambda r: (np.array([-1.5, -0.5, 2.0]),), 0),
    ("w16_math_pow_at_zero", math_pow_at_zero, lambda r: (0.0,), 0),
    ("w16_log1p_expm1_tiny", log1p_expm1_tiny, lambda r: (np.array([1e-12, -1e-10, 0.0]),), 0),
    ("w16_softplus_guarded", softplus_guarded, lambda r: (np.array([800.0, -800.0, 0.5]), M(r, 3)), 0),
    ("w16_logaddexp_far", logaddexp_far, lambda r: (np.array([1000.0, -1000.0, 0.3]),), 0),
    ("w16_logsumexp_mask_log", logsumexp_mask_log, lambda r: (M(r, 4), np.array([1.0, 0.0, 1.0, 0.0])), 0),
    ("w16_softmax_masked_inf", softmax_masked_inf,
     lambda r: (M(r, 4), np.array([True, False, True, True]), M(r, 4)), 0),
    ("w16_log_softmax_masked", log_softmax_masked, lambda r: (M(r, 4), np.array([True, False, True, True]), 2), 0),
    ("w16_sqrt_guarded_negative", sqrt_guarded_negative, lambda r: (np.array([0.5, 1.5, -2.0, 0.2]),), 0),
    ("w16_clip_plus_overflows", clip_plus_overflows, lambda r: (np.array([1.0, -1.0, 0.3, 2.0]),), 0),
    ("w16_arcsin_clipped_beyond", arcsin_clipped_beyond, lambda r: (np.array([1.5, 0.3, -2.0]),), 0),
    ("w16_tanh_saturated", tanh_saturated, lambda r: (np.array([50.0, -40.0, 0.2]),), 0),
    ("w16_cumprod_through_zero", cumprod_through_zero, lambda r: (np.array([1.5, 0.0, -2.0, 0.5]),), 0),
    ("w16_prod_through_zero_axis", prod_through_zero_axis,
     lambda r: (np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 3.0]]),), 0),
    ("w16_relu_power_two_and_half", relu_power_two_and_half, lambda r: (np.array([0.0, 1.0, -1.0]),), 0),
    ("w16_log_expit_far", log_expit_far, lambda r: (np.array([-1000.0, 1000.0, 0.4]),), 0),
    ("w16_exp_underflow_tail", exp_underflow_tail, lambda r: (np.array([40.0, -45.0, 0.5]),), 0),
    ("w16_log_ndtr_tail", log_ndtr_tail, lambda r: (np.array([-40.0, 10.0, 0.0]),), 0),
    ("w16_where_constant_branch_inf", where_constant_branch_inf, lambda r: (np.array([0.5, -1.0, 2.0]),), 0),
    ("w16_f32_hmm", hmm_f32, lambda r: (F(M(r, 3, 3)), F(np.log(r.uniform(0.1, 1, (3, 2)))), [0, 1, 1, 0]), 0),
    ("w16_f32_mixture", mixture_f32, lambda r: (F(M(r, 3)), F(M(r, 3)), F(M(r, 6))), 1),
    ("w16_f32_einsum_bilinear", einsum_bilinear_f32, lambda r: (F(M(r, 3, 3)), F(M(r, 3)), F(M(r, 3))), 0),
    ("w16_f32_cumsum", cumsum_f32, lambda r: (F(M(r, 5)),), 0),
    ("w16_f32_softplus", softplus_f32, lambda r: (F([30.0, -5.0, 0.5]), F(M(r, 3))), 0),
    ("w16_f32_spring", spring_f32, lambda r: (F(np.cumsum(r.uniform(0.8, 1.2, 5))),), 0),
    _f32_of("w16_lotka_volterra", "w16_f32_lotka_volterra"),
    _f32_of("w16_fem_1d_stiffness", "w16_f32_fem_1d"),
    _f32_of("w16_kalman_loglik", "w16_f32_kalman_loglik"),
    _f32_of("w16_truss_energy", "w16_f32_truss"),
]
