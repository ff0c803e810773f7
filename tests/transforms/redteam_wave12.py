"""The red team's twelfth wave: ninety-odd more programs written the way users write them, in
domains and idioms the earlier waves did not touch.  Here: control by direct collocation and a
backward Riccati sweep, soft-constrained MPC, Kepler's equation by Newton; filters (an extended
Kalman filter on a bearing, an information filter, an ensemble Kalman analysis with fixed
perturbations, an alpha-beta filter); GP kernels whose distance is a square root that is 0 on the
diagonal (Matérn 5/2, ARD), rational quadratic through a Cholesky factor; transformer pieces
(rotary embeddings, a causal mask of -inf, ALiBi, a pre-norm block with tanh-GELU); flows (masked
autoregressive, an invertible 1x1 mixing through slogdet); a continuous adjoint by RK4; a 2-D truss
and beam elements assembled through ``np.ix_``; Gauss-Legendre quadrature.  Finance, constrained
physics and PDEs are in redteam_wave12_finance.py, models in redteam_wave12_models.py, idioms in
redteam_wave12_idioms.py and redteam_wave12_numpy.py, special points and float32 in
redteam_wave12_points.py.

`WAVE12` holds all six: ``(name, function, make, wrt)`` as in redteam_programs.py, every name
``w12_…``.
"""

from __future__ import annotations

import math

import numpy as np

# ---- control ------------------------------------------------------------------------------------


def collocation_trapezoid(z, n=5, h=0.25):
    """Direct collocation of a cart x'' = u: z holds (x, v, u) at each node."""
    X = z.reshape(n, 3)
    f = np.stack([X[:, 1], X[:, 2]], axis=1)
    defects = X[1:, :2] - X[:-1, :2] - 0.5 * h * (f[1:] + f[:-1])
    effort = h * np.sum(X[:, 2] ** 2)
    return effort + 50.0 * np.sum(defects ** 2) + 10.0 * ((X[-1, 0] - 1.0) ** 2 + X[0, 0] ** 2)


def riccati_backward(q_diag, A, B, x0, steps=5):
    Q = np.diag(q_diag)
    R = np.array([[0.5]])
    P = Q.copy()
    for _ in range(steps):
        S = R + B.T @ P @ B
        K = np.linalg.solve(S, B.T @ P @ A)
        P = Q + A.T @ P @ (A - B @ K)
        P = 0.5 * (P + P.T)
    return x0 @ P @ x0


def mpc_soft_bounds(u, x0=0.5, umax=0.8, xmax=1.2):
    x = x0
    cost = 0.0
    for uk in u:
        x = 0.9 * x + 0.4 * uk
        cost = cost + x ** 2 + 0.1 * uk ** 2
        cost = cost + 20.0 * max(0.0, x - xmax) ** 2 + 20.0 * max(0.0, abs(uk) - umax) ** 2
    return cost


def kepler_newton(e, M=1.2, iters=8):
    E = M
    for _ in range(iters):
        E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
    nu = 2.0 * math.atan2(math.sqrt(1 + e) * math.sin(E / 2), math.sqrt(1 - e) * math.cos(E / 2))
    return nu + (1 - e * math.cos(E))


# ---- filters ------------------------------------------------------------------------------------


def ekf_bearing(q, zs, dt=0.5, r=0.05):
    F = np.array([[1.0, 0.0, dt, 0.0], [0.0, 1.0, 0.0, dt], [0, 0, 1, 0], [0, 0, 0, 1]])
    m = np.array([1.0, 1.0, 0.2, 0.1])
    P = 0.5 * np.eye(4)
    nll = 0.0
    for z in zs:
        m = F @ m
        P = F @ P @ F.T + q * np.eye(4)
        px, py = m[0], m[1]
        d2 = px ** 2 + py ** 2
        H = np.array([-py / d2, px / d2, 0.0, 0.0])
        s = H @ P @ H + r
        v = z - np.arctan2(py, px)
        K = P @ H / s
        m = m + K * v
        P = P - np.outer(K, H @ P)
        nll = nll + 0.5 * (np.log(s) + v ** 2 / s)
    return nll


