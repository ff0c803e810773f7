"""The red team's seventeenth wave, continued: numerical methods written by hand, as a numerical-analysis
course writes them.  Linear algebra by loops that write into the arrays they read (the Thomas algorithm's
forward sweep, Doolittle LU, a Cholesky factor by the textbook's double loop, modified Gram-Schmidt writing
``Q[:, j]``, one Householder reflection, Gauss-Seidel and Jacobi sweeps, back substitution), iterations
with a tolerance (power iteration for the top eigenvalue, Rayleigh quotient steps, Halley's method, a
secant root, fixed-point iteration of a contraction), quadrature and interpolation (composite Simpson in a
loop, Gauss-Legendre with tabulated nodes, Romberg's table, Richardson extrapolation of a difference,
Lagrange and Newton divided differences, Clenshaw's recurrence, a continued fraction evaluated backwards,
a natural cubic spline's second derivatives) and ODE solvers (Heun, a two-step Adams-Bashforth with a
list of past slopes, midpoint with a fixed number of substeps, an implicit Euler step by Newton).
See redteam_wave17.py.
"""

from __future__ import annotations

import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def _spd(r, n):
    A = M(r, n, n)
    return A @ A.T + n * np.eye(n)


# ---- linear algebra by loops ----------------------------------------------------------------------------


def thomas_solve(diag, lower, upper, rhs):
    n = len(diag)
    c = np.zeros(n - 1)
    d = np.zeros(n)
    c[0] = upper[0] / diag[0]
    d[0] = rhs[0] / diag[0]
    for i in range(1, n):
        denom = diag[i] - lower[i - 1] * c[i - 1]
        if i < n - 1:
            c[i] = upper[i] / denom
        d[i] = (rhs[i] - lower[i - 1] * d[i - 1]) / denom
    x = np.zeros(n)
    x[-1] = d[-1]
    for i in range(n - 2, -1, -1):
        x[i] = d[i] - c[i] * x[i + 1]
    return np.sum(x ** 2)


def doolittle_lu_logdet(A):
    n = A.shape[0]
    L = np.eye(n)
    U = np.zeros((n, n))
    for i in range(n):
        for k in range(i, n):
            U[i, k] = A[i, k] - np.dot(L[i, :i], U[:i, k])
        for k in range(i + 1, n):
            L[k, i] = (A[k, i] - np.dot(L[k, :i], U[:i, i])) / U[i, i]
    return np.sum(np.log(np.abs(np.diag(U))))


def cholesky_by_hand(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for j in range(n):
        s = A[j, j] - np.sum(L[j, :j] ** 2)
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, n):
            L[i, j] = (A[i, j] - np.sum(L[i, :j] * L[j, :j])) / L[j, j]
    return 2.0 * np.sum(np.log(np.diag(L))) + np.sum(L[-1])


def modified_gram_schmidt(A):
    m, n = A.shape
    Q = A.copy()
    R = np.zeros((n, n))
    for j in range(n):
        R[j, j] = np.linalg.norm(Q[:, j])
        Q[:, j] = Q[:, j] / R[j, j]
        for k in range(j + 1, n):
            R[j, k] = Q[:, j] @ Q[:, k]
            Q[:, k] = Q[:, k] - R[j, k] * Q[:, j]
    return np.sum(np.log(np.abs(np.diag(R)))) + np.sum(Q[:, 0] * np.arange(m))


def householder_once(x):
    v = x.copy()
    v[0] += np.sign(x[0]) * np.linalg.norm(x)
    H = np.eye(len(x)) - 2.0 * np.outer(v, v) / (v @ v)
    y = H @ np.arange(1.0, len(x) + 1.0)
    return np.sum(y ** 3)


def gauss_seidel(A, b, sweeps=15):
    n = len(b)
    x = np.zeros(n)
    for _ in range(sweeps):
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            x[i] = s / A[i, i]
    return x @ x


def jacobi_iteration(A, b, tol=1e-10, max_iter=200):
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    for _ in range(max_iter):
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x, ord=np.inf) < tol:
            x = x_new
            break
        x = x_new
    return np.sum(x * np.arange(1, len(x) + 1))


def back_substitution(U, b):
    n = len(b)
    x = np.empty(n)
    for i in reversed(range(n)):
        x[i] = (b[i] - U[i, i + 1:] @ x[i + 1:]) / U[i, i]
    return np.sum(np.sin(x))


# ---- iterations with a tolerance ------------------------------------------------------------------------


def power_iteration(A, tol=1e-12):
    v = np.ones(A.shape[0]) / math.sqrt(A.shape[0])
    lam = 0.0
    for _ in range(500):
        w = A @ v
        v = w / np.linalg.norm(w)
        new = v @ A @ v
        if abs(new - lam) < tol:
            break
        lam = new
    return new


def rayleigh_steps(A, v0):
    v = v0 / np.linalg.norm(v0)
    for _ in range(4):
        mu = v @ A @ v
        w = np.linalg.solve(A - (mu + 0.3) * np.eye(len(v)), v)
        v = w / np.linalg.norm(w)
    return v @ A @ v


