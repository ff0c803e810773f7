"""Guards spelled otherwise: the same equality guard (``if x == 0.0: return 1.0`` before
``expm1(x) / x``) and the same measure guard (Rodrigues' ``if theta > 0:`` on a norm) written the
ways user code writes them.  test_guards16.py runs each through every transformation away from the
guarded point (float64 central differences) and checks what each gives at it: the documented NaN
for the directions that move the guarded value, the closed form for the others, never the guarded
branch's own derivative (0 where the truth is 1/2, or the skew matrix).

A row: (name, f, args away from the point, args at it, the closed form of the derivative at the
point in argument 0 (what a NaN stands for), a mask of the elements the guard may make NaN (None:
every one)).
"""

from __future__ import annotations

import math

import numpy as np

ZERO = 0.0  # a module constant naming the guarded point


# ---- equality guards: expm1(x) / x, whose continuation has the derivative 1/2 at 0 -----------------------


def expm1_ternary(x):
    return 1.0 if x == 0.0 else math.expm1(x) / x


def expm1_ternary_not_equal_swapped(x):
    return math.expm1(x) / x if x != 0 else 1.0


def expm1_if_not(x):
    if not x:
        return 1.0
    return math.expm1(x) / x


def expm1_math_isclose(x):
    if math.isclose(x, 0.0):
        return 1.0
    return math.expm1(x) / x


def expm1_np_isclose_exact(x):
    if np.isclose(x, 0.0, atol=0.0):
        return 1.0
    return np.expm1(x) / x


def expm1_named_zero(x):
    if x == ZERO:
        return 1.0
    return math.expm1(x) / x


def expm1_default_zero(x, at=0.0):
    if x == at:
        return 1.0
    return math.expm1(x) / x


def expm1_abs_equal(x):
    if abs(x) == 0.0:
        return 1.0
    return math.expm1(x) / x


def expm1_float_equal(x):
    if float(x) == 0:
        return 1.0
    return math.expm1(x) / x


def expm1_in_tuple(x):
    if x in (0.0,):
        return 1.0
    return math.expm1(x) / x


def expm1_not_not_equal(x):
    if not (x != 0.0):
        return 1.0
    return math.expm1(x) / x


def expm1_two_points(x):
    if x == 0.0 or x == 2.0:
        return 1.0 + x / 2.0 * (math.expm1(2.0) / 2.0 - 1.0)  # the chord: right at both points, not between
    return math.expm1(x) / x


def _ratio(t):
    return 1.0 if t == 0 else math.expm1(t) / t


def expm1_in_a_helper(x):
    return 2.0 * _ratio(x) + x


def expm1_where_np_equal(v):
    safe = np.where(np.equal(v, 0.0), 1.0, v)
    return np.sum(np.where(np.equal(v, 0.0), 1.0, np.expm1(safe) / safe) * np.arange(1.0, 1.0 + v.size))


def expm1_where_logical_not(v):
    safe = np.where(np.logical_not(v), 1.0, v)
    return np.sum(np.where(np.logical_not(v), 1.0, np.expm1(safe) / safe))


def expm1_held_test_of_a_parameter(v, at=0.0):
    hit = v == at
    safe = np.where(hit, 1.0, v)
    return np.sum(np.where(hit, 1.0, np.expm1(safe) / safe))


def expm1_loop_over_elements(v):
    total = 0.0
    for i in range(len(v)):
        if v[i] == 0:
            total += 1.0
        else:
            total += np.expm1(v[i]) / v[i] * (i + 1)
    return total


def expm1_comprehension_ternary(v):
    return sum([(1.0 if vi == 0 else math.expm1(vi) / vi) * (k + 1.0) for k, vi in enumerate(v)])


def expm1_all_zero(v):
    if np.all(v == 0):
        return float(len(v))
    safe = np.where(v == 0.0, 1.0, v)
    return float(np.sum(np.where(v == 0.0, 1.0, np.expm1(safe) / safe)))


def expm1_not_any(v):
    if not np.any(v):
        return 3.0
    safe = np.where(v == 0.0, 1.0, v)
    return float(np.sum(np.where(v == 0.0, 1.0, np.expm1(safe) / safe)))


def expm1_where_all_zero(v):
    safe = np.where(v == 0.0, 1.0, v)
    return np.where(np.all(v == 0), 3.0, np.sum(np.where(v == 0.0, 1.0, np.expm1(safe) / safe)))


