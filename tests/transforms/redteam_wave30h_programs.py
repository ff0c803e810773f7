"""The red team's wave 30h: programs where the day's changes meet (test_redteam_wave30h.py runs them).

* STILL: zero adjoints before points of infinite slope (sqrt, ``x ** 0.5``, arcsin at 1, abs at 0) at
  elements a slice, a constant-zero weight, a mask or an overwrite leaves unused, under clip /
  maximum / where chains and Huber losses (held_still meets the Hessian's folded scales);
* WHERE: ``np.where(c, g, 0)`` and ``x ** 3`` / ``x ** 4`` at exact zeros and ties, clip and maximum
  tie shares, second order included (the optimizer's products and bit masks meet the Hessian);
* LOOPS: Hessians of at most 8 floats (the forward sweep) through while-append loops, reversed
  enumerate, np.pad with computed widths, loops over module dicts, np.diag(v, k) written into;
* DATA: NaN and inf in the data, masked out by np.where, np.isfinite or a weight;
* BRANCHES: per-example branches holding sqrt at 0 and masked writes, for vmap(grad) (BATCHES gives
  each its examples, some on each side of the branch).
"""

from __future__ import annotations

import numpy as np

MASK = np.array([False, True, True, True])
MASK_FLOAT = MASK.astype(float)
X3 = np.array([0.5, 1.0, 2.0])
WZERO = np.array([0.0, 1.0, 0.5, 2.0])
T4 = np.array([0.3, -0.4, 1.7, 0.2])
A43 = np.array([[1.0, 0.5, -0.2], [0.3, -1.0, 0.8], [0.0, 0.7, 1.1], [-0.6, 0.2, 0.4]])
Y4 = np.array([0.4, -0.3, 1.2, 0.1])
DNAN = np.array([0.5, np.nan, -0.3, np.inf, 1.1, -np.inf])
COEF = {2: 0.5, 3: -0.25, 4: 0.125}
NAMED = {"lo": 0.2, "hi": 1.5}


def _z(*values):
    return np.array(values, dtype=float)


# ---- STILL: infinite slopes at elements structure leaves unused ----

def masked_sqrt(x, mask=MASK):
    return np.sum(np.where(mask, np.sqrt(x), 0.0)) + 0.1 * np.sum(x ** 2)


def masked_half_power(x, mask=MASK):
    return np.sum(np.where(mask, x ** 0.5, 0.0) * x) + np.sum(x)


def masked_arcsin(x, mask=MASK):
    return np.sum(np.where(mask, np.arcsin(x), 0.0)) + x[0] ** 2


def zero_weight_abs(x, w=WZERO):
    return np.sum(w * np.abs(x)) + 0.5 * np.sum(x ** 3)


def zero_weight_sqrt_maximum(x, w=WZERO):
    return np.sum(w * np.sqrt(np.maximum(x, 0.0))) + np.sum(x ** 2)


def sliced_sqrt_huber(x, t=T4):
    r = x[1:] - t[1:]
    huber = np.where(np.abs(r) <= 1.0, 0.5 * r ** 2, np.abs(r) - 0.5)
    return np.sum(huber) + np.sum(np.sqrt(x[1:])) + x[0] ** 2


def sliced_sqrt_clip(x):
    return np.sum(np.sqrt(np.clip(x, 0.0, 2.0))[1:] * x[1:]) + 3.0 * x[0] ** 2


def sliced_sqrt_maximum(x):
    return np.sum(np.sqrt(np.maximum(x, 0.0))[1:] * x[1:]) + 3.0 * x[0] ** 2


def sliced_sqrt_abs(x):
    return np.sum(np.sqrt(np.abs(x))[1:]) + 3.0 * x[0] ** 2


def overwritten_sqrt(x):
    y = x.copy()
    y[0] = 1.0
    return np.sum(np.sqrt(y) * x)


def masked_write_sqrt(x, mask=MASK):
    y = x * 1.0
    y[~mask] = 2.0
    return np.sum(np.sqrt(y) ** 3) + np.sum(np.minimum(x, 5.0) ** 2)


