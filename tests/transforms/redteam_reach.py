"""The red team of issue 25: statistics, signal-processing and geometry code written the way
scientists write it (GLM likelihoods, mixtures, priors, KDEs, covariance; FIR filters,
cumsum averages, finite differences, interpolation, autocorrelation; distances, angles,
shoelace areas, rotations, procrustes, curvature, norms).

`REACH` holds ``(name, function, make, wrt)`` at smooth points, as redteam_wave3.WAVE3 does
(redteam_programs.PROGRAMS includes it, so the transformation matrix runs them);
test_redteam_reach.py checks each against float64 central differences, or its refusal.
"""

from __future__ import annotations

import numpy as np
import scipy.signal
import scipy.stats
from scipy.special import betaln, digamma, gammaln, logsumexp

# ---- statistics ---------------------------------------------------------------------------------


def poisson_glm_nll(beta, X, y):
    eta = X @ beta
    return np.sum(np.exp(eta) - y * eta + gammaln(y + 1.0))


def negbin_glm_nll(beta, log_alpha, X, y):
    mu = np.exp(X @ beta)
    r = np.exp(-log_alpha)
    ll = (gammaln(y + r) - gammaln(r) - gammaln(y + 1.0)
          + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu)))
    return -np.sum(ll)


def student_t_regression(beta, X, y, nu=4.0, sigma=1.3):
    resid = (y - X @ beta) / sigma
    ll = (gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi) - np.log(sigma)
          - (nu + 1) / 2 * np.log1p(resid ** 2 / nu))
    return -ll.sum()


def beta_regression_nll(beta, X, y, phi=5.0):
    mu = 1.0 / (1.0 + np.exp(-(X @ beta)))
    a = mu * phi
    b = (1.0 - mu) * phi
    ll = -betaln(a, b) + (a - 1) * np.log(y) + (b - 1) * np.log1p(-y)
    return -np.sum(ll)


def gaussian_mixture_nll(means, x, log_w, sigma=0.8):
    d = x[:, None] - means[None, :]
    comp = log_w[None, :] - 0.5 * (d / sigma) ** 2 - np.log(sigma * np.sqrt(2 * np.pi))
    return -np.sum(logsumexp(comp, axis=1))


def log_posterior_normal(theta, x):
    mu, log_sigma = theta[0], theta[1]
    sigma = np.exp(log_sigma)
    loglik = np.sum(-0.5 * ((x - mu) / sigma) ** 2 - log_sigma - 0.5 * np.log(2 * np.pi))
    logprior = -0.5 * mu ** 2 / 100.0 + (2.0 - 1.0) * log_sigma - sigma  # N(0, 10) and Gamma(2, 1) on sigma
    return loglik + logprior + log_sigma  # log-Jacobian of sigma = exp(log_sigma)


def huber_regression(beta, X, y, delta=1.0):
    r = y - X @ beta
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def tukey_biweight(beta, X, y, c=4.685):
    r = (y - X @ beta) / c
    inside = np.abs(r) < 1.0
    rho = np.where(inside, 1.0 - (1.0 - r ** 2) ** 3, 1.0)
    return np.sum(rho) * c ** 2 / 6.0


def kde_log_likelihood(log_h, data, query):
    h = np.exp(log_h)
    diffs = (query[:, None] - data[None, :]) / h
    dens = np.exp(-0.5 * diffs ** 2).sum(axis=1) / (len(data) * h * np.sqrt(2 * np.pi))
    return np.sum(np.log(dens))


def gaussian_loglik_cov(X):
    S = np.cov(X, rowvar=False) + 0.1 * np.eye(X.shape[1])
    sign, logdet = np.linalg.slogdet(S)
    m = X.mean(axis=0)
    quad = np.sum((X - m) * np.linalg.solve(S, (X - m).T).T)
    return -0.5 * (X.shape[0] * logdet + quad)


def graphical_lasso_objective(Theta, S, lam=0.1):
    sign, logdet = np.linalg.slogdet(Theta)
    return -logdet + np.trace(S @ Theta) + lam * np.sum(np.sqrt(Theta ** 2 + 1e-8))


def norm_logpdf_params(params, x):
    loc, log_scale = params
    return np.sum(scipy.stats.norm.logpdf(x, loc=loc, scale=np.exp(log_scale)))


def gamma_logpdf_shape(a, x):
    return np.sum(scipy.stats.gamma.logpdf(x, a, scale=2.0))


def dirichlet_multinomial(alpha, counts):
    n = counts.sum()
    a0 = alpha.sum()
    return gammaln(a0) - gammaln(n + a0) + np.sum(gammaln(counts + alpha) - gammaln(alpha))


