"""The red team's thirteenth wave: everyday and library-style code.  Data cleaning with NumPy
(percentile winsorising, z-score masks, NaN filling, trimmed means over np.sort, group means over
np.unique, drawdowns through np.maximum.accumulate, np.histogram with weights, moving averages by
cumsum, ranks by a double argsort, np.interp resampling, np.searchsorted lookups, np.select tax
brackets) and finance and engineering formulas (an amortisation schedule, IRR by Newton steps,
bond duration, Black-76 through scipy.stats.norm, the Bachelier model, Colebrook's friction
factor by a while loop, beams, van der Waals, Kelly betting) are here; geometry and signal
processing are in redteam_wave13_geometry.py, helper libraries, classes and student code in
redteam_wave13_library.py, special points, float32 and aliasing in redteam_wave13_points.py.

`WAVE13` holds all four: ``(name, function, make, wrt)`` as in redteam_programs.py, every name
``w13_…``.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special
import scipy.stats

# ---- data cleaning --------------------------------------------------------------------------------


def winsorize_percentile(x, lo=5.0, hi=95.0):
    a, b = np.percentile(x, [lo, hi])
    return np.mean(np.clip(x, a, b) ** 2)


def zscore_outlier_mask(x, k=1.5):
    z = (x - x.mean()) / x.std()
    keep = np.abs(z) < k
    return np.sum(x[keep] ** 2) / keep.sum()


def nan_fill_column_means(w, X):
    col = np.nanmean(X, axis=0)
    filled = np.where(np.isnan(X), col, X)
    return np.sum((filled @ w) ** 2)


def nan_fill_differentiated(x):
    good = ~np.isnan(x)
    fill = x[good].mean()
    clean = np.where(good, x, fill)
    return np.sum(np.sin(clean)) + fill ** 2


def sorted_trimmed_mean(x, k=2):
    s = np.sort(x)
    return s[k:-k].mean() + 0.1 * np.sum(s ** 2)


def unique_group_means(x, labels):
    total = 0.0
    for g in np.unique(labels):
        m = x[labels == g].mean()
        total += (m - g) ** 2
    return total


def max_drawdown(r):
    wealth = np.cumprod(1.0 + r)
    peak = np.maximum.accumulate(wealth)
    return np.max((peak - wealth) / peak)


def histogram_weights(w, data, edges):
    counts, _ = np.histogram(data, bins=edges, weights=w)
    p = counts / counts.sum()
    return -np.sum(p * np.log(p + 1e-12))


def soft_histogram_entropy(x, n_bins=6, width=0.5):
    centres = np.linspace(-2.0, 2.0, n_bins)
    k = np.exp(-0.5 * ((x[:, None] - centres[None, :]) / width) ** 2)
    p = k.sum(axis=0) / k.sum()
    return -np.sum(p * np.log(p))


def moving_average_cumsum(x, k=3):
    c = np.cumsum(np.insert(x, 0, 0.0))
    ma = (c[k:] - c[:-k]) / k
    return np.sum((ma - x[k - 1:]) ** 2)


def min_max_scale(x):
    return np.sum(np.cos((x - x.min()) / (x.max() - x.min())))


def robust_scale_iqr(x):
    q1, med, q3 = np.percentile(x, [25, 50, 75])
    return np.sum(np.tanh((x - med) / (q3 - q1)))


def log_returns_clipped_vol(prices, cap=0.05):
    r = np.diff(np.log(prices))
    r = np.clip(r, -cap, cap)
    return r.std(ddof=1) * math.sqrt(252)


def double_argsort_rank(x):
    ranks = np.argsort(np.argsort(x))
    w = (ranks + 1) / len(x)
    return np.sum(w * x)


def interp_resample(y, t, t_new):
    return np.sum(np.interp(t_new, t, y) ** 2)


def searchsorted_piecewise(x, knots, values):
    idx = np.searchsorted(knots, x) - 1
    idx = np.clip(idx, 0, len(knots) - 2)
    t = (x - knots[idx]) / (knots[idx + 1] - knots[idx])
    return np.sum((1 - t) * values[idx] + t * values[idx + 1])


def masked_row_means(X, mask):
    n = np.maximum(mask.sum(axis=1), 1)
    means = np.sum(X * mask, axis=1) / n
    return np.sum(means ** 2)


def ewma_adjust_false(x, alpha=0.3):
    s = x[0]
    out = [s]
    for v in x[1:]:
        s = alpha * v + (1 - alpha) * s
        out.append(s)
    return np.sum((np.array(out) - x) ** 2)


def pct_change_where(x):
    prev = x[:-1]
    change = np.where(prev != 0, (x[1:] - prev) / np.where(prev != 0, prev, 1.0), 0.0)
    return np.sum(change ** 2)


def unique_values_weighted(x):
    u = np.unique(x)
    return np.sum(u * np.arange(1, u.size + 1))


def tax_brackets_select(income):
    edges = np.array([0.0, 10.0, 40.0, 90.0])
    rates = np.array([0.1, 0.2, 0.3, 0.45])
    tax = 0.0
    for i in range(len(edges)):
        upper = edges[i + 1] if i + 1 < len(edges) else np.inf
        taxed = np.clip(income - edges[i], 0.0, upper - edges[i])
        tax = tax + rates[i] * taxed
    return np.sum(tax)


def rolling_std_list(x, w=3):
    stds = [np.std(x[i:i + w]) for i in range(len(x) - w + 1)]
    return sum(stds) / len(stds)


def standardise_columns_ddof(X):
    Z = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    return np.sum(Z[:, 0] * Z[:, 1])


# ---- finance and engineering -----------------------------------------------------------------------


def amortization_interest(rate, principal=100.0, n=12):
    r = rate / 12
    payment = r * principal / (1 - (1 + r) ** -n)
    balance, paid = principal, 0.0
    for _ in range(n):
        interest = balance * r
        paid += interest
        balance = balance - (payment - interest)
    return paid


def irr_newton(cash, steps=6):
    r = 0.1
    t = np.arange(len(cash))
    for _ in range(steps):
        disc = (1 + r) ** -t
        npv = np.sum(cash * disc)
        dnpv = np.sum(-t * cash * disc / (1 + r))
        r = r - npv / dnpv
    return r


def bond_duration_convexity(y, coupon=0.05, n=8, face=100.0):
    t = np.arange(1, n + 1, dtype=float)
    cf = np.full(n, coupon * face)
    cf[-1] += face
    pv = cf / (1 + y) ** t
    price = pv.sum()
    duration = np.sum(t * pv) / price
    convexity = np.sum(t * (t + 1) * pv) / (price * (1 + y) ** 2)
    return duration + 0.1 * convexity


def black76_put(params, F=100.0, K=95.0, T=0.5, df=0.98):
    sigma = params["sigma"]
    d1 = (np.log(F / K) + 0.5 * sigma ** 2 * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    put = df * (K * scipy.stats.norm.cdf(-d2) - F * scipy.stats.norm.cdf(-d1))
    vega = df * F * scipy.stats.norm.pdf(d1) * np.sqrt(T)
    return put + 0.01 * vega


def bachelier_call(sigma, F, K, T=1.0):
    s = sigma * np.sqrt(T)
    d = (F - K) / s
    return np.sum((F - K) * scipy.special.ndtr(d) + s * np.exp(-0.5 * d * d) / np.sqrt(2 * np.pi))


def colebrook_friction(re, rel_rough=1e-4, tol=1e-10):
    f = 0.02
    err = 1.0
    while err > tol:
        new = (-2.0 * math.log10(rel_rough / 3.7 + 2.51 / (re * math.sqrt(f)))) ** -2
        err = abs(new - f)
        f = new
    return f


def cantilever_deflection(E, loads, positions, L=2.0, I=1e-4):
    total = 0.0
    for P, a in zip(loads, positions):
        total += P * a ** 2 * (3 * L - a) / (6 * E * I)
    return total


def van_der_waals_pressure(ab, V, T, R=8.314):
    a, b = ab
    return np.sum(R * T / (V - b) - a / V ** 2)


def kelly_log_growth(f, p=0.55, odds=1.0):
    return p * np.log1p(f * odds) + (1 - p) * np.log1p(-f)


def compound_until_target(rate, target=2.0):
    balance, years = 1.0, 0
    while balance < target:
        balance *= 1.0 + rate
        years += 1
    return balance * math.exp(-rate * years)


def rc_ladder_response(tau, t):
    v1 = 1.0 - np.exp(-t / tau[0])
    v2 = v1 - (tau[0] * np.exp(-t / tau[0]) - tau[0] * np.exp(-t / tau[1])) / (tau[0] - tau[1])
    return np.sum(v2 ** 2)


def resistor_network(r):
    parallel = 1.0 / (1.0 / r[1] + 1.0 / r[2] + 1.0 / r[3])
    total = r[0] + parallel
    current = 12.0 / total
    return current ** 2 * r[0]


def M(rng, *shape):
    return rng.normal(size=shape)


def _nan_data(r):
    X = M(r, 6, 3)
    X[1, 0] = X[4, 2] = np.nan
    return X


def _nan_x(r):
    x = M(r, 6)
    x[2] = np.nan
    return x


DATA13 = [
    ("w13_winsorize_percentile", winsorize_percentile, lambda r: (M(r, 20),), 0),
    ("w13_zscore_outlier_mask", zscore_outlier_mask, lambda r: (M(r, 12),), 0),
    ("w13_nan_fill_column_means", nan_fill_column_means, lambda r: (M(r, 3), _nan_data(r)), 0),
    ("w13_nan_fill_differentiated", nan_fill_differentiated, lambda r: (_nan_x(r),), 0),
    ("w13_sorted_trimmed_mean", sorted_trimmed_mean, lambda r: (M(r, 9),), 0),
    ("w13_unique_group_means", unique_group_means, lambda r: (M(r, 8), np.array([2, 0, 1, 0, 2, 2, 1, 0])), 0),
    ("w13_max_drawdown", max_drawdown, lambda r: (0.05 * M(r, 10),), 0),
    ("w13_histogram_weights", histogram_weights,
     lambda r: (r.uniform(0.5, 1.5, size=10), M(r, 10), np.linspace(-3.0, 3.0, 5)), 0),
    ("w13_soft_histogram_entropy", soft_histogram_entropy, lambda r: (M(r, 8),), 0),
    ("w13_moving_average_cumsum", moving_average_cumsum, lambda r: (M(r, 8),), 0),
    ("w13_min_max_scale", min_max_scale, lambda r: (M(r, 7),), 0),
    ("w13_robust_scale_iqr", robust_scale_iqr, lambda r: (M(r, 9),), 0),
    ("w13_log_returns_clipped_vol", log_returns_clipped_vol,
     lambda r: (100.0 * np.exp(np.cumsum(0.03 * M(r, 9))),), 0),
    ("w13_double_argsort_rank", double_argsort_rank, lambda r: (M(r, 7),), 0),
    ("w13_interp_resample", interp_resample,
     lambda r: (M(r, 6), np.linspace(0.0, 1.0, 6), r.uniform(0.05, 0.95, size=9)), 0),
    ("w13_interp_resample_query", interp_resample,
     lambda r: (M(r, 6), np.linspace(0.0, 1.0, 6), r.uniform(0.05, 0.95, size=9)), 2),
    ("w13_searchsorted_piecewise", searchsorted_piecewise,
     lambda r: (r.uniform(0.1, 2.9, size=7), np.array([0.0, 1.0, 2.0, 3.0]), M(r, 4)), 0),
    ("w13_searchsorted_piecewise_values", searchsorted_piecewise,
     lambda r: (r.uniform(0.1, 2.9, size=7), np.array([0.0, 1.0, 2.0, 3.0]), M(r, 4)), 2),
    ("w13_masked_row_means", masked_row_means, lambda r: (M(r, 4, 5), (M(r, 4, 5) > 0).astype(float)), 0),
    ("w13_ewma_adjust_false", ewma_adjust_false, lambda r: (M(r, 7),), 0),
    ("w13_pct_change_where", pct_change_where, lambda r: (np.array([1.0, 0.0, 2.0, 2.5, 0.0, 3.0]),), 0),
    ("w13_unique_values_weighted", unique_values_weighted, lambda r: (M(r, 6),), 0),
    ("w13_tax_brackets_select", tax_brackets_select, lambda r: (np.array([5.0, 25.0, 60.0, 120.0]),), 0),
    ("w13_rolling_std_list", rolling_std_list, lambda r: (M(r, 7),), 0),
    ("w13_standardise_columns_ddof", standardise_columns_ddof, lambda r: (M(r, 6, 2),), 0),
]

FINANCE13 = [
    ("w13_amortization_interest", amortization_interest, lambda r: (0.06,), 0),
    ("w13_irr_newton", irr_newton, lambda r: (np.array([-100.0, 30.0, 40.0, 50.0, 20.0]),), 0),
    ("w13_bond_duration_convexity", bond_duration_convexity, lambda r: (0.04,), 0),
    ("w13_black76_put_dict", black76_put, lambda r: ({"sigma": 0.25},), 0),
    ("w13_bachelier_call", bachelier_call, lambda r: (5.0, 100.0 + M(r, 4), 100.0), 0),
    ("w13_bachelier_call_forward", bachelier_call, lambda r: (5.0, 100.0 + M(r, 4), 100.0), 1),
    ("w13_colebrook_friction", colebrook_friction, lambda r: (1e5,), 0),
    ("w13_cantilever_deflection", cantilever_deflection,
     lambda r: (2e5, [1.0, 2.5, 0.7], [0.5, 1.2, 1.9]), 0),
    ("w13_van_der_waals", van_der_waals_pressure, lambda r: ((0.364, 4.27e-5), 1e-3 + 1e-4 * r.uniform(size=4),
                                                             300.0), 0),
    ("w13_kelly_log_growth", kelly_log_growth, lambda r: (0.1,), 0),
    ("w13_compound_until_target", compound_until_target, lambda r: (0.07,), 0),
    ("w13_rc_ladder_response", rc_ladder_response, lambda r: (np.array([1.0, 0.4]), np.linspace(0.1, 3, 6)), 0),
    ("w13_resistor_network", resistor_network, lambda r: (np.array([2.0, 3.0, 6.0, 4.0]),), 0),
]


def _all():
    from .redteam_wave13_geometry import GEOMETRY13
    from .redteam_wave13_library import LIBRARY13
    from .redteam_wave13_points import POINTS13
    return DATA13 + FINANCE13 + GEOMETRY13 + LIBRARY13 + POINTS13


WAVE13 = _all()
