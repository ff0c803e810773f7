"""The red team's fourteenth wave, continued: special points where the function is smooth (x ** 0
and x ** 0.0 at 0, a data base 0 raised to a differentiated power, a log of 0 masked, xlogy
with zero weights, ties of a value with itself, abs and sign at 0 times a vanishing factor, clip
touching its bound, integer powers of negatives, np.power with an integer exponent array),
arrays made from computed shapes (np.zeros((n, n)), np.ones([n, 1]), np.full((n, m), c),
np.zeros(shape=...), np.zeros((len(x), len(x))), np.empty, np.zeros_like, blocks written by
slices) filled in loops and then solved, inverted or factored, Python idioms (NamedTuple state
with _replace, for / else, early returns from a while, try / except, recursion into a continued
fraction, dict iteration in sorted order, closures, __call__, conditional comprehensions),
scipy.special and scipy.stats (negative binomial through gammaln, probit by norm.logcdf, erfc,
log_expit, betaln, multivariate_normal.logpdf) and float32 inputs.  See redteam_wave14.py.
"""

from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.special
import scipy.stats

# ---- special points --------------------------------------------------------------------------------


def poly_with_x_pow_0(c, x):
    return sum(c[k] * x ** k for k in range(len(c)))


def float_exponent_zero(x):
    return np.sum(x ** 0.0 + 2.0 * x ** 1.0 + x ** 2.0)


def zero_base_power(p, d):
    return np.sum(d ** p)


def masked_log_zero(p, mask):
    safe = np.where(mask, p, 1.0)
    return np.sum(np.log(safe) * mask)


def xlogy_zero_weights(p, y):
    return -np.sum(scipy.special.xlogy(y, p)) + np.sum(p)


def max_with_itself(x):
    y = np.sin(x)
    return np.sum(np.maximum(y, np.sin(x)) * x)


def abs_times_square(x):
    return np.sum(np.abs(x) * x ** 2 + np.sign(x) * x ** 2)


def clip_touching_bound(x):
    return np.sum(np.clip(x ** 2, 0.0, 4.0) + x)


def negative_integer_powers(x):
    return np.sum(x ** 3 + np.power(x, 2) + x ** -2 + (-x) ** 4.0)


def power_exponent_array(x):
    k = np.arange(len(x))
    return np.sum(np.power(x, k) * 0.5 ** k)


def sqrt_of_square_plus(x):
    return np.sum(np.sqrt(x ** 2 + 1.0) - np.cbrt(x ** 3 + 8.0))


def max_scalar_ties(a, b):
    m = max(a * a, b * b)
    return m + min(a, b) + max(a + b, a + b)


def where_nan_guard(x):
    r = np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), -x ** 2)
    return np.sum(r)


def argmax_select(x, W):
    i = int(np.argmax(x))
    return np.sum(W[i] * x)


# ---- arrays made from computed shapes, filled, then solved ---------------------------------------------


def tridiagonal_solve(d, b):
    n = len(d)
    A = np.zeros((n, n))
    for i in range(n):
        A[i, i] = d[i]
        if i > 0:
            A[i, i - 1] = -1.0
            A[i - 1, i] = -1.0
    x = np.linalg.solve(A, b)
    return np.sum(x ** 2)


def design_ones_column(x, y):
    n = len(x)
    X = np.hstack([np.ones([n, 1]), x.reshape(n, 1), (x ** 2).reshape(n, 1)])
    beta = np.linalg.inv(X.T @ X) @ X.T @ y
    return np.sum((X @ beta - y) ** 2)


def full_then_inverse(a, m=3):
    n = len(a)
    A = np.full((n, n), 0.1)
    for i in range(n):
        A[i, i] = 1.0 + a[i] ** 2
    B = np.full((n, m), 0.5)
    for j in range(m):
        B[:, j] = a * (j + 1)
    return np.sum(np.linalg.inv(A) @ B)


def vandermonde_det(x):
    n = len(x)
    V = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            V[i, j] = x[i] ** j
    return np.log(np.abs(np.linalg.det(V)))


def empty_rows_normal_equations(theta, t):
    n = len(t)
    J = np.empty((n, 2))
    for i in range(n):
        J[i] = [math.cos(theta * t[i]), math.sin(theta * t[i])]
    G = J.T @ J
    return np.linalg.slogdet(G)[1]


def eye_plus_loop_inverse(w):
    n = len(w)
    A = np.eye(n)
    for i in range(n):
        for j in range(n):
            if i != j:
                A[i, j] = 0.1 * w[i] * w[j]
    return np.trace(np.linalg.inv(A))


