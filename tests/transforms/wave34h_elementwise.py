"""Wave 34h: NumPy's elementwise and reduction surface the way users write it (test_wave34h.py):
np.hypot / arctan2 / logaddexp / expm1 / log1p / sinc, erf by scipy.special, np.maximum.accumulate,
np.nan* reductions, keepdims and axis tuples, ``out=`` and ``where=`` arguments, ``dtype=`` arguments,
complex intermediates with real outputs (``np.abs(np.fft.fft(x)) ** 2``).

Each row is ``(name, func, make_args(rng), wrt)``.
"""

from __future__ import annotations

import numpy as np
import scipy.special as sc


def hypot_arctan2(p):
    x, y = p[0::2], p[1::2]
    return np.sum(np.hypot(x, y)) + np.sum(np.arctan2(y, x) ** 2)


def logaddexp_softplus(x):
    return np.sum(np.logaddexp(0.0, x)) + np.logaddexp(x[0], x[1])


def expm1_log1p(x):
    return np.sum(np.log1p(x ** 2)) + np.sum(np.expm1(0.5 * x))


def sinc_window(x):
    return np.sum(np.sinc(x) ** 2)


def erf_scipy(x):
    return np.sum(sc.erf(x)) + np.sum(sc.erfc(x) ** 2) + np.sum(sc.expit(x)) + np.sum(sc.log_ndtr(x))


def special_gammaln_xlogy(x):
    a = np.exp(x)
    return np.sum(sc.gammaln(a)) + np.sum(sc.xlogy(a, a + 1.0)) + np.sum(sc.digamma(a + 1.0))


def maximum_accumulate_drawdown(r):
    wealth = np.cumprod(1.0 + 0.1 * r)
    peak = np.maximum.accumulate(wealth)
    return np.sum((peak - wealth) ** 2)


def nan_reductions(x):
    y = np.where(x > 0.5, np.nan, x)
    return np.nansum(y ** 2) + np.nanmean(y) + np.nanmax(y) + np.nanstd(y)


def keepdims_normalise(X):
    mu = np.mean(X, axis=1, keepdims=True)
    sd = np.std(X, axis=1, keepdims=True)
    Z = (X - mu) / sd
    return np.sum(Z * np.arange(X.shape[1]))


def axis_tuple(T):
    m = np.sum(T ** 2, axis=(0, 2))
    v = np.max(T, axis=(1, 2))
    return np.sum(np.sqrt(m)) + np.sum(v) + np.mean(T, axis=(0, 1)).sum() ** 2


def out_argument(x):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    np.add(y, 1.0, out=y)
    return np.sum(np.log(y))


def where_argument(x):
    safe = np.divide(1.0, x, out=np.zeros_like(x), where=np.abs(x) > 0.2)
    return np.sum(safe ** 2) + np.sum(x, where=x > 0.0)


def dtype_argument(x):
    return np.sum(x ** 2, dtype=np.float64) + np.mean(x, dtype=np.float64) + np.cumsum(x, dtype=float)[-1] ** 2


def astype_roundtrip(x):
    y = (x * 2.0).astype(np.float64)
    return np.sum(np.asarray(y, dtype=float) ** 3)


def fft_power(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 2)


def rfft_band(x):
    X = np.fft.rfft(x)
    return np.sum(np.abs(X[1:3]) ** 2) + np.sum(np.real(X) * np.imag(X))


def fft_conj_product(x, y):
    X, Y = np.fft.fft(x), np.fft.fft(y)
    return np.sum(np.real(X * np.conj(Y)))


def complex_phase(x):
    z = x[0::2] + 1j * x[1::2]
    return np.sum(np.abs(z * z)) + np.sum(np.angle(z) ** 2)


def clip_sign_copysign(x):
    return np.sum(np.clip(x, -0.9, 0.9) ** 2) + np.sum(np.sign(x) * x) + np.sum(np.copysign(x ** 2, x))


def trig_inverse(x):
    s = 0.5 * np.tanh(x)
    return np.sum(np.arcsin(s)) + np.sum(np.arccos(s) ** 2) + np.sum(np.arctanh(s)) + np.sum(np.arcsinh(x))


def reductions_prod_ptp(x):
    return np.prod(1.0 + 0.1 * x) + np.ptp(x) + np.average(x ** 2, weights=np.arange(1.0, x.size + 1))


def var_ddof(X):
    return np.sum(np.var(X, axis=0, ddof=1)) + np.std(X, ddof=1) + np.sum(np.cov(X.T))


def corrcoef_loss(X):
    C = np.corrcoef(X)
    return np.sum(C[np.triu_indices(C.shape[0], 1)] ** 2)


def logsumexp_axis(X):
    return np.sum(sc.logsumexp(X, axis=1)) + np.sum(sc.softmax(X, axis=0)[0])


def float32_literal_mix(x):
    s = np.float32(0.5) * x + np.asarray([1.0, 2.0, 3.0, 4.0], dtype=np.float32)[: x.size]
    return np.sum(s ** 2)


PROGRAMS = [
    ("hypot_arctan2", hypot_arctan2, lambda r: [r.normal(size=6)], 0),
    ("logaddexp_softplus", logaddexp_softplus, lambda r: [r.normal(size=5)], 0),
    ("expm1_log1p", expm1_log1p, lambda r: [r.normal(size=5)], 0),
    ("sinc_window", sinc_window, lambda r: [r.normal(size=5)], 0),
    ("erf_scipy", erf_scipy, lambda r: [r.normal(size=5)], 0),
    ("special_gammaln_xlogy", special_gammaln_xlogy, lambda r: [r.normal(size=4)], 0),
    ("maximum_accumulate_drawdown", maximum_accumulate_drawdown, lambda r: [r.normal(size=7)], 0),
    ("nan_reductions", nan_reductions, lambda r: [r.normal(size=7)], 0),
    ("keepdims_normalise", keepdims_normalise, lambda r: [r.normal(size=(3, 4))], 0),
    ("axis_tuple", axis_tuple, lambda r: [r.normal(size=(2, 3, 4))], 0),
    ("out_argument", out_argument, lambda r: [r.normal(size=5)], 0),
    ("where_argument", where_argument, lambda r: [r.normal(size=6)], 0),
    ("dtype_argument", dtype_argument, lambda r: [r.normal(size=5)], 0),
    ("astype_roundtrip", astype_roundtrip, lambda r: [r.normal(size=5)], 0),
    ("fft_power", fft_power, lambda r: [r.normal(size=6)], 0),
    ("rfft_band", rfft_band, lambda r: [r.normal(size=8)], 0),
    ("fft_conj_product", fft_conj_product, lambda r: [r.normal(size=6), r.normal(size=6)], 0),
    ("complex_phase", complex_phase, lambda r: [r.normal(size=6)], 0),
    ("clip_sign_copysign", clip_sign_copysign, lambda r: [r.normal(size=6)], 0),
    ("trig_inverse", trig_inverse, lambda r: [r.normal(size=5)], 0),
    ("reductions_prod_ptp", reductions_prod_ptp, lambda r: [r.normal(size=6)], 0),
    ("var_ddof", var_ddof, lambda r: [r.normal(size=(5, 3))], 0),
    ("corrcoef_loss", corrcoef_loss, lambda r: [r.normal(size=(3, 6))], 0),
    ("logsumexp_axis", logsumexp_axis, lambda r: [r.normal(size=(3, 4))], 0),
    ("float32_literal_mix", float32_literal_mix, lambda r: [r.normal(size=4)], 0),
]