def huber_sliced_sqrt_rows(p, a=A43, y=Y4):
    r = a @ p[:3] - y
    huber = np.where(np.abs(r) <= 0.5, r ** 2, np.abs(r) - 0.25)
    return np.sum(huber) + np.sum(np.sqrt(p[3:])) + np.sum(np.clip(r, -1.0, 1.0) * r)


def sqrt_at_zero_times_mask_float(x, w=MASK_FLOAT):
    return np.sum(np.sqrt(np.abs(x)) * w * x ** 2) + np.sum(x ** 2)


def arcsin_sliced(x):
    return np.sum(np.arcsin(x[:-1] * 0.5)) + x[-1] ** 3


# ---- WHERE: np.where(c, g, 0), x**3 and x**4 at zeros and ties; clip / maximum tie shares ----

def where_cubic_zero(x):
    return np.sum(np.where(x > 0, x ** 3, 0.0)) + np.sum(x ** 2)


def where_quartic_data(x, d=T4):
    return np.sum(np.where(d > 0, x ** 4, 0.0)) + np.sum(np.where(d > 0, 0.0, x ** 3))


def where_shifted_cubic_tie(x):
    return np.sum(np.where(x >= 1.0, (x - 1.0) ** 3, 0.0)) + np.sum(x * x)


def clip_cubed_zero(x):
    return np.sum(np.clip(x, 0.0, 3.0) ** 3) + np.sum(x ** 2)


def maximum_minimum_powers(x):
    return np.sum(np.maximum(x, 0.0) ** 3 + np.minimum(x, 0.0) ** 4)


def where_mask_product(x, mask=MASK):
    g = x ** 3 * mask
    return np.sum(np.where(x > 0, g, 0.0)) + np.sum(x ** 4)


def abs_cubed_zero(x):
    return np.sum(np.abs(x) ** 3) + np.sum(x ** 2)


def clip_tie_with_itself(x):
    return np.sum(np.clip(x, x, 3.0) ** 2) + np.sum(x ** 3)


def maximum_tie_with_itself(x):
    return np.sum(np.maximum(x ** 2, x * x) * x)


def clip_bounds_tie(x):
    lo = x[0] * 1.0
    return np.sum(np.clip(x, lo, 10.0) ** 3)


def where_huber_cubed(x, t=T4):
    r = x - t
    return np.sum(np.where(np.abs(r) < 1.0, r ** 4, 0.0)) + np.sum(np.where(r > 0, r ** 3, 0.0))


def merged_selections(x):
    a = np.where(x > 0, x ** 3, 0.0)
    b = np.where(x > 0, 0.0, x ** 4)
    return np.sum(a + b) + np.sum(np.where(x > 0, a * x, b))


def where_zero_chain_rows(p, a=A43, y=Y4):
    r = a @ p - y
    w = np.where(np.abs(r) < 1.0, 1.0, 0.0)
    return np.sum(w * r ** 2) + np.sum(np.maximum(r, 0.0) ** 3) + np.sum(np.where(r > 0, r ** 3, 0.0))


def clip_abs_chain_rows(p, a=A43, y=Y4):
    r = a @ p - y
    return np.sum(np.abs(np.clip(r, -0.5, 0.5)) ** 3) + np.sum(np.minimum(np.abs(r), 1.0) * r ** 2)


# ---- LOOPS: Hessians of a few floats through the day's loops ----

def while_append(p):
    xs = []
    while len(xs) < 5:
        xs.append(p[len(xs) % 3] * (len(xs) + 1.0))
    total = 0.0
    for v in xs:
        total = total + v ** 3
    return total


def while_append_where(p):
    xs = []
    while len(xs) < 4:
        k = len(xs)
        xs.append(np.where(p[k % 3] > 0, p[k % 3] ** 3, 0.0))
    return sum(xs) + np.sum(p ** 2)


def reversed_enumerate(p, xs=(0.5, -1.0, 2.0, 0.25)):
    acc = 0.0
    for i, v in reversed(list(enumerate(xs))):
        acc = acc * p[0] + v * p[1] ** (i + 1)
    return acc + p[2] ** 4


