"""Wave 36e: programs jit="numba" refused where grad differentiates them (test_wave36e.py runs them).

1. A value that is a number before a loop and an array in it (``h = 0.0``, then ``h = z * h + ...``), whose
   adjoint two contributions meet in ``add_adjoints`` (srcdiff cannot tell its kind: wave 35i adds such
   adjoints with it): numba refused "`h` is a number on one path and an array on another" (wave 35d's
   np.hsplit cells).  Variants: other cells, a moving average, two such states, an integer start, a float
   argument's start, a state read after the loop.
2. Functions given as arguments in a ``functools.partial`` or a tuple or list of functions (a default
   ``loss_fn=functools.partial(_huber, delta=0.5)``, ``acts=(np.tanh, np.sin)``): numba was passed the
   argument itself, "non-precise type pyobject" (a bare function was left out already).  Variants: a
   partial given at the call, of a leading argument, the count of a tuple of functions read (its
   length kept: zeros in the functions' places).
"""

from __future__ import annotations

import functools

import numpy as np


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gated_state(W, xs):
    """A gated state started at 0.0 (np.split's pieces: the gates' weights)."""
    Wz, Wc = np.split(W, 2, axis=1)
    h = 0.0
    total = 0.0
    for x in xs:
        z = _sigmoid(x @ Wz)
        h = z * h + (1.0 - z) * np.tanh(x @ Wc)
        total = total + np.sum(h * h)
    return total


def moving_average(w, gs):
    """An exponential moving average of vectors, started at the number 0."""
    m = 0.0
    loss = 0.0
    for g in gs:
        m = 0.9 * m + 0.1 * g * w
        loss = loss + np.sum(m * m) + np.sum(np.sin(m))
    return loss


def two_states(W, xs):
    """An LSTM-like pair of states, each started at 0.0."""
    n = W.shape[1] // 3
    h = 0.0
    c = 0.0
    total = 0.0
    for x in xs:
        a = x @ W
        f = _sigmoid(a[:, :n])
        g = np.tanh(a[:, n:2 * n])
        o = _sigmoid(a[:, 2 * n:])
        c = f * c + (1.0 - f) * g
        h = o * np.tanh(c) + 0.5 * h
        total = total + np.sum(h)
    return total


def integer_start(w, xs):
    """A state started at the integer 0, made an array by the loop."""
    s = 0
    out = 0.0
    for x in xs:
        s = np.tanh(s * 0.5 + x * w)
        out = out + np.sum(s ** 2)
    return out


def argument_start(w, xs, s0):
    """A state started at a float argument."""
    s = s0
    out = 0.0
    for x in xs:
        s = s * np.cos(w) + x * w
        out = out + np.sum(s * x)
    return out


def read_after(W, xs):
    """A state started at 0.0, read again after the loop."""
    h = 0.0
    for x in xs:
        h = np.tanh(x @ W) * h + x @ W
    return np.sum(h ** 2) + np.mean(h)


def _huber(r, delta):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))


def _scaled(scale, v, p=2):
    return scale * np.sum(np.abs(v) ** p)


def partial_given(w, X, y, loss_fn):
    """A partial given at the call."""
    return np.sum(loss_fn(X @ w - y))


def partial_default(w, X, y, loss_fn=functools.partial(_huber, delta=0.3)):  # noqa: B008  as users write it
    return np.mean(loss_fn(X @ w - y)) + 0.1 * np.sum(w * w)


def leading_partial(w, penalty=functools.partial(_scaled, 0.1, p=3)):  # noqa: B008
    return np.sum(np.cos(w) * w) + penalty(w)


def counted_functions(w, x, acts=(np.sin, np.tanh)):
    """The count of a tuple of functions read (its mean)."""
    total = 0.0
    for act in acts:
        total = total + np.sum(act(x * w))
    return total / len(acts)


PROGRAMS = [
    ("gated_state_W", gated_state, lambda rng: (0.5 * rng.normal(size=(3, 4)), rng.normal(size=(3, 2, 3))), 0),
    ("gated_state_one_W", gated_state, lambda rng: (0.5 * rng.normal(size=(3, 2)), rng.normal(size=(3, 2, 3))), 0),
    ("moving_average_w", moving_average, lambda rng: (rng.normal(size=4), rng.normal(size=(5, 4))), 0),
    ("two_states_W", two_states, lambda rng: (0.5 * rng.normal(size=(3, 6)), rng.normal(size=(3, 2, 3))), 0),
    ("integer_start_w", integer_start, lambda rng: (rng.normal(size=3), rng.normal(size=(4, 3))), 0),
    ("argument_start_w", argument_start, lambda rng: (rng.normal(size=3), rng.normal(size=(4, 3)), 0.3), 0),
    ("argument_start_s0", argument_start, lambda rng: (rng.normal(size=3), rng.normal(size=(4, 3)), 0.3), 2),
    ("read_after_W", read_after, lambda rng: (0.3 * rng.normal(size=(3, 3)), rng.normal(size=(4, 2, 3))), 0),
    ("partial_given_w", partial_given, lambda rng: (rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=4),
                                                    functools.partial(_huber, delta=0.4)), 0),
    ("partial_default_w", partial_default, lambda rng: (rng.normal(size=3), rng.normal(size=(4, 3)),
                                                        rng.normal(size=4)), 0),
    ("leading_partial_w", leading_partial, lambda rng: (rng.normal(size=3),), 0),
    ("counted_functions_w", counted_functions, lambda rng: (rng.normal(size=3), rng.normal(size=3)), 0),
]