def decorrelation_penalty(W, X):
    # whitening-style penalty on the off-diagonal correlations of the features X @ W
    C = np.corrcoef(X @ W, rowvar=False)
    iu = np.triu_indices(C.shape[0], k=1)
    return np.sum(C[iu] ** 2)


def digamma_score(a, x):
    # score of the gamma shape by hand (method of moments people use digamma directly)
    return np.sum((np.log(x) - digamma(a)) ** 2)


# ---- signal processing --------------------------------------------------------------------------


def fir_filter_energy(h, x):
    y = np.convolve(x, h, mode="valid")
    return np.sum(y ** 2)


def scipy_convolve_smooth(x, k):
    y = scipy.signal.convolve(x, k, mode="same")
    return np.sum((y - x) ** 2)


def hann_spectrum_power(x):
    n = len(x)
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / (n - 1))
    xw = x * w
    t = np.arange(n)
    k = np.arange(n // 2)[:, None]
    re = np.sum(xw * np.cos(2 * np.pi * k * t / n), axis=1)
    im = -np.sum(xw * np.sin(2 * np.pi * k * t / n), axis=1)
    return np.sum(np.log(re ** 2 + im ** 2 + 1e-3))


def rfft_power(x):
    spec = np.fft.rfft(x)
    return np.sum(np.abs(spec) ** 2)


def moving_average_cumsum(x, w=3):
    c = np.cumsum(np.insert(x, 0, 0.0))
    ma = (c[w:] - c[:-w]) / w
    return np.sum(ma ** 3)


def total_variation_smooth(x, y, lam=0.5):
    return np.sum((x - y) ** 2) + lam * np.sum(np.sqrt(np.diff(x) ** 2 + 1e-6))


def second_difference_penalty(x, y, lam=2.0):
    d2 = np.diff(x, n=2)
    return np.sum((x - y) ** 2) + lam * np.dot(d2, d2)


def gradient_energy(f, dx=0.1):
    g = np.gradient(f, dx)
    return np.sum(g ** 2) * dx


def interp_resample(y, xs):
    grid = np.linspace(0.0, 1.0, len(y))
    return np.sum(np.interp(xs, grid, y) ** 2)


def interp_query_points(xs, y):
    grid = np.linspace(0.0, 1.0, len(y))
    return np.sum(np.sin(np.interp(xs, grid, y)))


def autocorrelation_lag1(x):
    x0 = x - x.mean()
    ac = np.correlate(x0, x0, mode="full")
    ac = ac[len(x) - 1:]
    return ac[1] / ac[0]


def padded_smoothing(x):
    xp = np.pad(x, 2, mode="edge")
    y = (xp[:-4] + 2 * xp[1:-3] + 3 * xp[2:-2] + 2 * xp[3:-1] + xp[4:]) / 9.0
    return np.sum((y - x) ** 2)


def circular_shift_loss(x):
    return np.sum((x - np.roll(x, 1)) ** 2) + np.sum(x * np.roll(x, -2))


def savgol_like(x):
    kernel = np.array([-3.0, 12.0, 17.0, 12.0, -3.0]) / 35.0
    y = np.convolve(x, kernel, mode="same")
    return np.sum(np.tanh(y))


def iir_first_order(a, x):
    y = np.zeros_like(x)
    prev = 0.0
    for i in range(len(x)):
        prev = a * prev + (1.0 - a) * x[i]
        y[i] = prev
    return np.sum((y - x) ** 2)


# ---- geometry -----------------------------------------------------------------------------------


def pairwise_distance_stress(P, D):
    diff = P[:, None, :] - P[None, :, :]
    dist = np.sqrt(np.sum(diff ** 2, axis=-1) + 1e-12)
    iu = np.triu_indices(P.shape[0], k=1)
    return np.sum((dist[iu] - D[iu]) ** 2)


def angle_between(u, v):
    c = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
    return np.arccos(np.clip(c, -1.0, 1.0))


def heading_angles(p):
    d = np.diff(p, axis=0)
    theta = np.arctan2(d[:, 1], d[:, 0])
    return np.sum(np.diff(theta) ** 2)


def triangle_mesh_area(V, F):
    a = V[F[:, 1]] - V[F[:, 0]]
    b = V[F[:, 2]] - V[F[:, 0]]
    n = np.cross(a, b)
    return 0.5 * np.sum(np.linalg.norm(n, axis=1))


def shoelace_area(xy):
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def rotate_and_fit(theta, P, Q):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s], [s, c]])
    return np.sum((P @ R.T - Q) ** 2)


