"""The red team's eighteenth wave, continued: optimisation inner loops that earlier waves did not write.  AdaGrad,
Adadelta, Lion (a sign step), Adam written with a state dict and bias correction by ``**t``, a lookahead
wrapper, heavy ball, SAM's perturbed step, Polyak's step size, a golden-section search and a bisection
with tolerances (whose results move with the parameter only through comparisons), a backtracking line
search whose step is then used, a damped Newton step through np.linalg.solve, a dogleg trust-region step,
Frank-Wolfe on the simplex, coordinate descent for the lasso, a few ADMM iterations, an augmented
Lagrangian, a log-barrier, a BFGS inverse-Hessian update, a proximal gradient step on a group norm, gradient
descent to a tolerance (``while norm > tol``) and an exponential moving average of parameters.  See
redteam_wave18.py.
"""

from __future__ import annotations

import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def quad_grad(w, A, b):
    return A @ w - b


def adagrad(w, A, b, lr=0.5, steps=5):
    G = np.zeros_like(w)
    for _ in range(steps):
        g = quad_grad(w, A, b)
        G += g * g
        w = w - lr * g / (np.sqrt(G) + 1e-8)
    return 0.5 * w @ A @ w - b @ w


def adadelta(w, A, b, rho=0.9, eps=1e-4, steps=4):
    Eg = np.zeros_like(w)
    Ex = np.zeros_like(w)
    for _ in range(steps):
        g = quad_grad(w, A, b)
        Eg = rho * Eg + (1 - rho) * g ** 2
        dx = -np.sqrt(Ex + eps) / np.sqrt(Eg + eps) * g
        Ex = rho * Ex + (1 - rho) * dx ** 2
        w = w + dx
    return np.sum(w ** 2) + np.sum(Ex)


def lion_step(w, A, b, lr=0.05):
    m = np.zeros_like(w)
    for _ in range(3):
        g = quad_grad(w, A, b)
        update = np.sign(0.9 * m + 0.1 * g)
        w = w - lr * (update + 0.01 * w)
        m = 0.99 * m + 0.01 * g
    return np.sum((A @ w - b) ** 2)


def adam_state_dict(w, A, b, lr=0.1, steps=4):
    state = {"m": np.zeros_like(w), "v": np.zeros_like(w), "t": 0}
    for _ in range(steps):
        g = quad_grad(w, A, b)
        state["t"] += 1
        state["m"] = 0.9 * state["m"] + 0.1 * g
        state["v"] = 0.999 * state["v"] + 0.001 * g * g
        mhat = state["m"] / (1 - 0.9 ** state["t"])
        vhat = state["v"] / (1 - 0.999 ** state["t"])
        w = w - lr * mhat / (np.sqrt(vhat) + 1e-8)
    return 0.5 * w @ A @ w - b @ w


def lookahead(w, A, b, alpha=0.5, k=3):
    slow = w.copy()
    fast = w.copy()
    for _outer in range(2):
        for _ in range(k):
            fast = fast - 0.1 * quad_grad(fast, A, b)
        slow = slow + alpha * (fast - slow)
        fast = slow.copy()
    return np.sum((slow - np.linalg.solve(A, b)) ** 2)


def heavy_ball(lr, A, b, beta=0.8):
    w = np.zeros(b.shape)
    w_prev = w
    for _ in range(6):
        w, w_prev = w - lr * quad_grad(w, A, b) + beta * (w - w_prev), w
    return 0.5 * w @ A @ w - b @ w


def sam_step(w, X, y, rho=0.05, lr=0.1):
    def loss_grad(v):
        r = X @ v - y
        return X.T @ r / len(y)
    g = loss_grad(w)
    e = rho * g / (np.linalg.norm(g) + 1e-12)
    w = w - lr * loss_grad(w + e)
    return np.mean((X @ w - y) ** 2)


def polyak_steps(w, A, b, f_star=-1.0):
    for _ in range(3):
        f = 0.5 * w @ A @ w - b @ w
        g = A @ w - b
        w = w - (f - f_star) / (g @ g) * g
    return 0.5 * w @ A @ w - b @ w


