"""Python spellings grad used to refuse, each written several ways as everyday code writes it:
ranges as index arrays, lists inside joins, starred unpacking, ``functools.reduce``,
``enumerate(start=)``, ``zip(strict=)``, ``while ... else``, ``list(x)``, dict comprehensions,
``**kwargs`` used as a dict.  test_reach8a_syntax.py runs every transformation on them."""

import collections
import dataclasses
import functools
import math
import operator
from functools import reduce

import numpy as np
import scipy.special

# ---- range(...) as an index array ----------------------------------------------------------------


def range_rows_cross_entropy(W, X, labels):
    z = X @ W
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -np.mean(logp[range(len(labels)), labels])


def list_range_pick(W, X, labels):
    z = np.tanh(X @ W)
    picked = z[list(range(X.shape[0])), labels]
    return np.sum(picked ** 2)


def range_step_columns(a):
    return np.sum(np.sin(a[:, range(0, a.shape[1], 2)]) * a[range(a.shape[0]), 0][:, None])


def range_diagonal(A):
    n = A.shape[0]
    return np.sum(np.exp(A[range(n), range(n)])) + np.sum(A[tuple(range(1, n)), 0] ** 2)


# ---- list and tuple displays inside joins ----------------------------------------------------------


def neumann_flux(kappa, u0, dt=0.05, steps=4):
    u = u0
    for _ in range(steps):
        flux = kappa * np.diff(u)
        u = u + dt * np.concatenate(([flux[0]], np.diff(flux), [-flux[-1]]))
    return np.sum(u * np.linspace(0.0, 1.0, u.size))


def ordinal_cutpoints(params, X, y):
    beta, c0, log_gaps = params[:2], params[2], params[3:]
    cuts = np.cumsum(np.concatenate(([c0], np.exp(log_gaps))))
    eta = X @ beta
    upper = np.concatenate((cuts, [np.inf]))
    lower = np.concatenate(([-np.inf], cuts))
    p = scipy.special.ndtr(upper[y] - eta) - scipy.special.ndtr(lower[y] - eta)
    return -np.sum(np.log(p))


def padded_hstack(a, c):
    t = np.sin(a)
    padded = np.hstack([[0.0], t, [c, c ** 2]])
    return np.sum(padded ** 2 * np.arange(1.0, padded.size + 1))


def stacked_rows(a):
    rows = np.vstack([a, [a[0] * a[1], a[1], a[2]], (1.0, 2.0, 3.0)])
    return np.sum(np.tanh(rows) * np.arange(9.0).reshape(3, 3))


# ---- starred unpacking ------------------------------------------------------------------------------


def star_first_rest(theta, X):
    first, *rest = theta
    base = first * np.ones(X.shape[0])
    for j, coef in enumerate(rest):
        base = base + coef * X[:, j]
    return np.sum(np.logaddexp(0.0, base))


def star_init_last(xs):
    *init, last = xs
    return np.sum(np.array(init) ** 2) * np.cos(last) + len(init) * last


def star_middle(x):
    a, *mid, b = np.sin(x)
    return a * b + sum(mid) + np.prod(np.array(mid))


def star_tuple_display(x, y):
    first, *others = (x * y, np.sin(x), y ** 2)
    total = first
    for v in others:
        total = total + v * first
    return total


# ---- functools.reduce -------------------------------------------------------------------------------


def reduce_lambda_product(x):
    terms = [1.0 + 0.1 * xi ** 2 for xi in x]
    return math.log(functools.reduce(lambda a, b: a * b, terms))


def reduce_operator_with_init(x):
    return reduce(operator.add, [np.sin(x[0]), x[1] ** 2, x[0] * x[2]], 0.5) * x[1]


def _soft_max2(a, b):
    return np.logaddexp(a, b)


def reduce_named_function(x):
    parts = [x[i] * (i + 1.0) for i in range(len(x))]
    return functools.reduce(_soft_max2, parts) + functools.reduce(np.multiply, [x[0], x[1], 2.0])


