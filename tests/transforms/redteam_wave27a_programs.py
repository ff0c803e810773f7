"""The red team's wave 27a: programs written the way scientists and engineers write them (ODE
integrators with helpers returning tuples, energies of springs, pendulums and particles summed
by pairwise loops, finite-difference steps by slicing and np.roll, optimisers' inner loops, small
statistics written by hand, trees of parameters, Python control flow, float32).
test_redteam_wave27a.py runs them through every transformation against float64 central
differences."""

from __future__ import annotations

import math

import numpy as np


def M(r, *shape):
    """Standard normal float64 numbers."""
    return r.standard_normal(shape)


def P(r, *shape):
    """Positive float64 numbers in [0.5, 1.5)."""
    return r.uniform(0.5, 1.5, shape)


def F(r, *shape):
    """Standard normal float32 numbers."""
    return r.standard_normal(shape).astype(np.float32)


GRAVITY = 9.81
WEIGHTS = np.array([0.5, -1.0, 2.0])


# ---- ODE integrators ----------------------------------------------------------------------------


def decay_rhs(y, k):
    return -k * y + 0.1 * y**2


def euler_decay(k, y0):
    y = y0
    for _ in range(20):
        y = y + 0.05 * decay_rhs(y, k)
    return np.sum(y**2)


def lotka_volterra(state, params):
    x, y = state
    a, b, c, d = params
    return a * x - b * x * y, c * x * y - d * y


def euler_lotka(params, start):
    x, y = start[0], start[1]
    for _ in range(25):
        dx, dy = lotka_volterra((x, y), params)
        x, y = x + 0.02 * dx, y + 0.02 * dy
    return x + 2.0 * y


def rk4_step(rhs, y, t, dt, p):
    k1 = rhs(y, t, p)
    k2 = rhs(y + 0.5 * dt * k1, t + 0.5 * dt, p)
    k3 = rhs(y + 0.5 * dt * k2, t + 0.5 * dt, p)
    k4 = rhs(y + dt * k3, t + dt, p)
    return y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def forced_oscillator(y, t, p):
    return np.array([y[1], -p[0] * y[0] - p[1] * y[1] + np.cos(p[2] * t)])


def rk4_forced(p, y0):
    y = y0
    t = 0.0
    dt = 0.05
    for _ in range(12):
        y = rk4_step(forced_oscillator, y, t, dt, p)
        t = t + dt
    return y[0] ** 2 + y[1]


def rk4_trajectory_stacked(p, y0):
    ys = [y0]
    y = y0
    for i in range(8):
        y = rk4_step(forced_oscillator, y, 0.1 * i, 0.1, p)
        ys.append(y)
    traj = np.stack(ys)
    return np.sum(traj[:, 0] ** 2) + np.mean(traj[:, 1])


def euler_preallocated(k, y0):
    n = 12
    traj = np.zeros((n + 1, y0.shape[0]))
    traj[0] = y0
    for i in range(n):
        traj[i + 1] = traj[i] + 0.05 * (-k * traj[i] + np.sin(traj[i]))
    return np.sum(traj[-1] ** 2) + np.sum(traj)


def kick_drift_kick(x, v, dt, k):
    v = v - 0.5 * dt * k * np.sin(x)
    x = x + dt * v
    v = v - 0.5 * dt * k * np.sin(x)
    return x, v


def pendulum_leapfrog(theta0, omega0, k=4.0):
    th, om = theta0, omega0
    for _ in range(20):
        th, om = kick_drift_kick(th, om, 0.04, k)
    return np.sum(0.5 * om**2 + k * (1.0 - np.cos(th)))


def verlet_while(x0, k):
    x_prev = x0
    x = x0 + 0.01
    n = 0
    while n < 15:
        a = -k * x - 0.1 * x**3
        x_prev, x = x, 2.0 * x - x_prev + 0.01 * a
        n += 1
    return np.sum(x**2)


def heun_logistic(rate, y0):
    y = y0
    h = 0.1
    for _ in range(20):
        k1 = rate * y * (1.0 - y)
        yp = y + h * k1
        k2 = rate * yp * (1.0 - yp)
        y = y + 0.5 * h * (k1 + k2)
    return y


def midpoint_rotation(omega, z0):
    x, y = z0[0], z0[1]
    for _ in range(10):
        xm = x - 0.05 * omega * y
        ym = y + 0.05 * omega * x
        x, y = x - 0.1 * omega * ym, y + 0.1 * omega * xm
    return math.sqrt(x * x + y * y) + x


def euler_dict_params(params, y0):
    y = y0
    for _ in range(10):
        y = y + params["dt"] * (params["a"] * y - params["b"] * y**3)
    return np.sum(y)


def sir_epidemic(rates, s0=0.99, i0=0.01):
    beta, gamma_ = rates[0], rates[1]
    s, i, rec = s0, i0, 0.0
    history = []
    for _ in range(30):
        new_inf = beta * s * i
        new_rec = gamma_ * i
        s, i, rec = s - 0.2 * new_inf, i + 0.2 * (new_inf - new_rec), rec + 0.2 * new_rec
        history.append(i)
    return np.sum(np.array(history) * np.linspace(0.0, 1.0, 30)) + rec


def rk2_system(y0, A):
    def rhs(y):
        return A @ y - 0.1 * y**3

    y = y0.copy()
    for _ in range(8):
        k1 = rhs(y)
        k2 = rhs(y + 0.1 * k1)
        y = y + 0.05 * (k1 + k2)
    return y @ y


def symplectic_euler_orbit(q0, p0):
    q, p = q0.copy(), p0.copy()
    energies = []
    for _ in range(10):
        r = np.sqrt(q @ q)
        p = p - 0.05 * q / r**3
        q = q + 0.05 * p
        energies.append(0.5 * p @ p - 1.0 / np.sqrt(q @ q))
    return energies[-1] + 0.1 * sum(energies)


def damped_spring_while(params, x0):
    k, c = params
    x, v, t = x0, 0.0, 0
    while t < 25:
        a = -k * x - c * v
        v += 0.04 * a
        x += 0.04 * v
        t += 1
    return x * x + v


def implicit_euler_linear(k, y0):
    A = np.array([[0.0, 1.0], [-k, -0.3]])
    step = np.eye(2) - 0.1 * A
    y = y0
    for _ in range(6):
        y = np.linalg.solve(step, y)
    return y[0] + y[1] ** 2


def van_der_pol_rk4(mu, y0):
    def f(y):
        return np.array([y[1], mu * (1.0 - y[0] ** 2) * y[1] - y[0]])

    y = y0
    h = 0.05
    for _ in range(10):
        a = f(y)
        b = f(y + h / 2 * a)
        c = f(y + h / 2 * b)
        d = f(y + h * c)
        y = y + h / 6 * (a + 2 * b + 2 * c + d)
    return y[0]