def quaternion_matrix_rotate(q, v):
    q = q / np.linalg.norm(q)
    w, x, y, z = q
    R = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
    return np.sum((v @ R.T) ** 2 * np.array([1.0, 2.0, 3.0]))


def procrustes_residual(A, B):
    U, s, Vt = np.linalg.svd(A.T @ B)
    R = U @ Vt
    return np.sum((A @ R - B) ** 2)


def point_plane_distance(n, pts, d=0.3):
    unit = n / np.linalg.norm(n)
    return np.sum((pts @ unit - d) ** 2)


def curve_curvature(t, ys):
    dx = np.gradient(t)
    dy = np.gradient(ys)
    ddx = np.gradient(dx)
    ddy = np.gradient(dy)
    k = np.abs(dx * ddy - dy * ddx) / (dx ** 2 + dy ** 2) ** 1.5
    return np.sum(k ** 2)


def norms_of_every_kind(x):
    M = x.reshape(3, 3)
    return (np.linalg.norm(x, 1) + np.linalg.norm(x, 3) + np.linalg.norm(x, np.inf)
            + np.linalg.norm(M, "fro") + np.linalg.norm(M, 2) + np.linalg.norm(M, "nuc"))


def polyline_length(p):
    seg = np.diff(p, axis=0)
    return np.sum(np.hypot(seg[:, 0], seg[:, 1]))


def dihedral_angle(p):
    b0 = p[0] - p[1]
    b1 = p[2] - p[1]
    b2 = p[3] - p[2]
    b1n = b1 / np.linalg.norm(b1)
    v = b0 - np.dot(b0, b1n) * b1n
    w = b2 - np.dot(b2, b1n) * b1n
    x = np.dot(v, w)
    y = np.dot(np.cross(b1n, v), w)
    return np.arctan2(y, x)


def sphere_fit(center, pts, r=1.0):
    return np.sum((np.linalg.norm(pts - center, axis=1) - r) ** 2)


def triangle_angles_sum(V):
    a, b, c = V[0], V[1], V[2]
    ab, ac, bc = b - a, c - a, c - b
    ang_a = np.arccos(np.dot(ab, ac) / (np.linalg.norm(ab) * np.linalg.norm(ac)))
    ang_b = np.arccos(np.dot(-ab, bc) / (np.linalg.norm(ab) * np.linalg.norm(bc)))
    return ang_a ** 2 + ang_b ** 2 + np.linalg.norm(np.cross(ab, ac))


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


def _spd(rng, n):
    A = rng.normal(size=(n, n))
    return A @ A.T / n + np.eye(n)


MESH_F = np.array([[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]])
SQUARE = np.array([[0.0, 0.0], [1.0, 0.1], [1.1, 1.0], [0.1, 0.9], [-0.3, 0.5]])

STATISTICS = [
    ("poisson_glm_nll", poisson_glm_nll, lambda r: (0.3 * M(r, 3), M(r, 6, 3), np.array([0., 1, 3, 2, 0, 4])), 0),
    ("negbin_glm_nll", negbin_glm_nll, lambda r: (0.3 * M(r, 3), -0.5, M(r, 6, 3), np.array([0., 1, 3, 2, 0, 4])), 0),
    ("negbin_glm_alpha", negbin_glm_nll, lambda r: (0.3 * M(r, 3), -0.5, M(r, 6, 3), np.array([0., 1, 3, 2, 0, 4])), 1),
    ("student_t_regression", student_t_regression, lambda r: (M(r, 2), M(r, 7, 2), M(r, 7)), 0),
    ("beta_regression_nll", beta_regression_nll, lambda r: (0.4 * M(r, 2), M(r, 6, 2), P(r, 6)), 0),
    ("gaussian_mixture_nll", gaussian_mixture_nll, lambda r: (M(r, 3), M(r, 8), np.log(np.array([.2, .3, .5]))), 0),
    ("log_posterior_normal", log_posterior_normal, lambda r: (np.array([0.2, -0.1]), M(r, 9)), 0),
    ("huber_regression", huber_regression, lambda r: (M(r, 3), M(r, 8, 3), 2 * M(r, 8)), 0),
    ("tukey_biweight", tukey_biweight, lambda r: (M(r, 2), M(r, 8, 2), 3 * M(r, 8)), 0),
    ("kde_log_likelihood", kde_log_likelihood, lambda r: (-0.7, M(r, 10), M(r, 4)), 0),
    ("gaussian_loglik_cov", gaussian_loglik_cov, lambda r: (M(r, 6, 3),), 0),
    ("graphical_lasso_objective", graphical_lasso_objective, lambda r: (_spd(r, 3), _spd(r, 3)), 0),
    ("norm_logpdf_params", norm_logpdf_params, lambda r: (np.array([0.3, -0.2]), M(r, 6)), 0),
    ("gamma_logpdf_shape", gamma_logpdf_shape, lambda r: (1.7, 1.0 + P(r, 5)), 0),
    ("dirichlet_multinomial", dirichlet_multinomial, lambda r: (1.0 + P(r, 4), np.array([3.0, 0.0, 5.0, 2.0])), 0),
    ("decorrelation_penalty", decorrelation_penalty, lambda r: (M(r, 2, 3), M(r, 7, 2)), 0),
    ("digamma_score", digamma_score, lambda r: (2.3, 1.0 + P(r, 5)), 0),
]

