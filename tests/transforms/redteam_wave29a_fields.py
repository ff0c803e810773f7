"""The red team's wave 29a, transport and fields: Sinkhorn in the log domain with the logsumexp
written out, Gaussian-process kernels, Cholesky solves and marginal likelihoods, kriging and
variograms, hydrology (reservoirs, unit hydrographs, infiltration), acoustics (room modes, delays,
sabine reverberation) (test_redteam_wave29a.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave29a_robotics import F, M


def logsumexp_rows(Z):
    m = np.max(Z, axis=1, keepdims=True)
    return (m + np.log(np.sum(np.exp(Z - m), axis=1, keepdims=True)))[:, 0]


def logsumexp_cols(Z):
    m = Z.max(axis=0)
    return m + np.log(np.exp(Z - m).sum(axis=0))


def sinkhorn_log(x, y, eps=0.1, iters=30):
    """Entropic OT between two point clouds with uniform weights, potentials in the log domain."""
    C = np.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1)
    n, m = C.shape
    log_a, log_b = np.full(n, -np.log(n)), np.full(m, -np.log(m))
    f, g = np.zeros(n), np.zeros(m)
    for _ in range(iters):
        f = -eps * logsumexp_rows((g[None, :] - C) / eps + log_b[None, :])
        g = -eps * logsumexp_cols((f[:, None] - C) / eps + log_a[:, None])
    return np.mean(f) + np.mean(g)


def sinkhorn_plan_cost(w, eps=0.2):
    """OT cost with source weights from logits; the plan formed explicitly, a while loop on the marginal."""
    a = np.exp(w) / np.sum(np.exp(w))
    xs = np.linspace(0.0, 1.0, a.shape[0])
    ys = np.array([0.2, 0.5, 0.9])
    b = np.array([0.3, 0.3, 0.4])
    C = (xs[:, None] - ys[None, :]) ** 2
    K = np.exp(-C / eps)
    u, v = np.ones_like(a), np.ones_like(b)
    err, it = 1.0, 0
    while err > 1e-10 and it < 500:
        u = a / (K @ v)
        v = b / (K.T @ u)
        err = np.sum(np.abs(u * (K @ v) - a))
        it += 1
    plan = u[:, None] * K * v[None, :]
    return np.sum(plan * C)


def wasserstein_1d_sorted(x, y=np.array([0.1, 0.4, 0.45, 0.9, 1.3])):  # noqa: B008
    return np.mean((np.sort(x) - np.sort(y)) ** 2)


def rbf_kernel(X1, X2, ls, var):
    d2 = np.sum(X1**2, 1)[:, None] + np.sum(X2**2, 1)[None, :] - 2 * X1 @ X2.T
    return var * np.exp(-0.5 * d2 / ls**2)


def gp_lml_cholesky(log_theta, X, y):
    ls, var, noise = np.exp(log_theta)
    K = rbf_kernel(X, X, ls, var) + noise * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * math.log(2 * math.pi)


def gp_lml_loops(theta, X, y):
    """The kernel matrix by a double loop over points, the determinant by np.linalg.det."""
    n = X.shape[0]
    K = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            r = np.linalg.norm(X[i] - X[j])
            K[i, j] = theta[0] * (1.0 + math.sqrt(3) * r / theta[1]) * np.exp(-math.sqrt(3) * r / theta[1])
    K = K + 0.1 * np.eye(n)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * np.log(np.linalg.det(K))


def gp_posterior_mean_at(Xs, X, y):
    """The posterior mean as a function of the test inputs (Bayesian optimisation's acquisition)."""
    K = rbf_kernel(X, X, 0.7, 1.0) + 1e-2 * np.eye(X.shape[0])
    Ks = rbf_kernel(Xs, X, 0.7, 1.0)
    mu = Ks @ np.linalg.solve(K, y)
    var = 1.0 - np.sum(Ks * np.linalg.solve(K, Ks.T).T, axis=1)
    return np.sum(mu - 2.0 * np.sqrt(np.maximum(var, 1e-12)))


def gp_periodic_kernel(params, t=np.linspace(0.0, 3.0, 7), y=np.sin(np.linspace(0.0, 3.0, 7) * 2.0)):  # noqa: B008
    period, ls = params
    d = np.abs(t[:, None] - t[None, :])
    K = np.exp(-2.0 * np.sin(np.pi * d / period) ** 2 / ls**2) + 0.05 * np.eye(len(t))
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.inv(K) @ y + 0.5 * logdet


def ard_kernel_lml(log_ls, X, y):
    Xs = X / np.exp(log_ls)
    diff = Xs[:, None, :] - Xs[None, :, :]
    K = np.exp(-0.5 * np.einsum("ijk,ijk->ij", diff, diff)) + 0.1 * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    z = np.linalg.solve(L, y)
    return 0.5 * z @ z + np.log(np.diag(L)).sum()


def variogram_fit(params, h=np.array([0.5, 1.0, 1.5, 2.0, 3.0, 4.0]),  # noqa: B008
                  gamma=np.array([0.21, 0.38, 0.5, 0.58, 0.66, 0.69])):  # noqa: B008
    """Spherical-like (exponential) variogram fitted by weighted least squares."""
    nugget, sill, rng = params
    model = nugget + sill * (1.0 - np.exp(-3.0 * h / rng))
    return np.sum((model - gamma) ** 2 / model**2)


def empirical_variogram(z, coords=np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.5]])):  # noqa: B008
    n = len(z)
    bins = {}
    for i in range(n):
        for j in range(i + 1, n):
            h = round(float(np.linalg.norm(coords[i] - coords[j])), 1)
            bins.setdefault(h, []).append(0.5 * (z[i] - z[j]) ** 2)
    return sum(np.mean(v) * k for k, v in sorted(bins.items()))