def golden_section_min(c):
    f = lambda t: (t - c[0]) ** 2 + c[1] * t ** 4  # noqa: E731
    lo, hi = -3.0, 3.0
    ratio = (math.sqrt(5) - 1) / 2
    while hi - lo > 1e-9:
        a = hi - ratio * (hi - lo)
        bb = lo + ratio * (hi - lo)
        if f(a) < f(bb):
            hi = bb
        else:
            lo = a
    t = 0.5 * (lo + hi)
    return f(t)


def bisection_root(k):
    lo, hi = 0.0, 2.0
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        if mid ** 3 + k * mid - 2.0 > 0:
            hi = mid
        else:
            lo = mid
    return lo


def armijo_then_step(w, A, b):
    g = A @ w - b
    f0 = 0.5 * w @ A @ w - b @ w
    t = 1.0
    while 0.5 * (w - t * g) @ A @ (w - t * g) - b @ (w - t * g) > f0 - 0.3 * t * (g @ g):
        t *= 0.5
    w_new = w - t * g
    return 0.5 * w_new @ A @ w_new - b @ w_new


def damped_newton(w, X, y, lam=0.1):
    for _ in range(3):
        p = 1 / (1 + np.exp(-(X @ w)))
        g = X.T @ (p - y) + lam * w
        H = X.T @ (X * (p * (1 - p))[:, None]) + lam * np.eye(w.size)
        w = w - np.linalg.solve(H, g)
    p = 1 / (1 + np.exp(-(X @ w)))
    return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))


def dogleg(g, B, radius=1.0):
    pb = -np.linalg.solve(B, g)
    if np.linalg.norm(pb) <= radius:
        p = pb
    else:
        pu = -(g @ g) / (g @ B @ g) * g
        if np.linalg.norm(pu) >= radius:
            p = radius * pu / np.linalg.norm(pu)
        else:
            d = pb - pu
            a, bq, c = d @ d, 2 * pu @ d, pu @ pu - radius ** 2
            tau = (-bq + np.sqrt(bq * bq - 4 * a * c)) / (2 * a)
            p = pu + tau * d
    return g @ p + 0.5 * p @ B @ p


def frank_wolfe(c, Q, steps=5):
    x = np.ones(len(c)) / len(c)
    for k in range(steps):
        g = Q @ x + c
        s = np.zeros_like(x)
        s[np.argmin(g)] = 1.0
        gamma = 2.0 / (k + 2.0)
        x = (1 - gamma) * x + gamma * s
    return 0.5 * x @ Q @ x + c @ x


def lasso_cd(X, y, lam=0.1, sweeps=3):
    n, p = X.shape
    w = np.zeros(p)
    for _ in range(sweeps):
        for j in range(p):
            r = y - X @ w + X[:, j] * w[j]
            rho = X[:, j] @ r / n
            z = X[:, j] @ X[:, j] / n
            w[j] = np.sign(rho) * max(abs(rho) - lam, 0.0) / z
    return np.sum((X @ w - y) ** 2) / (2 * n) + lam * np.sum(np.abs(w))


def admm_lasso(y, A, lam=0.2, rho=1.0, iters=4):
    n = A.shape[1]
    x = z = u = np.zeros(n)
    L = A.T @ A + rho * np.eye(n)
    for _ in range(iters):
        x = np.linalg.solve(L, A.T @ y + rho * (z - u))
        v = x + u
        z = np.sign(v) * np.maximum(np.abs(v) - lam / rho, 0.0)
        u = u + x - z
    return np.sum((A @ x - y) ** 2) + np.sum(z ** 2)


def augmented_lagrangian(x, mu=2.0):
    lam = 0.0
    for _ in range(3):
        h = x[0] + x[1] - 1.0
        lam = lam + mu * h
        x = x - 0.1 * (2 * x + (lam + mu * h) * np.ones(2))
    return x[0] ** 2 + x[1] ** 2 + lam * (x[0] + x[1] - 1.0)


def log_barrier(x, t=10.0):
    slack = 1.0 - np.abs(x) ** 2
    return t * np.sum((x - 0.3) ** 2) - np.sum(np.log(slack))