def block_matrix_slices(K, M_):
    n = K.shape[0]
    A = np.zeros((2 * n, 2 * n))
    A[:n, :n] = K
    A[n:, n:] = M_
    A[:n, n:] = np.eye(n)
    A[n:, :n] = np.eye(n)
    rhs = np.ones(2 * n)
    return np.sum(np.linalg.solve(A, rhs) ** 2)


def zeros_shape_keyword(x):
    n = x.shape[0]
    L = np.zeros(shape=(n, n))
    for i in range(n):
        for j in range(i + 1):
            L[i, j] = x[i] * x[j] if i != j else 1.0 + x[i] ** 2
    return np.sum(scipy.linalg.solve_triangular(L, np.ones(n), lower=True) ** 2)


def zeros_len_gp(x, y, ell=0.7, noise=0.1):
    K = np.zeros((len(x), len(x)))
    for i in range(len(x)):
        for j in range(len(x)):
            K[i, j] = math.exp(-0.5 * (x[i] - x[j]) ** 2 / ell ** 2)
    K += noise * np.eye(len(x))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


def zeros_like_fill_solve(A, b):
    B = np.zeros_like(A)
    for i in range(A.shape[0]):
        B[i] = A[i] / np.sum(np.abs(A[i])) + (i + 2) * np.eye(A.shape[0])[i]
    return np.sum(np.linalg.solve(B, b))


def ones_column_lstsq(x, y):
    n = x.shape[0]
    X = np.concatenate([np.ones((n, 1)), x[:, None]], axis=1)
    coef = np.linalg.lstsq(X, y, rcond=None)[0]
    return coef[1] ** 2 + coef[0]


def zeros_rhs_loop(k):
    n = len(k)
    b = np.zeros(n)
    for i in range(n):
        b[i] = k[i] ** 2 - i
    A = np.diag(k) + 0.2 * np.ones((n, n))
    return np.linalg.solve(A, b) @ b


# ---- Python idioms ---------------------------------------------------------------------------------


class State(NamedTuple):
    pos: float
    vel: float


def namedtuple_replace_loop(k, steps=6, dt=0.1):
    s = State(1.0, 0.0)
    for _ in range(steps):
        s = s._replace(vel=s.vel - k * s.pos * dt)
        s = s._replace(pos=s.pos + s.vel * dt)
    return s.pos ** 2 + s.vel ** 2


def for_else_search(x, thresholds=(5.0, 10.0, 20.0)):
    total = 0.0
    for t in thresholds:
        if t > 7.0:
            total = total + t * np.sum(x ** 2)
            break
    else:
        total = np.sum(x)
    return total


def while_early_return(x):
    s = 0.0
    i = 0
    while True:
        s = s + math.sin(x * (i + 1))
        i += 1
        if i >= 4:
            return s * x


def try_except_fallback(x):
    try:
        val = math.log(x - 3.0)
    except ValueError:
        val = math.log(3.0 - x) * 2.0
    return val + x


def _continued_fraction(x, depth):
    if depth == 0:
        return 1.0
    return 1.0 + x / _continued_fraction(x, depth - 1)


def recursive_continued_fraction(x):
    return _continued_fraction(x, 5)


def sorted_dict_items(params):
    total = 0.0
    for i, (_name, value) in enumerate(sorted(params.items())):
        total = total + (i + 1) * np.sum(np.tanh(value))
    return total


def _make_loss(scale):
    def loss(w):
        return scale * np.sum(w ** 2) + np.sum(np.cos(w))
    return loss


LOSS = _make_loss(0.3)


def closure_factory_loss(w):
    return LOSS(w) + _make_loss(2.0)(w[:2])


class Polynomial:
    def __init__(self, coeffs):
        self.coeffs = coeffs

    def __call__(self, x):
        out = 0.0
        for c in reversed(self.coeffs):
            out = out * x + c
        return out


P = Polynomial([1.0, -2.0, 0.5, 0.3])


def callable_object(x):
    return np.sum(P(x) ** 2)


def conditional_comprehension(x):
    terms = [xi ** 2 if i % 2 == 0 else np.sin(xi) for i, xi in enumerate(x) if i != 2]
    return sum(terms)


def zip_enumerate_weights(ws, xs):
    total = 0.0
    for i, (w, x) in enumerate(zip(ws, xs)):
        total += (i + 1) * np.dot(w, x) ** 2
    return total


@dataclasses.dataclass
class Config:
    scale: float = 2.0
    offset: float = 0.5


def dataclass_config_method(x, cfg=Config()):  # noqa: B008  (one shared default, as users write it)
    return np.sum(np.tanh(cfg.scale * x + cfg.offset))


# ---- scipy ----------------------------------------------------------------------------------------


def negbin_loglik(log_r, log_mu, y):
    r, mu = math.exp(log_r), np.exp(log_mu)
    ll = (scipy.special.gammaln(y + r) - scipy.special.gammaln(r) - scipy.special.gammaln(y + 1)
          + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu)))
    return np.sum(ll)


