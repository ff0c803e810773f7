"""Benchmark problems, written the way a user writes them.

Each problem has three parts:

* the function, plain Python/NumPy, exactly what a user hands to ``srcdiff.grad``;
* a hand-written NumPy gradient, what a careful person would write instead
  (verified against central differences in ``test_benchmarks.py``);
* an argument factory with a fixed seed, taking the problem's sizes as keywords.

``PROBLEMS`` lists them with the benchmark sizes and a small size for the tests.
This module must stay importable with NumPy alone: the peers' versions live in
``peers.py``.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

# --------------------------------------------------------------------------
# Scalar polynomial with math functions (two floats)
# --------------------------------------------------------------------------

def poly(x, y):
    return x * x * y + 3.0 * math.sin(x) * y - math.exp(x * y) + 2.0 * y ** 3


def poly_grad(x, y):
    e = math.exp(x * y)
    x_bar = 2.0 * x * y + 3.0 * math.cos(x) * y - y * e
    y_bar = x * x + 3.0 * math.sin(x) - x * e + 6.0 * y * y
    return x_bar, y_bar


def poly_args(seed=0):
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-1.0, 1.0, size=2)
    return float(x), float(y)


# --------------------------------------------------------------------------
# Scalar loop: n steps of a Python for loop on floats
# --------------------------------------------------------------------------

def scalar_loop(x, a, n):
    s = x
    total = 0.0
    for _ in range(n):
        s = 0.9 * s + a * math.sin(s)
        total = total + s * s
    return total


def scalar_loop_grad(x, a, n):
    s = x
    states = []
    for _ in range(n):
        states.append(s)
        s = 0.9 * s + a * math.sin(s)
    s_bar = 0.0
    a_bar = 0.0
    for s_prev in reversed(states):           # s is the state after s_prev
        s_bar += 2.0 * s                      # total = total + s * s
        a_bar += s_bar * math.sin(s_prev)     # s = 0.9 * s + a * math.sin(s)
        s_bar *= 0.9 + a * math.cos(s_prev)
        s = s_prev
    return s_bar, a_bar


def scalar_loop_args(n=100, seed=1):
    rng = np.random.default_rng(seed)
    x, a = rng.uniform(0.2, 0.8, size=2)
    return float(x), float(a), n


# --------------------------------------------------------------------------
# Rosenbrock, vectorised
# --------------------------------------------------------------------------

def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_grad(x):
    head = x[:-1]
    d = x[1:] - head * head
    g = np.empty_like(x)
    g[:-1] = -400.0 * d * head - 2.0 * (1.0 - head)
    g[-1] = 0.0
    g[1:] += 200.0 * d
    return g


def rosenbrock_args(n=1000, seed=2):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1.5, 1.5, size=n),)


# --------------------------------------------------------------------------
# Linear regression, mean squared error
# --------------------------------------------------------------------------

def mse(w, b, X, y):
    return ((X @ w + b - y) ** 2).mean()


def mse_grad(w, b, X, y):
    r = X @ w + b - y
    r_bar = (2.0 / r.size) * r
    return X.T @ r_bar, r_bar.sum()


def regression_args(n=128, d=1, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    return w, 0.1, X, y


# --------------------------------------------------------------------------
# Logistic regression (labels in {0, 1}), stable log(1 + exp(z))
# --------------------------------------------------------------------------

def logistic(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def logistic_grad(w, b, X, y):
    z = X @ w + b
    p = 0.5 * (1.0 + np.tanh(0.5 * z))       # sigmoid(z), stable
    z_bar = (p - y) / z.size
    return X.T @ z_bar, z_bar.sum()


def logistic_args(n=10_000, d=100, seed=4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = 0.1 * rng.standard_normal(d)
    y = (X @ rng.standard_normal(d) + rng.standard_normal(n) > 0).astype(np.float64)
    return w, 0.1, X, y


# --------------------------------------------------------------------------
# tanh MLP with softmax cross-entropy (one-hot labels)
# --------------------------------------------------------------------------

def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(Y * logp) / X.shape[0]


def mlp_grad(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    z_bar = (p * Y.sum(axis=1, keepdims=True) - Y) / X.shape[0]
    a_bar = (z_bar @ W2.T) * (1.0 - h * h)
    return X.T @ a_bar, a_bar.sum(axis=0), h.T @ z_bar, z_bar.sum(axis=0)


def mlp_args(batch=256, n_in=784, n_hidden=256, n_out=10, seed=5):
    rng = np.random.default_rng(seed)
    W1 = rng.standard_normal((n_in, n_hidden)) / math.sqrt(n_in)
    b1 = 0.1 * rng.standard_normal(n_hidden)
    W2 = rng.standard_normal((n_hidden, n_out)) / math.sqrt(n_hidden)
    b2 = 0.1 * rng.standard_normal(n_out)
    X = rng.standard_normal((batch, n_in))
    Y = np.eye(n_out)[rng.integers(0, n_out, size=batch)]
    return W1, b1, W2, b2, X, Y


# --------------------------------------------------------------------------
# tanh RNN unrolled by a Python for loop, loss on the last state
# --------------------------------------------------------------------------

def rnn(Wx, Wh, b, xs, h0, target):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.mean((h - target) ** 2)


def rnn_grad(Wx, Wh, b, xs, h0, target):
    hs = [h0]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(xs[t] @ Wx + hs[-1] @ Wh + b))
    h_bar = 2.0 * (hs[-1] - target) / target.size
    Wx_bar = np.zeros_like(Wx)
    Wh_bar = np.zeros_like(Wh)
    b_bar = np.zeros_like(b)
    for t in range(xs.shape[0] - 1, -1, -1):
        h = hs[t + 1]
        a_bar = h_bar * (1.0 - h * h)
        Wx_bar += xs[t].T @ a_bar
        Wh_bar += hs[t].T @ a_bar
        b_bar += a_bar.sum(axis=0)
        h_bar = a_bar @ Wh.T
    return Wx_bar, Wh_bar, b_bar


def rnn_args(steps=50, batch=32, n_in=32, n_hidden=128, seed=6):
    rng = np.random.default_rng(seed)
    Wx = rng.standard_normal((n_in, n_hidden)) / math.sqrt(n_in)
    Wh = 0.9 * rng.standard_normal((n_hidden, n_hidden)) / math.sqrt(n_hidden)
    b = 0.1 * rng.standard_normal(n_hidden)
    xs = rng.standard_normal((steps, batch, n_in))
    h0 = np.zeros((batch, n_hidden))
    target = 0.5 * rng.standard_normal((batch, n_hidden))
    return Wx, Wh, b, xs, h0, target


# --------------------------------------------------------------------------
# tanh RNN on one sequence (state a vector): the hand-written gradient keeps the
# per-step adjoints and forms the weight gradients as two matmuls after the loop
# --------------------------------------------------------------------------

def rnn_seq(Wx, Wh, b, xs, h0, target):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.mean((h - target) ** 2)


def rnn_seq_grad(Wx, Wh, b, xs, h0, target):
    steps, n_hidden = xs.shape[0], h0.shape[0]
    hs = np.empty((steps + 1, n_hidden))
    hs[0] = h0
    for t in range(steps):
        hs[t + 1] = np.tanh(xs[t] @ Wx + hs[t] @ Wh + b)
    h_bar = 2.0 * (hs[steps] - target) / target.size
    a_bars = np.empty((steps, n_hidden))
    for t in range(steps - 1, -1, -1):
        h = hs[t + 1]
        a_bar = h_bar * (1.0 - h * h)
        a_bars[t] = a_bar
        h_bar = Wh @ a_bar
    return xs.T @ a_bars, hs[:steps].T @ a_bars, a_bars.sum(axis=0)


def rnn_seq_args(steps=50, n_in=32, n_hidden=128, seed=7):
    rng = np.random.default_rng(seed)
    Wx = rng.standard_normal((n_in, n_hidden)) / math.sqrt(n_in)
    Wh = 0.9 * rng.standard_normal((n_hidden, n_hidden)) / math.sqrt(n_hidden)
    b = 0.1 * rng.standard_normal(n_hidden)
    xs = rng.standard_normal((steps, n_in))
    h0 = np.zeros(n_hidden)
    target = 0.5 * rng.standard_normal(n_hidden)
    return Wx, Wh, b, xs, h0, target


# --------------------------------------------------------------------------
# Classical Runge-Kutta (RK4) with the right-hand side in a helper function
# --------------------------------------------------------------------------

def rhs(y, k):
    return k * np.sin(y) - 0.5 * y * y


def rk4(y0, k, dt, steps):
    y = y0
    for _ in range(steps):
        k1 = rhs(y, k)
        k2 = rhs(y + 0.5 * dt * k1, k)
        k3 = rhs(y + 0.5 * dt * k2, k)
        k4 = rhs(y + dt * k3, k)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


def rk4_grad(y0, k, dt, steps):
    def rhs_bar(u, g):                        # (d rhs/du, d rhs/dk) times g
        return g * (k * np.cos(u) - u), g * np.sin(u)

    c = dt / 6.0
    stages = []
    y = y0
    for _ in range(steps):
        u1 = y
        k1 = rhs(u1, k)
        u2 = y + 0.5 * dt * k1
        k2 = rhs(u2, k)
        u3 = y + 0.5 * dt * k2
        k3 = rhs(u3, k)
        u4 = y + dt * k3
        k4 = rhs(u4, k)
        stages.append((u1, u2, u3, u4))
        y = y + c * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    y_bar = 2.0 * y
    k_bar = np.zeros_like(k)
    for u1, u2, u3, u4 in reversed(stages):
        u_bar, kb = rhs_bar(u4, c * y_bar)
        k_bar += kb
        acc = y_bar + u_bar
        u_bar, kb = rhs_bar(u3, 2.0 * c * y_bar + dt * u_bar)
        k_bar += kb
        acc += u_bar
        u_bar, kb = rhs_bar(u2, 2.0 * c * y_bar + 0.5 * dt * u_bar)
        k_bar += kb
        acc += u_bar
        u_bar, kb = rhs_bar(u1, c * y_bar + 0.5 * dt * u_bar)
        k_bar += kb
        y_bar = acc + u_bar
    return y_bar, k_bar


def rk4_args(n=100, steps=4, seed=8):
    rng = np.random.default_rng(seed)
    y0 = rng.uniform(-1.0, 1.0, size=n)
    k = rng.uniform(0.5, 1.5, size=n)
    return y0, k, 0.1, steps


# --------------------------------------------------------------------------
# A pendulum fit: scalar state, helpers returning tuples, a list of states
# --------------------------------------------------------------------------

def pendulum_rhs(theta, omega, c, k):
    return omega, -c * omega - k * math.sin(theta)


def pendulum_step(theta, omega, c, k, h):
    a1, b1 = pendulum_rhs(theta, omega, c, k)
    a2, b2 = pendulum_rhs(theta + 0.5 * h * a1, omega + 0.5 * h * b1, c, k)
    a3, b3 = pendulum_rhs(theta + 0.5 * h * a2, omega + 0.5 * h * b2, c, k)
    a4, b4 = pendulum_rhs(theta + h * a3, omega + h * b3, c, k)
    return (theta + h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4),
            omega + h / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4))


def pendulum_simulate(c, k, steps, h):
    theta, omega = 1.0, 0.0
    states = []
    for _ in range(steps):
        theta, omega = pendulum_step(theta, omega, c, k, h)
        states.append(theta)
    return states


def pendulum(c, k, observed, steps):
    states = pendulum_simulate(c, k, steps, 0.05)
    misfit = 0.0
    for i in range(len(states)):
        misfit = misfit + (states[i] - observed[i]) ** 2
    return misfit


def pendulum_grad(c, k, observed, steps):
    """Forward sensitivities: each RK4 stage carries (theta, omega) and their derivatives
    with respect to c and k; the misfit's derivative is summed along the way."""
    h = 0.05
    theta, omega = 1.0, 0.0
    tc = oc = tk = ok = 0.0               # d theta/dc, d omega/dc, d theta/dk, d omega/dk
    misfit_c = misfit_k = 0.0
    for i in range(steps):
        at = ao = atc = aoc = atk = aok = 0.0     # the stages' weighted sums
        t, o, t_c, o_c, t_k, o_k = theta, omega, tc, oc, tk, ok
        for f, w in ((0.5 * h, 1.0), (0.5 * h, 2.0), (h, 2.0), (0.0, 1.0)):
            s, co = math.sin(t), math.cos(t)
            dt, do = o, -c * o - k * s
            dt_c, do_c = o_c, -o - c * o_c - k * co * t_c
            dt_k, do_k = o_k, -c * o_k - s - k * co * t_k
            at, ao, atc, aoc, atk, aok = (at + w * dt, ao + w * do, atc + w * dt_c, aoc + w * do_c,
                                          atk + w * dt_k, aok + w * do_k)
            t, o, t_c, o_c, t_k, o_k = (theta + f * dt, omega + f * do, tc + f * dt_c, oc + f * do_c,
                                        tk + f * dt_k, ok + f * do_k)
        g = h / 6.0
        theta, omega, tc, oc, tk, ok = (theta + g * at, omega + g * ao, tc + g * atc, oc + g * aoc,
                                        tk + g * atk, ok + g * aok)
        r = 2.0 * (theta - observed[i])
        misfit_c += r * tc
        misfit_k += r * tk
    return misfit_c, misfit_k


