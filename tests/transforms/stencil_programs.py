"""Stencil loops: a loop-carried array whose slices make its next value, each spelled the ways
everyday code spells it (``np.concatenate`` of its ends and a new middle, ``np.pad`` (of
``np.diff(u, 2)`` too), a copy written into, a write into the array itself, ``np.roll``), on
vectors, on the rows of a matrix and on a matrix's interior (a plate), inside helpers, with a
nonlinear update whose backward pass needs the old values, with boundaries two wide (whose
shapes the optimizer cannot prove equal) and with an update of two arrays at once.
test_speed18_stencils.py runs every transformation on them."""

import numpy as np

# ---- the heat equation on a rod, its ends held ----------------------------------------------------


def heat_concat(u0, kappa, target, steps):
    u = u0
    for _ in range(steps):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u = np.concatenate([u[:1], u[1:-1] + kappa * lap, u[-1:]])
    return np.mean((u - target) ** 2)


def heat_concat_sum(u0, kappa, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + kappa * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.sum(u * u)


def heat_pad(u0, kappa, target, steps):
    u = u0
    for _ in range(steps):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u = u + kappa * np.pad(lap, 1)
    return np.mean((u - target) ** 2)


def heat_copy_write(u0, kappa, target, steps):
    u = u0
    for _ in range(steps):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        new = u.copy()
        new[1:-1] = u[1:-1] + kappa * lap
        u = new
    return np.mean((u - target) ** 2)


def heat_in_place(u0, kappa, target, steps):
    u = u0.copy()
    for _ in range(steps):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u[1:-1] += kappa * lap
    return np.mean((u - target) ** 2)


def heat_diff(u0, kappa, steps):
    u = u0
    for _ in range(steps):
        u = u + kappa * np.pad(np.diff(u, 2), 1)
    return np.sum(np.cos(u))


def heat_roll(u0, kappa, target, steps):
    u = u0
    for _ in range(steps):
        u = u + kappa * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
    return np.sum((u - target) ** 2)


def heat_hstack(u0, kappa, steps):
    u = u0
    for _ in range(steps):
        u = np.hstack([u[0], u[1:-1] + kappa * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1]])
    return np.sum(u * u)


def heat_while(u0, kappa, steps):
    u, k = u0, 0
    while k < steps:
        u = np.concatenate([u[:1], u[1:-1] + kappa * (u[2:] - 2.0 * u[1:-1] + u[:-2]), u[-1:]])
        k += 1
    return np.sum(np.sin(u))


def heat_direct(u0, kappa, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + kappa * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(u ** 2)


def burgers(u0, nu, steps):
    """Nonlinear, written into the array: the backward pass needs each step's old values."""
    u = u0.copy()
    for _ in range(steps):
        advection = u[1:-1] * (u[2:] - u[:-2]) * 0.5
        diffusion = nu * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u[1:-1] = u[1:-1] + 0.1 * (diffusion - advection)
    return np.sum(u ** 2)


# ---- on a plate: the interior of a matrix ---------------------------------------------------------


def _plate_laplacian(u):
    return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]


def plate_in_place(u0, kappa, steps):
    u = u0.copy()
    for _ in range(steps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += kappa * lap
    return np.sum(u * u)


def plate_pad(u0, kappa, steps):
    u = u0
    for _ in range(steps):
        u = u + kappa * np.pad(_plate_laplacian(u), 1)
    return np.sum(np.sin(u))


def plate_copy_write(u0, kappa, steps):
    u = u0
    for _ in range(steps):
        new = u.copy()
        new[1:-1, 1:-1] = u[1:-1, 1:-1] + kappa * _plate_laplacian(u)
        u = new
    return np.sum(u * u)


# ---- the stencil in a helper, on rows, nonlinear, wide, shifted, two arrays --------------------------


def laplacian(u):
    return u[:-2] - 2.0 * u[1:-1] + u[2:]


def heat_helper(u0, kappa, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + kappa * laplacian(u), u[-1:]])
    return np.sum(u ** 3)


def heat_rows(u0, kappa, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + kappa * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.sum(np.tanh(u) * u)


def heat_columns(u0, kappa, steps):
    u = u0
    for _ in range(steps):
        lap = u[:, :-2] - 2.0 * u[:, 1:-1] + u[:, 2:]
        u = np.concatenate([u[:, :1], u[:, 1:-1] + kappa * lap, u[:, -1:]], axis=1)
    return np.sum(u ** 2)


def nonlinear_diffusion(u0, dt, steps):
    u = u0
    for _ in range(steps):
        flux = np.tanh(u[1:] - u[:-1])
        u = np.concatenate([u[:1], u[1:-1] + dt * (flux[1:] - flux[:-1]) * u[1:-1], u[-1:]])
    return np.sum(u ** 2)


def wide_boundary(u0, kappa, steps):
    u = u0
    for _ in range(steps):
        lap = u[:-4] - 4.0 * u[2:-2] + u[4:] + u[1:-3] + u[3:-1]
        u = np.concatenate([u[:2], u[2:-2] + kappa * lap, u[-2:]])
    return np.sum(u ** 2)


def advect_shifted(u0, c, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:] - c * (u[1:] - u[:-1])])
    return np.sum(u * np.cos(u))


def wave_two_arrays(u0, v0, c, steps):
    u, v = u0, v0
    for _ in range(steps):
        lap = np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], 1)
        v = v + c * lap
        u = u + 0.1 * v
    return np.sum(u ** 2) + 0.5 * np.sum(v ** 2)