def probit_logcdf(w, X, y):
    z = X @ w
    return np.sum(scipy.stats.norm.logcdf(y * z))


def erfc_mixture(x, s=0.7):
    return np.sum(scipy.special.erfc(x / s) * np.exp(-x ** 2) + scipy.special.erf(2 * x))


def log_expit_logistic(w, X, y):
    return -np.sum(scipy.special.log_expit(y * (X @ w)))


def betaln_binomial(a, k=np.array([1.0, 3.0, 0.0, 5.0]), n=5.0):  # noqa: B008
    b = 2.0 * a
    return np.sum(scipy.special.betaln(k + a, n - k + b) - scipy.special.betaln(a, b))


def mvn_logpdf_scipy(mu, X, cov):
    return np.sum(scipy.stats.multivariate_normal.logpdf(X, mean=mu, cov=cov))


# ---- float32 ---------------------------------------------------------------------------------------


def f32_adam_steps(p):
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    for _ in range(3):
        g = p - np.float32(0.5)
        m = np.float32(0.9) * m + np.float32(0.1) * g
        v = np.float32(0.99) * v + np.float32(0.01) * g * g
        p = p - np.float32(0.1) * m / (np.sqrt(v) + np.float32(1e-4))
    return np.sum(p ** 2)


def f32_fem_stiffness(k):
    n = len(k) - 1
    K = np.zeros((n, n), dtype=k.dtype)
    for e in range(n):
        K[e, e] += k[e] + k[e + 1]
        if e + 1 < n:
            K[e, e + 1] -= k[e + 1]
            K[e + 1, e] -= k[e + 1]
    return np.sum(np.linalg.solve(K, np.ones(n, dtype=k.dtype)))


def f32_softplus_logdensity(raw, x):
    s = np.logaddexp(np.float32(0.0), raw)
    return np.sum(-np.float32(0.5) * (x / s) ** 2 - np.log(s))


def f32_rotation_2d(theta, pts):
    c, s = np.cos(theta), np.sin(theta)
    R = np.stack([np.stack([c, -s]), np.stack([s, c])])
    return np.sum((pts @ R.T) ** 3)


def f32_iir(x):
    y = np.zeros_like(x)
    prev = np.float32(0.0)
    for i in range(x.shape[0]):
        prev = np.float32(0.7) * prev + x[i]
        y[i] = prev
    return np.sum(y * y)


def M(rng, *shape):
    return rng.normal(size=shape)