def bfgs_update(s, y_vec, H0):
    rho = 1.0 / (y_vec @ s)
    I = np.eye(len(s))
    H = (I - rho * np.outer(s, y_vec)) @ H0 @ (I - rho * np.outer(y_vec, s)) + rho * np.outer(s, s)
    return np.trace(H) + np.sum(H @ y_vec)


def group_prox(w, groups=((0, 2), (2, 5)), lam=0.3):
    out = np.empty_like(w)
    for lo, hi in groups:
        block = w[lo:hi]
        nrm = np.linalg.norm(block)
        out[lo:hi] = max(0.0, 1 - lam / nrm) * block
    return np.sum(out ** 2) + out.sum()


def descend_to_tolerance(w, A, b, tol=1e-3):
    g = A @ w - b
    steps = 0
    while np.linalg.norm(g) > tol and steps < 200:
        w = w - 0.2 * g
        g = A @ w - b
        steps += 1
    return np.sum(w * w)


def ema_params(w, A, b, decay=0.7):
    avg = w.copy()
    for _ in range(4):
        w = w - 0.2 * (A @ w - b)
        avg *= decay
        avg += (1 - decay) * w
    return avg @ avg


def _spd(r, n):
    Q = r.normal(size=(n, n))
    return Q @ Q.T / n + np.eye(n)


OPTIM18 = [
    ("w18_adagrad", adagrad, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 0),
    ("w18_adagrad_b", adagrad, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 2),
    ("w18_adadelta", adadelta, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 0),
    ("w18_lion", lion_step, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 0),
    ("w18_adam_state_dict", adam_state_dict, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 0),
    ("w18_lookahead", lookahead, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 0),
    ("w18_heavy_ball_lr", heavy_ball, lambda r: (0.15, _spd(r, 3), M(r, 3)), 0),
    ("w18_sam_step", sam_step, lambda r: (M(r, 3), M(r, 8, 3), M(r, 8)), 0),
    ("w18_polyak", polyak_steps, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 0),
    ("w18_golden_section", golden_section_min, lambda r: (np.array([0.7, 0.2]),), 0),
    ("w18_bisection_root", bisection_root, lambda r: (1.3,), 0),
    ("w18_armijo_then_step", armijo_then_step, lambda r: (M(r, 3), 3 * _spd(r, 3), M(r, 3)), 0),
    ("w18_damped_newton", damped_newton, lambda r: (0.1 * M(r, 3), M(r, 12, 3), (M(r, 12) > 0).astype(float)), 0),
    ("w18_dogleg_g", dogleg, lambda r: (np.array([0.6, -0.4, 0.3]), _spd(r, 3)), 0),
    ("w18_dogleg_B", dogleg, lambda r: (np.array([0.6, -0.4, 0.3]), _spd(r, 3)), 1),
    ("w18_frank_wolfe", frank_wolfe, lambda r: (M(r, 4), _spd(r, 4)), 0),
    ("w18_lasso_cd", lasso_cd, lambda r: (M(r, 10, 3), M(r, 10)), 1),
    ("w18_admm_lasso", admm_lasso, lambda r: (M(r, 8), M(r, 8, 3)), 0),
    ("w18_augmented_lagrangian", augmented_lagrangian, lambda r: (np.array([0.3, 0.9]),), 0),
    ("w18_log_barrier", log_barrier, lambda r: (0.4 * M(r, 4),), 0),
    ("w18_bfgs_update", bfgs_update, lambda r: (np.array([0.3, 0.1, -0.2]), np.array([0.5, 0.2, -0.1]), np.eye(3)),
     0),
    ("w18_bfgs_update_y", bfgs_update, lambda r: (np.array([0.3, 0.1, -0.2]), np.array([0.5, 0.2, -0.1]), np.eye(3)),
     1),
    ("w18_group_prox", group_prox, lambda r: (np.array([0.5, 0.4, -0.1, 0.05, 0.1]),), 0),
    ("w18_descend_to_tolerance", descend_to_tolerance, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 2),
    ("w18_ema_params", ema_params, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 0),
]
