"""The red team's seventeenth wave, continued: arguments of unusual kinds and values that sit where NumPy's
rounding or branching functions change their meaning.  Differentiated arguments that are a 0-d array, a
np.float32 / np.float64 scalar, a Python list of floats, a tuple of arrays, float32 next to float64 data;
complex arithmetic inside a real function (an RLC impedance, a transfer function's magnitude on the
imaginary axis, a two-level quantum amplitude, a few Mandelbrot-style steps z**2 + c, a phasor sum);
functions built from rounding that have a derivative almost everywhere (a sawtooth x - floor(x), np.modf,
divmod, np.fmod, np.remainder of a phase, np.rint inside a straight-through trick); booleans used as
numbers ((x > 0) * x, np.sum(x > t) * x, x * np.sign(x)); and exact zeros of smooth functions written
with kinks (x * |x|, np.maximum(x, 0) ** 3, np.clip at an untouched bound).  See redteam_wave17.py.
"""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave17_numerics import thomas_solve
from .redteam_wave17_science import hill_dose_response, morse_chain
from .redteam_wave17_vision import homography_error, tv_denoise_energy


def M(rng, *shape):
    return rng.normal(size=shape)


def F(a):
    return np.asarray(a, dtype=np.float32)


# ---- argument kinds -------------------------------------------------------------------------------------


def zero_d_array(t, data):
    return np.sum((data - t) ** 2) + t ** 3


def scalar_kinds(a, b):
    return a * np.exp(b) + np.log1p(a * a) * b


def list_of_floats(coeffs, x):
    return sum(c * x ** i for i, c in enumerate(coeffs)) ** 2


def tuple_of_arrays(params, X):
    W, b = params
    return np.sum(np.tanh(X @ W + b) ** 2)


def mixed_precision(w32, X64, y64):
    r = X64 @ w32 - y64
    return np.sum(r * r)


def float32_scalar_loop(k):
    y = np.float32(1.0)
    for _ in range(10):
        y = y + np.float32(0.1) * (-k * y)
    return y


def float32_softmax_ce(logits, label):
    z = logits - np.max(logits)
    return -(z[label] - np.log(np.sum(np.exp(z))))


def float32_layer(W, x):
    h = np.maximum(W @ x, np.float32(0.0))
    return np.float32(0.5) * np.sum(h * h)


# ---- complex arithmetic inside a real function ----------------------------------------------------------


def rlc_impedance(p, omegas):
    R, L, C = p
    total = 0.0
    for w in omegas:
        Z = R + 1j * w * L + 1.0 / (1j * w * C)
        total += abs(Z) ** 2
    return total


def transfer_magnitude(coeffs, omegas):
    s = 1j * omegas
    num = coeffs[0] + coeffs[1] * s
    den = 1.0 + coeffs[2] * s + coeffs[3] * s ** 2
    H = num / den
    return np.sum(np.abs(H) ** 2)


def two_level_amplitude(params, t=1.3):
    delta, omega = params
    rabi = np.sqrt(delta ** 2 + omega ** 2)
    amp = -1j * omega / rabi * np.sin(rabi * t / 2) * np.exp(-1j * delta * t / 2)
    return np.real(amp * np.conj(amp))


def mandelbrot_steps(c_parts, steps=5):
    c = c_parts[0] + 1j * c_parts[1]
    z = 0j
    for _ in range(steps):
        z = z * z + c
    return abs(z) ** 2


def phasor_sum(phases, amps):
    total = np.sum(amps * np.exp(1j * phases))
    return np.abs(total) ** 2 + np.angle(total)


# ---- rounding functions with a derivative almost everywhere ---------------------------------------------


def sawtooth(x):
    return np.sum((x - np.floor(x)) ** 2)


def modf_parts(x):
    frac, whole = np.modf(x)
    return np.sum(frac ** 2 + whole * frac)


def divmod_phase(theta, period=2.0):
    total = 0.0
    for t in theta:
        turns, rem = divmod(t, period)
        total += rem ** 2 + turns * rem
    return total


def fmod_remainder(x):
    return np.sum(np.fmod(x, 1.5) ** 2 + np.remainder(x, 0.7) ** 2)


def straight_through_round(x):
    q = x + (np.rint(x * 4) / 4 - x)
    return np.sum(q * x)


def math_floor_table(x, table):
    total = 0.0
    for v in x:
        i = math.floor(v)
        frac = v - i
        total += table[i] * (1 - frac) + table[i + 1] * frac
    return total


# ---- booleans as numbers --------------------------------------------------------------------------------


def bool_times_value(x):
    return np.sum((x > 0) * x ** 2) + np.sum(x * (x < -0.5))


def count_times_value(x, t=0.2):
    return np.sum(x > t) * np.sum(x ** 2)


def sign_times_value(x):
    return np.sum(x * np.sign(x) * np.exp(x))


def mean_of_mask(x):
    mask = x > 0
    return np.mean(x[mask] ** 2) + mask.mean()


# ---- exact zeros of smooth functions written with kinks -------------------------------------------------


def x_abs_x(x):
    return np.sum(x * np.abs(x))


def relu_cubed(x):
    return np.sum(np.maximum(x, 0.0) ** 3)


def clip_untouched(x):
    return np.sum(np.clip(x, -10.0, 10.0) ** 2)


def where_zero_branch(x):
    return np.sum(np.where(x > 0, x ** 2, 0.0))


def abs_squared_sqrt(x):
    return np.sum(np.sqrt(np.abs(x) ** 2 + 1.0))


def min_with_self_shift(x):
    return np.sum(np.minimum(x, x + 1.0) ** 2)