def sinc_ternary(x):
    return 1.0 if x == 0 else math.sin(x) / x


# a threshold, not a point: the branch is the function on a whole interval, differentiated as written
def expm1_threshold(x):
    if abs(x) < 1e-12:
        return 1.0
    return math.expm1(x) / x


def expm1_np_isclose_default(x):
    if np.isclose(x, 0.0):  # atol=1e-8: an interval
        return 1.0
    return np.expm1(x) / x


def _slope(v):
    """d/dv expm1(v) / v, written out (1/2 at 0, its limit)."""
    v = np.asarray(v, dtype=float)
    safe = np.where(v == 0.0, 1.0, v)
    return np.where(v == 0.0, 0.5, (safe * np.exp(safe) - np.expm1(safe)) / safe ** 2)


V = np.array([0.0, 0.7, -1.3])
V_AWAY = np.array([0.4, 0.7, -1.3])
SLOPE = _slope(V)  # the closed form at V, element by element
FIRST = np.array([True, False, False])  # the element at the guarded point

EQUALITY = [
    ("expm1_ternary", expm1_ternary, (0.6,), (0.0,), 0.5, None),
    ("expm1_ternary_not_equal_swapped", expm1_ternary_not_equal_swapped, (-0.6,), (0.0,), 0.5, None),
    ("expm1_if_not", expm1_if_not, (0.6,), (0.0,), 0.5, None),
    ("expm1_math_isclose", expm1_math_isclose, (0.6,), (0.0,), 0.5, None),
    ("expm1_np_isclose_exact", expm1_np_isclose_exact, (0.6,), (0.0,), 0.5, None),
    ("expm1_named_zero", expm1_named_zero, (0.6,), (0.0,), 0.5, None),
    ("expm1_default_zero", expm1_default_zero, (0.6,), (0.0,), 0.5, None),
    ("expm1_abs_equal", expm1_abs_equal, (0.6,), (0.0,), 0.5, None),
    ("expm1_float_equal", expm1_float_equal, (0.6,), (0.0,), 0.5, None),
    ("expm1_in_tuple", expm1_in_tuple, (0.6,), (0.0,), 0.5, None),
    ("expm1_not_not_equal", expm1_not_not_equal, (0.6,), (0.0,), 0.5, None),
    ("expm1_two_points", expm1_two_points, (0.6,), (0.0,), 0.5, None),
    ("expm1_in_a_helper", expm1_in_a_helper, (0.6,), (0.0,), 2.0, None),
    ("expm1_where_np_equal", expm1_where_np_equal, (V_AWAY,), (V,), np.arange(1.0, 4.0) * SLOPE, FIRST),
    ("expm1_where_logical_not", expm1_where_logical_not, (V_AWAY,), (V,), SLOPE, FIRST),
    ("expm1_held_test_of_a_parameter", expm1_held_test_of_a_parameter, (V_AWAY,), (V,), SLOPE,
     FIRST),
    ("expm1_loop_over_elements", expm1_loop_over_elements, (V_AWAY,), (V,), np.array([1.0, 2.0, 3.0]) * SLOPE, FIRST),
    ("expm1_comprehension_ternary", expm1_comprehension_ternary, (V_AWAY,), (V,), np.array([1.0, 2.0, 3.0]) * SLOPE,
     FIRST),
    ("expm1_all_zero", expm1_all_zero, (V_AWAY,), (np.zeros(3),), np.full(3, 0.5), None),
    ("expm1_not_any", expm1_not_any, (V_AWAY,), (np.zeros(3),), np.full(3, 0.5), None),
    ("expm1_where_all_zero", expm1_where_all_zero, (V_AWAY,), (np.zeros(3),), np.full(3, 0.5), None),
    ("sinc_ternary", sinc_ternary, (0.6,), (0.0,), 0.0, None),
]

#: Thresholds: the guarded branch is the function on an interval, its derivative (0) exact there.
THRESHOLDS = [("expm1_threshold", expm1_threshold), ("expm1_np_isclose_default", expm1_np_isclose_default)]


# ---- measure guards: Rodrigues' rotation, whose derivative at w = 0 is that of skew(w) ---------------------


def _skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _rotation(w, theta):
    K = _skew(w / theta)
    return np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K


def rodrigues_ternary(w, p):
    theta = np.linalg.norm(w)
    R = np.eye(3) + np.sin(theta) * _skew(w / theta) + (1 - np.cos(theta)) * _skew(w / theta) @ _skew(
        w / theta) if theta > 0 else np.eye(3)
    return np.sum(R @ p)


