"""Held-out variants of wave 36 (issue 26: every problem of benchmarks/problems.py within 1.15x
hand-written NumPy on variants not tuned on): the set's nine problems written the way other users
write them, each with a careful hand-written gradient ``NAME_grad``.  Written before the wave's
tuning and measured first; variants.py registers them, tests/transforms/wave36h_programs.py checks
them through every transformation.
"""

import math

import numpy as np

# ---- polynomials ---------------------------------------------------------------------------------

COEFFS = (0.5, -1.0, 2.0, 0.3, -0.7, 1.1)


def horner_poly(x, y):
    """A scalar polynomial by Horner's rule over a module tuple of coefficients (wrt x and y)."""
    p = 0.0
    for c in COEFFS:
        p = p * x + c
    return p * math.sin(y) + 0.5 * p * p


def horner_poly_grad(x, y):
    p = dp = 0.0
    for c in COEFFS:
        dp = dp * x + p
        p = p * x + c
    return (math.sin(y) + p) * dp, p * math.cos(y)


def scalar_args(seed=360):
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-1.0, 1.0, size=2)
    return float(x), float(y)


def powers_fit(a, x, t):
    """A polynomial fit, the model a generator's sum over powers ``a[k] * x ** k`` (wrt a)."""
    model = sum(a[k] * x ** k for k in range(len(a)))
    return np.mean((model - t) ** 2)


def powers_fit_grad(a, x, t):
    V = np.vander(x, len(a), increasing=True)
    r = V @ a - t
    return V.T @ ((2.0 / r.size) * r)


def powers_args(n=1000, deg=8, seed=361):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, n)
    return rng.standard_normal(deg + 1), x, np.cos(3.0 * x)


# ---- a scalar recursion with math.* and an if ----------------------------------------------------


def branchy_recursion(a, b, n):
    """``s = a * sin(s) + b``, a branch on the sign of each state choosing its cost (wrt a and b)."""
    s = 0.3
    total = 0.0
    for _ in range(n):
        s = a * math.sin(s) + b
        if s > 0.0:
            total = total + s * s
        else:
            total = total + math.exp(s) - 1.0
    return total


def branchy_recursion_grad(a, b, n):
    s = 0.3
    states = []
    for _ in range(n):
        states.append(s)
        s = a * math.sin(s) + b
    s_bar = a_bar = b_bar = 0.0
    for s_prev in reversed(states):
        s_bar += 2.0 * s if s > 0.0 else math.exp(s)
        a_bar += s_bar * math.sin(s_prev)
        b_bar += s_bar
        s_bar *= a * math.cos(s_prev)
        s = s_prev
    return a_bar, b_bar


def recursion_args(n=100):
    return -1.7, 0.05, n


# ---- Rosenbrock --------------------------------------------------------------------------------


def rosen_dot(x):
    """Rosenbrock by two dot products of named differences (wrt x)."""
    d = x[1:] - x[:-1] ** 2
    e = 1.0 - x[:-1]
    return 100.0 * np.dot(d, d) + np.dot(e, e)


def rosen_dot_grad(x):
    head = x[:-1]
    d = x[1:] - head * head
    g = np.empty_like(x)
    g[:-1] = -400.0 * d * head - 2.0 * (1.0 - head)
    g[-1] = 0.0
    g[1:] += 200.0 * d
    return g


def rosen_args(n=1000, seed=362):
    return (np.random.default_rng(seed).uniform(-1.5, 1.5, size=n),)


def rosen_pairs(x):
    """Rosenbrock by a Python loop over neighbouring pairs of a vector's items (wrt x)."""
    total = 0.0
    for i in range(len(x) - 1):
        total = total + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return total


def rosen_pairs_grad(x):
    g = np.zeros_like(x)
    for i in range(len(x) - 1):
        d = x[i + 1] - x[i] * x[i]
        g[i] += -400.0 * d * x[i] - 2.0 * (1.0 - x[i])
        g[i + 1] += 200.0 * d
    return g


def rosen_listcomp(x):
    """Rosenbrock as np.sum of a list comprehension over the pairs (wrt x)."""
    return np.sum([100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2 for i in range(len(x) - 1)])


rosen_listcomp_grad = rosen_pairs_grad


# ---- mean squared error --------------------------------------------------------------------------


def mse_square(w, b, X, y):
    """np.mean of np.square of the residual (wrt w and b)."""
    return np.mean(np.square(X @ w + b - y))


def mse_square_grad(w, b, X, y):
    r = X @ w + b - y
    r_bar = (2.0 / r.size) * r
    return X.T @ r_bar, r_bar.sum()


def mse_norm(w, X, y):
    """The squared Euclidean norm of the residual over the count (wrt w)."""
    return np.linalg.norm(X @ w - y) ** 2 / len(y)


def mse_norm_grad(w, X, y):
    r = X @ w - y
    return X.T @ ((2.0 / r.size) * r)


def mse_einsum(w, X, y):
    """Predictions and the sum of squares both by np.einsum (wrt w)."""
    r = np.einsum("ij,j->i", X, w) - y
    return np.einsum("i,i->", r, r) / r.shape[0]


