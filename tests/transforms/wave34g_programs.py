"""Wave 34g: programs for the speed and closure of srcdiff.vmap (test_wave34g.py), written as users write
per-example losses: heads built in a loop and joined (``np.concatenate(outs, axis=1)``, ``np.stack``), a
pyramid halved while it is large enough (``while a.shape[0] >= 2``), least squares inside a loss, ReLU and
softmax layers whose gradients hold a tie or a log of a sum, and has_aux with a dict aux.

`PROGRAMS` rows are ``(func, make, wrts)``: ``make(rng, size)`` gives the arguments and in_axes of a batch
of `size` examples, `wrts` the parameters differentiated (vmap_checks.census_outcome maps each).
`MATRIX` rows are ``(name, func, make_args(rng), wrt)`` of one example, for the transformation matrix.
"""

from __future__ import annotations

import numpy as np

N = 4


def _softmax(s):
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


# ---- joins of a list built in a loop (each head, each level) ----

X_SEQ = np.random.default_rng(34).normal(size=(3, N))


def heads_concatenated(w, x):
    outs = []
    for hd in range(2):
        s = (x @ w[hd, 0]) @ (x @ w[hd, 1]).T
        outs.append(_softmax(s) @ x)
    cat = np.concatenate(outs, axis=1)
    return np.sum(cat ** 2) / cat.size


def heads_last_axis(w, x):
    outs = [np.tanh(x @ w[k]) for k in range(3)]
    return np.sum(np.concatenate(outs, axis=-1) ** 2)


def rows_concatenated(w, x):
    parts = []
    for k in range(2):
        parts.append(np.sin(w[k] * x))
    return np.sum(np.concatenate(parts) * np.arange(2 * N))


def stacked_steps(w, x):
    h, hs = x, []
    for _ in range(3):
        h = np.tanh(h @ w)
        hs.append(h)
    return np.sum(np.stack(hs, axis=-1) * np.linspace(0.5, 1.5, 3))


def stacked_first(w, x):
    hs = []
    for k in range(3):
        hs.append(np.cos(w * (k + 1)) * x)
    return np.sum(np.stack(hs) ** 2)


def hstacked(w, x):  # (np.hstack's axis depends on the items' ndim: batched since wave 35g, join_rows)
    parts = []
    for k in range(2):
        parts.append(w * x * (k + 1))
    return np.sum(np.hstack(parts) ** 2)


# ---- while loops whose count the shapes decide ----

def _down2(img):
    return 0.25 * (img[0::2, 0::2] + img[1::2, 0::2] + img[0::2, 1::2] + img[1::2, 1::2])


def pyramid(img, target):
    total, a, b, level = 0.0, img, target, 0
    while a.shape[0] >= 2:
        total = total + np.mean(np.sqrt((a - b) ** 2 + 1e-6)) / (level + 1)
        a, b, level = _down2(a), _down2(b), level + 1
    return total


def halving_len(x, w):
    while len(x) > 1:
        x = np.tanh(w * (x[0::2] + x[1::2]))
    return np.sum(x ** 2)


def shrink_size(x, w):
    acc = 0.0
    while x.size > 2:
        acc = acc + np.sum(np.sin(w * x))
        x = x[1:]
    return acc


def until_small(x, w):  # (the count depends on the values: still one example at a time)
    y, steps = x, 0
    while np.sum(y * y) > 0.1 and steps < 20:
        y, steps = 0.5 * y * w, steps + 1
    return np.sum(y)


# ---- least squares inside a loss ----

def lstsq_solution(w, A, b):
    sol = np.linalg.lstsq(A * (1.0 + w * w), b, rcond=None)[0]
    return np.sum(sol ** 2)


def lstsq_residual(w, A, b):
    sol, res, rank, sv = np.linalg.lstsq(A * np.exp(w), b, rcond=None)
    return np.sum(res) + np.sum(sv) + np.sum(sol * w)


# ---- layers whose gradients hold a tie, a log of a sum, a hold by the seed ----

def relu_mse(W1, b1, W2, x, y):
    h = np.maximum(x @ W1 + b1, 0.0)
    return 0.5 * np.sum((h @ W2 - y) ** 2)


def softmax_dot(W, x, label):
    z = np.dot(W, x)
    z = z - z.max()
    return -np.sum(label * (z - np.log(np.exp(z).sum())))


def norm_loss(w, x):
    return np.sqrt(np.sum((x * w) ** 2)) + np.log(np.sum(np.exp(x * w)))


# ---- helpers given a function (an activation, a right-hand side) ----