def halley_cube_root(a):
    x = max(a, 1.0)
    while True:
        fx = x ** 3 - a
        x_new = x - 2 * fx * 3 * x ** 2 / (2 * (3 * x ** 2) ** 2 - fx * 6 * x)
        if abs(x_new - x) < 1e-14 * abs(x_new):
            return x_new
        x = x_new


def secant_root(c):
    # the root of x**3 + c*x - 1 by the secant method
    x0, x1 = 0.0, 1.0
    f0, f1 = x0 ** 3 + c * x0 - 1.0, x1 ** 3 + c * x1 - 1.0
    for _ in range(40):
        if abs(f1 - f0) < 1e-15:
            break
        x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
        f0, f1 = f1, x1 ** 3 + c * x1 - 1.0
    return x1


def contraction_fixed_point(theta):
    x = np.zeros_like(theta)
    err = 1.0
    while err > 1e-13:
        new = 0.5 * np.tanh(x) + theta
        err = np.max(np.abs(new - x))
        x = new
    return np.sum(x ** 2)


# ---- quadrature and interpolation -----------------------------------------------------------------------


def simpson_loop(k, a=0.0, b=2.0, n=20):
    h = (b - a) / n
    total = np.exp(-k * a * a) + np.exp(-k * b * b)
    for i in range(1, n):
        x = a + i * h
        total += (4 if i % 2 else 2) * np.exp(-k * x * x)
    return total * h / 3


GL_NODES = np.array([-0.9061798459, -0.5384693101, 0.0, 0.5384693101, 0.9061798459])
GL_WEIGHTS = np.array([0.2369268851, 0.4786286705, 0.5688888889, 0.4786286705, 0.2369268851])


def gauss_legendre(params, lo=0.0, hi=3.0):
    t = 0.5 * (hi - lo) * GL_NODES + 0.5 * (hi + lo)
    f = params[0] * np.sin(params[1] * t) + params[2] * t ** 2
    return 0.5 * (hi - lo) * np.sum(GL_WEIGHTS * f)


def romberg(k, levels=5):
    R = [[0.0] * levels for _ in range(levels)]
    a, b = 0.0, 1.0
    for i in range(levels):
        n = 2 ** i
        h = (b - a) / n
        xs = np.linspace(a, b, n + 1)
        fx = 1.0 / (1.0 + k * xs ** 2)
        R[i][0] = h * (np.sum(fx) - 0.5 * (fx[0] + fx[-1]))
        for j in range(1, i + 1):
            R[i][j] = R[i][j - 1] + (R[i][j - 1] - R[i - 1][j - 1]) / (4 ** j - 1)
    return R[-1][-1]


def richardson_derivative(p, x0=0.7):
    def f(x):
        return p[0] * np.exp(p[1] * x) + np.sin(p[2] * x)
    h = 0.1
    d1 = (f(x0 + h) - f(x0 - h)) / (2 * h)
    d2 = (f(x0 + h / 2) - f(x0 - h / 2)) / h
    return (4 * d2 - d1) / 3


def lagrange_interpolate(ys, xs, t):
    total = 0.0
    for i in range(len(xs)):
        term = ys[i]
        for j in range(len(xs)):
            if j != i:
                term = term * (t - xs[j]) / (xs[i] - xs[j])
        total = total + term
    return total ** 2


def newton_divided_differences(ys, xs, t=0.37):
    coef = list(ys)
    n = len(xs)
    for j in range(1, n):
        for i in range(n - 1, j - 1, -1):
            coef[i] = (coef[i] - coef[i - 1]) / (xs[i] - xs[i - j])
    value = coef[-1]
    for i in range(n - 2, -1, -1):
        value = value * (t - xs[i]) + coef[i]
    return value


def clenshaw_chebyshev(c, x=0.3):
    b1, b2 = 0.0, 0.0
    for ck in c[:0:-1]:
        b1, b2 = 2 * x * b1 - b2 + ck, b1
    return x * b1 - b2 + c[0]


def continued_fraction(a):
    value = a[-1]
    for ak in a[-2::-1]:
        value = ak + 1.0 / value
    return value


def natural_spline_curvature(y, h=0.5):
    n = len(y)
    A = np.zeros((n - 2, n - 2))
    rhs = np.zeros(n - 2)
    for i in range(n - 2):
        A[i, i] = 4.0 * h
        if i > 0:
            A[i, i - 1] = h
        if i < n - 3:
            A[i, i + 1] = h
        rhs[i] = 6.0 * (y[i + 2] - 2 * y[i + 1] + y[i]) / h
    m = np.linalg.solve(A, rhs)
    return np.sum(m ** 2) * h


# ---- ODE solvers ----------------------------------------------------------------------------------------