def euler_float32(y0, k):
    y = y0
    for _ in range(10):
        y = y + np.float32(0.05) * (-k * y + np.tanh(y))
    return np.sum(y * y)


# ---- physics energies -------------------------------------------------------------------------


def spring_pairs_loop(pos, k=1.0, rest=1.0):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.sqrt(np.sum((pos[i] - pos[j]) ** 2))
            e += 0.5 * k * (r - rest) ** 2
    return e


def lennard_jones_loop(pos, eps=1.0, sigma=1.0):
    e = 0.0
    n = len(pos)
    for i in range(n - 1):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = d @ d
            sr6 = (sigma * sigma / r2) ** 3
            e = e + 4.0 * eps * (sr6 * sr6 - sr6)
    return e


def lattice(r, n=4):
    grid = np.array([[i % 2, i // 2] for i in range(n)], dtype=float) * 1.2
    return grid + 0.05 * M(r, n, 2)


def coulomb_charges(q, pos):
    e = 0.0
    for i in range(len(q)):
        for j in range(len(q)):
            if i != j:
                e += 0.5 * q[i] * q[j] / np.linalg.norm(pos[i] - pos[j])
    return e


def pairwise_forces_accumulate(pos, m):
    n = pos.shape[0]
    forces = np.zeros_like(pos)
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[j] - pos[i]
            f = m[i] * m[j] * d / (np.sum(d * d) + 0.1) ** 1.5
            forces[i] += f
            forces[j] -= f
    return np.sum(forces**2)


def nbody_step_energy(pos, vel, m):
    n = len(m)
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if j == i:
                continue
            d = pos[j] - pos[i]
            acc[i] = acc[i] + m[j] * d / (d @ d + 0.05) ** 1.5
    vel = vel + 0.01 * acc
    pos = pos + 0.01 * vel
    kinetic = 0.5 * np.sum(m[:, None] * vel**2)
    potential = 0.0
    for i in range(n):
        for j in range(i):
            potential -= m[i] * m[j] / math.sqrt(np.sum((pos[i] - pos[j]) ** 2) + 0.05)
    return kinetic + potential


def pendulum_energy(state, length=1.0, mass=2.0):
    theta, omega = state
    return 0.5 * mass * length**2 * omega**2 + mass * GRAVITY * length * (1.0 - math.cos(theta))


def double_pendulum_lagrangian(q, qd):
    t1, t2 = q[0], q[1]
    w1, w2 = qd[0], qd[1]
    kinetic = w1**2 + 0.5 * w2**2 + w1 * w2 * np.cos(t1 - t2)
    potential = -2.0 * GRAVITY * np.cos(t1) - GRAVITY * np.cos(t2)
    return kinetic - potential


def chain_bending(pts):
    seg = np.diff(pts, axis=0)
    ang = np.arctan2(seg[:, 1], seg[:, 0])
    bend = np.diff(ang)
    length = np.sqrt(np.sum(seg**2, axis=1))
    return np.sum(bend**2) + np.sum((length - 1.0) ** 2)


def chain_points(r):
    return np.cumsum(np.array([[1.0, 0.1], [0.9, 0.3], [1.1, 0.2], [1.0, -0.1]]), axis=0) + 0.02 * M(r, 4, 2)


def harmonic_ring(u, k=2.0):
    stretch = np.roll(u, -1) - u
    return 0.5 * k * np.sum(stretch**2) + 0.25 * np.sum(u**4)


def morse_bonds(r, params):
    D, a, re = params["D"], params["a"], params["re"]
    return np.sum(D * (1.0 - np.exp(-a * (r - re))) ** 2)


def hamiltonian_dict(state, k=3.0):
    q, p = state["q"], state["p"]
    return 0.5 * np.sum(p**2) + 0.5 * k * np.sum(q**2) + 0.1 * np.sum(q**3 * p)


def spring_mass_chain_energy(x, v, masses, ks):
    kinetic = 0.0
    for m_i, v_i in zip(masses, v):
        kinetic += 0.5 * m_i * v_i**2
    potential = 0.5 * ks[0] * x[0] ** 2
    for i in range(1, len(x)):
        potential = potential + 0.5 * ks[i] * (x[i] - x[i - 1]) ** 2
    return kinetic + potential


def mean_field_ising(h, J=0.5):
    m = np.zeros_like(h)
    for _ in range(15):
        m = np.tanh(h + J * (np.roll(m, 1) + np.roll(m, -1)))
    return -np.sum(h * m) - 0.5 * J * np.sum(m * np.roll(m, 1))


def pendulum_period(theta0, length):
    series = 1.0 + theta0**2 / 16.0 + 11.0 * theta0**4 / 3072.0
    return 2.0 * math.pi * math.sqrt(length / GRAVITY) * series


def gravity_potential_float32(pos, m):
    d = pos[:, None, :] - pos[None, :, :]
    r = np.sqrt(np.sum(d * d, axis=-1) + np.float32(0.1))
    u = m[:, None] * m[None, :] / r
    return -0.5 * (np.sum(u) - np.trace(u))


def projectile_with_drag(v0, angle=0.6):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    path = []
    for _ in range(15):
        speed = math.hypot(vx, vy)
        vx, vy = vx - 0.05 * 0.02 * speed * vx, vy - 0.05 * (GRAVITY + 0.02 * speed * vy)
        x, y = x + 0.05 * vx, y + 0.05 * vy
        path.append((x, y))
    xs = np.array([p[0] for p in path])
    ys = np.array([p[1] for p in path])
    return np.sum(xs * ys) / len(path)


def rigid_rotor_energy(angles, inertia):
    c, s = np.cos(angles), np.sin(angles)
    R = np.array([[c[0], -s[0]], [s[0], c[0]]]) @ np.array([[c[1], -s[1]], [s[1], c[1]]])
    return 0.5 * np.sum(inertia * np.diag(R) ** 2) + R[0, 1]


def elastic_rod_energy(x, EI=1.5, EA=10.0):
    h = 1.0 / (len(x) - 1)
    curvature = (x[2:] - 2 * x[1:-1] + x[:-2]) / h**2
    slope = (x[1:] - x[:-1]) / h
    return 0.5 * EI * h * np.sum(curvature**2) + 0.5 * EA * h * np.sum(np.sqrt(1.0 + slope**2) - 1.0)


def virial_loop(pos, vel):
    total = 0.0
    for p_i, v_i in zip(pos, vel):
        total += p_i @ v_i
    return total + 0.5 * np.sum(vel**2)


# ---- finite differences -----------------------------------------------------------------------


def heat_copy_slices(u0, alpha):
    u = u0.copy()
    for _ in range(10):
        u_new = u.copy()
        u_new[1:-1] = u[1:-1] + alpha * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u = u_new
    return np.sum(u**2)


def heat_periodic_roll(u0, nu=0.2):
    u = u0
    for _ in range(10):
        u = u + nu * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
    return np.sum(u**3)


def heat_augmented_slice(u0):
    u = u0.copy()
    for _ in range(8):
        lap = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u[1:-1] += 0.2 * lap
    return u @ np.arange(1.0, len(u) + 1.0)


def wave_leapfrog_roll(u0, c=0.5):
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(10):
        u_next = 2.0 * u - u_prev + c**2 * (np.roll(u, -1) - 2.0 * u + np.roll(u, 1))
        u_prev, u = u, u_next
    return np.sum(u**2) + np.sum(u * u_prev)


def upwind_advection(u0, a):
    u = u0
    for _ in range(8):
        if a > 0:
            u = u - a * 0.4 * (u - np.roll(u, 1))
        else:
            u = u - a * 0.4 * (np.roll(u, -1) - u)
    return np.sum(u**2 * np.linspace(0.0, 1.0, len(u)))


def burgers_step(u0):
    u = u0
    for _ in range(5):
        flux = 0.5 * u**2
        u = u - 0.1 * (flux - np.roll(flux, 1)) + 0.05 * (np.roll(u, -1) - 2 * u + np.roll(u, 1))
    return np.sum(u**2)


def laplacian_2d_roll(U):
    lap = np.roll(U, 1, axis=0) + np.roll(U, -1, axis=0) + np.roll(U, 1, axis=1) + np.roll(U, -1, axis=1) - 4 * U
    return np.sum(lap**2) + np.sum(U * lap)


def jacobi_poisson(f, steps=6):
    U = np.zeros((f.shape[0] + 2, f.shape[1] + 2))
    h2 = 0.25
    for _ in range(steps):
        U[1:-1, 1:-1] = 0.25 * (U[2:, 1:-1] + U[:-2, 1:-1] + U[1:-1, 2:] + U[1:-1, :-2] - h2 * f)
    return np.sum(U**2)


def allen_cahn(u0, eps2=0.1):
    u = u0
    for _ in range(6):
        lap = np.roll(u, 1) + np.roll(u, -1) - 2 * u
        u = u + 0.1 * (eps2 * lap + u - u**3)
    return np.sum(u)


def smoothed_total_variation(u, beta=1e-2):
    du = np.diff(u)
    return np.sum(np.sqrt(du**2 + beta)) + 0.5 * np.sum((u - WEIGHTS.mean()) ** 2)


def dirichlet_energy_2d(U):
    gx = np.diff(U, axis=0)
    gy = np.diff(U, axis=1)
    return 0.5 * (np.sum(gx**2) + np.sum(gy**2)) + np.sum(U**4) / 12.0


def gray_scott(uv0, F_=0.04, k=0.06):
    u, v = uv0[0].copy(), uv0[1].copy()
    for _ in range(5):
        lap_u = np.roll(u, 1) + np.roll(u, -1) - 2 * u
        lap_v = np.roll(v, 1) + np.roll(v, -1) - 2 * v
        uvv = u * v * v
        u, v = u + 0.5 * (0.2 * lap_u - uvv + F_ * (1 - u)), v + 0.5 * (0.1 * lap_v + uvv - (F_ + k) * v)
    return np.sum(u * v)


def crank_nicolson(u0, alpha):
    n = len(u0)
    L = -2.0 * np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1)
    A = np.eye(n) - 0.5 * alpha * L
    B = np.eye(n) + 0.5 * alpha * L
    u = u0
    for _ in range(4):
        u = np.linalg.solve(A, B @ u)
    return np.sum(u**2)


def neumann_boundary(u0):
    u = u0.copy()
    for _ in range(6):
        u[0] = u[1]
        u[-1] = u[-2]
        u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(np.sin(u))


def upwind_scalar_loop(u0, c=0.3):
    u = u0.copy()
    n = len(u)
    for _ in range(4):
        un = u.copy()
        for i in range(1, n):
            u[i] = un[i] - c * (un[i] - un[i - 1])
    return np.sum(u**2)


def central_gradient_energy(u, h=0.5):
    du = (u[2:] - u[:-2]) / (2 * h)
    d2u = (u[2:] - 2 * u[1:-1] + u[:-2]) / h**2
    return np.sum(du**2) + 0.1 * np.sum(d2u**2)


def diffusion_2d_float32(U):
    for _ in range(3):
        U = U + np.float32(0.1) * (np.roll(U, 1, 0) + np.roll(U, -1, 0) + np.roll(U, 1, 1) + np.roll(U, -1, 1) - 4 * U)
    return np.sum(U * U)


def advection_diffusion_dict(u0, cfg):
    u = u0
    for _ in range(cfg["steps"]):
        adv = cfg["c"] * (u - np.roll(u, 1))
        dif = cfg["nu"] * (np.roll(u, -1) - 2 * u + np.roll(u, 1))
        u = u - adv + dif
    return np.sum(u * np.cos(np.arange(len(u))))


# ---- optimisation inner loops ------------------------------------------------------------------


def unrolled_descent(a, x0):
    x = x0
    for _ in range(10):
        g = a * x + np.sin(x)
        x = x - 0.1 * g
    return np.sum(0.5 * a * x**2 - np.cos(x))


def newton_sqrt_fixed(a):
    x = a
    for _ in range(6):
        x = 0.5 * (x + a / x)
    return x


def rosenbrock_grad(x):
    g = np.zeros_like(x)
    g[:-1] = -400.0 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * (x[1:] - x[:-1] ** 2)
    return g


def momentum_rosenbrock(x0):
    x = x0.copy()
    v = np.zeros_like(x)
    for _ in range(5):
        v = 0.9 * v - 1e-4 * rosenbrock_grad(x)
        x = x + v
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def adam_least_squares(w0, X, y):
    w = w0.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, 5):
        g = X.T @ (X @ w - y)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        m_hat = m / (1 - 0.9**t)
        v_hat = v / (1 - 0.999**t)
        w -= 0.05 * m_hat / (np.sqrt(v_hat) + 1e-8)
    return np.sum((X @ w - y) ** 2)


def ista_lasso(z0, lam):
    z = z0
    for _ in range(5):
        z = z - 0.2 * (z - WEIGHTS)
        z = np.sign(z) * np.maximum(np.abs(z) - 0.2 * lam, 0.0)
    return np.sum(z**2) + np.sum(z * WEIGHTS)


def projected_box(x0):
    x = x0
    for _ in range(5):
        x = np.clip(x - 0.3 * (x - 2.0 * WEIGHTS), -1.5, 1.5)
    return np.sum(x * WEIGHTS) + np.sum(x0 * x)


def backtracking(x0):
    def f(x):
        return np.sum(x**4) + np.sum(x**2)

    x = x0
    for _ in range(3):
        g = 4 * x**3 + 2 * x
        t = 1.0
        for _ in range(6):
            if f(x - t * g) > f(x) - 0.5 * t * (g @ g):
                t *= 0.5
        x = x - t * g
    return f(x)


def gauss_newton(theta0, t, y):
    theta = theta0
    for _ in range(3):
        a, b = theta[0], theta[1]
        pred = a * np.exp(-b * t)
        J = np.stack([np.exp(-b * t), -a * t * np.exp(-b * t)], axis=1)
        theta = theta + np.linalg.solve(J.T @ J + 0.1 * np.eye(2), J.T @ (y - pred))
    return np.sum((y - theta[0] * np.exp(-theta[1] * t)) ** 2)


def mirror_descent(logits):
    w = np.exp(logits) / np.sum(np.exp(logits))
    for _ in range(5):
        g = WEIGHTS * w - 0.3
        w = w * np.exp(-0.5 * g)
        w /= w.sum()
    return w @ WEIGHTS


def sinkhorn(C, eps=0.5):
    K = np.exp(-C / eps)
    a = np.ones(C.shape[0]) / C.shape[0]
    b = np.ones(C.shape[1]) / C.shape[1]
    u = np.ones_like(a)
    for _ in range(10):
        v = b / (K.T @ u)
        u = a / (K @ v)
    plan = u[:, None] * K * v[None, :]
    return np.sum(plan * C)


def power_iteration(A):
    S = A @ A.T
    v = np.ones(S.shape[0])
    for _ in range(15):
        v = S @ v
        v = v / np.linalg.norm(v)
    return v @ S @ v


def coordinate_descent(x0, Q):
    x = x0.copy()
    for _ in range(3):
        for i in range(len(x)):
            x[i] = x[i] - (Q[i] @ x - 1.0) / Q[i, i]
    return x @ Q @ x


def spd(r, n):
    A = M(r, n, n)
    return A @ A.T + n * np.eye(n)


def fixed_point_while(c):
    x, it = 0.5, 0
    while it < 20:
        x = math.cos(c * x)
        it += 1
    return x


def nesterov_quadratic(Q, x0):
    x, y = x0, x0
    for k in range(6):
        x_new = y - 0.05 * (Q @ y)
        y = x_new + k / (k + 3.0) * (x_new - x)
        x = x_new
    return 0.5 * x @ Q @ x


# ---- statistics -------------------------------------------------------------------------------


def softplus(x):
    return np.where(x > 0, x + np.log1p(np.exp(-x)), np.log1p(np.exp(x)))


def logistic_nll(w, X, y):
    z = X @ w
    return np.sum(softplus(z) - y * z)


def softplus_stable(x):
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def logistic_nll_stable(w, X, y):
    z = X @ w
    return np.mean(softplus_stable(z) - y * z) + 0.01 * w @ w


def logsumexp_by_hand(a):
    m = np.max(a)
    return m + np.log(np.sum(np.exp(a - m)))


def softmax_cross_entropy(W, X, labels):
    total = 0.0
    for x_i, k in zip(X, labels):
        logits = x_i @ W
        total += logsumexp_by_hand(logits) - logits[k]
    return total / len(labels)


def poisson_regression(beta, X, counts):
    eta = X @ beta
    return np.sum(np.exp(eta) - counts * eta)


def gaussian_loglik(params, x):
    mu, log_sigma = params
    sigma = np.exp(log_sigma)
    return -np.sum(0.5 * ((x - mu) / sigma) ** 2 + log_sigma + 0.5 * math.log(2 * math.pi))


def guarded_entropy(logits):
    p = np.exp(logits) / np.sum(np.exp(logits))
    p = np.where(np.arange(len(p)) == 0, 0.0, p)
    return -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0))