def hinge_squared_zero(w, X, y):
    margins = 1.0 - y * (X @ w)
    return np.sum(np.maximum(margins, 0.0) ** 2)


POINTS17 = [
    ("w17_zero_d_array", zero_d_array, lambda r: (np.array(0.7), M(r, 5)), 0),
    ("w17_np_float64_scalar", scalar_kinds, lambda r: (np.float64(0.8), np.float64(-0.3)), 0),
    ("w17_np_float32_scalar", scalar_kinds, lambda r: (np.float32(0.8), np.float32(-0.3)), 1),
    ("w17_list_of_floats", list_of_floats, lambda r: ([0.5, -1.0, 0.3], 1.2), 0),
    ("w17_tuple_of_arrays", tuple_of_arrays, lambda r: ((M(r, 3, 2), M(r, 2)), M(r, 4, 3)), 0),
    ("w17_mixed_precision", mixed_precision, lambda r: (F(M(r, 3)), M(r, 5, 3), M(r, 5)), 0),
    ("w17_float32_scalar_loop", float32_scalar_loop, lambda r: (np.float32(0.7),), 0),
    ("w17_float32_softmax_ce", float32_softmax_ce, lambda r: (F(M(r, 5)), 2), 0),
    ("w17_float32_layer", float32_layer, lambda r: (F(M(r, 4, 3)), F(M(r, 3))), 0),
    ("w17_rlc_impedance", rlc_impedance, lambda r: (np.array([2.0, 0.5, 0.1]), [1.0, 3.0, 10.0]), 0),
    ("w17_transfer_magnitude", transfer_magnitude,
     lambda r: (np.array([1.0, 0.3, 0.4, 0.05]), np.logspace(-1, 1, 6)), 0),
    ("w17_two_level_amplitude", two_level_amplitude, lambda r: (np.array([0.4, 1.1]),), 0),
    ("w17_mandelbrot_steps", mandelbrot_steps, lambda r: (np.array([-0.4, 0.3]),), 0),
    ("w17_phasor_sum", phasor_sum, lambda r: (M(r, 4), r.uniform(0.5, 1.5, 4)), 0),
    ("w17_sawtooth", sawtooth, lambda r: (np.array([0.3, 1.7, -2.4, 5.1]),), 0),
    ("w17_modf_parts", modf_parts, lambda r: (np.array([0.3, 1.7, -2.4, 5.1]),), 0),
    ("w17_divmod_phase", divmod_phase, lambda r: (np.array([0.3, 2.7, -2.4, 5.1]),), 0),
    ("w17_fmod_remainder", fmod_remainder, lambda r: (np.array([0.3, 1.9, -2.45, 5.1]),), 0),
    ("w17_straight_through_round", straight_through_round, lambda r: (np.array([0.31, 1.07, -2.4]),), 0),
    ("w17_math_floor_table", math_floor_table, lambda r: (np.array([0.3, 1.7, 2.4]), M(r, 5)), 0),
    ("w17_math_floor_table_values", math_floor_table, lambda r: (np.array([0.3, 1.7, 2.4]), M(r, 5)), 1),
    ("w17_bool_times_value", bool_times_value, lambda r: (np.array([0.3, -1.7, -0.2, 1.1]),), 0),
    ("w17_count_times_value", count_times_value, lambda r: (np.array([0.3, -1.7, -0.2, 1.1]),), 0),
    ("w17_sign_times_value", sign_times_value, lambda r: (np.array([0.3, -1.7, -0.2, 1.1]),), 0),
    ("w17_mean_of_mask", mean_of_mask, lambda r: (np.array([0.3, -1.7, -0.2, 1.1]),), 0),
    ("w17_x_abs_x_zero", x_abs_x, lambda r: (np.array([0.0, 1.5, -0.5]),), 0),
    ("w17_relu_cubed_zero", relu_cubed, lambda r: (np.array([0.0, 1.5, -0.5]),), 0),
    ("w17_clip_untouched", clip_untouched, lambda r: (np.array([0.0, 1.5, -0.5]),), 0),
    ("w17_where_zero_branch_zero", where_zero_branch, lambda r: (np.array([0.0, 1.5, -0.5]),), 0),
    ("w17_abs_squared_sqrt_zero", abs_squared_sqrt, lambda r: (np.array([0.0, 1.5, -0.5]),), 0),
    ("w17_min_with_self_shift", min_with_self_shift, lambda r: (np.array([0.0, 1.5, -0.5]),), 0),
    ("w17_hinge_squared_at_margin", hinge_squared_zero,
     lambda r: (np.array([0.5, 0.5]), np.array([[1.0, 1.0], [2.0, 0.0], [0.0, -1.0]]), np.array([1.0, 1.0, -1.0])), 0),
    ("w17_f32_morse_chain", morse_chain, lambda r: (F(np.cumsum(r.uniform(0.8, 1.3, 5))),), 0),
    ("w17_f32_thomas_solve", thomas_solve,
     lambda r: (F(4.0 + r.uniform(size=6)), F(M(r, 5)), F(M(r, 5)), F(M(r, 6))), 0),
    ("w17_f32_tv_denoise", tv_denoise_energy, lambda r: (F(M(r, 4, 5)), F(M(r, 4, 5))), 0),
    ("w17_f32_hill", hill_dose_response,
     lambda r: (F([0.1, 1.0, 0.2, 1.5]), F(np.logspace(-1, 1, 7)), F(r.uniform(0, 1, 7))), 0),
    ("w17_f32_homography", homography_error,
     lambda r: (F([1.0, 0.1, 0.2, -0.05, 0.9, 0.1, 0.01, 0.02]), F(M(r, 5, 2)), F(M(r, 5, 2))), 0),
]
