"""The held-out variants' simulations and scalar ODE fits (variants_programs.py re-exports them): an
n-body Verlet step, heat-equation loops, and fits of two parameters whose Hessians are timed too."""

import numpy as np

# ---- simulations ---------------------------------------------------------------------------------


def forces(x, eps):
    d = x[:, None, :] - x[None, :, :]
    r2 = np.sum(d * d, axis=-1) + eps
    return -np.sum(d * (r2 ** -1.5)[:, :, None], axis=1)


def nbody(x, v, target, dt, steps):
    a = forces(x, 0.1)
    for _ in range(steps):
        x = x + dt * v + 0.5 * dt * dt * a
        a_new = forces(x, 0.1)
        v = v + 0.5 * dt * (a + a_new)
        a = a_new
    return np.sum((x - target) ** 2)


def forces_vjp(x, u, eps):
    """u^T dF/dx for F = forces(x, eps)."""
    d = x[:, None, :] - x[None, :, :]
    r2 = np.sum(d * d, axis=-1) + eps
    g = r2 ** -1.5
    c = u[:, None, :] * g[:, :, None] - 3.0 * (r2 ** -2.5 * np.sum(u[:, None, :] * d, axis=-1))[:, :, None] * d
    return c.sum(axis=0) - c.sum(axis=1)


def nbody_grad(x, v, target, dt, steps):
    xs = [x]
    a = forces(x, 0.1)
    for _ in range(steps):
        x = x + dt * v + 0.5 * dt * dt * a
        a_new = forces(x, 0.1)
        v = v + 0.5 * dt * (a + a_new)
        a = a_new
        xs.append(x)
    x_bar, v_bar, a_bar = 2.0 * (x - target), np.zeros_like(v), np.zeros_like(x)
    for k in range(steps, 0, -1):
        x_bar = x_bar + forces_vjp(xs[k], a_bar + 0.5 * dt * v_bar, 0.1)
        a_bar = 0.5 * dt * v_bar + 0.5 * dt * dt * x_bar
        v_bar = v_bar + dt * x_bar
    return x_bar + forces_vjp(xs[0], a_bar, 0.1), v_bar


def heat_roll(u0, alpha, target, steps):
    u = u0
    for _ in range(steps):
        u = u + alpha * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
    return np.sum((u - target) ** 2)


def heat_roll_grad(u0, alpha, target, steps):
    u, laps = u0, []
    for _ in range(steps):
        lap = np.roll(u, 1) - 2.0 * u + np.roll(u, -1)
        laps.append(lap)
        u = u + alpha * lap
    u_bar, alpha_bar = 2.0 * (u - target), 0.0
    for lap in reversed(laps):
        alpha_bar += u_bar @ lap
        u_bar = u_bar + alpha * (np.roll(u_bar, 1) - 2.0 * u_bar + np.roll(u_bar, -1))
    return u_bar, alpha_bar


def heat_slice(u0, kappa, target, steps):
    u = u0
    for _ in range(steps):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u = np.concatenate([u[:1], u[1:-1] + kappa * lap, u[-1:]])
    return np.mean((u - target) ** 2)


def heat_slice_grad(u0, kappa, target, steps):
    u, laps = u0.copy(), []
    for _ in range(steps):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        laps.append(lap)
        u[1:-1] += kappa * lap
    u_bar, kappa_bar = (2.0 / u.size) * (u - target), 0.0
    for lap in reversed(laps):
        inner = u_bar[1:-1].copy()
        kappa_bar += inner @ lap
        inner *= kappa
        u_bar[1:-1] -= 2.0 * inner
        u_bar[:-2] += inner
        u_bar[2:] += inner
    return u_bar, kappa_bar


# ---- fits of scalar ODEs: Hessians of two parameters ---------------------------------------------


def accel(x, v, c, k):
    return -c * v - k * x


def oscillator(c, k, observed, n):
    x, v = 1.0, 0.0
    dt = 0.05
    loss = 0.0
    for i in range(n):
        a = accel(x, v, c, k)
        x, v = x + dt * v, v + dt * a
        loss += (x - observed[i]) ** 2
    return loss


def oscillator_grad(c, k, observed, n):
    x, v, dt = 1.0, 0.0, 0.05
    xc = vc = xk = vk = gc = gk = 0.0
    for i in range(n):
        a, ac, ak = -c * v - k * x, -v - c * vc - k * xc, -c * vk - x - k * xk
        x, v, xc, vc, xk, vk = x + dt * v, v + dt * a, xc + dt * vc, vc + dt * ac, xk + dt * vk, vk + dt * ak
        r = 2.0 * (x - observed[i])
        gc += r * xc
        gk += r * xk
    return gc, gk


def lv_rhs(x, y, a, b):
    return a * x - 0.4 * x * y, -b * y + 0.3 * x * y


def heun(x, y, a, b, h):
    f1, g1 = lv_rhs(x, y, a, b)
    f2, g2 = lv_rhs(x + h * f1, y + h * g1, a, b)
    return x + 0.5 * h * (f1 + f2), y + 0.5 * h * (g1 + g2)


def lotka(a, b, observed, steps):
    x, y = 1.0, 0.5
    xs = []
    for _ in range(steps):
        x, y = heun(x, y, a, b, 0.05)
        xs.append(x)
    misfit = 0.0
    for i in range(steps):
        misfit = misfit + (xs[i] - observed[i]) ** 2
    return misfit


def lotka_grad(a, b, observed, steps):
    """Forward sensitivities (x, y and their derivatives in a and b through each Heun stage)."""
    def rhs_jvp(s):
        x, y, xa, ya, xb, yb = s
        f, g = a * x - 0.4 * x * y, -b * y + 0.3 * x * y
        return (f, g, x + a * xa - 0.4 * (xa * y + x * ya), -b * ya + 0.3 * (xa * y + x * ya),
                a * xb - 0.4 * (xb * y + x * yb), -y - b * yb + 0.3 * (xb * y + x * yb))

    h, s = 0.05, (1.0, 0.5, 0.0, 0.0, 0.0, 0.0)
    ga = gb = 0.0
    for i in range(steps):
        k1 = rhs_jvp(s)
        k2 = rhs_jvp(tuple(p + h * q for p, q in zip(s, k1)))
        s = tuple(p + 0.5 * h * (q + r) for p, q, r in zip(s, k1, k2))
        r = 2.0 * (s[0] - observed[i])
        ga += r * s[2]
        gb += r * s[4]
    return ga, gb
