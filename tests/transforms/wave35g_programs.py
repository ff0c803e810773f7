"""Wave 35g: programs for the closure of srcdiff.vmap (test_wave35g.py), written as users write them, one
family per class that ran one example at a time before: functions grad reads rewritten (a helper returning
a dict of statistics, a configuration dict of dicts, a module-level object with __slots__, a namespace read
through __getattr__), `math` functions NumPy has no ufunc of (math.erf, math.erfc, math.gamma, math.lgamma),
joins whose axis depends on the items' ranks (np.hstack, np.vstack, np.column_stack, np.dstack of a list
built in a loop), and masks kept whole (``x[:, None] > 0``, ``(x > c).astype(int)``).

`PROGRAMS` rows are ``(func, make, wrts)``: ``make(rng, size)`` gives the arguments and in_axes of a batch
of `size` examples, `wrts` the parameters differentiated (vmap_checks.census_outcome maps each).
`MATRIX` rows are ``(name, func, make_args(rng), wrt)`` of one example, for the transformation matrix.
"""

from __future__ import annotations

import math

import numpy as np

N = 3

# ---- functions grad reads rewritten ----


def _moments(v):
    return {"mean": np.mean(v), "var": np.mean((v - np.mean(v)) ** 2)}


def stats_helper(x):
    s = _moments(x)
    return s["var"] / (1.0 + s["mean"] ** 2) + np.sum(np.sin(x)) * s["mean"]


CFG = {"scale": 1.5, "layer": {"shift": 0.2, "gain": 0.7}}


def _features(v, cfg):
    out = {}
    out["lin"] = cfg["scale"] * np.sum(v)
    out["sq"] = cfg["layer"]["gain"] * np.sum((v - cfg["layer"]["shift"]) ** 2)
    return out


def config_features(x):
    f = _features(x, CFG)
    return f["lin"] * f["sq"] + np.tanh(f["lin"])


class Spring:
    __slots__ = ("k", "rest")

    def __init__(self, k, rest):
        self.k = k
        self.rest = rest


SPRING = Spring(np.array([2.0, 0.5, 1.0]), 0.25)


def slots_energy(x):
    return np.sum(0.5 * SPRING.k * (x - SPRING.rest) ** 2) + np.sum(np.cos(SPRING.k * x))


class Options:
    def __init__(self, **values):
        self._values = values

    def __getattr__(self, name):
        return self._values[name]


OPTS = Options(alpha=0.3, beta=2.0)


def namespace_penalty(x):
    return np.sum(OPTS.alpha * x ** 2 + np.sin(OPTS.beta * x))


# ---- math functions without a NumPy ufunc ----


def probit(w, x, y):
    z = float(np.dot(w, x))
    p = 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
    return -(y * math.log(p) + (1.0 - y) * math.log(1.0 - p))


