"""Wave 35b's findings, reduced, each with variants: a Hessian at a tie of ``np.maximum`` /
``np.minimum`` / ``np.clip`` that holds along every direction (``np.maximum(w - w[0], 0)`` at its own
element), which the batched rows answered NaN though forward mode tells it is 0; and ``s += p`` on a
loop's value that an element of a vector was assigned to (``s = smax`` where ``smax = params[0]``),
refused as if smax's array would change."""

from __future__ import annotations

import numpy as np

A_MIX = np.array([[1.0, 0.5, -0.2], [0.3, -1.0, 0.4], [0.2, 0.1, 0.9], [-0.5, 0.7, 0.3]])
RAIN = (3.0, 0.0, 12.0, 7.5)


def tie_own_element(w):
    return np.sum(np.maximum(w - w[0], 0.0)) + w @ w


def tie_mixed_element(w):
    v = A_MIX @ w
    return np.sum(np.maximum(v - v[2], 0.0) ** 2) + np.sum(np.maximum(v - v[2], 0.0))


def tie_minimum_slice(w):
    return np.sum(np.minimum(w[1:] - w[1], 0.0)) + np.sum(np.sin(w))


def tie_clip_lower(w):
    return np.sum(np.clip(w - w[1], 0.0, None) * w)


def spill_if(params, rain=RAIN):
    smax, k = params[0], params[1]
    s, total = 0.5 * smax, 0.0
    for p in rain:
        s += p
        if s > smax:
            s = smax
        total += k * s * s
    return total


def spill_while(params):
    cap, rate = params[0], params[1]
    level, out, t = 0.2 * cap, 0.0, 0
    while t < 5:
        level += rate * (t + 1)
        if level > cap:
            level = cap
        out += level ** 2
        t += 1
    return out


def spill_min(params, rain=RAIN):
    smax, k = params[0], params[1]
    s, total = 0.0, 0.0
    for p in rain:
        s = min(s, smax)
        s += p * k
        total += s * s
    return total


def spill_list_kept(params, rain=RAIN):
    smax, k = params[0], params[1]
    s, flows = 0.5 * smax, []
    for p in rain:
        s += p
        if s > smax:
            s = smax
        flows.append(k * s)
    return sum(f * f for f in flows)


TIES = [
    ("tie_own_element", tie_own_element, lambda r: (np.array([0.5, 0.3, 0.2, 0.9]),), 0),
    ("tie_mixed_element", tie_mixed_element, lambda r: (np.array([0.4, -0.3, 0.8]),), 0),
    ("tie_minimum_slice", tie_minimum_slice, lambda r: (np.array([0.5, 0.3, 0.2, 0.9]),), 0),
    ("tie_clip_lower", tie_clip_lower, lambda r: (np.array([0.5, 0.3, 0.2, 0.9]),), 0),
]
SPILLS = [
    ("spill_if", spill_if, lambda r: (np.array([8.0, 0.3]),), 0),
    ("spill_while", spill_while, lambda r: (np.array([2.0, 0.3]),), 0),
    ("spill_min", spill_min, lambda r: (np.array([6.0, 1.3]),), 0),
    ("spill_list_kept", spill_list_kept, lambda r: (np.array([8.0, 0.3]),), 0),
]