def heun_decay(k, y0=1.0, dt=0.1, steps=30):
    y = y0
    for _ in range(steps):
        s1 = -k * y + np.sin(y)
        s2 = -k * (y + dt * s1) + np.sin(y + dt * s1)
        y = y + 0.5 * dt * (s1 + s2)
    return y


def adams_bashforth2(a, dt=0.05, steps=60):
    y = np.array([1.0, 0.0])

    def rhs(v):
        return np.array([v[1], -a * v[0] - 0.1 * v[1]])
    slopes = [rhs(y)]
    y = y + dt * slopes[0]
    for _ in range(steps):
        slopes.append(rhs(y))
        y = y + dt * (1.5 * slopes[-1] - 0.5 * slopes[-2])
    return y[0] ** 2 + y[1] ** 2


def implicit_euler_newton(lam, y0=2.0, dt=0.2, steps=10):
    y = y0
    for _ in range(steps):
        z = y
        for _ in range(6):
            g = z - y + dt * lam * z ** 3
            z = z - g / (1.0 + 3.0 * dt * lam * z ** 2)
        y = z
    return y


NUMERICS17 = [
    ("w17_thomas_solve", thomas_solve, lambda r: (4.0 + r.uniform(size=6), M(r, 5), M(r, 5), M(r, 6)), 0),
    ("w17_thomas_solve_rhs", thomas_solve, lambda r: (4.0 + r.uniform(size=6), M(r, 5), M(r, 5), M(r, 6)), 3),
    ("w17_doolittle_lu_logdet", doolittle_lu_logdet, lambda r: (_spd(r, 4),), 0),
    ("w17_cholesky_by_hand", cholesky_by_hand, lambda r: (_spd(r, 4),), 0),
    ("w17_modified_gram_schmidt", modified_gram_schmidt, lambda r: (M(r, 5, 3),), 0),
    ("w17_householder_once", householder_once, lambda r: (np.array([1.5, -0.3, 0.8, 0.2]),), 0),
    ("w17_gauss_seidel", gauss_seidel, lambda r: (_spd(r, 4), M(r, 4)), 0),
    ("w17_gauss_seidel_rhs", gauss_seidel, lambda r: (_spd(r, 4), M(r, 4)), 1),
    ("w17_jacobi_iteration", jacobi_iteration,
     lambda r: (np.diag([8.0, 9.0, 7.0, 10.0]) + 0.5 * M(r, 4, 4), M(r, 4)), 1),
    ("w17_jacobi_iteration_matrix", jacobi_iteration,
     lambda r: (np.diag([8.0, 9.0, 7.0, 10.0]) + 0.5 * M(r, 4, 4), M(r, 4)), 0),
    ("w17_back_substitution", back_substitution, lambda r: (np.triu(M(r, 4, 4)) + 3 * np.eye(4), M(r, 4)), 0),
    ("w17_power_iteration", power_iteration, lambda r: (np.diag([5.0, 2.0, 1.0]) + 0.1 * _spd(r, 3),), 0),
    ("w17_rayleigh_steps", rayleigh_steps, lambda r: (np.diag([5.0, 2.0, 1.0]) + 0.05 * _spd(r, 3), M(r, 3)), 0),
    ("w17_halley_cube_root", halley_cube_root, lambda r: (7.0,), 0),
    ("w17_secant_root", secant_root, lambda r: (0.8,), 0),
    ("w17_contraction_fixed_point", contraction_fixed_point, lambda r: (M(r, 4),), 0),
    ("w17_simpson_loop", simpson_loop, lambda r: (0.7,), 0),
    ("w17_gauss_legendre", gauss_legendre, lambda r: (np.array([1.0, 1.3, 0.2]),), 0),
    ("w17_romberg", romberg, lambda r: (1.5,), 0),
    ("w17_richardson_derivative", richardson_derivative, lambda r: (np.array([0.5, 1.2, 2.0]),), 0),
    ("w17_lagrange_interpolate", lagrange_interpolate, lambda r: (M(r, 4), np.array([0.0, 0.5, 1.2, 2.0]), 0.8), 0),
    ("w17_lagrange_nodes", lagrange_interpolate, lambda r: (M(r, 4), np.array([0.0, 0.5, 1.2, 2.0]), 0.8), 1),
    ("w17_newton_divided_differences", newton_divided_differences,
     lambda r: (M(r, 5), np.array([0.0, 0.3, 0.6, 1.0, 1.5])), 0),
    ("w17_clenshaw_chebyshev", clenshaw_chebyshev, lambda r: (M(r, 6),), 0),
    ("w17_continued_fraction", continued_fraction, lambda r: (np.array([1.0, 2.0, 2.0, 3.0, 1.5]),), 0),
    ("w17_natural_spline_curvature", natural_spline_curvature, lambda r: (M(r, 7),), 0),
    ("w17_heun_decay", heun_decay, lambda r: (0.8,), 0),
    ("w17_adams_bashforth2", adams_bashforth2, lambda r: (2.0,), 0),
    ("w17_implicit_euler_newton", implicit_euler_newton, lambda r: (0.7,), 0),
]