def reduce_matrices(A):
    chain = functools.reduce(operator.matmul, [A, np.tanh(A), A.T])
    return np.sum(chain ** 2)


# ---- enumerate(start=), zip(strict=), while ... else, list(x) ----------------------------------------


def enumerate_from_one(x):
    total = 0.0
    for i, v in enumerate(x, start=1):
        total = total + i * np.sin(v) / (i + 1)
    return total + sum(k * v ** 2 for k, v in enumerate(x, 2))


def zip_strict_pairs(a, b):
    total = 0.0
    for u, v in zip(a, b, strict=True):
        total = total + u * np.exp(-v ** 2)
    return total + sum(p * q for p, q in zip(a, b, strict=False))


def while_else_decay(x, n=3):
    i = 0
    y = x
    while i < n:
        y = np.sin(y) + 0.5 * x
        i += 1
    else:
        y = y * x
    return np.sum(y ** 2)


def for_else_first_large(x, threshold=0.8):
    picked = np.sum(x ** 2)
    for v in x:
        if v > threshold:
            picked = np.exp(v) * picked
            break
    else:
        picked = picked * np.tanh(np.sum(x))
    return picked


def while_else_with_break(x):
    y, k = x, 0
    while k < 5:
        y = np.cos(y) * x + 0.1
        k += 1
        if np.sum(y ** 2) > 10.0:
            break
    else:
        y = y + np.sin(x)
    return np.sum(y ** 2)


def list_of_tuple(x):
    pair = (np.sin(x), x ** 2)
    items = list(pair)
    copied = list(items)
    return np.sum(copied[0] * items[1]) + np.sum(np.stack(list(np.split(x, 2))) ** 2)


# ---- dict comprehensions, dict.update ------------------------------------------------------------


def dict_comprehension_scaled(params, X):
    scaled = {name: 2.0 * value for name, value in params.items() if name != "bias"}
    h = np.tanh(X @ scaled["W1"]) @ scaled["W2"] + params["bias"]
    return np.sum(h ** 2) + sum(np.sum(v ** 2) for v in scaled.values())


def dict_comprehension_keys(x):
    parts = {k: x * (i - 0.5) for i, k in enumerate(("a", "b", "c"))}
    squashed = {k: np.tanh(parts[k]) for k in sorted(parts) if k.startswith(("a", "c"))}
    return np.sum(squashed["a"] * squashed["c"]) + np.sum(parts["b"] ** 2)


def dict_comprehension_enumerate(layers, x):
    by_depth = {i: np.sin(W @ x) for i, W in enumerate(layers)}
    return sum(np.sum(v ** 2) * (k + 1) for k, v in by_depth.items())


def dict_update_merge(x, y):
    d = {"a": np.sin(x)}
    d.update({"b": x * y, "c": np.exp(-x ** 2)})
    d.update(a=d["a"] * 2.0, e=y ** 2)
    return sum(np.sum(v) for v in d.values())


# ---- **kwargs read as a dict, f(**opts) ------------------------------------------------------------


def _sum_of(*terms, weight=1.0, **extra):
    total = 0.0
    for t in terms:
        total = total + weight * np.sum(t ** 2)
    for value in extra.values():
        total = total + np.sum(value)
    return total


def kwargs_values(w, X):
    h = np.sin(X @ w)
    return _sum_of(h, w, 0.5 * X @ w, weight=0.3, bias=np.cos(w))


def _weighted_items(x, **parts):
    total = len(parts) * np.sum(x ** 2)
    for name, value in parts.items():
        total = total + len(name) * np.sum(np.tanh(value) * x)
    for name in parts:
        total = total + np.sum(parts[name]) * 0.1
    return total


def kwargs_items(x, y):
    return _weighted_items(x, ab=x * y, abc=np.sin(y), a=x ** 3)