def information_filter(log_r, ys):
    Y = np.eye(2)  # information matrix
    yv = np.zeros(2)
    H = np.array([[1.0, 0.0], [1.0, 1.0]])
    Rinv = np.exp(-log_r) * np.eye(2)
    for y in ys:
        Y = Y + H.T @ Rinv @ H
        yv = yv + H.T @ Rinv @ y
    mean = np.linalg.inv(Y) @ yv
    return np.sum(mean ** 2) + np.trace(np.linalg.inv(Y))


def enkf_analysis(ens, y, perturb, r=0.2):
    X = ens  # (members, 2)
    Hx = X[:, 0] + 0.5 * X[:, 1] ** 2
    C = np.cov(np.column_stack([X, Hx]), rowvar=False)
    Pxy, Pyy = C[:2, 2], C[2, 2] + r
    K = Pxy / Pyy
    Xa = X + np.outer(y + perturb - Hx, K)
    return np.sum(Xa.mean(axis=0) ** 2) + np.var(Xa[:, 0])


def alpha_beta_filter(ab, zs, dt=0.1):
    alpha, beta = ab
    x, v = zs[0], 0.0
    err = 0.0
    for z in zs[1:]:
        x = x + dt * v
        resid = z - x
        x = x + alpha * resid
        v = v + beta / dt * resid
        err = err + resid ** 2
    return err


# ---- GP kernels ---------------------------------------------------------------------------------


def matern52_ard(log_ell, X, y, noise=0.1):
    """The distance is a square root that is exactly 0 on the diagonal (its derivative there is not)."""
    Z = X / np.exp(log_ell)
    diff = Z[:, None, :] - Z[None, :, :]
    r = np.sqrt(np.sum(diff ** 2, axis=-1))
    s5 = math.sqrt(5.0)
    K = (1.0 + s5 * r + 5.0 / 3.0 * r ** 2) * np.exp(-s5 * r) + noise * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L, y)
    return 0.5 * alpha @ alpha + np.sum(np.log(np.diag(L)))


def rational_quadratic_chol(theta, x, y):
    ell, a, s2 = np.exp(theta)
    d2 = (x[:, None] - x[None, :]) ** 2
    K = s2 * (1.0 + d2 / (2 * a * ell ** 2)) ** (-a) + 0.05 * np.eye(len(x))
    L = np.linalg.cholesky(K)
    w = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ w + np.log(np.diag(L)).sum()


# ---- transformer pieces -------------------------------------------------------------------------


def rope_attention(Wq, Wk, X, base=100.0):
    T, d = X.shape[0], Wq.shape[1]
    pos = np.arange(T)[:, None]
    freq = base ** (-np.arange(0, d, 2) / d)
    ang = pos * freq[None, :]
    cos, sin = np.cos(ang), np.sin(ang)

    def rotate(v):
        even, odd = v[:, ::2], v[:, 1::2]
        out = np.empty_like(v)
        out[:, ::2] = even * cos - odd * sin
        out[:, 1::2] = even * sin + odd * cos
        return out

    q, k = rotate(X @ Wq), rotate(X @ Wk)
    s = q @ k.T / np.sqrt(d)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)
    return np.sum(p * s)


def causal_attention_inf(Wq, X, V):
    """Masked scores are -inf: exp gives 0 and their adjoint must be 0, not NaN."""
    T = X.shape[0]
    s = (X @ Wq) @ X.T
    mask = np.tril(np.ones((T, T), dtype=bool))
    s = np.where(mask, s, -np.inf)
    p = np.exp(s - np.max(s, axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return np.sum((p @ V) ** 2)


def alibi_multihead(W, X, heads=2):
    T, D = X.shape
    dh = D // heads
    qkv = X @ W  # (T, 3D)
    q, k, v = np.split(qkv, 3, axis=1)
    q = q.reshape(T, heads, dh).transpose(1, 0, 2)
    k = k.reshape(T, heads, dh).transpose(1, 0, 2)
    v = v.reshape(T, heads, dh).transpose(1, 0, 2)
    slopes = 2.0 ** (-np.arange(1, heads + 1))
    dist = np.arange(T)[None, :] - np.arange(T)[:, None]
    s = q @ k.transpose(0, 2, 1) / math.sqrt(dh) + slopes[:, None, None] * -np.abs(dist)
    p = np.exp(s - s.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    out = (p @ v).transpose(1, 0, 2).reshape(T, D)
    return np.mean(out ** 2)


def prenorm_block(params, X):
    mu = X.mean(-1, keepdims=True)
    var = ((X - mu) ** 2).mean(-1, keepdims=True)
    h = (X - mu) / np.sqrt(var + 1e-5) * params["gamma"] + params["beta"]
    a = h @ params["W1"]
    g = 0.5 * a * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * a ** 3)))
    out = X + g @ params["W2"]
    return np.sum(out ** 2) / out.size


