"""The red team's eighteenth wave, continued: the same sums spelled the ways NumPy lets users spell them.  Methods
against functions (x.sum() / np.sum, x.dot / np.dot, x.clip / np.clip, x.prod(axis=0), x.var(ddof=1), x.ptp,
x.cumsum()[-1]), keyword arguments everywhere (axis=, keepdims=, where=, initial=, weights=, ord=), ``out=``
into a buffer the function made, ufunc methods (np.add.reduce, np.multiply.outer), in-place operators on
slices and boolean masks, np.float64 / 0-d arrays beside Python floats, ``x[()]`` and ``.item()``-free
scalars, the walrus operator, ``match``, for / else, try / except around a computation, assert, ``with
np.errstate``, isinstance on an argument, any / all on conditions, min / sorted with a key, helpers with
keyword-only defaults, ``**kwargs`` passed through, and a small class-based model with a __call__ and
properties.  See redteam_wave18.py.
"""

from __future__ import annotations

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def methods_vs_functions(x):
    return x.sum() * np.sum(x) + x.dot(x) - np.dot(x, x[::-1]) + x.clip(-0.5, 0.5).sum()


def method_reductions(A):
    return A.prod(axis=0).sum() + A.var(ddof=1) + A.std(axis=1, ddof=1).mean() + A.cumsum()[-1]


def ptp_and_argmax(A):
    return np.ptp(A, axis=0).sum() + A.max(axis=1).sum() - A.min()


def keyword_reductions(A):
    s = np.sum(A, axis=1, keepdims=True)
    m = np.mean(A, axis=(0, 1))
    n = np.linalg.norm(A, ord=2, axis=1, keepdims=True)
    return np.sum(A / s * n) + m


def where_keyword(x):
    return np.sum(x ** 2, where=x > 0) + np.mean(x, where=x < 0.5)


def initial_keyword(x):
    return np.max(x ** 2, initial=0.1) + np.sum(x, initial=1.0) + np.min(x, initial=10.0)


def average_weights(x, w):
    return np.average(x ** 2, weights=w) + np.average(x, axis=1, weights=np.array([1.0, 2.0, 3.0])).sum()


def out_buffer(x):
    buf = np.empty_like(x)
    np.multiply(x, x, out=buf)
    np.add(buf, 1.0, out=buf)
    np.sqrt(buf, out=buf)
    return buf.sum()


def out_into_self(x):
    y = x.copy()
    np.exp(y, out=y)
    np.multiply(y, 2.0, out=y)
    return np.sum(y)


def ufunc_methods(x, y):
    return np.add.reduce(x * y) + np.sum(np.multiply.outer(x, y) ** 2) + np.maximum.reduce(x)


def inplace_slices(x):
    y = x.copy()
    y[1:] += 0.5 * y[:-1]
    y[::2] *= 2.0
    y[-1] -= y[0]
    y[:3] /= 1.0 + y[:3] ** 2
    return np.sum(y ** 2)


def mask_write(x):
    y = x.copy()
    y[y < 0] *= 0.1
    y[np.abs(y) > 1.0] = np.sign(y[np.abs(y) > 1.0])
    return np.sum(y ** 3)


def zero_d_mix(x, s):
    scale = np.float64(2.0) * s
    shift = np.array(0.5)
    return float(np.sum((x * scale - shift) ** 2)) + s[()] ** 2


def walrus(x):
    total = 0.0
    for v in x:
        if (sq := v * v) > 0.1:
            total += sq
        else:
            total += v
    return total


def match_activation(x, kind="gelu"):
    match kind:
        case "relu":
            h = np.maximum(x, 0)
        case "gelu":
            h = 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))
        case _:
            h = x
    return h.sum()


def for_else(x, tol=1e-3):
    y = x
    for _ in range(20):
        y_new = 0.5 * (y + 2.0 / y)
        if np.max(np.abs(y_new - y)) < tol:
            y = y_new
            break
        y = y_new
    else:
        y = y * 1.0
    return np.sum(y * x)


def try_except(x):
    try:
        L = np.linalg.cholesky(np.outer(x, x) + np.eye(len(x)))
    except np.linalg.LinAlgError:
        return np.sum(x ** 2)
    return 2 * np.sum(np.log(np.diag(L)))


def assert_and_errstate(x):
    assert x.ndim == 1, f"expected a vector, got {x.shape}"
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x != 0, np.sin(x) / np.where(x != 0, x, 1.0), 1.0)
    return r.sum()


def isinstance_branch(p, x):
    if isinstance(p, dict):
        w = p["w"]
    else:
        w = p
    return np.sum(np.tanh(x @ w))


def any_all(x):
    if np.all(x > -5) and not np.any(np.isnan(x)):
        return np.sum(np.exp(-x ** 2))
    return 0.0


def min_with_key(points):
    target = np.array([0.2, 0.1])
    nearest = min(points, key=lambda p: float(np.sum((p - target) ** 2)))
    ranked = sorted(points, key=lambda p: float(p[0]))
    return np.sum((nearest - target) ** 2) + ranked[0][1]