def _robust(pred, target, **options):
    delta = options.get("delta", 1.0)
    scale = options.get("scale", 1.0)
    r = (pred - target) / scale
    return np.sum(delta ** 2 * (np.sqrt(1 + (r / delta) ** 2) - 1))


def kwargs_forwarded(w, X, y):
    opts = {"delta": 0.7}
    return _robust(X @ w, y, **opts)


def kwargs_forwarded_dict_call(w, X, y):
    opts = dict(delta=0.5, scale=2.0)
    opts.update(delta=0.9)
    return _robust(0.5 * X @ w, y, **opts)


# ---- a helper's defaults that are configuration objects ----------------------------------------------


@dataclasses.dataclass(frozen=True)
class Penalty:
    l2: float = 0.01
    kind: str = "huber"
    delta: float = 1.0


def config_default_loss(w, X, y, cfg=Penalty()):
    r = X @ w - y
    if cfg.kind == "huber":
        a = np.abs(r)
        data = np.mean(np.where(a < cfg.delta, 0.5 * r ** 2, cfg.delta * (a - 0.5 * cfg.delta)))
    else:
        data = np.mean(r ** 2)
    return data + cfg.l2 * np.sum(w ** 2)


Schedule = collections.namedtuple("Schedule", ["lr", "decay", "steps"])


def unrolled_descent(w0, X, y, hp=Schedule(0.1, 0.9, 3)):  # noqa: B008  (a default object is the point)
    w = w0
    for i in range(hp.steps):
        w = w - hp.lr * hp.decay ** i * X.T @ (X @ w - y) / len(y)
    return 0.5 * np.sum((X @ w - y) ** 2)


class Smoothing:
    def __init__(self, width=0.5, power=2):
        self.width = width
        self.power = power


def object_default_smooth(x, s=Smoothing()):  # noqa: B008
    return np.sum(np.sqrt(x ** s.power + s.width ** 2))