mse_einsum_grad = mse_norm_grad


def regression_args(n=10_000, d=100, seed=363, bias=True):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    w = rng.standard_normal(d)
    return (w, 0.1, X, y) if bias else (w, X, y)


# ---- logistic regression -------------------------------------------------------------------------


def logistic_log1p(w, b, X, s):
    """Labels in {-1, 1}: the mean of log1p(exp(-margin)) (wrt w and b)."""
    return np.mean(np.log1p(np.exp(-s * (X @ w + b))))


def logistic_log1p_grad(w, b, X, s):
    e = np.exp(-s * (X @ w + b))
    z_bar = (-s / s.size) * (e / (1.0 + e))
    return X.T @ z_bar, z_bar.sum()


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logistic_sigmoid(w, b, X, y):
    """Labels in {0, 1}: a sigmoid helper and the cross-entropy written out (wrt w and b)."""
    p = sigmoid(X @ w + b)
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def logistic_sigmoid_grad(w, b, X, y):
    p = sigmoid(X @ w + b)
    z_bar = (p - y) / y.size
    return X.T @ z_bar, z_bar.sum()


def logistic_args(n=10_000, d=100, seed=364, signs=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X @ rng.standard_normal(d) + rng.standard_normal(n) > 0).astype(np.float64)
    return 0.1 * rng.standard_normal(d), 0.1, X, 2.0 * y - 1.0 if signs else y


# ---- an MLP of a list of (W, b) layers -----------------------------------------------------------


def dense(h, W, b):
    return h @ W + b


def mlp_layers(params, X, Y):
    """tanh layers by a helper in a loop over a list of (W, b) tuples, the last one linear; softmax
    cross-entropy with the maximum subtracted, averaged over the rows (wrt params)."""
    h = X
    for W, b in params[:-1]:
        h = np.tanh(dense(h, W, b))
    W, b = params[-1]
    z = dense(h, W, b)
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * logp, axis=1))


def mlp_layers_grad(params, X, Y):
    hs = [X]
    for W, b in params[:-1]:
        hs.append(np.tanh(hs[-1] @ W + b))
    W, b = params[-1]
    z = hs[-1] @ W + b
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    z_bar = (p * Y.sum(axis=1, keepdims=True) - Y) / X.shape[0]
    grads = [(hs[-1].T @ z_bar, z_bar.sum(axis=0))]
    a_bar = z_bar
    for i in range(len(params) - 2, -1, -1):
        h = hs[i + 1]
        a_bar = (a_bar @ params[i + 1][0].T) * (1.0 - h * h)
        grads.append((hs[i].T @ a_bar, a_bar.sum(axis=0)))
    return grads[::-1]


def mlp_args(B=256, sizes=(784, 128, 64, 10), seed=365):
    rng = np.random.default_rng(seed)
    params = [(rng.standard_normal((m, n)) / math.sqrt(m), 0.1 * rng.standard_normal(n))
              for m, n in zip(sizes[:-1], sizes[1:])]
    return params, rng.standard_normal((B, sizes[0])), np.eye(sizes[-1])[rng.integers(0, sizes[-1], B)]


# ---- an RNN keeping its states in a list ---------------------------------------------------------


def rnn_list(Wx, Wh, b, xs, target):
    """A tanh RNN appending each state to a list, the loss over every state (wrt Wx, Wh and b)."""
    hs = [np.zeros((xs.shape[1], Wh.shape[0]))]
    for x in xs:
        hs.append(np.tanh(x @ Wx + hs[-1] @ Wh + b))
    return sum(np.mean((h - target) ** 2) for h in hs[1:]) / len(xs)


def rnn_list_grad(Wx, Wh, b, xs, target):
    T = xs.shape[0]
    hs = [np.zeros((xs.shape[1], Wh.shape[0]))]
    for t in range(T):
        hs.append(np.tanh(xs[t] @ Wx + hs[-1] @ Wh + b))
    scale = 2.0 / (target.size * T)
    gWx, gWh, gb = np.zeros_like(Wx), np.zeros_like(Wh), np.zeros_like(b)
    h_bar = np.zeros_like(hs[0])
    for t in range(T - 1, -1, -1):
        h = hs[t + 1]
        h_bar = h_bar + scale * (h - target)
        a_bar = h_bar * (1.0 - h * h)
        gWx += xs[t].T @ a_bar
        gWh += hs[t].T @ a_bar
        gb += a_bar.sum(axis=0)
        h_bar = a_bar @ Wh.T
    return gWx, gWh, gb


def rnn_args(T=50, B=32, n_in=32, n_h=128, seed=366):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, n_h)) / math.sqrt(n_in),
            0.9 * rng.standard_normal((n_h, n_h)) / math.sqrt(n_h), 0.1 * rng.standard_normal(n_h),
            rng.standard_normal((T, B, n_in)), 0.5 * rng.standard_normal((B, n_h)))


# ---- RK4 on a dict state -------------------------------------------------------------------------