def copy_write_in_place_late(u0, kappa, steps):
    """The old values read after the write (``u * new``): the write stays a copy."""
    u = u0
    total = 0.0
    for _ in range(steps):
        new = u.copy()
        new[1:-1] = u[1:-1] + kappa * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        total = total + np.sum(u * new)
        u = new
    return total


# ---- where the old array is still needed, or the join is not of the array's own ends ------------------


def old_and_new(u0, k, steps):
    u = u0
    s = 0.0
    for _ in range(steps):
        u_new = np.concatenate([u[:1], u[1:-1] + k * np.tanh(u[2:] - u[:-2]), u[-1:]])
        s = s + np.sum(u_new * u)
        u = u_new
    return s + np.sum(u ** 2)


def alias_kept(u0, k, steps):
    u = u0
    total = 0.0
    for _ in range(steps):
        v = u
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
        total = total + np.sum(v * v * u)
    return total


def two_writes(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] += k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u[0] = u[1]
        u[-1] = u[-2] * 0.5
    return np.sum(np.sin(u))


def rotation(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[1:], u[:1]]) * (1.0 - k) + k * u
    return np.sum(u * np.arange(len(u)))


def rows_padded(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = u + k * np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], ((1, 1), (0, 0)))
    return np.sum(np.tanh(u))


def _v(r, n, scale=1.0):
    return scale * r.normal(size=n)


PROGRAMS = [
    ("heat_concat", heat_concat, lambda r: (_v(r, 7), 0.2, _v(r, 7, 0.1), 4), 0),
    ("heat_concat_kappa", heat_concat, lambda r: (_v(r, 7), 0.2, _v(r, 7, 0.1), 4), 1),
    ("heat_concat_two", heat_concat, lambda r: (_v(r, 2), 0.3, _v(r, 2, 0.1), 3), 0),
    ("heat_concat_one", heat_concat, lambda r: (_v(r, 1), 0.3, _v(r, 1, 0.1), 3), 0),
    ("heat_concat_sum", heat_concat_sum, lambda r: (_v(r, 6), 0.25, 5), 0),
    ("heat_pad", heat_pad, lambda r: (_v(r, 7), 0.2, _v(r, 7, 0.1), 4), 0),
    ("heat_pad_kappa", heat_pad, lambda r: (_v(r, 7), 0.2, _v(r, 7, 0.1), 4), 1),
    ("heat_copy_write", heat_copy_write, lambda r: (_v(r, 7), 0.2, _v(r, 7, 0.1), 4), 0),
    ("heat_copy_write_kappa", heat_copy_write, lambda r: (_v(r, 7), 0.2, _v(r, 7, 0.1), 4), 1),
    ("heat_in_place", heat_in_place, lambda r: (_v(r, 7), 0.2, _v(r, 7, 0.1), 4), 0),
    ("heat_in_place_kappa", heat_in_place, lambda r: (_v(r, 7), 0.2, _v(r, 7, 0.1), 4), 1),
    ("heat_roll", heat_roll, lambda r: (_v(r, 7), 0.2, _v(r, 7, 0.1), 4), 0),
    ("heat_diff", heat_diff, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("heat_diff_kappa", heat_diff, lambda r: (_v(r, 7), 0.2, 4), 1),
    ("heat_while", heat_while, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("heat_hstack", heat_hstack, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("heat_hstack_kappa", heat_hstack, lambda r: (_v(r, 6), 0.2, 3), 1),
    ("heat_direct", heat_direct, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("heat_direct_kappa", heat_direct, lambda r: (_v(r, 7), 0.2, 4), 1),
    ("burgers", burgers, lambda r: (_v(r, 7), 0.3, 4), 0),
    ("plate_in_place", plate_in_place, lambda r: (r.normal(size=(5, 6)), 0.1, 3), 0),
    ("plate_in_place_kappa", plate_in_place, lambda r: (r.normal(size=(5, 6)), 0.1, 3), 1),
    ("plate_pad", plate_pad, lambda r: (r.normal(size=(4, 5)), 0.1, 3), 0),
    ("plate_copy_write", plate_copy_write, lambda r: (r.normal(size=(5, 4)), 0.1, 3), 0),
    ("heat_helper", heat_helper, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("heat_rows", heat_rows, lambda r: (r.normal(size=(5, 3)), 0.2, 3), 0),
    ("heat_columns", heat_columns, lambda r: (r.normal(size=(3, 6)), 0.2, 3), 0),
    ("nonlinear_diffusion", nonlinear_diffusion, lambda r: (_v(r, 7), 0.1, 4), 0),
    ("wide_boundary", wide_boundary, lambda r: (_v(r, 8), 0.05, 3), 0),
    ("wide_boundary_short", wide_boundary, lambda r: (_v(r, 3), 0.05, 3), 0),
    ("advect_shifted", advect_shifted, lambda r: (_v(r, 6), 0.3, 4), 0),
    ("wave_two_arrays", wave_two_arrays, lambda r: (_v(r, 6), _v(r, 6, 0.1), 0.2, 4), 0),
    ("wave_two_arrays_v", wave_two_arrays, lambda r: (_v(r, 6), _v(r, 6, 0.1), 0.2, 4), 1),
    ("copy_write_in_place_late", copy_write_in_place_late, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("old_and_new", old_and_new, lambda r: (_v(r, 7), 0.3, 4), 0),
    ("alias_kept", alias_kept, lambda r: (_v(r, 7), 0.2, 3), 0),
    ("two_writes", two_writes, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("rotation", rotation, lambda r: (_v(r, 6), 0.3, 4), 0),
    ("rows_padded", rows_padded, lambda r: (r.normal(size=(6, 3)), 0.2, 3), 0),
]