def kl_categorical(lp, lq):
    p = np.exp(lp - logsumexp_by_hand(lp))
    log_q = lq - logsumexp_by_hand(lq)
    return np.sum(p * (np.log(p) - log_q))


def ar1_loglik(phi, x):
    ll = 0.0
    for t in range(1, len(x)):
        resid = x[t] - phi[0] * x[t - 1]
        ll += -0.5 * resid**2 / phi[1] ** 2 - math.log(abs(phi[1]))
    return ll


def kalman_local_level(q, ys):
    m, P_ = 0.0, 1.0
    ll = 0.0
    for y in ys:
        P_ = P_ + q
        S = P_ + 0.5
        K = P_ / S
        ll = ll - 0.5 * (math.log(2 * math.pi * S) + (y - m) ** 2 / S)
        m = m + K * (y - m)
        P_ = (1 - K) * P_
    return ll


def two_component_mixture(theta, x):
    w = 1.0 / (1.0 + np.exp(-theta[0]))
    a = np.log(w) - 0.5 * (x - theta[1]) ** 2
    b = np.log(1 - w) - 0.5 * (x - theta[2]) ** 2
    m = np.maximum(a, b)
    return np.sum(m + np.log(np.exp(a - m) + np.exp(b - m)))


def student_t_loglik(params, x):
    nu = np.exp(params[0]) + 1.0
    scale = np.exp(params[1])
    z = x / scale
    const = math.lgamma((float(nu) + 1) / 2) - math.lgamma(float(nu) / 2)
    return np.sum(const - 0.5 * np.log(nu * np.pi) - params[1] - (nu + 1) / 2 * np.log1p(z**2 / nu))