def oscillator_rhs(u, v, k):
    return v, -k * np.sin(u) - 0.1 * v


def rk4_dict(k, u0, v0, dt, steps):
    """RK4 of 100 damped pendulums whose state is a dict of two arrays rebuilt in each step, the
    right-hand side a helper returning a tuple (wrt k and u0)."""
    s = {"u": u0, "v": v0}
    for _ in range(steps):
        a1, b1 = oscillator_rhs(s["u"], s["v"], k)
        a2, b2 = oscillator_rhs(s["u"] + 0.5 * dt * a1, s["v"] + 0.5 * dt * b1, k)
        a3, b3 = oscillator_rhs(s["u"] + 0.5 * dt * a2, s["v"] + 0.5 * dt * b2, k)
        a4, b4 = oscillator_rhs(s["u"] + dt * a3, s["v"] + dt * b3, k)
        s = {"u": s["u"] + dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4),
             "v": s["v"] + dt / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4)}
    return np.sum(s["u"] ** 2) + 0.5 * np.sum(s["v"] ** 2)


def rk4_dict_grad(k, u0, v0, dt, steps):
    def f(u, v):
        return v, -k * np.sin(u) - 0.1 * v

    def f_vjp(u, ub, vb):                     # (u_bar, v_bar, k_bar) of f's outputs' adjoints
        return -k * np.cos(u) * vb, ub - 0.1 * vb, -np.sin(u) * vb

    c = dt / 6.0
    u, v = u0, v0
    stages = []
    for _ in range(steps):
        a1, b1 = f(u, v)
        u2, v2 = u + 0.5 * dt * a1, v + 0.5 * dt * b1
        a2, b2 = f(u2, v2)
        u3, v3 = u + 0.5 * dt * a2, v + 0.5 * dt * b2
        a3, b3 = f(u3, v3)
        u4, v4 = u + dt * a3, v + dt * b3
        a4, b4 = f(u4, v4)
        stages.append((u, u2, u3, u4))
        u, v = u + c * (a1 + 2.0 * a2 + 2.0 * a3 + a4), v + c * (b1 + 2.0 * b2 + 2.0 * b3 + b4)
    ub, vb = 2.0 * u, v
    kb = np.zeros_like(k)
    for u1, u2, u3, u4 in reversed(stages):
        su, sv, sk = f_vjp(u4, c * ub, c * vb)
        au, av = ub + su, vb + sv
        kb += sk
        su, sv, sk = f_vjp(u3, 2.0 * c * ub + dt * su, 2.0 * c * vb + dt * sv)
        au, av = au + su, av + sv
        kb += sk
        su, sv, sk = f_vjp(u2, 2.0 * c * ub + 0.5 * dt * su, 2.0 * c * vb + 0.5 * dt * sv)
        au, av = au + su, av + sv
        kb += sk
        su, sv, sk = f_vjp(u1, c * ub + 0.5 * dt * su, c * vb + 0.5 * dt * sv)
        ub, vb = au + su, av + sv
        kb += sk
    return kb, ub


def rk4_dict_args(n=100, steps=10, seed=367):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.5, 1.5, n), rng.uniform(-1.0, 1.0, n), rng.uniform(-0.5, 0.5, n), 0.1, steps


# ---- a pendulum whose parameters a class holds ---------------------------------------------------


class Pendulum:
    """A damped pendulum's parameters, its acceleration a method."""

    def __init__(self, c, k):
        self.c = c
        self.k = k

    def accel(self, theta, omega):
        return -self.c * omega - self.k * math.sin(theta)


def pendulum_class(c, k, observed, steps):
    """Semi-implicit Euler steps of a Pendulum built from the parameters, a squared misfit summed in
    the loop (wrt c and k)."""
    pend = Pendulum(c, k)
    h = 0.05
    theta, omega = 1.0, 0.0
    misfit = 0.0
    for i in range(steps):
        omega = omega + h * pend.accel(theta, omega)
        theta = theta + h * omega
        misfit += (theta - observed[i]) ** 2
    return misfit


def pendulum_class_grad(c, k, observed, steps):
    """Forward sensitivities of (theta, omega) to c and k, carried with the state."""
    h = 0.05
    theta, omega = 1.0, 0.0
    tc = oc = tk = ok = 0.0
    gc = gk = 0.0
    for i in range(steps):
        s, co = math.sin(theta), math.cos(theta)
        oc = oc + h * (-omega - c * oc - k * co * tc)
        ok = ok + h * (-c * ok - s - k * co * tk)
        omega = omega + h * (-c * omega - k * s)
        tc, tk = tc + h * oc, tk + h * ok
        theta = theta + h * omega
        r = 2.0 * (theta - observed[i])
        gc += r * tc
        gk += r * tk
    return gc, gk


def pendulum_args(steps=100, seed=368):
    rng = np.random.default_rng(seed)
    t = 0.05 * np.arange(1, steps + 1)
    return 0.3, 4.0, np.cos(2.0 * t) * np.exp(-0.1 * t) + 0.01 * rng.standard_normal(steps), steps