# ---- flows --------------------------------------------------------------------------------------


def maf_autoregressive(W, b, x):
    Wm = np.tril(W, -1)
    mu = x @ Wm.T + b
    log_s = np.tanh(x @ np.tril(W.T, -1).T)
    z = (x - mu) * np.exp(-log_s)
    return np.mean(0.5 * np.sum(z ** 2, axis=1) + np.sum(log_s, axis=1))


def invertible_1x1(W, x):
    sign, logdet = np.linalg.slogdet(W)
    z = x @ W.T
    return np.mean(0.5 * np.sum(z ** 2, axis=1)) - logdet


# ---- hand adjoint by RK4 ------------------------------------------------------------------------


def rk4_adjoint(k, T=1.0, n=10):
    """dL/dk of L = y(T)^2 for y' = -k y + sin t, by a hand-written continuous adjoint through RK4."""
    h = T / n
    ys, t, y = [], 0.0, 1.0
    for _ in range(n):
        ys.append(y)
        k1 = -k * y + math.sin(t)
        k2 = -k * (y + h / 2 * k1) + math.sin(t + h / 2)
        k3 = -k * (y + h / 2 * k2) + math.sin(t + h / 2)
        k4 = -k * (y + h * k3) + math.sin(t + h)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = t + h
    lam, dk = 2 * y, 0.0
    for i in reversed(range(n)):
        yi = ys[i]
        # the adjoint ODE lam' = k lam, integrated backwards with the same step; dL/dk += int -y lam
        dk = dk - h * yi * lam * (1 + h * k / 2)
        lam = lam * (1 + h * k + (h * k) ** 2 / 2 + (h * k) ** 3 / 6 + (h * k) ** 4 / 24)
    return dk + y ** 2


# ---- finite elements ----------------------------------------------------------------------------


def truss_compliance(areas, nodes, bars, load):
    n = nodes.shape[0]
    K = np.zeros((2 * n, 2 * n))
    for e, (i, j) in enumerate(bars):
        d = nodes[j] - nodes[i]
        L = np.sqrt(d @ d)
        c, s = d / L
        k = areas[e] / L * np.outer([c, s, -c, -s], [c, s, -c, -s])
        dofs = [2 * i, 2 * i + 1, 2 * j, 2 * j + 1]
        K[np.ix_(dofs, dofs)] += k
    free = np.arange(4, 2 * n)
    u = np.linalg.solve(K[np.ix_(free, free)], load[free])
    return load[free] @ u


def beam_hermite(EI, n_el=3, length=1.0, q=1.0):
    h = length / n_el
    ndof = 2 * (n_el + 1)
    K = np.zeros((ndof, ndof))
    f = np.zeros(ndof)
    for e in range(n_el):
        ke = EI[e] / h ** 3 * np.array([[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                                        [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]])
        idx = np.arange(2 * e, 2 * e + 4)
        K[np.ix_(idx, idx)] += ke
        f[idx] += q * h * np.array([0.5, h / 12, 0.5, -h / 12])
    Kf = K[2:, 2:]
    w = np.linalg.solve(Kf, f[2:])
    return w[-2]


def gauss_legendre(theta, n=6):
    t, wts = np.polynomial.legendre.leggauss(n)
    x = 0.5 * (t + 1.0)  # map to [0, 1]
    integrand = np.exp(-theta[0] * x) * np.cos(theta[1] * x)
    return 0.5 * np.sum(wts * integrand)


def M(rng, *shape):
    return rng.normal(size=shape)


NODES = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 0.5]])
BARS = [(0, 2), (1, 3), (0, 3), (1, 2), (2, 3), (2, 4), (3, 4)]
LOAD = np.array([0, 0, 0, 0, 0.0, -0.5, 0.2, 0.0, 0.0, -1.0])