def reversed_enumerate_sqrt(p, xs=(0.5, 1.0, 2.0)):
    acc = 0.0
    for i, v in reversed(list(enumerate(xs))):
        acc = acc + v * np.sqrt(p[i + 1]) * p[0]
    return acc


def reversed_enumerate_index(p, xs=X3):
    acc = 0.0
    for i, v in reversed(list(enumerate(xs))):
        acc = acc * p[0] + v * p[i + 1] ** 3
    return acc


def pad_computed(p):
    n = len(p) // 2
    q = np.pad(p, (n, 3 - n))
    k = np.arange(q.size) + 1.0
    return np.sum(q * k) ** 2 + np.sum(q ** 3)


def pad_sqrt(p):
    n = len(p) - 2
    q = np.pad(p[1:], (n, 0), constant_values=1.0)
    return np.sum(np.sqrt(q)) + p[0] ** 2


def dict_powers(p):
    acc = 0.0
    for k in COEF:
        acc = acc + COEF[k] * np.sum(p ** k)
    return acc


def dict_clip(p):
    acc = 0.0
    for name in NAMED:
        acc = acc + np.sum(np.clip(p, NAMED["lo"], NAMED["hi"]) ** 3) * NAMED[name]
    return acc + np.sum(p ** 2)


def diag_written(p):
    m = np.diag(p, 1)
    m[0, 0] = p[0] ** 2
    return np.sum(m @ m.T) + np.sum(m ** 3)


def diag_written_sqrt(p):
    m = np.diag(p, -1)
    m[1, 0] = 1.0
    return np.sum(np.sqrt(np.abs(m) + 1.0)) + np.sum(np.diag(m, -1) ** 4)


def while_dict_diag(p):
    xs = []
    while len(xs) < 3:
        xs.append(p[len(xs)])
    m = np.diag(np.array(xs), 1)
    acc = 0.0
    for k in COEF:
        acc = acc + COEF[k] * np.sum(m ** k)
    return acc


def eight_floats(p, a=A43):
    r = a @ p[:3] - p[3:7]
    return np.sum(np.where(r > 0, r ** 3, 0.0)) + np.sum(np.sqrt(np.abs(p[7:]) + 1.0)) + np.sum(np.clip(r, -1, 1) * r)


# ---- DATA: NaN and inf in the data, masked out ----

def nan_data_where(x, d=DNAN):
    ok = np.isfinite(d)
    return np.sum(np.where(ok, (x - d) ** 2, 0.0))


def nan_data_where_cubed(x, d=DNAN):
    ok = np.isfinite(d)
    r = np.where(ok, x - d, 0.0)
    return np.sum(r ** 3) + np.sum(x ** 2)


def nan_data_huber(x, d=DNAN):
    ok = np.isfinite(d)
    r = np.where(ok, x - d, 0.0)
    return np.sum(np.where(np.abs(r) <= 1.0, 0.5 * r ** 2, np.abs(r) - 0.5))


def inf_data_clip(x, d=DNAN):
    c = np.clip(np.nan_to_num(d, nan=0.0), -5.0, 5.0)
    return np.sum(c * x ** 3) + np.sum(x ** 2)


def nan_data_masked_write(x, d=DNAN):
    r = x - d
    r[~np.isfinite(d)] = 0.0
    return np.sum(r ** 2) + np.sum(x ** 4)


def inf_weight_sqrt(x, d=DNAN):
    w = np.where(np.isfinite(d), 1.0, 0.0)
    return np.sum(np.where(w > 0, np.sqrt(x) * w, 0.0)) + np.sum(x ** 2)


# ---- BRANCHES: per-example branches for vmap(grad) ----

def branch_sqrt(p):
    if p[1] > 0:
        r = np.sqrt(p[0]) + p[1] ** 3
    else:
        r = p[0] ** 2 + p[1] ** 2
    return r + np.sum(p ** 2)


def branch_masked_write(p, mask=MASK):
    y = p * 2.0
    if p[0] > 0.5:
        y[~mask] = 0.0
        r = np.sum(np.sqrt(np.abs(y)) * y)
    else:
        r = np.sum(y ** 3)
    return r