def welford_variance(x):
    mean, m2 = 0.0, 0.0
    for n, xi in enumerate(x, start=1):
        delta = xi - mean
        mean += delta / n
        m2 += delta * (xi - mean)
    return m2 / (len(x) - 1) + mean


def streaming_logsumexp(x):
    m = -np.inf
    s = 0.0
    for xi in x:
        m_new = max(m, xi)
        s = s * np.exp(m - m_new) + np.exp(xi - m_new)
        m = m_new
    return m + np.log(s)


def bernoulli_clipped(p_raw, y):
    p = np.clip(1.0 / (1.0 + np.exp(-p_raw)), 1e-6, 1 - 1e-6)
    return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))


def huber_regression(w, X, y, delta=1.0):
    r = X @ w - y
    small = np.abs(r) <= delta
    return np.sum(np.where(small, 0.5 * r**2, delta * (np.abs(r) - 0.5 * delta)))


def pinball_loss(q, y, tau=0.3):
    diff = y - q
    return np.mean(np.maximum(tau * diff, (tau - 1) * diff))


def hierarchical_normal(params, groups):
    mu, log_tau = params["mu"], params["log_tau"]
    theta = params["theta"]
    lp = -0.5 * np.sum((theta - mu) ** 2) / np.exp(2 * log_tau) - len(theta) * log_tau
    for j, obs in enumerate(groups):
        lp = lp - 0.5 * np.sum((obs - theta[j]) ** 2)
    return lp


def mvn_cholesky_loglik(L_flat, x):
    L = np.zeros((2, 2))
    L[0, 0] = np.exp(L_flat[0])
    L[1, 0] = L_flat[1]
    L[1, 1] = np.exp(L_flat[2])
    cov = L @ L.T
    sol = np.linalg.solve(cov, x.T)
    return -0.5 * np.sum(x.T * sol) - x.shape[0] * (L_flat[0] + L_flat[2])