SCIENCE12 = [
    ("w12_collocation_trapezoid", collocation_trapezoid, lambda r: (0.3 * M(r, 15),), 0),
    ("w12_riccati_backward_q", riccati_backward,
     lambda r: (np.array([1.0, 0.5]), np.array([[1.0, 0.1], [0.0, 1.0]]), np.array([[0.0], [0.1]]), M(r, 2)), 0),
    ("w12_riccati_backward_A", riccati_backward,
     lambda r: (np.array([1.0, 0.5]), np.array([[1.0, 0.1], [0.0, 1.0]]), np.array([[0.0], [0.1]]), M(r, 2)), 1),
    ("w12_mpc_soft_bounds", mpc_soft_bounds, lambda r: (np.array([0.9, -0.3, 1.1, 0.2, -0.95]),), 0),
    ("w12_kepler_newton", kepler_newton, lambda r: (0.3,), 0),
    ("w12_ekf_bearing", ekf_bearing, lambda r: (0.05, np.array([0.8, 0.75, 0.7, 0.68])), 0),
    ("w12_information_filter", information_filter, lambda r: (-0.5, [M(r, 2), M(r, 2), M(r, 2)]), 0),
    ("w12_enkf_analysis", enkf_analysis, lambda r: (M(r, 6, 2), 0.7, 0.3 * M(r, 6)), 0),
    ("w12_alpha_beta_filter", alpha_beta_filter, lambda r: ((0.5, 0.2), np.cumsum(0.1 + 0.05 * M(r, 8))), 0),
    ("w12_matern52_ard_lengthscale", matern52_ard, lambda r: (np.array([0.1, -0.2]), M(r, 5, 2), M(r, 5)), 0),
    ("w12_matern52_ard_inputs", matern52_ard, lambda r: (np.array([0.1, -0.2]), M(r, 5, 2), M(r, 5)), 1),
    ("w12_rational_quadratic_chol", rational_quadratic_chol,
     lambda r: (np.array([0.0, 0.3, -0.2]), np.linspace(-1, 1, 6), M(r, 6)), 0),
    ("w12_rope_attention", rope_attention, lambda r: (0.5 * M(r, 3, 4), 0.5 * M(r, 3, 4), M(r, 5, 3)), 0),
    ("w12_causal_attention_inf", causal_attention_inf, lambda r: (0.5 * M(r, 3, 3), M(r, 4, 3), M(r, 4, 2)), 0),
    ("w12_causal_attention_inf_x", causal_attention_inf,
     lambda r: (0.5 * M(r, 3, 3), M(r, 4, 3), M(r, 4, 2)), 1),
    ("w12_alibi_multihead", alibi_multihead, lambda r: (0.4 * M(r, 4, 12), M(r, 5, 4)), 0),
    ("w12_prenorm_block", prenorm_block,
     lambda r: ({"gamma": 1 + 0.1 * M(r, 4), "beta": 0.1 * M(r, 4), "W1": 0.5 * M(r, 4, 6),
                 "W2": 0.5 * M(r, 6, 4)}, M(r, 3, 4)), 0),
    ("w12_maf_autoregressive", maf_autoregressive, lambda r: (0.5 * M(r, 3, 3), 0.1 * M(r, 3), M(r, 4, 3)), 0),
    ("w12_invertible_1x1", invertible_1x1, lambda r: (np.eye(3) + 0.3 * M(r, 3, 3), M(r, 5, 3)), 0),
    ("w12_rk4_adjoint", rk4_adjoint, lambda r: (0.8,), 0),
    ("w12_truss_compliance", truss_compliance, lambda r: (1.0 + 0.2 * np.abs(M(r, 7)), NODES, BARS, LOAD), 0),
    ("w12_beam_hermite", beam_hermite, lambda r: (1.0 + 0.3 * np.abs(M(r, 3)),), 0),
    ("w12_gauss_legendre", gauss_legendre, lambda r: (np.array([0.7, 2.0]),), 0),
]


def _with_rest():
    from .redteam_wave12_finance import FINANCE12
    from .redteam_wave12_idioms import IDIOMS12
    from .redteam_wave12_models import MODELS12
    from .redteam_wave12_numpy import NUMPY12
    from .redteam_wave12_points import POINTS12
    return SCIENCE12 + FINANCE12 + MODELS12 + IDIOMS12 + NUMPY12 + POINTS12


WAVE12 = _with_rest()
