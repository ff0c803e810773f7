"""Wave 35b's findings, reduced, each with variants: a Hessian at a tie of ``np.maximum`` /
``np.minimum`` / ``np.clip`` that holds along every direction (``np.maximum(w - w[0], 0)`` at its own
element), which the batched rows answered NaN though forward mode tells it is 0; and ``s += p`` on a
loop's value that an element of a vector was assigned to (``s = smax`` where ``smax = params[0]``),
refused as if smax's array would change; ``list(d)``, ``tuple(d)``, ``sorted(d)`` of a dict tree (a module's
table, a parameter dict), refused as "a parameter tree, passed whole to list"; a class built from a
``*`` argument of unknown length, refused as "missing a required argument"."""

from __future__ import annotations

import numpy as np

A_MIX = np.array([[1.0, 0.5, -0.2], [0.3, -1.0, 0.4], [0.2, 0.1, 0.9], [-0.5, 0.7, 0.3]])
RAIN = (3.0, 0.0, 12.0, 7.5)
ASSETS = {"stock": (0.08, 0.2), "bond": (0.03, 0.05), "gold": (0.05, 0.15)}


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


def keys_sorted_loop(w):
    total, i = 0.0, 0
    for name in sorted(ASSETS):
        mu, vol = ASSETS[name][0], ASSETS[name][1]
        total = total + w[i] * mu - 0.5 * (w[i] * vol) ** 2
        i += 1
    return total


def keys_listed_comprehension(w):
    mu = np.array([ASSETS[n][0] for n in list(ASSETS)])
    vol = np.array([ASSETS[n][1] for n in tuple(ASSETS)])
    return w @ mu - 2.0 * np.sum((w * vol) ** 2) + len(list(ASSETS)) * w[0] ** 2


def keys_of_a_parameter(p):
    total = 0.0
    for k in sorted(p):
        total = total + np.sum(p[k] ** 2) * (2.0 if k == "a" else 1.0)
    return total + sum(np.sum(np.sin(p[k])) for k in list(p))


class Vec:
    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z


def built_from_star(q, v=(1.0, 0.0, 0.0)):
    u = Vec(q[0], *v[1:])
    return u.x ** 2 + u.y


TIES = [
    ("tie_own_element", tie_own_element, lambda r: (np.array([0.5, 0.3, 0.2, 0.9]),), 0),
    ("tie_mixed_element", tie_mixed_element, lambda r: (np.array([0.4, -0.3, 0.8]),), 0),
    ("tie_minimum_slice", tie_minimum_slice, lambda r: (np.array([0.5, 0.3, 0.2, 0.9]),), 0),
    ("tie_clip_lower", tie_clip_lower, lambda r: (np.array([0.5, 0.3, 0.2, 0.9]),), 0),
]
def melt_min(params, temps=np.array([-2.0, 1.0, 3.0, 0.5, 4.0])):  # noqa: B008
    ddf, tt = params[0], params[1]
    swe, out = 2.0, 0.0
    for t in temps:
        swe += 0.5
        melt = min(swe, max(0.0, ddf * (t - tt)))
        swe -= melt
        out += melt ** 2
    return out + swe


def floor_max(params):
    level, total = params[0], 0.0
    for _ in range(4):
        level = max(level - params[1], 0.2)
        level *= 1.1
        total += level
    return total


def transfer_min(x, steps=4):
    a, b = x[0], x[1]
    for _ in range(steps):
        m = min(a, 0.3 * b)
        a -= m
        b += m * 0.5
    return a * b


NUMBERS = [
    ("melt_min", melt_min, lambda r: (np.array([0.8, 0.2]),), 0),
    ("floor_max", floor_max, lambda r: (np.array([1.0, 0.15]),), 0),
    ("transfer_min", transfer_min, lambda r: (np.array([2.0, 3.0]),), 0),
]
KEYS = [
    ("keys_sorted_loop", keys_sorted_loop, lambda r: (np.array([0.5, 0.3, 0.2]),), 0),
    ("keys_listed_comprehension", keys_listed_comprehension, lambda r: (np.array([0.5, 0.3, 0.2]),), 0),
    ("keys_of_a_parameter", keys_of_a_parameter, lambda r: ({"b": r.normal(size=3), "a": r.normal(size=2)},), 0),
]
SPILLS = [
    ("spill_if", spill_if, lambda r: (np.array([8.0, 0.3]),), 0),
    ("spill_while", spill_while, lambda r: (np.array([2.0, 0.3]),), 0),
    ("spill_min", spill_min, lambda r: (np.array([6.0, 1.3]),), 0),
    ("spill_list_kept", spill_list_kept, lambda r: (np.array([8.0, 0.3]),), 0),
]
