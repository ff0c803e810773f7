"""Wave 34h: variants of the classes fixed (test_wave34h.py): complex transforms unpacked from a
tuple (``X, Y = np.fft.fft(x), np.fft.fft(y)``), and NumPy's NaN-skipping extrema and spreads
(``np.nanmax`` / ``np.nanmin`` / ``np.nanvar`` / ``np.nanstd``, with ``axis``, ``keepdims``, ``ddof``,
ties, a group of NaN beside others), and full contractions by np.tensordot to a number under
jit="numba" (``np.tensordot(A, A, axes=2)``: the adjoint is a tensordot of a number), and ``np.flip``
of every axis of a matrix or a 3-D array under jit="numba".

Each row is ``(name, func, make_args(rng), wrt)``.
"""

from __future__ import annotations

import numpy as np

# ---- 1. complex transforms unpacked from a tuple ----


def cross_spectrum_pair(x, y):
    X, Y = np.fft.fft(x), np.fft.fft(y)
    return np.sum(np.real(X * np.conj(Y)))


def rfft_pair_power(x):
    A, B = np.fft.rfft(x), np.fft.rfft(x ** 2)
    return np.sum(np.abs(A) ** 2) + np.sum(np.abs(B - A) ** 2) * 0.1


def pair_with_a_real(x):
    X, s = np.fft.rfft(x), np.sum(x ** 2)
    return np.sum((X * np.conj(X)).real) / s


def phasor_pair(t):
    z, w = np.exp(1j * t), np.exp(2j * t)
    return np.sum((z * w).real) + np.sum(np.abs(z + w) ** 2)


# ---- 2. NaN-skipping extrema and spreads ----


def nanmax_masked(x):
    y = np.where(x > 0.5, np.nan, x)
    return np.nanmax(y) + np.nanmin(y) ** 2


def nanmin_axis(X):
    Y = np.where(X > 0.8, np.nan, X)
    return np.sum(np.nanmin(Y, axis=1) ** 2) + np.sum(np.nanmax(Y, axis=0, keepdims=True))


def nanmax_tied(x):
    return np.nanmax(np.array([x[0], x[0], np.nan, x[1]])) + np.nanmin(np.array([x[1], np.nan, x[1]]))


def nanstd_rows(X):
    Y = np.where(X > 0.8, np.nan, X)
    return np.sum(np.nanstd(Y, axis=1)) + np.nanvar(Y, ddof=1)


def nanvar_keepdims(X):
    Y = np.where(X < -0.9, np.nan, X)
    return np.sum(np.nanvar(Y, axis=0, keepdims=True) ** 2) + np.nanstd(Y) * np.nanmean(Y)


def nan_zscore(x):
    y = np.where(np.abs(x) > 1.2, np.nan, x)
    z = (y - np.nanmean(y)) / np.nanstd(y)
    return np.nansum(np.tanh(z) * np.arange(x.size))


# ---- 3. np.tensordot contracting every axis, under jit="numba" ----


def tensordot_full_int(A, B):
    return np.sum(np.tensordot(A, B, axes=1) ** 2) + np.tensordot(A, A, axes=2)


def tensordot_full_pairs(T):
    return np.tensordot(T, np.sin(T), axes=3) + np.tensordot(T, T, axes=([0, 1, 2], [0, 1, 2])) ** 2


def tensordot_vectors(x, M):
    return np.tensordot(x, M @ x, axes=1) + np.tensordot(x, x, axes=([0], [0]))


# ---- 4. np.flip of every axis, under jit="numba" ----


def flip_matrix(X):
    return np.sum(np.flip(X) * np.rot90(X)) + np.sum(np.roll(X, 1, axis=0) * X)


def flip_none_3d(T):
    return np.sum(np.flip(T, axis=None) * T ** 2)


def flip_outer(x):
    return np.sum(np.flip(x) * np.arange(x.size)) + np.sum(np.flip(np.outer(x, x)) * 0.3)


PROGRAMS = [
    ("cross_spectrum_pair", cross_spectrum_pair, lambda r: [r.normal(size=6), r.normal(size=6)], 0),
    ("rfft_pair_power", rfft_pair_power, lambda r: [r.normal(size=8)], 0),
    ("pair_with_a_real", pair_with_a_real, lambda r: [r.normal(size=6)], 0),
    ("phasor_pair", phasor_pair, lambda r: [r.normal(size=5)], 0),
    ("nanmax_masked", nanmax_masked, lambda r: [r.normal(size=7)], 0),
    ("nanmin_axis", nanmin_axis, lambda r: [r.normal(size=(3, 4))], 0),
    ("nanmax_tied", nanmax_tied, lambda r: [np.array([1.0, 0.3])], 0),
    ("nanstd_rows", nanstd_rows, lambda r: [r.normal(size=(3, 4))], 0),
    ("nanvar_keepdims", nanvar_keepdims, lambda r: [r.normal(size=(4, 3))], 0),
    ("nan_zscore", nan_zscore, lambda r: [r.normal(size=7)], 0),
    ("tensordot_full_int", tensordot_full_int, lambda r: [r.normal(size=(3, 3)), r.normal(size=(3, 2))], 0),
    ("tensordot_full_pairs", tensordot_full_pairs, lambda r: [r.normal(size=(2, 3, 2))], 0),
    ("tensordot_vectors", tensordot_vectors, lambda r: [r.normal(size=3), r.normal(size=(3, 3))], 0),
    ("flip_matrix", flip_matrix, lambda r: [r.normal(size=(3, 3))], 0),
    ("flip_none_3d", flip_none_3d, lambda r: [r.normal(size=(2, 3, 2))], 0),
    ("flip_outer", flip_outer, lambda r: [r.normal(size=4)], 0),
]