def F(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


POINTS14 = [
    ("w14_poly_with_x_pow_0", poly_with_x_pow_0, lambda r: (M(r, 4), 0.0), 1),
    ("w14_poly_with_x_pow_0_coeffs", poly_with_x_pow_0, lambda r: (M(r, 4), 0.0), 0),
    ("w14_float_exponent_zero", float_exponent_zero, lambda r: (np.array([0.0, 1.5, -2.0]),), 0),
    ("w14_zero_base_power", zero_base_power, lambda r: (1.7, np.array([0.0, 0.5, 2.0, 0.0])), 0),
    ("w14_masked_log_zero", masked_log_zero, lambda r: (np.array([0.3, 0.0, 1.2, 0.0]),
                                                        np.array([True, False, True, False])), 0),
    ("w14_xlogy_zero_weights", xlogy_zero_weights, lambda r: (r.uniform(0.2, 1, size=4),
                                                                  np.array([0.0, 2.0, 0.0, 1.0])), 0),
    ("w14_max_with_itself", max_with_itself, lambda r: (M(r, 4),), 0),
    ("w14_abs_times_square", abs_times_square, lambda r: (np.array([0.0, -1.2, 0.7]),), 0),
    ("w14_clip_touching_bound", clip_touching_bound, lambda r: (np.array([0.0, 1.0, -0.5]),), 0),
    ("w14_negative_integer_powers", negative_integer_powers, lambda r: (np.array([-1.5, -0.7, 2.0]),), 0),
    ("w14_power_exponent_array", power_exponent_array, lambda r: (np.array([0.0, -1.3, 0.0, 2.0]),), 0),
    ("w14_sqrt_of_square_plus", sqrt_of_square_plus, lambda r: (np.array([0.0, -1.0, 0.5]),), 0),
    ("w14_max_scalar_ties", max_scalar_ties, lambda r: (1.3, 0.4), 0),
    ("w14_where_nan_guard", where_nan_guard, lambda r: (np.array([0.5, -0.3, 2.0, -1.1]),), 0),
    ("w14_argmax_select", argmax_select, lambda r: (M(r, 4), M(r, 4, 4)), 0),
    ("w14_tridiagonal_solve", tridiagonal_solve, lambda r: (r.uniform(2.5, 4.0, size=5), M(r, 5)), 0),
    ("w14_design_ones_column", design_ones_column, lambda r: (M(r, 7), M(r, 7)), 0),
    ("w14_full_then_inverse", full_then_inverse, lambda r: (M(r, 4),), 0),
    ("w14_vandermonde_det", vandermonde_det, lambda r: (np.array([-1.0, 0.2, 0.9, 1.7]),), 0),
    ("w14_empty_rows_normal_equations", empty_rows_normal_equations, lambda r: (0.8, np.linspace(0.1, 2, 6)), 0),
    ("w14_eye_plus_loop_inverse", eye_plus_loop_inverse, lambda r: (M(r, 4),), 0),
    ("w14_block_matrix_slices", block_matrix_slices, lambda r: (3 * np.eye(3) + 0.3 * M(r, 3, 3), 2 * np.eye(3)), 0),
    ("w14_zeros_shape_keyword", zeros_shape_keyword, lambda r: (0.5 * M(r, 4),), 0),
    ("w14_zeros_len_gp", zeros_len_gp, lambda r: (np.linspace(0, 3, 5) + 0.1 * M(r, 5), M(r, 5)), 0),
    ("w14_zeros_len_gp_y", zeros_len_gp, lambda r: (np.linspace(0, 3, 5) + 0.1 * M(r, 5), M(r, 5)), 1),
    ("w14_zeros_like_fill_solve", zeros_like_fill_solve, lambda r: (M(r, 3, 3), M(r, 3)), 0),
    ("w14_ones_column_lstsq", ones_column_lstsq, lambda r: (M(r, 8), M(r, 8)), 0),
    ("w14_zeros_rhs_loop", zeros_rhs_loop, lambda r: (r.uniform(1.0, 2.0, size=4),), 0),
    ("w14_namedtuple_replace_loop", namedtuple_replace_loop, lambda r: (2.0,), 0),
    ("w14_for_else_search", for_else_search, lambda r: (M(r, 3),), 0),
    ("w14_while_early_return", while_early_return, lambda r: (0.7,), 0),
    ("w14_try_except_fallback", try_except_fallback, lambda r: (1.2,), 0),
    ("w14_recursive_continued_fraction", recursive_continued_fraction, lambda r: (0.8,), 0),
    ("w14_sorted_dict_items", sorted_dict_items, lambda r: ({"b": M(r, 2), "a": M(r, 3), "c": 0.4},), 0),
    ("w14_closure_factory_loss", closure_factory_loss, lambda r: (M(r, 4),), 0),
    ("w14_callable_object", callable_object, lambda r: (M(r, 5),), 0),
    ("w14_conditional_comprehension", conditional_comprehension, lambda r: (M(r, 5),), 0),
    ("w14_zip_enumerate_weights", zip_enumerate_weights, lambda r: ([M(r, 3), M(r, 3)], [M(r, 3), M(r, 3)]), 0),
    ("w14_dataclass_config_method", dataclass_config_method, lambda r: (M(r, 4),), 0),
    ("w14_negbin_loglik", negbin_loglik, lambda r: (0.3, 0.2 * M(r, 5), np.array([0.0, 1.0, 4.0, 2.0, 7.0])), 1),
    ("w14_negbin_loglik_r", negbin_loglik, lambda r: (0.3, 0.2 * M(r, 5), np.array([0.0, 1.0, 4.0, 2.0, 7.0])), 0),
    ("w14_probit_logcdf", probit_logcdf, lambda r: (M(r, 3), M(r, 8, 3), np.sign(M(r, 8))), 0),
    ("w14_erfc_mixture", erfc_mixture, lambda r: (M(r, 5),), 0),
    ("w14_log_expit_logistic", log_expit_logistic, lambda r: (M(r, 3), M(r, 8, 3), np.sign(M(r, 8))), 0),
    ("w14_betaln_binomial", betaln_binomial, lambda r: (1.3,), 0),
    ("w14_mvn_logpdf_scipy", mvn_logpdf_scipy, lambda r: (M(r, 2), M(r, 5, 2), np.array([[1.0, 0.3], [0.3, 2.0]])), 0),
    ("w14_f32_adam_steps", f32_adam_steps, lambda r: (F(r, 4),), 0),
    ("w14_f32_fem_stiffness", f32_fem_stiffness, lambda r: (r.uniform(1.0, 2.0, size=5).astype(np.float32),), 0),
    ("w14_f32_softplus_logdensity", f32_softplus_logdensity, lambda r: (F(r, 4), F(r, 4)), 0),
    ("w14_f32_rotation_2d", f32_rotation_2d, lambda r: (np.float32(0.4), F(r, 3, 2)), 0),
    ("w14_f32_iir", f32_iir, lambda r: (F(r, 6),), 0),
]