def log_sigmoid_sum(x):
    return -np.sum(softplus_stable(-x))


def beta_binomial_ll(ab, k, n):
    a, b = np.exp(ab[0]), np.exp(ab[1])
    total = 0.0
    for ki, ni in zip(k, n):
        total += math.lgamma(ki + a) + math.lgamma(ni - ki + b) - math.lgamma(ni + a + b)
    return total + len(k) * (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b))


def probit_ll(beta, X, y):
    from scipy.special import ndtr

    p = ndtr(X @ beta)
    return np.sum(y * np.log(p) + (1 - y) * np.log1p(-p))


def brier_softmax(W, X, Y):
    logits = X @ W
    logits = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    return np.mean(np.sum((probs - Y) ** 2, axis=1))


def float32_gaussian_nll(mu, x):
    return np.sum(np.float32(0.5) * (x - mu) ** 2) + np.float32(0.1) * np.sum(mu * mu)


def weighted_log_guard(x, w):
    safe = np.where(x > 0.1, x, 1.0)
    return np.sum(w * np.where(x > 0.1, np.log(safe), x - 1.0))


# ---- parameter trees and Python ---------------------------------------------------------------


def mlp_param_tree(params, x):
    h = x
    for W, b in params["layers"]:
        h = np.tanh(h @ W + b)
    return np.sum(h @ params["out"])


def mlp_tree(r):
    return {"layers": [(0.5 * M(r, 3, 4), 0.1 * M(r, 4)), (0.5 * M(r, 4, 3), 0.1 * M(r, 3))], "out": M(r, 3)}


def nested_tuple_params(theta, x):
    a, (b, c) = theta
    return np.sum(a * np.sin(b * x) + c * x**2)


def early_return_small(x):
    n2 = np.sum(x**2)
    if n2 < 1e-8:
        return 0.0
    return np.sum(x**3) / n2


def early_return_in_loop(x, limit=10.0):
    total = 0.0
    for i in range(len(x)):
        total += x[i] ** 2 * (i + 1)
        if total > limit:
            return total * 0.5
    return total


def nested_helper_closure(x):
    scale = x[0]

    def g(t):
        return scale * np.sin(t) + t**2

    return sum(g(xi) for xi in x[1:])


def while_fixed_accumulate(x):
    k = 0
    acc = np.zeros_like(x)
    while k < 4:
        acc = acc + np.cos(x * (k + 1)) / (k + 1)
        k += 1
    return np.sum(acc * x)


def list_of_rows_array(x):
    rows = [x * k + np.sin(x) for k in range(3)]
    A = np.array(rows)
    return np.sum(A @ x) + np.sum(A[1] ** 2)


def increment_elements(x):
    n = len(x)
    y = np.zeros(n)
    for i in range(n):
        y[i] += x[i] * x[(i + 1) % n]
        y[(i + 2) % n] += 0.5 * x[i]
    return np.sum(y**2)


def math_and_numpy(x):
    return math.exp(x[0]) * np.sum(np.cos(x)) + math.log(1.0 + x[1] ** 2) + math.atan2(x[2], 2.0)


def enumerate_weighted(x):
    total = 0.0
    for i, xi in enumerate(x):
        total += (i + 1) * xi**2 - math.sin(xi)
    return total


def zip_pairs(x, y):
    return sum(a * b + a**2 for a, b in zip(x, y))


def state_dict_loop(x):
    state = {"pos": x.copy(), "vel": np.zeros_like(x)}
    for _ in range(5):
        state["vel"] = state["vel"] - 0.1 * state["pos"]
        state["pos"] = state["pos"] + 0.1 * state["vel"]
    return np.sum(state["pos"] ** 2) + np.sum(state["vel"])


def poly_eval(coeffs, x, scale=1.0):
    out = np.zeros_like(x)
    for c in coeffs[::-1]:
        out = out * x + c
    return scale * out


def keyword_helper(c, x):
    return np.sum(poly_eval(c, x, scale=2.0) ** 2)


def helper_returning_dict(x):
    def stats(v):
        return {"mean": np.mean(v), "var": np.mean((v - np.mean(v)) ** 2)}

    s = stats(x)
    return s["var"] / (1.0 + s["mean"] ** 2)


def lambda_helper(x):
    sq = lambda t: t * t + 1.0  # noqa: E731  (as users write it)
    return np.sum(np.log(sq(x)))


def fibonacci_like(a):
    p, q = a[0], a[1]
    for _ in range(6):
        p, q = q, p + 0.5 * q
    return p * q


def conditional_comprehension(x):
    return sum(xi**2 if xi > 0 else -xi**3 for xi in x)


def multiply_inplace_copy(x):
    y = x.copy()
    y *= 2.0
    y[1:] -= x[:-1]
    y /= 1.0 + x**2
    return np.sum(y)


class Spring:
    def __init__(self, k, rest):
        self.k = k
        self.rest = rest

    def energy(self, x):
        return 0.5 * self.k * (x - self.rest) ** 2


def spring_object(x):
    s = Spring(2.0, 0.5)
    return np.sum(s.energy(x)) + np.sum(Spring(x[0], 0.0).energy(x[1:]))


def recursive_power(x, n=3):
    if n == 0:
        return np.ones_like(x)
    return x * recursive_power(x, n - 1)


def recursion_sum(x):
    return np.sum(recursive_power(x) + np.sin(x))


def math_fsum_list(x):
    terms = [math.sin(v) * v for v in x]
    return math.fsum(terms)


def float32_list_stack(x):
    parts = []
    for k in range(3):
        parts.append(np.tanh(x + np.float32(k)))
    return np.sum(np.stack(parts) ** 2)


def global_weights_dot(x):
    return np.sum(WEIGHTS * np.exp(-x)) + WEIGHTS @ x**2