def _rotate(w, theta, p):
    if theta > 0:
        R = _rotation(w, theta)
    else:
        R = np.eye(3)
    return np.sum(R @ p)


def rodrigues_helper_given_the_norm(w, p):
    return _rotate(w, np.linalg.norm(w), p)


def _rotate_ternary(w, theta, p):
    R = _rotation(w, theta) if theta != 0 else np.eye(3)
    return np.sum(R @ p)


def rodrigues_helper_ternary_keyword(w, p):
    return _rotate_ternary(w, p=p, theta=np.sqrt(w @ w))


def rodrigues_math_sqrt(w, p):
    theta = math.sqrt(w[0] ** 2 + w[1] ** 2 + w[2] ** 2)
    if theta > 0:
        R = _rotation(w, theta)
    else:
        R = np.eye(3)
    return np.sum(R @ p)


def rodrigues_products(w, p):
    theta = np.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    R = _rotation(w, theta) if theta > 0 else np.eye(3)
    return np.sum(R @ p)


def rodrigues_equal_zero(w, p):
    theta = np.linalg.norm(w)
    if theta == 0:
        return float(np.sum(p))
    return float(np.sum(_rotation(w, theta) @ p))


def rodrigues_if_not(w, p):
    theta = np.linalg.norm(w)
    if not theta:
        R = np.eye(3)
    else:
        R = _rotation(w, theta)
    return np.sum(R @ p)


def rodrigues_norm_in_the_test(w, p):
    if np.linalg.norm(w) == 0.0:
        return float(np.sum(p))
    return float(np.sum(_rotation(w, np.linalg.norm(w)) @ p))


def rodrigues_all_zero(w, p):
    if np.all(w == 0):
        return float(np.sum(p))
    return float(np.sum(_rotation(w, np.linalg.norm(w)) @ p))


def _inner(w, theta, p):
    if theta > 0:
        R = _rotation(w, theta)
    else:
        R = np.eye(3)
    return np.sum(R @ p)


def _outer(w, p):
    theta = np.linalg.norm(w)  # (in _outer's own transform w's shape is not known)
    return _inner(w, theta, p)


def rodrigues_two_helpers_deep(w, p):
    return _outer(w, p)


def rodrigues_local_def(w, p):
    def rotate(theta):
        return _rotation(w, theta) if theta > 0 else np.eye(3)
    return np.sum(rotate(np.linalg.norm(w)) @ p)


def _rotation_and_angle(w, theta):
    if theta > 0:
        return _rotation(w, theta), theta
    return np.eye(3), theta


def rodrigues_helper_returning_a_pair(w, p):
    R, _ = _rotation_and_angle(w, np.linalg.norm(w))
    return np.sum(R @ p)


def sinc_radius_ternary(v):
    r = np.hypot(v[0], v[1])
    return np.sin(r) / r if r > 0 else 1.0


P = np.array([0.3, -1.0, 2.0])
W_AWAY = np.array([0.4, -0.3, 0.5])
SKEW_DERIVATIVE = np.cross(P, np.ones(3))  # R = I + skew(w) + O(w^2): d/dw sum(w x p) = p x (1, 1, 1)

MEASURE = [
    ("rodrigues_ternary", rodrigues_ternary),
    ("rodrigues_helper_given_the_norm", rodrigues_helper_given_the_norm),
    ("rodrigues_helper_ternary_keyword", rodrigues_helper_ternary_keyword),
    ("rodrigues_math_sqrt", rodrigues_math_sqrt),
    ("rodrigues_products", rodrigues_products),
    ("rodrigues_equal_zero", rodrigues_equal_zero),
    ("rodrigues_if_not", rodrigues_if_not),
    ("rodrigues_all_zero", rodrigues_all_zero),
    ("rodrigues_norm_in_the_test", rodrigues_norm_in_the_test),
    ("rodrigues_two_helpers_deep", rodrigues_two_helpers_deep),
    ("rodrigues_local_def", rodrigues_local_def),
    ("rodrigues_helper_returning_a_pair", rodrigues_helper_returning_a_pair),
]
MEASURE_ROWS = [(name, f, (W_AWAY, P), (np.zeros(3), P), SKEW_DERIVATIVE, None) for name, f in MEASURE] + [
    ("sinc_radius_ternary", sinc_radius_ternary, (np.array([0.3, -0.4]),), (np.zeros(2),), np.zeros(2), None)]