def ordinary_kriging(z, x0=np.array([0.5, 0.4]), coords=np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])):  # noqa: B008
    """The kriging system with a Lagrange multiplier, assembled by slices and solved."""
    n = len(z)
    d = np.linalg.norm(coords[:, None] - coords[None], axis=-1)
    A = np.ones((n + 1, n + 1))
    A[:n, :n] = 1.0 - np.exp(-d / 0.8)
    A[n, n] = 0.0
    b = np.ones(n + 1)
    b[:n] = 1.0 - np.exp(-np.linalg.norm(coords - x0, axis=1) / 0.8)
    w = np.linalg.solve(A, b)
    est = w[:n] @ z
    return est**2 + w[n] * np.sum(z)


def idw_interpolation(z, p=2.0):
    coords = np.array([[0.0, 0.0], [1.0, 0.2], [0.3, 1.0], [1.2, 1.1]])
    grid = np.array([[0.5, 0.5], [0.2, 0.8], [0.9, 0.3]])
    d = np.sqrt(((grid[:, None, :] - coords[None, :, :]) ** 2).sum(-1))
    w = 1.0 / d**p
    est = (w @ z) / w.sum(axis=1)
    return np.sum(est**2)


def linear_reservoir(k, rain=np.array([0.0, 5.0, 12.0, 8.0, 2.0, 0.0, 0.0, 1.0, 0.0, 0.0])):  # noqa: B008
    """Storage routed by dS/dt = P - S/k, outflow compared with a hydrograph."""
    S = 0.0
    Q = []
    for p in rain:
        q = S / k
        S = S + p - q
        Q.append(q)
    obs = np.array([0.0, 0.0, 1.2, 3.0, 3.8, 3.4, 2.6, 2.0, 1.7, 1.3])
    return np.sum((np.array(Q) - obs) ** 2)


def nash_cascade(params, rain=np.array([0.0, 10.0, 20.0, 5.0, 0.0, 0.0, 0.0, 0.0])):  # noqa: B008
    """n linear reservoirs in series, storages updated in place in a copy."""
    k = params[0]
    S = np.zeros(3)
    out = []
    for p in rain:
        S2 = S.copy()
        inflow = p
        for i in range(3):
            q = S2[i] / k
            S2[i] += inflow - q
            inflow = q
        S = S2
        out.append(inflow)
    return np.sum(np.array(out) ** 2) * params[1]