PROGRAMS = [
    ("range_rows_cross_entropy", range_rows_cross_entropy,
     lambda r: (r.normal(size=(3, 4)) * 0.5, r.normal(size=(6, 3)), np.array([0, 3, 1, 2, 2, 0])), 0),
    ("list_range_pick", list_range_pick,
     lambda r: (r.normal(size=(3, 4)) * 0.5, r.normal(size=(5, 3)), np.array([1, 0, 3, 3, 2])), 0),
    ("range_step_columns", range_step_columns, lambda r: (r.normal(size=(3, 5)),), 0),
    ("range_diagonal", range_diagonal, lambda r: (r.normal(size=(4, 4)) * 0.5,), 0),
    ("neumann_flux", neumann_flux, lambda r: (r.uniform(0.5, 1.0, size=5), r.normal(size=6)), 0),
    ("neumann_flux_u0", neumann_flux, lambda r: (r.uniform(0.5, 1.0, size=5), r.normal(size=6)), 1),
    ("ordinal_cutpoints", ordinal_cutpoints,
     lambda r: (np.array([0.3, -0.2, -0.5, -0.1, 0.2]), r.normal(size=(7, 2)), np.array([0, 1, 2, 3, 1, 0, 2])), 0),
    ("padded_hstack", padded_hstack, lambda r: (r.normal(size=4), 0.7), 0),
    ("padded_hstack_c", padded_hstack, lambda r: (r.normal(size=4), 0.7), 1),
    ("stacked_rows", stacked_rows, lambda r: (r.normal(size=3),), 0),
    ("star_first_rest", star_first_rest, lambda r: (r.normal(size=4) * 0.5, r.normal(size=(6, 3))), 0),
    ("star_init_last", star_init_last, lambda r: (r.normal(size=5),), 0),
    ("star_middle", star_middle, lambda r: (r.normal(size=5),), 0),
    ("star_tuple_display", star_tuple_display, lambda r: (0.6, -0.8), 0),
    ("reduce_lambda_product", reduce_lambda_product, lambda r: (r.normal(size=5),), 0),
    ("reduce_operator_with_init", reduce_operator_with_init, lambda r: (r.normal(size=3),), 0),
    ("reduce_named_function", reduce_named_function, lambda r: (r.normal(size=4),), 0),
    ("reduce_matrices", reduce_matrices, lambda r: (r.normal(size=(3, 3)) * 0.5,), 0),
    ("enumerate_from_one", enumerate_from_one, lambda r: (r.normal(size=4),), 0),
    ("zip_strict_pairs", zip_strict_pairs, lambda r: (r.normal(size=4), r.normal(size=4)), 0),
    ("zip_strict_pairs_b", zip_strict_pairs, lambda r: (r.normal(size=4), r.normal(size=4)), 1),
    ("while_else_decay", while_else_decay, lambda r: (r.normal(size=3),), 0),
    ("for_else_no_break", for_else_first_large, lambda r: (np.array([0.3, -0.5, 0.6]),), 0),
    ("for_else_breaks", for_else_first_large, lambda r: (np.array([0.3, 1.2, -0.4, 1.5]),), 0),
    ("while_else_with_break", while_else_with_break, lambda r: (np.array([0.4, -0.7, 0.2]),), 0),
    ("while_else_breaks", while_else_with_break, lambda r: (np.array([2.5, -2.7, 2.2]),), 0),
    ("list_of_tuple", list_of_tuple, lambda r: (r.normal(size=4),), 0),
    ("dict_comprehension_scaled", dict_comprehension_scaled,
     lambda r: ({"W1": r.normal(size=(3, 4)) * 0.5, "W2": r.normal(size=4) * 0.5, "bias": 0.3},
                r.normal(size=(5, 3))), 0),
    ("dict_comprehension_keys", dict_comprehension_keys, lambda r: (r.normal(size=3),), 0),
    ("dict_comprehension_enumerate", dict_comprehension_enumerate,
     lambda r: ([r.normal(size=(3, 3)) * 0.5, r.normal(size=(3, 3)) * 0.5], r.normal(size=3)), 0),
    ("dict_update_merge", dict_update_merge, lambda r: (r.normal(size=3), r.normal(size=3)), 0),
    ("dict_update_merge_y", dict_update_merge, lambda r: (r.normal(size=3), r.normal(size=3)), 1),
    ("kwargs_values", kwargs_values, lambda r: (r.normal(size=3), r.normal(size=(5, 3))), 0),
    ("kwargs_items", kwargs_items, lambda r: (r.normal(size=3), r.normal(size=3)), 1),
    ("kwargs_forwarded", kwargs_forwarded, lambda r: (r.normal(size=3), r.normal(size=(5, 3)), r.normal(size=5)), 0),
    ("kwargs_forwarded_dict_call", kwargs_forwarded_dict_call,
     lambda r: (r.normal(size=3), r.normal(size=(5, 3)), r.normal(size=5)), 0),
    ("config_default_loss", config_default_loss,
     lambda r: (r.normal(size=3), r.normal(size=(6, 3)), r.normal(size=6) * 3.0), 0),
    ("unrolled_descent", unrolled_descent, lambda r: (r.normal(size=3), r.normal(size=(6, 3)), r.normal(size=6)), 0),
    ("object_default_smooth", object_default_smooth, lambda r: (r.normal(size=4),), 0),
]


# ---- spellings left to lowering, refused at their line ----------------------------------------------


def reduce_in_conditional(x, flag=True):
    return functools.reduce(operator.mul, [x[0], x[1]]) if flag else 0.0


def star_rest_concatenated(x):
    first, *rest = x
    return first * sum(rest + [1.0])


def zip_strict_in_comprehension(a, b):
    return sum(u * v for u, v in zip(a, b, strict=True))


def star_too_short(x):
    a, *mid, b = x
    return a * b


def zip_strict_mismatch(a, b):
    total = 0.0
    for u, v in zip(a, b, strict=True):
        total = total + u * v
    return total