SIGNAL = [
    ("fir_filter_energy", fir_filter_energy, lambda r: (M(r, 4), M(r, 12)), 0),
    ("fir_filter_energy_x", fir_filter_energy, lambda r: (M(r, 4), M(r, 12)), 1),
    ("scipy_convolve_smooth", scipy_convolve_smooth, lambda r: (M(r, 10), np.array([0.25, 0.5, 0.25])), 0),
    ("hann_spectrum_power", hann_spectrum_power, lambda r: (M(r, 8),), 0),
    ("rfft_power", rfft_power, lambda r: (M(r, 8),), 0),
    ("moving_average_cumsum", moving_average_cumsum, lambda r: (M(r, 9),), 0),
    ("total_variation_smooth", total_variation_smooth, lambda r: (M(r, 8), M(r, 8)), 0),
    ("second_difference_penalty", second_difference_penalty, lambda r: (M(r, 8), M(r, 8)), 0),
    ("gradient_energy", gradient_energy, lambda r: (M(r, 9),), 0),
    ("interp_resample", interp_resample, lambda r: (M(r, 6), np.array([0.05, 0.33, 0.51, 0.77, 0.93])), 0),
    ("interp_query_points", interp_query_points, lambda r: (np.array([0.05, 0.33, 0.51, 0.77, 0.93]), M(r, 6)), 0),
    ("autocorrelation_lag1", autocorrelation_lag1, lambda r: (M(r, 10),), 0),
    ("padded_smoothing", padded_smoothing, lambda r: (M(r, 9),), 0),
    ("circular_shift_loss", circular_shift_loss, lambda r: (M(r, 7),), 0),
    ("savgol_like", savgol_like, lambda r: (M(r, 9),), 0),
    ("iir_first_order", iir_first_order, lambda r: (0.6, M(r, 8)), 0),
]

GEOMETRY = [
    ("pairwise_distance_stress", pairwise_distance_stress, lambda r: (M(r, 4, 2), 1.0 + P(r, 4, 4)), 0),
    ("angle_between_arccos", angle_between, lambda r: (M(r, 3), M(r, 3)), 0),
    ("heading_angles", heading_angles, lambda r: (np.cumsum(1.0 + P(r, 6, 2), axis=0),), 0),
    ("triangle_mesh_area", triangle_mesh_area, lambda r: (np.eye(4, 3) + 0.1 * M(r, 4, 3), MESH_F), 0),
    ("shoelace_area", shoelace_area, lambda r: (SQUARE + 0.05 * M(r, 5, 2),), 0),
    ("rotate_and_fit", rotate_and_fit, lambda r: (0.4, M(r, 5, 2), M(r, 5, 2)), 0),
    ("quaternion_matrix_rotate", quaternion_matrix_rotate, lambda r: (M(r, 4), M(r, 5, 3)), 0),
    ("procrustes_residual", procrustes_residual, lambda r: (M(r, 5, 3), M(r, 5, 3)), 0),
    ("point_plane_distance", point_plane_distance, lambda r: (M(r, 3), M(r, 6, 3)), 0),
    ("curve_curvature", curve_curvature, lambda r: (np.cumsum(1.0 + P(r, 8)), M(r, 8)), 1),
    ("norms_of_every_kind", norms_of_every_kind, lambda r: (M(r, 9),), 0),
    ("polyline_length", polyline_length, lambda r: (M(r, 6, 2),), 0),
    ("dihedral_angle", dihedral_angle, lambda r: (M(r, 4, 3),), 0),
    ("sphere_fit", sphere_fit, lambda r: (0.1 * M(r, 3), M(r, 7, 3)), 0),
    ("triangle_angles_sum", triangle_angles_sum, lambda r: (np.eye(3) + 0.1 * M(r, 3, 3),), 0),
]

REACH = STATISTICS + SIGNAL + GEOMETRY