def branch_where_cubic(p):
    if np.sum(p) > 1.0:
        r = np.sum(np.where(p > 0, p ** 3, 0.0))
    else:
        r = np.sum(np.clip(p, -1.0, 1.0) ** 4)
    return r


def branch_arcsin(p):
    if p[0] < 0.9:
        r = np.arcsin(p[0]) + p[1] ** 2
    else:
        r = p[0] ** 3 + np.sqrt(p[1])
    return r


def _pos(*v):
    return lambda r: (_z(*v),)


def _r(n, lo=-1.0, hi=1.0):
    return lambda r: (r.uniform(lo, hi, n),)


PROGRAMS = [
    ("still_masked_sqrt", masked_sqrt, _pos(0.0, 0.5, 1.2, 0.8), 0),
    ("still_masked_half_power", masked_half_power, _pos(0.0, 0.5, 1.2, 0.8), 0),
    ("still_masked_arcsin", masked_arcsin, _pos(1.0, 0.5, -0.2, 0.3), 0),
    ("still_zero_weight_abs", zero_weight_abs, _pos(0.0, 0.5, -1.2, 0.8), 0),
    ("still_zero_weight_sqrt_maximum", zero_weight_sqrt_maximum, _pos(0.0, 0.5, 1.2, 0.8), 0),
    ("still_sliced_sqrt_huber", sliced_sqrt_huber, _pos(0.0, 0.5, 1.2, 0.8), 0),
    ("still_sliced_sqrt_clip", sliced_sqrt_clip, _pos(0.0, 0.5, 1.2, 0.8), 0),
    ("still_sliced_sqrt_maximum", sliced_sqrt_maximum, _pos(0.0, 0.5, 1.2, 0.8), 0),
    ("still_sliced_sqrt_abs", sliced_sqrt_abs, _pos(0.0, 0.5, 1.2, 0.8), 0),
    ("still_overwritten_sqrt", overwritten_sqrt, _pos(0.0, 0.5, 1.2, 0.8), 0),
    ("still_masked_write_sqrt", masked_write_sqrt, _pos(0.0, 0.5, 1.2, 0.8), 0),
    ("still_huber_rows", huber_sliced_sqrt_rows, _pos(0.3, -0.2, 0.5, 0.7, 1.1), 0),
    ("still_sqrt_times_mask", sqrt_at_zero_times_mask_float, _pos(0.0, 0.5, 1.2, 0.8), 0),
    ("still_arcsin_sliced", arcsin_sliced, _pos(0.4, -0.3, 0.0), 0),
    ("where_cubic_zero", where_cubic_zero, _pos(0.0, 0.5, -1.2, 0.0), 0),
    ("where_quartic_data", where_quartic_data, _pos(0.0, 0.5, -1.2, 0.0), 0),
    ("where_shifted_cubic_tie", where_shifted_cubic_tie, _pos(1.0, 0.5, 1.5, 1.0), 0),
    ("where_clip_cubed_zero", clip_cubed_zero, _pos(0.0, 0.5, 2.0, 0.0), 0),
    ("where_maximum_minimum_powers", maximum_minimum_powers, _pos(0.0, 0.5, -1.2, 0.0), 0),
    ("where_mask_product", where_mask_product, _pos(0.0, 0.0, -1.2, 0.7), 0),
    ("where_abs_cubed_zero", abs_cubed_zero, _pos(0.0, 0.5, -1.2, 0.0), 0),
    ("where_clip_tie_itself", clip_tie_with_itself, _pos(0.0, 0.5, -1.2, 2.0), 0),
    ("where_maximum_tie_itself", maximum_tie_with_itself, _pos(0.0, 0.5, -1.2, 2.0), 0),
    ("where_clip_bounds_tie", clip_bounds_tie, _pos(0.4, 0.5, 1.2, 2.0), 0),
    ("where_huber_cubed", where_huber_cubed, _pos(0.3, -0.4, 1.0, 0.9), 0),
    ("where_merged_selections", merged_selections, _pos(0.0, 0.5, -1.2, 0.0), 0),
    ("where_zero_chain_rows", where_zero_chain_rows, _pos(0.3, -0.2, 0.5), 0),
    ("where_clip_abs_chain_rows", clip_abs_chain_rows, _pos(0.3, -0.2, 0.5), 0),
    ("loops_while_append", while_append, _pos(0.7, -0.4, 1.1), 0),
    ("loops_while_append_where", while_append_where, _pos(0.7, -0.4, 0.0), 0),
    ("loops_reversed_enumerate", reversed_enumerate, _pos(0.7, -0.4, 1.1), 0),
    ("loops_reversed_enumerate_sqrt", reversed_enumerate_sqrt, _pos(0.7, 0.4, 1.1, 0.9), 0),
    ("loops_reversed_enumerate_index", reversed_enumerate_index, _pos(0.7, -0.4, 1.1, 0.9), 0),
    ("loops_pad_computed", pad_computed, _pos(0.7, -0.4, 1.1, 0.3), 0),
    ("loops_pad_sqrt", pad_sqrt, _pos(0.7, 0.4, 1.1), 0),
    ("loops_dict_powers", dict_powers, _pos(0.7, -0.4, 0.0), 0),
    ("loops_dict_clip", dict_clip, _pos(0.7, -0.4, 1.1), 0),
    ("loops_diag_written", diag_written, _pos(0.7, -0.4, 1.1), 0),
    ("loops_diag_written_sqrt", diag_written_sqrt, _pos(0.7, -0.4, 1.1), 0),
    ("loops_while_dict_diag", while_dict_diag, _pos(0.7, -0.4, 0.0), 0),
    ("loops_eight_floats", eight_floats, _pos(0.3, -0.2, 0.5, 0.1, 0.4, -0.3, 0.2, 0.6), 0),
    ("data_nan_where", nan_data_where, _r(6), 0),
    ("data_nan_where_cubed", nan_data_where_cubed, _r(6), 0),
    ("data_nan_huber", nan_data_huber, _r(6), 0),
    ("data_inf_clip", inf_data_clip, _r(6), 0),
    ("data_nan_masked_write", nan_data_masked_write, _r(6), 0),
    ("data_inf_weight_sqrt", inf_weight_sqrt, _pos(0.5, 0.0, 1.2, 0.0, 0.8, 0.0), 0),
    ("branch_sqrt", branch_sqrt, _pos(0.6, 0.5, 0.3), 0),
    ("branch_masked_write", branch_masked_write, _pos(0.9, 0.5, 1.2, 0.8), 0),
    ("branch_where_cubic", branch_where_cubic, _pos(0.9, 0.5, -0.2, 0.0), 0),
    ("branch_arcsin", branch_arcsin, _pos(0.5, 0.3), 0),
]

