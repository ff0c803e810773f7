"""Wave 30's per-example programs for srcdiff.vmap (test_vmap30.py), each written as a user writes it:
branches whose test differs between examples (``if x.sum() > 0:``, a conditional expression, elif chains,
nested branches, a guard the other side needs, a branch in a loop), writes through a mask that differs
between examples, ``x.reshape(3, -1)`` and a shape computed when run, ``abs`` and ``float`` of a row's
number, a function calling scipy's logsumexp, a kernel's distance whose gradient holds a point of infinite
slope, and programs still run one example at a time (a side that prints, a value one side leaves None,
sides of other shapes).  `PROGRAMS` pairs each with its arguments' maker (``make(rng, size)`` -> arguments,
in_axes) and the arguments differentiated."""

from __future__ import annotations

import math

import numpy as np
from scipy import special
from scipy.special import logsumexp

N = 3


def vectors_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N))), (None, 0)


def six_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, 2 * N))), (None, 0)


def points_args(r, b):
    return (np.array([0.1, -0.2]), r.normal(size=(b, 5, 2)), r.normal(size=(b, 5))), (None, 0, 0)


# ---- 1. branches whose test differs between examples ----

def branch_on_sum(w, x):
    if x.sum() > 0:
        y = np.sin(x * w) / (1.0 + x[0] ** 2)
    else:
        y = x ** 2
    return np.sum(y * w)


def log_or_square(w, x):
    s = np.sum(x * w)
    if s > 0:
        return np.log(s)  # (NaN for the examples that take the other side: never theirs)
    return s ** 2


def conditional_expression(w, x):
    a = x[0] * w[0]
    b = a if a > 0 else -0.5 * a
    return b * x[1] + w[2]


def piecewise_elif(w, x):
    t = np.dot(w, x)
    if t > 1.0:
        r = t - 0.5
    elif t > -1.0:
        r = 0.5 * t ** 2
    else:
        r = -t - 0.5
    return r * np.sum(x)


def nested_branches(w, x):
    if x[0] > 0:
        if x[1] > 0:
            y = np.exp(x * w)
        else:
            y = x * w
    else:
        y = np.tanh(x) * w[0]
    return np.sum(y ** 2)


def guarded_root(w, x):
    q = np.sum(x * x) - 1.0
    if q > 0:
        return np.sqrt(q) * w[0]  # (NaN where q < 0: the other side's examples)
    return q * w[1]


def exponent_by_branch(w, x):
    if x[0] > 0:
        k = 2
    else:
        k = 3
    return np.sum(x ** k * w)


def branch_in_a_loop(w, x):
    s = 0.0
    for k in range(3):
        v = x[k] * w[k]
        if v > 0.1:
            s = s + np.sin(v)
        else:
            s = s - v ** 2
    return s


def relu_branch(w, x):
    z = w @ x
    if z < 0:
        z = 0.01 * z
    return z ** 2 + np.sum(x)


def huber_branch(w, x):
    r = np.dot(w, x) - 1.0
    if abs(r) <= 1.0:
        return 0.5 * r * r
    return abs(r) - 0.5


def soft_threshold(w, x):
    out = 0.0
    for k in range(3):
        u = x[k] - w[k]
        if u > 0.2:
            out = out + (u - 0.2) ** 2
        elif u < -0.2:
            out = out + (u + 0.2) ** 2
    return out


# ---- 2. writes through a mask that differs between examples ----

def leaky_write(w, x):
    y = x * w
    y[y < 0] *= 0.1
    return np.sum(y ** 3)


def clipped_write(w, x):
    y = x.copy()
    y[y < 0.0] = 0.1 * y[y < 0.0]
    y[np.abs(y) > 1.0] = np.sign(y[np.abs(y) > 1.0])
    return np.sum(y ** 3 * w)


def capped_write(w, x):
    h = x * w
    h[h > 0.5] = 0.5
    return np.sum(h ** 2)


def integer_counts_write(w, x):
    k = np.arange(3)
    k[x > 0] = 7
    return np.sum(k * x * w)


# ---- 3. reshapes, abs, float ----