def pendulum_args(steps=100, seed=9):
    rng = np.random.default_rng(seed)
    t = 0.05 * np.arange(1, steps + 1)
    observed = np.cos(2.0 * t) * np.exp(-0.1 * t) + 0.01 * rng.standard_normal(steps)
    return 0.3, 4.0, observed, steps


# --------------------------------------------------------------------------
# The table of problems
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Problem:
    """One benchmark problem.

    The user's function and the hand-written gradient (named ``func`` and
    ``func + "_grad"``) are looked up by name in a module (``functions(module)``),
    so that a fresh import of this module gives fresh function objects: that is
    how first-call times are measured from scratch.
    """

    name: str
    func: str                  # name of the user's function in this module
    wrt: tuple                 # argument indices differentiated
    make_args: Callable
    sizes: dict = field(default_factory=dict)   # benchmark sizes
    small: dict = field(default_factory=dict)   # sizes for the tests
    memory: bool = False       # report peak memory of the gradient call

    @property
    def grad(self):
        return self.func + "_grad"

    def args(self, small=False):
        return self.make_args(**(self.small if small else self.sizes))

    def functions(self, module):
        """(user function, hand-written gradient) from ``module``."""
        return getattr(module, self.func), getattr(module, self.grad)


PROBLEMS = [
    Problem("poly", "poly", (0, 1), poly_args),
    Problem("scalar_loop", "scalar_loop", (0, 1), scalar_loop_args,
            {"n": 100}, {"n": 7}),
    Problem("rosenbrock_1e3", "rosenbrock", (0,), rosenbrock_args,
            {"n": 1000}, {"n": 6}),
    Problem("rosenbrock_1e6", "rosenbrock", (0,), rosenbrock_args,
            {"n": 1_000_000}, {"n": 6}, memory=True),
    Problem("mse_128x1", "mse", (0, 1), regression_args,
            {"n": 128, "d": 1}, {"n": 9, "d": 1}),
    Problem("mse_1e4x100", "mse", (0, 1), regression_args,
            {"n": 10_000, "d": 100}, {"n": 9, "d": 4}),
    Problem("logistic_1e4x100", "logistic", (0, 1), logistic_args,
            {"n": 10_000, "d": 100}, {"n": 9, "d": 4}),
    Problem("mlp_256x784x256x10", "mlp", (0, 1, 2, 3), mlp_args,
            {}, {"batch": 5, "n_in": 6, "n_hidden": 4, "n_out": 3}),
    Problem("rnn_T50_h128", "rnn", (0, 1, 2), rnn_args,
            {}, {"steps": 4, "batch": 3, "n_in": 2, "n_hidden": 5}),
    Problem("rnn_seq_T50_h128", "rnn_seq", (0, 1, 2), rnn_seq_args,
            {}, {"steps": 4, "n_in": 2, "n_hidden": 5}),
    Problem("rk4_helper", "rk4", (0, 1), rk4_args,
            {}, {"n": 5, "steps": 3}),
    Problem("pendulum_fit", "pendulum", (0, 1), pendulum_args,
            {"steps": 100}, {"steps": 6}),
]


def by_name(name):
    for problem in PROBLEMS:
        if problem.name == name:
            return problem
    raise KeyError(name)