#: vmap(grad)'s examples: some on each side of the branch, some at a point of infinite slope the taken side
#: does not reach (sqrt at 0 and arcsin at 1 in the side not taken; an element the masked write drops)
BATCHES = {
    "branch_sqrt": np.array([[0.6, 0.5, 0.3], [0.0, -0.5, 0.3], [1.2, -0.1, -0.4]]),
    "branch_masked_write": np.array([[0.9, 0.5, 1.2, 0.8], [0.0, 0.5, 1.2, 0.8], [0.2, -0.5, 0.0, 0.8]]),
    "branch_where_cubic": np.array([[0.9, 0.5, -0.2, 0.0], [0.1, 0.2, -0.5, 0.0], [0.0, 0.0, 0.0, 0.3]]),
    "branch_arcsin": np.array([[0.5, 0.3], [1.0, 0.3], [0.95, 0.0], [0.2, 0.0]]),
    "still_masked_sqrt": np.array([[0.0, 0.5, 1.2, 0.8], [0.0, 0.1, 0.2, 0.3], [1.0, 0.5, 1.2, 0.8]]),
    "where_cubic_zero": np.array([[0.0, 0.5, -1.2, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, -1.0, 0.5, 0.2]]),
    "data_inf_weight_sqrt": np.array([[0.5, 0.0, 1.2, 0.0, 0.8, 0.0], [0.5, 1.0, 1.2, 1.0, 0.8, 1.0]]),
}