def reshaped_method(w, x):
    pos = x.reshape(-1, 2)
    return np.sum(pos ** 2) * w[0] + np.sum(pos[:, 0] * w[1])


def reshaped_unpacked(w, x):
    a, b, c = (x * w[0]).reshape(3, -1)
    return np.sum(a * b + c)


def maxout_computed_shape(w, x):
    z = x * w[0]
    return np.sum(np.max(z.reshape(z.shape[0] // 2, 2), axis=1))


def float_of_a_sum(w, x):
    s = float(np.sum(x * w))
    return s ** 2 + math.sin(s)


def abs_of_a_sum(w, x):
    return abs(np.sum(x * w)) + np.sum(x)


# ---- 4. functions srcdiff rewrites, points of infinite slope ----

def mixture(w, x):
    comps = -0.5 * (x[:, None] - w[None, :]) ** 2
    return np.sum(logsumexp(comps, axis=1))


def matern52(log_ell, X, y):
    Z = X / np.exp(log_ell)
    diff = Z[:, None, :] - Z[None, :, :]
    r = np.sqrt(np.sum(diff ** 2, axis=-1))  # 0 on the diagonal, where sqrt's slope is infinite
    s5 = math.sqrt(5.0)
    K = (1.0 + s5 * r + 5.0 / 3.0 * r ** 2) * np.exp(-s5 * r) + 0.1 * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L, y)
    return 0.5 * alpha @ alpha + np.sum(np.log(np.diag(L)))


# ---- 5. still one example at a time ----

def printed_side(w, x):
    if x[0] > 0:
        print("positive first item")
        return np.sum(x * w)
    return np.sum(x)


def none_on_one_side(w, x):
    y = None
    if x[0] > 0:
        y = x * w
    if y is None:
        return np.sum(x)
    return np.sum(y)


def sides_of_other_shapes(w, x):
    if x[0] > 0:
        y = x * w
    else:
        y = np.sum(x)
    return np.sum(y * 2.0)


BRANCHES = [branch_on_sum, log_or_square, conditional_expression, piecewise_elif, nested_branches, guarded_root,
            exponent_by_branch, branch_in_a_loop, relu_branch, huber_branch, soft_threshold]
WRITES = [leaky_write, clipped_write, capped_write, integer_counts_write]
SHAPES = [reshaped_method, reshaped_unpacked, maxout_computed_shape, float_of_a_sum, abs_of_a_sum]
STILL = [printed_side, none_on_one_side, sides_of_other_shapes]

PROGRAMS = ([(f, vectors_args, (0, 1)) for f in BRANCHES + WRITES + [float_of_a_sum, abs_of_a_sum, mixture]]
            + [(f, six_args, (0, 1)) for f in (reshaped_method, reshaped_unpacked, maxout_computed_shape)]
            + [(matern52, points_args, (0, 1))]
            + [(f, vectors_args, (0, 1)) for f in STILL])


# ---- 7. silently WRONG before (found by the wide census) ----

def hmm_forward(log_pi, log_A, log_obs):
    alpha = log_pi + log_obs[0]
    for t in range(1, log_obs.shape[0]):
        alpha = special.logsumexp(alpha[:, None] + log_A, axis=0) + log_obs[t]  # (scipy.special as `special`)
    return special.logsumexp(alpha)


def hmm_args(r, b):
    return (r.normal(size=(b, 3)), r.normal(size=(3, 3)), r.normal(size=(b, 4, 3))), (0, None, 0)


def embedding_bag(E, ids, w):
    return np.sum(np.tanh(E[ids] @ w))  # E[ids]: a stack (3, 2, 3) a row, times each row's vector


def embedding_args(r, b):
    return (r.normal(size=(b, 5, 3)), np.array([[0, 1], [1, 4], [3, 3]]), r.normal(size=(b, 3))), (0, None, 0)


def stack_times_vector(A, w):
    return np.sum(np.sin(A @ w))


def stack_args(r, b):
    return (r.normal(size=(3, 2, 3)), r.normal(size=(b, 3))), (None, 0)


SILENT = [(hmm_forward, hmm_args, (0, 2)), (embedding_bag, embedding_args, (0, 2)),
          (stack_times_vector, stack_args, (0, 1))]
