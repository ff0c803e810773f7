"""The red team's fourteenth wave, continued: physics (1-D finite elements assembled into
np.zeros((n, n)) and solved, a spring chain, an orbit by an RK4 helper, a velocity-Verlet
pendulum, implicit Euler for heat with np.eye(n, k=1), a buckling eigenvalue, a Lennard-Jones
cluster, a drag projectile by a while loop), signal processing (an FIR filter loop, a
first-order IIR recursion, np.correlate, a power spectrum by rfft, a Savitzky-Golay smoother by
np.vander and pinv, a cepstrum, a window's energy), finance (Black-Scholes through ndtr, an
American binomial tree, minimum-variance weights from a correlation matrix filled in a loop,
expected shortfall by np.sort, an Asian option by Monte Carlo, Nelson-Siegel fitting, a Sharpe
ratio, Merton's jump diffusion as a series) and geometry (Rodrigues' rotation, a chain of
quaternion products, barycentric coordinates, a triangle mesh's area, the SO(3) log's angle, a
Kabsch step by SVD, a Bezier curve's length, a smooth union of signed distances).  See
redteam_wave14.py.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special

# ---- physics ---------------------------------------------------------------------------------------


def fem_poisson_compliance(k):
    n = len(k) - 1
    h = 1.0 / len(k)
    K = np.zeros((n, n))
    for e in range(len(k)):
        ke = k[e] / h
        if e > 0:
            K[e - 1, e - 1] += ke
        if e < n:
            K[e, e] += ke
        if 0 < e < n:
            K[e - 1, e] -= ke
            K[e, e - 1] -= ke
    f = np.full(n, h)
    u = np.linalg.solve(K, f)
    return f @ u


def fem_bar_dirichlet(E, loads):
    n = len(E) + 1
    K = np.zeros((n, n))
    for e in range(len(E)):
        idx = [e, e + 1]
        ke = E[e] * np.array([[1.0, -1.0], [-1.0, 1.0]])
        for a in range(2):
            for b in range(2):
                K[idx[a], idx[b]] += ke[a, b]
    u = np.zeros(n)
    u[1:] = np.linalg.solve(K[1:, 1:], loads)
    return 0.5 * u[1:] @ K[1:, 1:] @ u[1:]


def spring_chain_energy(x, k, rest=1.0):
    ext = np.diff(x) - rest
    return 0.5 * np.sum(k * ext ** 2) + 0.1 * np.sum(x ** 4)


def _rk4(f, y, dt):
    k1 = f(y)
    k2 = f(y + 0.5 * dt * k1)
    k3 = f(y + 0.5 * dt * k2)
    k4 = f(y + dt * k3)
    return y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def _kepler(y):
    r = y[:2]
    d3 = np.sum(r ** 2) ** 1.5
    return np.concatenate([y[2:], -r / d3])


def orbit_rk4(v0, dt=0.05, steps=8):
    y = np.concatenate([np.array([1.0, 0.0]), v0])
    for _ in range(steps):
        y = _rk4(_kepler, y, dt)
    return np.sum(y[:2] ** 2) + 0.5 * np.sum(y[2:] ** 2)


def verlet_pendulum(theta0, omega0=0.0, g=9.81, L=1.0, dt=0.02, steps=20):
    th, om = theta0, omega0
    a = -g / L * math.sin(th)
    for _ in range(steps):
        th = th + om * dt + 0.5 * a * dt * dt
        a_new = -g / L * math.sin(th)
        om = om + 0.5 * (a + a_new) * dt
        a = a_new
    return 0.5 * om ** 2 - g / L * math.cos(th)


def heat_implicit_euler(u0, r=0.4, steps=3):
    n = len(u0)
    A = (1 + 2 * r) * np.eye(n) - r * (np.eye(n, k=1) + np.eye(n, k=-1))
    u = u0
    for _ in range(steps):
        u = np.linalg.solve(A, u)
    return np.sum(u ** 2)


def buckling_eigenvalue(EI):
    n = len(EI)
    A = np.zeros((n, n))
    for i in range(n):
        A[i, i] = 2.0 * EI[i]
        if i + 1 < n:
            A[i, i + 1] = -0.5 * (EI[i] + EI[i + 1])
            A[i + 1, i] = A[i, i + 1]
    return np.linalg.eigvalsh(A)[0]


def lennard_jones(pos, eps=1.0, sigma=1.0):
    n = pos.shape[0]
    E = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r2 = np.sum((pos[i] - pos[j]) ** 2)
            s6 = (sigma ** 2 / r2) ** 3
            E += 4 * eps * (s6 * s6 - s6)
    return E


def drag_projectile(v0, angle=0.6, c=0.1, dt=0.05):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    while y >= 0.0:
        speed = math.sqrt(vx * vx + vy * vy)
        vx, vy = vx - c * speed * vx * dt, vy - (9.81 + c * speed * vy) * dt
        x, y = x + vx * dt, y + vy * dt
    return x


def charges_potential(q, pos, probes):
    d = np.linalg.norm(probes[:, None, :] - pos[None, :, :], axis=-1)
    V = (q[None, :] / d).sum(axis=1)
    return np.sum(V ** 2)


# ---- signal processing -----------------------------------------------------------------------------


def fir_filter_loop(h, x):
    y = np.zeros(len(x))
    for n in range(len(x)):
        for k in range(len(h)):
            if n - k >= 0:
                y[n] += h[k] * x[n - k]
    return np.sum(y ** 2)


def iir_first_order(a, x):
    y = []
    prev = 0.0
    for xn in x:
        prev = a * prev + (1 - a) * xn
        y.append(prev)
    return np.sum(np.array(y) ** 2)


def correlate_full(x, template):
    c = np.correlate(x, template, mode="full")
    return np.sum(c ** 2) / len(c)


def power_spectrum_rfft(x):
    X = np.fft.rfft(x * np.hanning(len(x)))
    P = np.abs(X) ** 2
    return np.sum(np.log(P + 1e-3))


def savitzky_golay(y, window=5, order=2):
    half = window // 2
    t = np.arange(-half, half + 1, dtype=float)
    V = np.vander(t, order + 1, increasing=True)
    c = np.linalg.pinv(V)[0]
    smooth = np.convolve(y, c[::-1], mode="valid")
    return np.sum((smooth - y[half:-half]) ** 2)


def cepstrum_low(x):
    spec = np.abs(np.fft.rfft(x)) ** 2 + 1e-2
    ceps = np.fft.irfft(np.log(spec), n=len(x))
    return np.sum(ceps[:3] ** 2)


def window_energy(x, beta=4.0):
    w = np.kaiser(len(x), beta)
    return np.sum((w * x) ** 2) / np.sum(w ** 2)


# ---- finance ---------------------------------------------------------------------------------------


def bs_call_ndtr(sigma, S=100.0, K=105.0, T=0.5, r=0.02):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return S * scipy.special.ndtr(d1) - K * np.exp(-r * T) * scipy.special.ndtr(d2)


def american_binomial_put(sigma, S=100.0, K=100.0, T=1.0, r=0.03, n=12):
    dt = T / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    prices = S * u ** np.arange(n, -1, -1) * d ** np.arange(0, n + 1)
    values = np.maximum(K - prices, 0.0)
    for _ in range(n - 1, -1, -1):
        prices = prices[:-1] * d
        cont = math.exp(-r * dt) * (p * values[:-1] + (1 - p) * values[1:])
        values = np.maximum(cont, K - prices)
    return values[0]


def min_variance_weights(vols, rho=0.3):
    n = len(vols)
    C = np.ones((n, n)) * rho
    for i in range(n):
        C[i, i] = 1.0
    cov = C * np.outer(vols, vols)
    w = np.linalg.solve(cov, np.ones(n))
    w = w / w.sum()
    return w @ cov @ w


def expected_shortfall(w, R, alpha=0.25):
    losses = -(R @ w)
    s = np.sort(losses)[::-1]
    k = int(alpha * len(s))
    return s[:k].mean()


def asian_mc(sigma, Z, S0=100.0, K=100.0, r=0.01, T=1.0):
    n = Z.shape[1]
    dt = T / n
    logS = np.log(S0) + np.cumsum((r - 0.5 * sigma ** 2) * dt + sigma * math.sqrt(dt) * Z, axis=1)
    avg = np.exp(logS).mean(axis=1)
    return math.exp(-r * T) * np.mean(np.maximum(avg - K, 0.0))


def nelson_siegel_fit(params, tenors, yields):
    b0, b1, b2, lam = params
    x = tenors / lam
    f = (1 - np.exp(-x)) / x
    model = b0 + b1 * f + b2 * (f - np.exp(-x))
    return np.sum((model - yields) ** 2)


def sharpe_ratio(w, R):
    port = R @ w
    return port.mean() / port.std(ddof=1)


def merton_jump_call(sigma, lam=0.5, mj=-0.1, sj=0.2, S=100.0, K=100.0, T=1.0, r=0.02, terms=8):
    k = math.exp(mj + 0.5 * sj * sj) - 1
    total = 0.0
    for n in range(terms):
        sn = math.sqrt(sigma ** 2 + n * sj ** 2 / T)
        rn = r - lam * k + n * (mj + 0.5 * sj ** 2) / T
        d1 = (math.log(S / K) + (rn + 0.5 * sn ** 2) * T) / (sn * math.sqrt(T))
        d2 = d1 - sn * math.sqrt(T)
        bs = S * scipy.special.ndtr(d1) - K * math.exp(-rn * T) * scipy.special.ndtr(d2)
        weight = math.exp(-lam * (1 + k) * T) * (lam * (1 + k) * T) ** n / math.factorial(n)
        total += weight * bs
    return total


# ---- geometry --------------------------------------------------------------------------------------


def rodrigues_rotate(w, pts):
    theta = np.linalg.norm(w)
    k = w / theta
    Kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    R = np.eye(3) + math.sin(theta) * Kx + (1 - math.cos(theta)) * Kx @ Kx
    return np.sum((pts @ R.T) * pts[:, ::-1])


def _qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quaternion_chain(qs):
    q = np.array([1.0, 0.0, 0.0, 0.0])
    for qi in qs:
        q = _qmul(q, qi / np.linalg.norm(qi))
    v = np.array([0.0, 1.0, 2.0, 3.0])
    conj = q * np.array([1.0, -1.0, -1.0, -1.0])
    return np.sum(_qmul(_qmul(q, v), conj)[1:] * np.array([0.3, -0.2, 0.5]))


def barycentric(p, tri):
    a, b, c = tri
    v0, v1, v2 = b - a, c - a, p - a
    d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
    d20, d21 = v2 @ v0, v2 @ v1
    den = d00 * d11 - d01 * d01
    v = (d11 * d20 - d01 * d21) / den
    w = (d00 * d21 - d01 * d20) / den
    u = 1.0 - v - w
    return u ** 2 + 2 * v ** 2 + 3 * w ** 2


def mesh_area(V, F):
    e1 = V[F[:, 1]] - V[F[:, 0]]
    e2 = V[F[:, 2]] - V[F[:, 0]]
    return 0.5 * np.sum(np.linalg.norm(np.cross(e1, e2), axis=1))


def so3_angle(A):
    U, _, Vt = np.linalg.svd(A)
    R = U @ Vt
    c = (np.trace(R) - 1.0) / 2.0
    return np.arccos(c) ** 2


def kabsch_rmsd(P, Q):
    Pc = P - P.mean(axis=0)
    Qc = Q - Q.mean(axis=0)
    U, _, Vt = np.linalg.svd(Pc.T @ Qc)
    R = (U @ Vt).T
    return np.mean(np.sum((Pc @ R.T - Qc) ** 2, axis=1))


def bezier_length(ctrl, samples=16):
    t = np.linspace(0.0, 1.0, samples)[:, None]
    pts = (1 - t) ** 3 * ctrl[0] + 3 * (1 - t) ** 2 * t * ctrl[1] + 3 * (1 - t) * t ** 2 * ctrl[2] + t ** 3 * ctrl[3]
    return np.sum(np.linalg.norm(np.diff(pts, axis=0), axis=1))


def smooth_union_sdf(p, centres, radii, k=8.0):
    d = np.linalg.norm(p[None, :] - centres, axis=1) - radii
    return -np.log(np.sum(np.exp(-k * d))) / k


def M(rng, *shape):
    return rng.normal(size=shape)


TRIANGLE = np.array([[0.0, 0.0], [1.0, 0.1], [0.2, 1.0]])


def _mesh(r):
    V = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0.5]]) + 0.05 * M(r, 5, 3)
    return V, np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 4]])


def _kabsch(r):
    P = M(r, 6, 3)
    c, s = math.cos(0.4), math.sin(0.4)
    R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return P, P @ R.T + 0.05 * M(r, 6, 3)


PHYSICS14 = [
    ("w14_fem_poisson_compliance", fem_poisson_compliance, lambda r: (r.uniform(0.5, 2.0, size=6),), 0),
    ("w14_fem_bar_dirichlet", fem_bar_dirichlet, lambda r: (r.uniform(1.0, 3.0, size=4), M(r, 4)), 0),
    ("w14_fem_bar_dirichlet_loads", fem_bar_dirichlet, lambda r: (r.uniform(1.0, 3.0, size=4), M(r, 4)), 1),
    ("w14_spring_chain_energy", spring_chain_energy, lambda r: (np.arange(5.0) * 1.1 + 0.05 * M(r, 5),
                                                                r.uniform(1, 2, size=4)), 0),
    ("w14_orbit_rk4", orbit_rk4, lambda r: (np.array([0.1, 1.05]),), 0),
    ("w14_verlet_pendulum", verlet_pendulum, lambda r: (0.7,), 0),
    ("w14_heat_implicit_euler", heat_implicit_euler, lambda r: (M(r, 6),), 0),
    ("w14_heat_implicit_euler_r", heat_implicit_euler, lambda r: (M(r, 6), 0.4), 1),
    ("w14_buckling_eigenvalue", buckling_eigenvalue, lambda r: (r.uniform(1.0, 2.0, size=5),), 0),
    ("w14_lennard_jones", lennard_jones, lambda r: (np.array([[0, 0, 0], [1.1, 0, 0], [0.5, 1.0, 0], [0.4, 0.4, 0.9]])
                                                    + 0.02 * M(r, 4, 3),), 0),
    ("w14_drag_projectile", drag_projectile, lambda r: (12.3,), 0),
    ("w14_charges_potential", charges_potential, lambda r: (M(r, 3), M(r, 3, 2), M(r, 4, 2) + 3.0), 0),
    ("w14_charges_potential_pos", charges_potential, lambda r: (M(r, 3), M(r, 3, 2), M(r, 4, 2) + 3.0), 1),
    ("w14_fir_filter_loop", fir_filter_loop, lambda r: (M(r, 3), M(r, 8)), 0),
    ("w14_fir_filter_loop_signal", fir_filter_loop, lambda r: (M(r, 3), M(r, 8)), 1),
    ("w14_iir_first_order", iir_first_order, lambda r: (0.6, M(r, 7)), 0),
    ("w14_correlate_full", correlate_full, lambda r: (M(r, 9), M(r, 3)), 0),
    ("w14_correlate_full_template", correlate_full, lambda r: (M(r, 9), M(r, 3)), 1),
    ("w14_power_spectrum_rfft", power_spectrum_rfft, lambda r: (M(r, 10),), 0),
    ("w14_savitzky_golay", savitzky_golay, lambda r: (M(r, 11),), 0),
    ("w14_cepstrum_low", cepstrum_low, lambda r: (M(r, 8),), 0),
    ("w14_window_energy", window_energy, lambda r: (M(r, 9),), 0),
    ("w14_bs_call_ndtr", bs_call_ndtr, lambda r: (0.25,), 0),
    ("w14_american_binomial_put", american_binomial_put, lambda r: (0.23,), 0),
    ("w14_min_variance_weights", min_variance_weights, lambda r: (r.uniform(0.1, 0.4, size=4),), 0),
    ("w14_expected_shortfall", expected_shortfall, lambda r: (r.uniform(0.1, 0.5, size=3), 0.05 * M(r, 12, 3)), 0),
    ("w14_asian_mc", asian_mc, lambda r: (0.2, M(r, 50, 6)), 0),
    ("w14_nelson_siegel_fit", nelson_siegel_fit,
     lambda r: (np.array([0.04, -0.02, 0.01, 1.5]), np.array([0.5, 1, 2, 5, 10, 30.0]), 0.03 + 0.002 * M(r, 6)), 0),
    ("w14_sharpe_ratio", sharpe_ratio, lambda r: (r.uniform(0.1, 0.5, size=3), 0.01 + 0.05 * M(r, 20, 3)), 0),
    ("w14_merton_jump_call", merton_jump_call, lambda r: (0.2,), 0),
    ("w14_rodrigues_rotate", rodrigues_rotate, lambda r: (np.array([0.3, -0.5, 0.8]), M(r, 4, 3)), 0),
    ("w14_quaternion_chain", quaternion_chain, lambda r: ([M(r, 4) for _ in range(3)],), 0),
    ("w14_barycentric", barycentric, lambda r: (np.array([0.3, 0.3]), TRIANGLE.copy()), 0),
    ("w14_barycentric_tri", barycentric, lambda r: (np.array([0.3, 0.3]), TRIANGLE.copy()), 1),
    ("w14_mesh_area", mesh_area, lambda r: _mesh(r), 0),
    ("w14_so3_angle", so3_angle, lambda r: (np.array([[0.9, -0.4, 0.1], [0.35, 0.85, -0.3], [0.1, 0.35, 0.95]]),), 0),
    ("w14_kabsch_rmsd", kabsch_rmsd, lambda r: _kabsch(r), 0),
    ("w14_bezier_length", bezier_length, lambda r: (np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 2.5], [4.0, 0.0]])
                                                     + 0.1 * M(r, 4, 2),), 0),
    ("w14_smooth_union_sdf", smooth_union_sdf, lambda r: (M(r, 2), M(r, 3, 2), r.uniform(0.2, 0.5, size=3)), 0),
]