def unit_hydrograph(uh, rain=np.array([2.0, 6.0, 3.0, 0.0, 1.0])):  # noqa: B008
    """Convolution of effective rain with a unit hydrograph by np.convolve, normalised."""
    uh = np.exp(uh) / np.sum(np.exp(uh))
    q = np.convolve(rain, uh)
    obs = np.array([0.4, 2.0, 3.5, 2.8, 1.5, 0.9, 0.4, 0.2])
    return np.sum((q[: len(obs)] - obs) ** 2)


def green_ampt_infiltration(Ks, psi=0.1, dtheta=0.3, dt=0.1, steps=20):
    F_cum = 1e-3
    rates = []
    for _ in range(steps):
        f = Ks * (1.0 + psi * dtheta / F_cum)
        F_cum = F_cum + f * dt
        rates.append(f)
    return F_cum + 0.01 * sum(rates)


def manning_flow(n_rough, depth=np.array([0.5, 1.0, 1.5]), width=4.0, slope=0.001):  # noqa: B008
    area = width * depth
    perim = width + 2.0 * depth
    R = area / perim
    Q = area * R ** (2.0 / 3.0) * math.sqrt(slope) / n_rough
    return np.sum((Q - np.array([1.5, 4.5, 8.3])) ** 2)


def muskingum_routing(params, inflow=np.array([10.0, 20.0, 50.0, 60.0, 55.0, 45.0, 35.0, 27.0, 20.0, 15.0])):  # noqa: B008
    K, X = params
    dt = 1.0
    den = 2 * K * (1 - X) + dt
    c0 = (dt - 2 * K * X) / den
    c1 = (dt + 2 * K * X) / den
    c2 = (2 * K * (1 - X) - dt) / den
    out = np.zeros_like(inflow)
    out[0] = inflow[0]
    for t in range(1, len(inflow)):
        out[t] = c0 * inflow[t] + c1 * inflow[t - 1] + c2 * out[t - 1]
    return np.sum((out - np.roll(inflow, 1)) ** 2)


def sabine_reverb(absorb, areas=np.array([40.0, 40.0, 30.0, 30.0, 20.0, 20.0]), V=120.0):  # noqa: B008
    A = np.sum(areas * absorb)
    T60 = 0.161 * V / A
    eyring = 0.161 * V / (-np.sum(areas) * np.log(1.0 - A / np.sum(areas)))
    return (T60 - 0.6) ** 2 + (eyring - 0.5) ** 2


def room_modes(dims, c=343.0):
    """Axial and tangential modes of a box room, a list of frequencies by nested loops."""
    freqs = []
    for nx in range(3):
        for ny in range(3):
            for nz in range(2):
                if nx + ny + nz == 0:
                    continue
                freqs.append(0.5 * c * math.sqrt((nx / dims[0]) ** 2 + (ny / dims[1]) ** 2 + (nz / dims[2]) ** 2))
    f = np.array(freqs)
    return np.sum(np.exp(-((f - 60.0) / 10.0) ** 2))


def delay_and_sum(delays, t=np.linspace(0.0, 0.01, 50), f0=440.0):  # noqa: B008
    """A beamformer: each microphone's signal shifted by its steering delay, in units of 0.1 ms."""
    true = np.array([0.0, 2.0e-4, 4.0e-4, 6.0e-4])
    out = np.zeros_like(t)
    for k in range(4):
        out += np.sin(2 * np.pi * f0 * (t - true[k] + 1e-4 * delays[k]))
    return -np.mean(out**2)


def spherical_spreading(src, mics=np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]]),  # noqa: B008
                        levels=np.array([80.0, 74.0, 75.0, 71.0])):  # noqa: B008
    r = np.linalg.norm(mics - src, axis=1)
    pred = 90.0 - 20.0 * np.log10(r)
    return np.sum((pred - levels) ** 2)


def helmholtz_resonator(params, c=343.0):
    neck_area, neck_len, volume = params
    f = c / (2 * np.pi) * np.sqrt(neck_area / (volume * (neck_len + 1.7 * np.sqrt(neck_area / np.pi))))
    return (f - 120.0) ** 2