def keyword_only_helper(x):
    def layer(v, *, scale=1.0, bias=0.0, act=np.tanh):
        return act(scale * v + bias)
    return np.sum(layer(layer(x, scale=2.0), bias=0.1, act=np.sin))


def kwargs_passthrough(x):
    def norm(v, **kw):
        return np.linalg.norm(v, **kw)

    def wrapped(v, **kw):
        return norm(v, **kw) ** 2
    return wrapped(x, ord=2) + wrapped(x.reshape(2, 3), axis=1).sum()


class MLP:
    def __init__(self, sizes, rng):
        self.W = [rng.normal(size=(a, b)) / np.sqrt(a) for a, b in zip(sizes[:-1], sizes[1:])]

    @property
    def depth(self):
        return len(self.W)

    def __call__(self, x, W=None):
        W = self.W if W is None else W
        for i, w in enumerate(W):
            x = x @ w
            if i < len(W) - 1:
                x = np.tanh(x)
        return x


_NET = MLP([3, 4, 2], np.random.default_rng(18))


def class_model_loss(W, X, y):
    out = _NET(X, W)
    return np.mean((out[:, 0] - y) ** 2) + 0.01 * _NET.depth * sum(np.sum(w ** 2) for w in W)


def python_float_accumulate(x):
    acc = 0
    for i in range(len(x)):
        acc = acc + x[i] * (i + 1)
    acc /= len(x)
    return acc ** 2


def reshape_minus_one(x):
    return np.sum(x.reshape(-1, 2).T @ x.reshape(-1, 2)) + x.ravel()[::-1][0]


def newaxis_broadcast(x, y):
    d = x[:, np.newaxis] - y[np.newaxis, :]
    return np.sum(np.exp(-d ** 2)) + np.sum(x[..., None] * y)


def swap_and_stack(x):
    a, b = x[:2], x[2:4]
    a, b = b, a
    return np.sum(np.vstack([a, b]) * np.array([[1.0], [2.0]])) + np.hstack((a, b)) @ x[:4]


IDIOMS18 = [
    ("w18_methods_vs_functions", methods_vs_functions, lambda r: (M(r, 6),), 0),
    ("w18_method_reductions", method_reductions, lambda r: (1 + 0.3 * M(r, 3, 4),), 0),
    ("w18_ptp_and_max", ptp_and_argmax, lambda r: (M(r, 3, 4),), 0),
    ("w18_keyword_reductions", keyword_reductions, lambda r: (1 + r.uniform(size=(3, 4)),), 0),
    ("w18_where_keyword", where_keyword, lambda r: (M(r, 7),), 0),
    ("w18_initial_keyword", initial_keyword, lambda r: (M(r, 5),), 0),
    ("w18_average_weights", average_weights, lambda r: (M(r, 4, 3), r.uniform(1, 2, (4, 3))), 0),
    ("w18_average_weights_w", average_weights, lambda r: (M(r, 4, 3), r.uniform(1, 2, (4, 3))), 1),
    ("w18_out_buffer", out_buffer, lambda r: (M(r, 5),), 0),
    ("w18_out_into_self", out_into_self, lambda r: (M(r, 5),), 0),
    ("w18_ufunc_methods", ufunc_methods, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w18_inplace_slices", inplace_slices, lambda r: (M(r, 6),), 0),
    ("w18_mask_write", mask_write, lambda r: (2 * M(r, 8),), 0),
    ("w18_zero_d_mix", zero_d_mix, lambda r: (M(r, 4), np.array(0.7)), 0),
    ("w18_zero_d_mix_scale", zero_d_mix, lambda r: (M(r, 4), np.array(0.7)), 1),
    ("w18_walrus", walrus, lambda r: (M(r, 6),), 0),
    ("w18_match_activation", match_activation, lambda r: (M(r, 6),), 0),
    ("w18_for_else", for_else, lambda r: (1 + r.uniform(size=4),), 0),
    ("w18_try_except", try_except, lambda r: (M(r, 3),), 0),
    ("w18_assert_errstate", assert_and_errstate, lambda r: (M(r, 5),), 0),
    ("w18_isinstance_branch", isinstance_branch, lambda r: ({"w": M(r, 3, 2)}, M(r, 4, 3)), 0),
    ("w18_isinstance_array", isinstance_branch, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("w18_any_all", any_all, lambda r: (M(r, 5),), 0),
    ("w18_min_with_key", min_with_key, lambda r: (M(r, 5, 2),), 0),
    ("w18_keyword_only_helper", keyword_only_helper, lambda r: (M(r, 5),), 0),
    ("w18_kwargs_passthrough", kwargs_passthrough, lambda r: (M(r, 6),), 0),
    ("w18_class_model", class_model_loss, lambda r: ([w.copy() for w in _NET.W], M(r, 6, 3), M(r, 6)), 0),
    ("w18_python_float_accumulate", python_float_accumulate, lambda r: (M(r, 5),), 0),
    ("w18_reshape_minus_one", reshape_minus_one, lambda r: (M(r, 6),), 0),
    ("w18_newaxis_broadcast", newaxis_broadcast, lambda r: (M(r, 4), M(r, 3)), 0),
    ("w18_swap_and_stack", swap_and_stack, lambda r: (M(r, 5),), 0),
]
