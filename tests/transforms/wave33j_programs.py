"""Programs that threads and processes differentiate at the same moment (test_wave33j.py).

Each factory returns a NEW function object on every call, so srcdiff has lowered and compiled
nothing for it yet: its first calls from several threads meet in the compile path."""

from __future__ import annotations

import math

import numpy as np


def fresh_loop():
    """A scalar loop with a helper call (a callee adjoint is compiled too)."""
    def bump(a):
        return a * a + math.sin(a)

    def loss(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += bump(x[i]) * np.cos(x[i])
        return s
    return loss


def fresh_vector():
    """Array code: broadcasting, a reduction and a kink away from the test points."""
    def loss(x, w):
        h = np.tanh(x * w)
        return np.sum(np.maximum(h, -0.9) ** 2) + 0.5 * np.dot(w, w)
    return loss


def leapfrog_like():
    """A leapfrog rollout as phys_leapfrog writes it (the program of the original report)."""
    def accel(pos):
        d = pos[1] - pos[0]
        r2 = np.sum(d * d) + 0.05
        f = d / r2 ** 1.5
        return np.stack([f, -f])

    def loss(v0):
        pos = np.array([[0.0, 0.0], [1.0, 0.0]])
        vel = v0.copy()
        a = accel(pos)
        for _ in range(4):
            vel = vel + 0.025 * a
            pos = pos + 0.05 * vel
            a = accel(pos)
            vel = vel + 0.025 * a
        return np.sum((pos[1] - np.array([1.0, 0.3])) ** 2)
    return loss