def sinkhorn_f32(x):
    y = np.linspace(0.0, 1.0, 4).astype(np.float32)
    C = (x[:, None] - y[None, :]) ** 2
    f = np.zeros(x.shape[0], dtype=np.float32)
    g = np.zeros(4, dtype=np.float32)
    eps = np.float32(0.1)
    for _ in range(10):
        Z = (g[None, :] - C) / eps
        m = Z.max(axis=1, keepdims=True)
        f = -eps * (m[:, 0] + np.log(np.exp(Z - m).mean(axis=1)))
        Z = (f[:, None] - C) / eps
        m = Z.max(axis=0, keepdims=True)
        g = -eps * (m[0] + np.log(np.exp(Z - m).mean(axis=0)))
    return np.mean(f) + np.mean(g)


def gp_args(r):
    X = np.linspace(0.0, 2.0, 6)[:, None] + 0.01 * M(r, 6, 1)
    return np.log([0.7, 1.0, 0.1]) + 0.05 * M(r, 3), X, np.sin(2 * X[:, 0])


FIELDS = [
    ("fi_sinkhorn_log", sinkhorn_log, lambda r: (M(r, 4, 2), M(r, 3, 2)), 0),
    ("fi_sinkhorn_log_y", sinkhorn_log, lambda r: (M(r, 4, 2), M(r, 3, 2)), 1),
    ("fi_sinkhorn_plan_cost", sinkhorn_plan_cost, lambda r: (0.3 * M(r, 4),), 0),
    ("fi_wasserstein_1d_sorted", wasserstein_1d_sorted, lambda r: (M(r, 5),), 0),
    ("fi_gp_lml_cholesky", gp_lml_cholesky, gp_args, 0),
    ("fi_gp_lml_cholesky_X", gp_lml_cholesky, gp_args, 1),
    ("fi_gp_lml_loops", gp_lml_loops, lambda r: (np.array([1.0, 0.8]), M(r, 5, 2), M(r, 5)), 0),
    ("fi_gp_posterior_mean_at", gp_posterior_mean_at, lambda r: (M(r, 3, 1), np.linspace(-1, 1, 5)[:, None],
                                                                 np.cos(np.linspace(-1, 1, 5))), 0),
    ("fi_gp_periodic_kernel", gp_periodic_kernel, lambda r: (np.array([3.1, 1.0]),), 0),
    ("fi_ard_kernel_lml", ard_kernel_lml, lambda r: (0.1 * M(r, 2), M(r, 6, 2), M(r, 6)), 0),
    ("fi_variogram_fit", variogram_fit, lambda r: (np.array([0.1, 0.6, 3.0]),), 0),
    ("fi_empirical_variogram", empirical_variogram, lambda r: (M(r, 5),), 0),
    ("fi_ordinary_kriging", ordinary_kriging, lambda r: (M(r, 4),), 0),
    ("fi_idw_interpolation", idw_interpolation, lambda r: (M(r, 4),), 0),
    ("fi_idw_interpolation_power", idw_interpolation, lambda r: (M(r, 4), 2.0), 1),
    ("fi_linear_reservoir", linear_reservoir, lambda r: (3.0,), 0),
    ("fi_nash_cascade", nash_cascade, lambda r: (np.array([2.0, 1.0]),), 0),
    ("fi_unit_hydrograph", unit_hydrograph, lambda r: (0.3 * M(r, 4),), 0),
    ("fi_green_ampt_infiltration", green_ampt_infiltration, lambda r: (0.5,), 0),
    ("fi_manning_flow", manning_flow, lambda r: (0.03,), 0),
    ("fi_muskingum_routing", muskingum_routing, lambda r: (np.array([2.0, 0.2]),), 0),
    ("fi_sabine_reverb", sabine_reverb, lambda r: (np.array([0.1, 0.1, 0.3, 0.3, 0.2, 0.05]),), 0),
    ("fi_room_modes", room_modes, lambda r: (np.array([5.0, 4.0, 2.7]),), 0),
    ("fi_delay_and_sum", delay_and_sum, lambda r: (np.array([0.0, 1.8, 4.1, 5.9]),), 0),
    ("fi_spherical_spreading", spherical_spreading, lambda r: (np.array([0.4, 0.6]),), 0),
    ("fi_helmholtz_resonator", helmholtz_resonator, lambda r: (np.array([0.002, 0.05, 0.01]),), 0),
    ("fi_sinkhorn_f32", sinkhorn_f32, lambda r: (F(r, 5),), 0),
]