def bs_call(sigma, s, k):
    t = 0.75
    d1 = (math.log(s / k) + 0.5 * sigma * sigma * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    cdf = lambda u: 0.5 * math.erfc(-u / math.sqrt(2.0))  # noqa: E731
    return s * cdf(d1) - k * cdf(d2)


def poisson_lgamma(log_rate, k):
    rate = math.exp(log_rate)
    return rate - k * log_rate + math.lgamma(k + 1.0)


def gamma_mix(a, x):
    return math.lgamma(a[0]) + a[1] * math.erfc(a[0] * x) + math.gamma(a[1])


# ---- joins whose axis depends on the items' ranks ----


def hstack_loop(w, x):
    parts = []
    for k in range(2):
        parts.append(w * x * (k + 1))
    return np.sum(np.hstack(parts) ** 2)


def vstack_rows(w, x):
    rows = [np.tanh(w * x[k]) for k in range(3)]
    return np.sum(np.vstack(rows) @ w)


def column_stack_cols(w, x):
    cols = [np.sin(w * x[k]) for k in range(3)]
    M = np.column_stack(cols)
    return np.sum(M * M) + np.sum(M[:, 0])


def hstack_numbers(w, x):
    feats = [w[0] * x[0], np.sum(w * x), np.max(w * x)]
    return np.sum(np.hstack(feats) ** 3)


def blocks_joined(w, x):
    blocks = [np.outer(w, x[k]) for k in range(2)]
    return np.sum(np.hstack(blocks) ** 2) + np.sum(np.vstack(blocks)[1]) + np.sum(np.dstack(blocks)[..., 1] ** 3)


# ---- masks kept whole ----


def mask_column(x, m):
    keep = x[:, None] > 0.0
    r = m * x[:, None]
    return np.sum(keep * r * r) + np.sum(~keep * np.sin(r))


def mask_int(x):
    on = (x > 0.2).astype(int)
    return np.sum(on * x ** 3) + np.sum((1 - on) * np.exp(x))


def where_column(x, c):
    M = np.outer(c, x)
    return np.sum(np.where(c[:, None] > 0.0, np.where(M > 0.2, M, M ** 3), -M))


# ---- helpers of test_wave35g's checks ----


def lgamma_branch(x):
    if x > 0.0:
        return math.lgamma(x) * x
    return x * x


def tree_probit(params, x, y):
    return probit(params["w"], x, 1.0 / (1.0 + math.exp(-y))) + params["c"] ** 2 * np.sum(np.hstack([x, x * x]))


def erf_energy(x):
    return math.erf(np.sum(x) / 2.0) ** 2 + np.sum(np.hstack([x, x ** 2]) ** 2)


def _vector(r, b):
    return (r.normal(size=(b, N)),), (0,)


def _classified(r, b):
    return (0.5 * r.normal(size=N), r.normal(size=(b, N)), (r.random(b) > 0.5) * 1.0), (None, 0, 0)


def _options(r, b):
    return (r.uniform(0.15, 0.4, b), r.uniform(80.0, 120.0, b), 100.0), (0, 0, None)


def _counts(r, b):
    return (r.normal(size=b) * 0.3, r.integers(0, 6, b) * 1.0), (0, 0)


def _shapes(r, b):
    return (r.uniform(0.5, 2.0, (b, 2)), 0.3), (0, None)


def _shared_w(r, b):
    return (r.normal(size=N), r.normal(size=(b, N, N))), (None, 0)


def _both(r, b):
    return (r.normal(size=(b, N)), r.normal(size=(b, N, N))), (0, 0)


def _matrix(r, b):
    return (r.normal(size=(b, N)), r.normal(size=(N, N))), (0, None)


def _pairs(r, b):
    return (r.normal(size=(b, N)), r.normal(size=(b, N))), (0, 0)


PROGRAMS = [
    (stats_helper, _vector, (0,)),
    (config_features, _vector, (0,)),
    (slots_energy, _vector, (0,)),
    (namespace_penalty, _vector, (0,)),
    (probit, _classified, (0, 1)),
    (bs_call, _options, (0, 1)),
    (poisson_lgamma, _counts, (0,)),
    (gamma_mix, _shapes, (0,)),
    (hstack_loop, _shared_w, (0, 1)),
    (hstack_loop, _both, (0,)),
    (vstack_rows, _shared_w, (0, 1)),
    (column_stack_cols, _both, (0, 1)),
    (hstack_numbers, _shared_w, (0, 1)),
    (blocks_joined, _shared_w, (0, 1)),
    (mask_column, _matrix, (0, 1)),
    (mask_int, _vector, (0,)),
    (where_column, _pairs, (0, 1)),
]


def _one(make):
    """`make`'s first example, as a matrix row's arguments."""
    def made(r):
        args, axes = make(r, 1)
        return tuple(a if ax is None else a[0] for a, ax in zip(args, axes))
    return made


MATRIX = [(f"{f.__name__}[{make.__name__}]", f, _one(make), wrts[0]) for f, make, wrts in PROGRAMS]
