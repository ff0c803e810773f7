"""Library functions grad refused after the red team's twelfth and thirteenth waves, each called several ways as
users call them: (1) ``np.fft.irfft`` of a real spectrum (zero padding with ``n=``, ``norm=``, along an axis) and of a
complex one (``np.fft.rfft`` cut, filtered or differentiated, then inverted),
(2) ``np.interp`` differentiated in its knots ``xp`` (a resampled polyline, a warped grid, an inverse cdf),
(3) ``np.histogram(data, bins, weights=w)`` in its weights (edges given or a range), (4) ``np.unique``'s
values in arithmetic, (5) ``scipy.linalg.expm`` (a rotation, a rate matrix's transition probabilities, a
linear ODE) and ``scipy.linalg.lu`` / ``lu_factor`` / ``lu_solve``, (6) ``scipy.stats.weibull_min`` (survival
likelihood, cdf fit, density in x) and (7) ``np.cov(..., rowvar=False)``. test_rules15.py runs every
transformation on them."""

import numpy as np
import scipy.linalg
import scipy.stats
from scipy.stats import weibull_min

# ---- 1. np.fft.irfft ----------------------------------------------------------------------------------


def irfft_zero_padded(c, n=10):  # the red team's: a spectrum written into a longer one
    spec = np.zeros(n // 2 + 1)
    spec[: len(c)] = c
    y = np.fft.irfft(spec, n=n)
    return np.sum(y ** 3)


def irfft_n_pads(c):  # n= pads the spectrum itself
    y = np.fft.irfft(c, n=16)
    return np.sum(np.tanh(y) * np.linspace(-1.0, 1.0, 16))


def irfft_ortho_energy(c):  # an orthonormal transform, n odd: the last term counts twice
    y = np.fft.irfft(c, n=9, norm="ortho")
    return np.sum(y ** 2) + y[0] * y[4]


def irfft_columns(C):  # several spectra, one per column
    Y = np.fft.irfft(C, n=8, axis=0)
    return np.sum(np.sin(Y)) + np.sum(Y[:, 0] * Y[:, 1])


def irfft_cut(c):  # a spectrum longer than n // 2 + 1: its tail is left out
    return np.sum(np.fft.irfft(c, n=6) ** 2 * np.arange(1.0, 7.0))


def hfft_of_half_spectrum(c):  # the Hermitian transform of a real half spectrum
    return np.sum(np.fft.hfft(c, 8) ** 2 * np.cos(np.arange(8.0)))


def irfft_length_of_the_input(x):  # n read from the argument
    y = np.fft.irfft(x, n=2 * len(x) - 1)
    return np.sum(y * y * y)


def lowpass_of_a_signal(x, keep=3):  # a complex spectrum cut, then inverted (the red team's, wave 10)
    X = np.fft.rfft(x)
    X[keep:] = 0.0
    smooth = np.fft.irfft(X, n=x.size)
    return np.sum((smooth - x) ** 2) + np.sum(smooth ** 4)


def round_trip(x):  # irfft(rfft(x)) is x
    y = np.fft.irfft(np.fft.rfft(x), n=len(x))
    return np.sum(y ** 3)


def spectral_derivative(x):  # d/dt of a periodic signal: the spectrum times i k
    X = np.fft.rfft(x)
    k = np.arange(X.size) * (2.0 * np.pi / x.size)
    dx = np.fft.irfft(1j * k * X, n=x.size)
    return np.sum(dx ** 2) + np.sum(dx * x)


def smoothed_in_frequency(x, width=0.5):  # a real filter applied to the spectrum
    X = np.fft.rfft(x)
    H = np.exp(-width * np.arange(X.size) ** 2)
    y = np.fft.irfft(X * H, n=x.size)
    return np.sum(np.tanh(y) * x)


# ---- 2. np.interp in its knots ------------------------------------------------------------------------


def polyline_resample(P, s_query):  # the red team's: arc length as the knots
    seg = np.sqrt(np.sum(np.diff(P, axis=0) ** 2, axis=1))
    s = np.concatenate([[0.0], np.cumsum(seg)])
    s = s / s[-1]
    xq = np.interp(s_query, s, P[:, 0])
    return s[-2] + np.sum(xq ** 2)


def warped_grid(theta, t):  # knots from positive increments, values fixed
    xp = np.cumsum(np.exp(theta))
    fp = np.sin(np.arange(len(theta)))
    return np.sum(np.interp(t, xp, fp) ** 2)


def inverse_cdf(logits, u):  # quantiles of a piecewise-linear cdf: its knots are the cdf values
    p = np.exp(logits) / np.sum(np.exp(logits))
    cdf = np.concatenate([[0.0], np.cumsum(p)])
    grid = np.linspace(0.0, 1.0, len(cdf))
    return np.sum(np.interp(u, cdf, grid))


def interp_all_three(x, xp, fp):  # every argument at once (differentiated in xp)
    return np.sum(np.interp(x, xp, fp) * x)


# ---- 3. np.histogram's weights ------------------------------------------------------------------------


def histogram_entropy(w, data, edges):  # the red team's
    counts, _ = np.histogram(data, bins=edges, weights=w)
    p = counts / counts.sum()
    return -np.sum(p * np.log(p + 1e-12))


def histogram_match(w, data):  # squared weights matched to a target histogram
    counts, edges = np.histogram(data, bins=np.linspace(-2.0, 2.0, 7), weights=w ** 2)
    target = np.exp(-0.5 * (0.5 * (edges[1:] + edges[:-1])) ** 2)
    return np.sum((counts - target) ** 2)


def histogram_range(logits, data):  # softmax weights, int bins over a fixed range
    w = np.exp(logits) / np.sum(np.exp(logits))
    counts = np.histogram(data, bins=4, range=(-2.0, 2.0), weights=w)[0]
    return np.sum(counts ** 2)


# ---- 4. np.unique's values ----------------------------------------------------------------------------


def unique_values_weighted(x):  # the red team's
    u = np.unique(x)
    return np.sum(u * np.arange(1, u.size + 1))


def unique_logsumexp(x):
    u = np.unique(x)
    return np.log(np.sum(np.exp(u)))


def unique_gaps(x):  # the gaps between sorted distinct values
    return np.sum(np.diff(np.unique(x)) ** 2)


def unique_of_a_matrix(X):  # flattened, as NumPy does
    u = np.unique(X)
    return np.sum(u[:3] ** 2) - u[-1]


# ---- 5. scipy.linalg.expm -----------------------------------------------------------------------------


def expm_rotation(theta):  # the red team's
    A = np.array([[0.0, -theta], [theta, 0.0]])
    return scipy.linalg.expm(A)[0, 1] + scipy.linalg.expm(0.5 * A)[0, 0]


def expm_transition(theta, t=0.7):  # a continuous-time Markov chain's transition probabilities
    R = np.exp(theta) * (1.0 - np.eye(3))
    Q = R - np.diag(np.sum(R, axis=1))
    P = scipy.linalg.expm(Q * t)
    return -np.log(P[0, 2]) - np.log(P[1, 1])


def expm_linear_ode(A, x0):  # x(1) of x' = A x
    x = scipy.linalg.expm(A) @ x0
    return np.sum(x ** 2)


def expm_trace_weighted(K, W):
    return np.trace(scipy.linalg.expm(0.3 * K) @ W)


# ---- 5b. scipy.linalg.lu, lu_factor, lu_solve ------------------------------------------------------


def lu_solve_once(A, b):  # the red team's
    lu, piv = scipy.linalg.lu_factor(A)
    return np.sum(scipy.linalg.lu_solve((lu, piv), b) ** 2)


def lu_factor_reused(A, b):  # one factorisation, two solves, and its diagonal
    lu, piv = scipy.linalg.lu_factor(A)
    x1 = scipy.linalg.lu_solve((lu, piv), b)
    x2 = scipy.linalg.lu_solve((lu, piv), x1)
    return np.sum(x2 ** 2) + np.sum(np.log(np.abs(np.diag(lu))))


def lu_factors_used(A):  # log |det| from U, and L itself
    P, L, U = scipy.linalg.lu(A)
    return np.sum(np.log(np.abs(np.diag(U)))) + np.sum(L ** 2) + np.sum(P * A)


def lu_solve_many(A, B):  # several right-hand sides (differentiated in them)
    factors = scipy.linalg.lu_factor(A)
    X = scipy.linalg.lu_solve(factors, B)
    return np.sum(np.sin(X))


# ---- 6. scipy.stats.weibull_min -----------------------------------------------------------------------


def weibull_survival(log_params, t, event):  # the red team's: censored survival times
    k, lam = np.exp(log_params)
    ll = event * scipy.stats.weibull_min.logpdf(t, k, scale=lam) \
        + (1 - event) * scipy.stats.weibull_min.logsf(t, k, scale=lam)
    return -np.sum(ll)


def weibull_cdf_fit(log_params, t):  # least squares against the empirical cdf
    k, lam = np.exp(log_params)
    empirical = (np.arange(1, t.size + 1) - 0.5) / t.size
    return np.sum((weibull_min.cdf(np.sort(t), k, scale=lam) - empirical) ** 2)


def weibull_density_in_x(t):  # the density and survival in the times themselves
    return np.sum(weibull_min.pdf(t, 1.7, scale=1.3)) + np.sum(weibull_min.sf(t, 1.7, loc=0.1, scale=1.3))


# ---- 7. np.cov(rowvar=False) --------------------------------------------------------------------------


def enkf_analysis(ens, y, perturb, r=0.2):  # the red team's: an ensemble Kalman update
    X = ens
    Hx = X[:, 0] + 0.5 * X[:, 1] ** 2
    C = np.cov(np.column_stack([X, Hx]), rowvar=False)
    Pxy, Pyy = C[:2, 2], C[2, 2] + r
    K = Pxy / Pyy
    Xa = X + np.outer(y + perturb - Hx, K)
    return np.sum(Xa.mean(axis=0) ** 2) + np.var(Xa[:, 0])


def cov_of_samples(X):  # samples in rows, as data frames hold them
    C = np.cov(X, rowvar=False)
    return np.sum(C ** 2) + np.linalg.slogdet(C + np.eye(3))[1]


def cov_of_stacked_columns(a, b):
    C = np.cov(np.column_stack([a, b ** 2, a * b]), rowvar=False, ddof=0)
    return C[0, 1] / np.sqrt(C[0, 0] * C[1, 1]) + C[2, 2]


def cov_of_one_variable(a, b):  # a 1-D join: one variable whatever rowvar says
    return np.cov(np.hstack([a, b * b]), rowvar=False) + np.var(a)


def cov_of_stacked_rows(a):  # two observations of five variables, joined as rows
    C = np.cov(np.vstack([np.sin(a), a * a]), rowvar=False, ddof=0)
    return np.sum(C * np.arange(25.0).reshape(5, 5))


def M(r, *shape):
    return r.normal(size=shape)


PROGRAMS = [
    ("irfft_zero_padded", irfft_zero_padded, lambda r: (M(r, 4),), 0),
    ("irfft_n_pads", irfft_n_pads, lambda r: (M(r, 5),), 0),
    ("irfft_ortho_energy", irfft_ortho_energy, lambda r: (M(r, 5),), 0),
    ("irfft_columns", irfft_columns, lambda r: (M(r, 5, 2),), 0),
    ("irfft_cut", irfft_cut, lambda r: (M(r, 6),), 0),
    ("hfft_of_half_spectrum", hfft_of_half_spectrum, lambda r: (M(r, 5),), 0),
    ("irfft_length_of_the_input", irfft_length_of_the_input, lambda r: (M(r, 4),), 0),
    ("lowpass_of_a_signal", lowpass_of_a_signal, lambda r: (M(r, 8),), 0),
    ("lowpass_odd_length", lowpass_of_a_signal, lambda r: (M(r, 9), 2), 0),
    ("round_trip", round_trip, lambda r: (M(r, 6),), 0),
    ("spectral_derivative", spectral_derivative, lambda r: (M(r, 8),), 0),
    ("smoothed_in_frequency", smoothed_in_frequency, lambda r: (M(r, 7),), 0),
    ("polyline_resample", polyline_resample,
     lambda r: (np.cumsum(np.abs(r.normal(size=(5, 2))), axis=0), r.uniform(0.05, 0.95, size=4)), 0),
    ("warped_grid", warped_grid, lambda r: (0.3 * M(r, 5), r.uniform(1.2, 4.5, size=6)), 0),
    ("inverse_cdf", inverse_cdf, lambda r: (0.5 * M(r, 4), r.uniform(0.02, 0.98, size=5)), 0),
    ("interp_all_three", interp_all_three,
     lambda r: (r.uniform(0.3, 2.7, size=5), np.array([0.0, 0.9, 1.6, 3.0]), M(r, 4)), 1),
    ("histogram_entropy", histogram_entropy,
     lambda r: (r.uniform(0.5, 1.5, size=10), M(r, 10), np.linspace(-3.0, 3.0, 5)), 0),
    ("histogram_match", histogram_match, lambda r: (M(r, 12), M(r, 12)), 0),
    ("histogram_range", histogram_range, lambda r: (M(r, 9), 1.5 * M(r, 9)), 0),
    ("unique_values_weighted", unique_values_weighted, lambda r: (M(r, 6),), 0),
    ("unique_logsumexp", unique_logsumexp, lambda r: (M(r, 7),), 0),
    ("unique_gaps", unique_gaps, lambda r: (M(r, 6),), 0),
    ("unique_of_a_matrix", unique_of_a_matrix, lambda r: (M(r, 3, 2),), 0),
    ("expm_rotation", expm_rotation, lambda r: (0.4,), 0),
    ("expm_transition", expm_transition, lambda r: (0.4 * M(r, 3, 3),), 0),
    ("expm_linear_ode", expm_linear_ode, lambda r: (0.5 * M(r, 3, 3), M(r, 3)), 0),
    ("expm_trace_weighted", expm_trace_weighted, lambda r: (M(r, 3, 3), M(r, 3, 3)), 0),
    ("lu_solve_once", lu_solve_once, lambda r: (M(r, 3, 3) + 3 * np.eye(3), M(r, 3)), 0),
    ("lu_solve_pivoted", lu_solve_once, lambda r: (M(r, 4, 4), M(r, 4)), 0),
    ("lu_factor_reused", lu_factor_reused, lambda r: (M(r, 3, 3) + 2 * np.eye(3), M(r, 3)), 0),
    ("lu_factors_used", lu_factors_used, lambda r: (M(r, 3, 3),), 0),
    ("lu_solve_many", lu_solve_many, lambda r: (M(r, 3, 3) + 2 * np.eye(3), M(r, 3, 2)), 1),
    ("weibull_survival", weibull_survival,
     lambda r: (np.array([0.3, 0.5]), np.array([0.5, 1.2, 2.0, 3.1, 0.7]), np.array([1.0, 1, 0, 1, 0])), 0),
    ("weibull_cdf_fit", weibull_cdf_fit, lambda r: (0.2 * M(r, 2), r.uniform(0.2, 3.0, size=8)), 0),
    ("weibull_density_in_x", weibull_density_in_x, lambda r: (r.uniform(0.3, 2.5, size=5),), 0),
    ("enkf_analysis", enkf_analysis, lambda r: (M(r, 6, 2), 0.7, 0.3 * M(r, 6)), 0),
    ("cov_of_samples", cov_of_samples, lambda r: (M(r, 7, 3),), 0),
    ("cov_of_stacked_columns", cov_of_stacked_columns, lambda r: (M(r, 6), M(r, 6)), 0),
    ("cov_of_one_variable", cov_of_one_variable, lambda r: (M(r, 4), M(r, 3)), 1),
    ("cov_of_stacked_rows", cov_of_stacked_rows, lambda r: (M(r, 5),), 0),
]