def tuple_return_unpack(x):
    def split(v):
        return v[: len(v) // 2], v[len(v) // 2 :]

    lo, hi = split(x)
    return np.sum(lo * hi[::-1]) + np.sum(hi**2)


def break_after_fixed(x):
    total = 0.0
    for i in range(100):
        if i == 5:
            break
        total = total + np.sum(np.sin(x * (i + 1)))
    return total


def nested_dict_config(x, cfg):
    h = x * cfg["layer"]["scale"] + cfg["layer"]["shift"]
    for _ in range(cfg["repeat"]):
        h = np.tanh(h)
    return np.sum(h * cfg["weights"])


def min_max_scaling_python(x):
    lo, hi = min(x), max(x)
    return sum((xi - lo) / (hi - lo) * xi for xi in x)


def slice_assign_rows(X):
    Y = np.empty_like(X)
    Y[0] = X[0]
    for i in range(1, X.shape[0]):
        Y[i] = 0.5 * Y[i - 1] + X[i]
    return np.sum(Y**2)


def np_stack_columns(x):
    cols = [np.cos(x), np.sin(x), x**2]
    A = np.stack(cols, axis=1)
    return np.sum(A.T @ A)


def ternary_clip_loop(x):
    out = []
    for v in x:
        out.append(v if v < 1.0 else 1.0 + math.log(v))
    return np.sum(np.array(out) ** 2)


# ---- the table ----------------------------------------------------------------------------------

ODES = [
    ("euler_decay", euler_decay, lambda r: (1.3, P(r, 3)), 0),
    ("euler_decay_y0", euler_decay, lambda r: (1.3, P(r, 3)), 1),
    ("euler_lotka", euler_lotka, lambda r: (P(r, 4), P(r, 2)), 0),
    ("euler_lotka_start", euler_lotka, lambda r: (P(r, 4), P(r, 2)), 1),
    ("rk4_forced", rk4_forced, lambda r: (P(r, 3), M(r, 2)), 0),
    ("rk4_forced_y0", rk4_forced, lambda r: (P(r, 3), M(r, 2)), 1),
    ("rk4_trajectory_stacked", rk4_trajectory_stacked, lambda r: (P(r, 3), M(r, 2)), 0),
    ("euler_preallocated", euler_preallocated, lambda r: (1.2, M(r, 3)), 1),
    ("euler_preallocated_k", euler_preallocated, lambda r: (1.2, M(r, 3)), 0),
    ("pendulum_leapfrog", pendulum_leapfrog, lambda r: (0.5 * M(r, 3), M(r, 3)), 0),
    ("pendulum_leapfrog_omega", pendulum_leapfrog, lambda r: (0.5 * M(r, 3), M(r, 3)), 1),
    ("verlet_while", verlet_while, lambda r: (M(r, 3), 2.0), 0),
    ("verlet_while_k", verlet_while, lambda r: (M(r, 3), 2.0), 1),
    ("heun_logistic", heun_logistic, lambda r: (1.5, 0.1), 0),
    ("heun_logistic_y0", heun_logistic, lambda r: (1.5, 0.1), 1),
    ("midpoint_rotation", midpoint_rotation, lambda r: (0.8, M(r, 2)), 1),
    ("midpoint_rotation_omega", midpoint_rotation, lambda r: (0.8, M(r, 2)), 0),
    ("euler_dict_params", euler_dict_params, lambda r: ({"dt": 0.1, "a": 0.5, "b": 0.2}, M(r, 3)), 0),
    ("euler_dict_params_y0", euler_dict_params, lambda r: ({"dt": 0.1, "a": 0.5, "b": 0.2}, M(r, 3)), 1),
    ("sir_epidemic", sir_epidemic, lambda r: (np.array([2.5, 0.7]),), 0),
    ("rk2_system", rk2_system, lambda r: (M(r, 3), 0.3 * M(r, 3, 3)), 0),
    ("rk2_system_A", rk2_system, lambda r: (M(r, 3), 0.3 * M(r, 3, 3)), 1),
    ("symplectic_euler_orbit", symplectic_euler_orbit, lambda r: (np.array([1.0, 0.1]), np.array([0.05, 1.0])), 0),
    ("damped_spring_while", damped_spring_while, lambda r: ((2.0, 0.3), 1.0), 0),
    ("damped_spring_while_x0", damped_spring_while, lambda r: ((2.0, 0.3), 1.0), 1),
    ("implicit_euler_linear", implicit_euler_linear, lambda r: (2.0, M(r, 2)), 0),
    ("implicit_euler_linear_y0", implicit_euler_linear, lambda r: (2.0, M(r, 2)), 1),
    ("van_der_pol_rk4", van_der_pol_rk4, lambda r: (1.2, M(r, 2)), 0),
    ("van_der_pol_rk4_y0", van_der_pol_rk4, lambda r: (1.2, M(r, 2)), 1),
    ("euler_float32", euler_float32, lambda r: (F(r, 3), np.float32(1.5)), 0),
]

PHYSICS = [
    ("spring_pairs_loop", spring_pairs_loop, lambda r: (M(r, 4, 2),), 0),
    ("lennard_jones_loop", lennard_jones_loop, lambda r: (lattice(r),), 0),
    ("coulomb_charges", coulomb_charges, lambda r: (M(r, 3), lattice(r, 3)), 0),
    ("coulomb_positions", coulomb_charges, lambda r: (M(r, 3), lattice(r, 3)), 1),
    ("pairwise_forces_accumulate", pairwise_forces_accumulate, lambda r: (M(r, 3, 2), P(r, 3)), 0),
    ("pairwise_forces_masses", pairwise_forces_accumulate, lambda r: (M(r, 3, 2), P(r, 3)), 1),
    ("nbody_step_energy", nbody_step_energy, lambda r: (lattice(r, 3), 0.3 * M(r, 3, 2), P(r, 3)), 0),
    ("nbody_step_energy_vel", nbody_step_energy, lambda r: (lattice(r, 3), 0.3 * M(r, 3, 2), P(r, 3)), 1),
    ("pendulum_energy", pendulum_energy, lambda r: ((0.4, 1.1),), 0),
    ("pendulum_energy_length", pendulum_energy, lambda r: ((0.4, 1.1), 1.3), 1),
    ("double_pendulum_lagrangian", double_pendulum_lagrangian, lambda r: (M(r, 2), M(r, 2)), 0),
    ("double_pendulum_qd", double_pendulum_lagrangian, lambda r: (M(r, 2), M(r, 2)), 1),
    ("chain_bending", chain_bending, lambda r: (chain_points(r),), 0),
    ("harmonic_ring", harmonic_ring, lambda r: (M(r, 5),), 0),
    ("morse_bonds", morse_bonds, lambda r: (P(r, 4), {"D": 1.5, "a": 1.2, "re": 1.0}), 0),
    ("morse_bonds_params", morse_bonds, lambda r: (P(r, 4), {"D": 1.5, "a": 1.2, "re": 1.0}), 1),
    ("hamiltonian_dict", hamiltonian_dict, lambda r: ({"q": M(r, 3), "p": M(r, 3)},), 0),
    ("spring_mass_chain_x", spring_mass_chain_energy, lambda r: (M(r, 4), M(r, 4), P(r, 4), P(r, 4)), 0),
    ("spring_mass_chain_v", spring_mass_chain_energy, lambda r: (M(r, 4), M(r, 4), P(r, 4), P(r, 4)), 1),
    ("spring_mass_chain_ks", spring_mass_chain_energy, lambda r: (M(r, 4), M(r, 4), P(r, 4), P(r, 4)), 3),
    ("mean_field_ising", mean_field_ising, lambda r: (M(r, 5),), 0),
    ("pendulum_period", pendulum_period, lambda r: (0.3, 1.2), 0),
    ("pendulum_period_length", pendulum_period, lambda r: (0.3, 1.2), 1),
    ("gravity_potential_float32", gravity_potential_float32, lambda r: (F(r, 3, 2), P(r, 3).astype(np.float32)), 0),
    ("projectile_with_drag", projectile_with_drag, lambda r: (12.0,), 0),
    ("projectile_with_drag_angle", projectile_with_drag, lambda r: (12.0, 0.7), 1),
    ("rigid_rotor_energy", rigid_rotor_energy, lambda r: (M(r, 2), P(r, 2)), 0),
    ("elastic_rod_energy", elastic_rod_energy, lambda r: (0.3 * M(r, 6),), 0),
    ("virial_loop", virial_loop, lambda r: (M(r, 3, 2), M(r, 3, 2)), 0),
    ("virial_loop_vel", virial_loop, lambda r: (M(r, 3, 2), M(r, 3, 2)), 1),
]

STENCILS = [
    ("heat_copy_slices", heat_copy_slices, lambda r: (M(r, 6), 0.2), 0),
    ("heat_copy_slices_alpha", heat_copy_slices, lambda r: (M(r, 6), 0.2), 1),
    ("heat_periodic_roll", heat_periodic_roll, lambda r: (M(r, 6),), 0),
    ("heat_augmented_slice", heat_augmented_slice, lambda r: (M(r, 6),), 0),
    ("wave_leapfrog_roll", wave_leapfrog_roll, lambda r: (M(r, 6),), 0),
    ("wave_leapfrog_roll_c", wave_leapfrog_roll, lambda r: (M(r, 6), 0.5), 1),
    ("upwind_advection", upwind_advection, lambda r: (M(r, 6), 0.7), 0),
    ("upwind_advection_left", upwind_advection, lambda r: (M(r, 6), -0.7), 0),
    ("upwind_advection_a", upwind_advection, lambda r: (M(r, 6), 0.7), 1),
    ("burgers_step", burgers_step, lambda r: (M(r, 6),), 0),
    ("laplacian_2d_roll", laplacian_2d_roll, lambda r: (M(r, 3, 4),), 0),
    ("jacobi_poisson", jacobi_poisson, lambda r: (M(r, 3, 3),), 0),
    ("allen_cahn", allen_cahn, lambda r: (M(r, 6),), 0),
    ("smoothed_total_variation", smoothed_total_variation, lambda r: (M(r, 6),), 0),
    ("dirichlet_energy_2d", dirichlet_energy_2d, lambda r: (M(r, 3, 3),), 0),
    ("gray_scott", gray_scott, lambda r: (P(r, 2, 5),), 0),
    ("crank_nicolson", crank_nicolson, lambda r: (M(r, 5), 0.3), 0),
    ("crank_nicolson_alpha", crank_nicolson, lambda r: (M(r, 5), 0.3), 1),
    ("neumann_boundary", neumann_boundary, lambda r: (M(r, 6),), 0),
    ("upwind_scalar_loop", upwind_scalar_loop, lambda r: (M(r, 5),), 0),
    ("central_gradient_energy", central_gradient_energy, lambda r: (M(r, 6),), 0),
    ("diffusion_2d_float32", diffusion_2d_float32, lambda r: (F(r, 3, 3),), 0),
    ("advection_diffusion_dict", advection_diffusion_dict, lambda r: (M(r, 6), {"c": 0.3, "nu": 0.1, "steps": 4}), 0),
    ("advection_diffusion_cfg", advection_diffusion_dict, lambda r: (M(r, 6), {"c": 0.3, "nu": 0.1, "steps": 4}), 1),
]

def decay_data(r):
    t = np.linspace(0, 2, 6)
    return np.array([1.0, 0.5]), t, 1.3 * np.exp(-0.7 * t) + 0.05 * M(r, 6)


OPTIMISERS = [
    ("unrolled_descent", unrolled_descent, lambda r: (P(r, 3), M(r, 3)), 0),
    ("unrolled_descent_x0", unrolled_descent, lambda r: (P(r, 3), M(r, 3)), 1),
    ("newton_sqrt_fixed", newton_sqrt_fixed, lambda r: (2.3,), 0),
    ("momentum_rosenbrock", momentum_rosenbrock, lambda r: (0.5 * M(r, 3),), 0),
    ("adam_least_squares", adam_least_squares, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("adam_least_squares_X", adam_least_squares, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 1),
    ("ista_lasso", ista_lasso, lambda r: (M(r, 3), 0.3), 0),
    ("ista_lasso_lam", ista_lasso, lambda r: (M(r, 3), 0.3), 1),
    ("projected_box", projected_box, lambda r: (M(r, 3),), 0),
    ("backtracking", backtracking, lambda r: (0.5 * M(r, 3),), 0),
    ("gauss_newton", gauss_newton, decay_data, 0),
    ("gauss_newton_y", gauss_newton, decay_data, 2),
    ("mirror_descent", mirror_descent, lambda r: (M(r, 3),), 0),
    ("sinkhorn", sinkhorn, lambda r: (P(r, 3, 4),), 0),
    ("power_iteration", power_iteration, lambda r: (M(r, 3, 3),), 0),
    ("coordinate_descent", coordinate_descent, lambda r: (M(r, 3), spd(r, 3)), 0),
    ("coordinate_descent_Q", coordinate_descent, lambda r: (M(r, 3), spd(r, 3)), 1),
    ("fixed_point_while", fixed_point_while, lambda r: (0.9,), 0),
    ("nesterov_quadratic", nesterov_quadratic, lambda r: (spd(r, 3), M(r, 3)), 1),
    ("nesterov_quadratic_Q", nesterov_quadratic, lambda r: (spd(r, 3), M(r, 3)), 0),
]


def labels(r, n, k):
    return r.integers(0, k, size=n)


def coins(r, n):
    return (r.random(n) > 0.5).astype(float)


def hierarchy(r):
    return {"mu": 0.2, "log_tau": -0.1, "theta": M(r, 3)}, [M(r, 2), M(r, 3), M(r, 1)]


STATISTICS = [
    ("logistic_nll", logistic_nll, lambda r: (M(r, 3), M(r, 6, 3), coins(r, 6)), 0),
    ("logistic_nll_stable", logistic_nll_stable, lambda r: (M(r, 3), M(r, 6, 3), coins(r, 6)), 0),
    ("logistic_nll_stable_X", logistic_nll_stable, lambda r: (M(r, 3), M(r, 6, 3), coins(r, 6)), 1),
    ("softmax_cross_entropy", softmax_cross_entropy, lambda r: (M(r, 3, 4), M(r, 5, 3), labels(r, 5, 4)), 0),
    ("poisson_regression", poisson_regression, lambda r: (0.3 * M(r, 3), M(r, 6, 3), r.poisson(2.0, 6) * 1.0), 0),
    ("gaussian_loglik", gaussian_loglik, lambda r: ((0.3, -0.2), M(r, 6)), 0),
    ("gaussian_loglik_x", gaussian_loglik, lambda r: ((0.3, -0.2), M(r, 6)), 1),
    ("guarded_entropy", guarded_entropy, lambda r: (M(r, 4),), 0),
    ("kl_categorical", kl_categorical, lambda r: (M(r, 4), M(r, 4)), 0),
    ("kl_categorical_q", kl_categorical, lambda r: (M(r, 4), M(r, 4)), 1),
    ("ar1_loglik", ar1_loglik, lambda r: (np.array([0.6, 0.8]), M(r, 6)), 0),
    ("ar1_loglik_x", ar1_loglik, lambda r: (np.array([0.6, 0.8]), M(r, 6)), 1),
    ("kalman_local_level", kalman_local_level, lambda r: (0.3, M(r, 6)), 0),
    ("kalman_local_level_ys", kalman_local_level, lambda r: (0.3, M(r, 6)), 1),
    ("two_component_mixture", two_component_mixture, lambda r: (np.array([0.2, -1.0, 1.0]), 2 * M(r, 8)), 0),
    ("student_t_loglik", student_t_loglik, lambda r: (np.array([1.0, 0.2]), M(r, 6)), 0),
    ("welford_variance", welford_variance, lambda r: (M(r, 6),), 0),
    ("streaming_logsumexp", streaming_logsumexp, lambda r: (M(r, 5),), 0),
    ("bernoulli_clipped", bernoulli_clipped, lambda r: (M(r, 5), coins(r, 5)), 0),
    ("huber_regression", huber_regression, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("pinball_loss", pinball_loss, lambda r: (M(r, 5), M(r, 5)), 0),
    ("hierarchical_normal", hierarchical_normal, hierarchy, 0),
    ("mvn_cholesky_loglik", mvn_cholesky_loglik, lambda r: (0.3 * M(r, 3), M(r, 5, 2)), 0),
    ("log_sigmoid_sum", log_sigmoid_sum, lambda r: (2 * M(r, 5),), 0),
    ("beta_binomial_ll", beta_binomial_ll, lambda r: (np.array([0.3, 0.5]), [2, 3, 1], [5, 6, 4]), 0),
    ("probit_ll", probit_ll, lambda r: (0.5 * M(r, 3), M(r, 6, 3), coins(r, 6)), 0),
    ("brier_softmax", brier_softmax, lambda r: (M(r, 3, 4), M(r, 5, 3), np.eye(4)[labels(r, 5, 4)]), 0),
    ("float32_gaussian_nll", float32_gaussian_nll, lambda r: (F(r, 4), F(r, 4)), 0),
    ("weighted_log_guard", weighted_log_guard, lambda r: (np.array([0.5, -0.3, 1.4, 0.02]), P(r, 4)), 0),
    ("weighted_log_guard_w", weighted_log_guard, lambda r: (np.array([0.5, -0.3, 1.4, 0.02]), P(r, 4)), 1),
]

def layer_config(r):
    return M(r, 3), {"layer": {"scale": 1.5, "shift": 0.1}, "repeat": 2, "weights": M(r, 3)}


PYTHON = [
    ("mlp_param_tree", mlp_param_tree, lambda r: (mlp_tree(r), M(r, 2, 3)), 0),
    ("mlp_param_tree_x", mlp_param_tree, lambda r: (mlp_tree(r), M(r, 2, 3)), 1),
    ("nested_tuple_params", nested_tuple_params, lambda r: ((0.5, (1.2, -0.3)), M(r, 4)), 0),
    ("nested_tuple_params_x", nested_tuple_params, lambda r: ((0.5, (1.2, -0.3)), M(r, 4)), 1),
    ("early_return_small", early_return_small, lambda r: (M(r, 4),), 0),
    ("early_return_small_zero", early_return_small, lambda r: (np.zeros(3),), 0),
    ("early_return_in_loop", early_return_in_loop, lambda r: (np.array([1.0, 2.0, 0.5, 3.0]),), 0),
    ("early_return_in_loop_none", early_return_in_loop, lambda r: (0.3 * M(r, 4),), 0),
    ("nested_helper_closure", nested_helper_closure, lambda r: (M(r, 4),), 0),
    ("while_fixed_accumulate", while_fixed_accumulate, lambda r: (M(r, 4),), 0),
    ("list_of_rows_array", list_of_rows_array, lambda r: (M(r, 3),), 0),
    ("increment_elements", increment_elements, lambda r: (M(r, 5),), 0),
    ("math_and_numpy", math_and_numpy, lambda r: (M(r, 3),), 0),
    ("enumerate_weighted", enumerate_weighted, lambda r: (M(r, 4),), 0),
    ("zip_pairs", zip_pairs, lambda r: (M(r, 4), M(r, 4)), 0),
    ("zip_pairs_y", zip_pairs, lambda r: (M(r, 4), M(r, 4)), 1),
    ("state_dict_loop", state_dict_loop, lambda r: (M(r, 3),), 0),
    ("keyword_helper", keyword_helper, lambda r: (M(r, 3), M(r, 4)), 0),
    ("keyword_helper_x", keyword_helper, lambda r: (M(r, 3), M(r, 4)), 1),
    ("helper_returning_dict", helper_returning_dict, lambda r: (M(r, 5),), 0),
    ("lambda_helper", lambda_helper, lambda r: (M(r, 4),), 0),
    ("fibonacci_like", fibonacci_like, lambda r: (M(r, 2),), 0),
    ("conditional_comprehension", conditional_comprehension, lambda r: (M(r, 5),), 0),
    ("multiply_inplace_copy", multiply_inplace_copy, lambda r: (M(r, 4),), 0),
    ("spring_object", spring_object, lambda r: (M(r, 4),), 0),
    ("recursion_sum", recursion_sum, lambda r: (M(r, 3),), 0),
    ("math_fsum_list", math_fsum_list, lambda r: (M(r, 4),), 0),
    ("float32_list_stack", float32_list_stack, lambda r: (F(r, 3),), 0),
    ("global_weights_dot", global_weights_dot, lambda r: (M(r, 3),), 0),
    ("tuple_return_unpack", tuple_return_unpack, lambda r: (M(r, 6),), 0),
    ("break_after_fixed", break_after_fixed, lambda r: (M(r, 3),), 0),
    ("nested_dict_config", nested_dict_config, layer_config, 0),
    ("nested_dict_config_cfg", nested_dict_config, layer_config, 1),
    ("min_max_scaling_python", min_max_scaling_python, lambda r: (M(r, 4),), 0),
    ("slice_assign_rows", slice_assign_rows, lambda r: (M(r, 4, 2),), 0),
    ("np_stack_columns", np_stack_columns, lambda r: (M(r, 4),), 0),
    ("ternary_clip_loop", ternary_clip_loop, lambda r: (np.array([0.3, 1.7, -0.4, 2.2]),), 0),
]

PROGRAMS = ODES + PHYSICS + STENCILS + OPTIMISERS + STATISTICS + PYTHON