def _dense(h, W, act=np.tanh):
    return act(h @ W)


def _euler(rhs, y, k, dt):
    return y + dt * rhs(y, k)


def _decay(y, k):
    return -k * y * y


def two_activations(W, x):
    return np.sum(_dense(x, W) ** 2 + _dense(x, W, np.sin))


def euler_with_rhs(y, k):
    for _ in range(3):
        y = _euler(_decay, y, k, 0.1)
    return np.sum(y)


def activation_by_keyword(W, x):
    return np.sum(_dense(_dense(x, W, act=np.arctan), W.T @ W, act=np.cos))


# ---- has_aux with a dict aux ----

def loss_dict_aux(w, x, y):
    z = x @ w
    return (z - y) ** 2, {"prediction": z, "error": z - y}


# ---- argument makers: (arguments, in_axes) of a batch of b ----

def _heads(r, b):
    return (0.5 * r.normal(size=(b, 2, 2, N, N)), X_SEQ), (0, None)


def _heads_shared(r, b):
    return (0.5 * r.normal(size=(2, 2, N, N)), r.normal(size=(b, 3, N))), (None, 0)


def _mats(r, b):
    return (0.5 * r.normal(size=(b, 3, N, 2)), r.normal(size=(3, N))), (0, None)


def _vec_pair(r, b):
    return (r.normal(size=(b, 2, N)), r.normal(size=N)), (0, None)


def _square(r, b):
    return (0.5 * r.normal(size=(b, N, N)), r.normal(size=(b, N))), (0, 0)


def _images(r, b):
    return (r.normal(size=(b, 8, 8)), r.normal(size=(8, 8))), (0, None)


def _series(r, b):
    return (r.normal(size=(b, 8)), 0.9), (0, None)


def _tall(r, b):
    return (0.3 * r.normal(size=N), r.normal(size=(b, N + 2, N)), r.normal(size=(b, N + 2))), (None, 0, 0)


def _relu(r, b):
    W1, b1 = r.normal(size=(N, 6)) / 2, r.normal(size=6) / 2
    x = r.normal(size=(b, N))
    b1[0] = -(x[0] @ W1[:, 0])  # a tie: the first example's first unit exactly at 0
    return (W1, b1, r.normal(size=(6, 2)) / 2, x, r.normal(size=(b, 2))), (None, None, None, 0, 0)


def _softmax_args(r, b):
    return (r.normal(size=(3, N)) / 2, r.normal(size=(b, N)), np.eye(3)[r.integers(0, 3, b)]), (None, 0, 0)


def _weights(r, b):
    return (r.normal(size=(N, N)) / 2, r.normal(size=(b, N))), (None, 0)


def _states(r, b):
    return (r.uniform(0.5, 1.5, size=(b, N)), r.uniform(0.5, 1.0, size=N)), (0, None)


def _norm_args(r, b):
    x = r.normal(size=(b, N))
    return (r.normal(size=N), x), (None, 0)


PROGRAMS = [
    (heads_concatenated, _heads, (0,)),
    (heads_concatenated, _heads_shared, (0,)),
    (heads_last_axis, _mats, (0,)),
    (rows_concatenated, _vec_pair, (0, 1)),
    (stacked_steps, _square, (0, 1)),
    (stacked_first, _square, (0, 1)),
    (hstacked, _square, (0, 1)),
    (pyramid, _images, (0,)),
    (halving_len, _series, (0,)),
    (shrink_size, _series, (0,)),
    (until_small, _series, (0,)),
    (lstsq_solution, _tall, (0, 1, 2)),
    (lstsq_residual, _tall, (0, 1, 2)),
    (relu_mse, _relu, (0, 1, 3)),
    (softmax_dot, _softmax_args, (0, 1)),
    (norm_loss, _norm_args, (0, 1)),
    (two_activations, _weights, (0, 1)),
    (euler_with_rhs, _states, (0, 1)),
    (activation_by_keyword, _weights, (0, 1)),
]

#: what still runs one example at a time, and why: a while loop whose count the values decide (np.hstack of a
#: list built in a loop, whose axis depends on the items' ndim: batched since wave 35g)
PER_EXAMPLE = {"until_small"}


def _one(make):
    """`make`'s second example, as a matrix row's arguments (the first may sit at a tie on purpose)."""
    def made(r):
        args, axes = make(r, 2)
        return tuple(a if ax is None else a[1] for a, ax in zip(args, axes))
    return made


MATRIX = [(f"{f.__name__}[{make.__name__}]", f, _one(make), wrt) for f, make, wrts in PROGRAMS
          for wrt in wrts[:1]]
