"""Red-team stencil loops (round 19): PDE time steps and array rebuilds the way scientists write
them, aimed at the same-shape and in-place passes of backend/optimize (shape_classes.py,
reassembly.py, zero_restore.py, carried_writes.py, joined_writes.py, stack_items.py): joins of
an array's own pieces in every spelling and np.pad mode, joins that look like a tiling and are
not, arrays that grow or shrink across iterations, broadcasting that changes a carried shape,
boundary conditions by index, lists of states, list and tuple parameters, while loops with
break and continue, branches in the body, scalars carried with arrays.
test_stencil_redteam.py runs every transformation on them and compares with the unoptimised code."""

import numpy as np

# ---- 1-D heat, np.pad in each mode ----------------------------------------------------------------


def pad_edge(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.pad(u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), 1, mode="edge")
    return np.sum(u ** 2)


def pad_reflect_ghost(u0, k, steps):
    u = u0
    for _ in range(steps):
        g = np.pad(u, 1, mode="reflect")
        u = u + k * (g[:-2] - 2.0 * g[1:-1] + g[2:])
    return np.sum(np.sin(u))


def pad_symmetric_ghost(u0, k, steps):
    u = u0
    for _ in range(steps):
        g = np.pad(u, 1, mode="symmetric")
        u = u + k * (g[:-2] - 2.0 * g[1:-1] + g[2:])
    return np.sum(u ** 3)


def pad_wrap_ghost(u0, k, steps):
    u = u0
    for _ in range(steps):
        g = np.pad(u, 1, mode="wrap")
        u = u + k * (g[:-2] - 2.0 * g[1:-1] + g[2:])
    return np.sum(u * np.cos(u))


def pad_constant_value(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.pad(u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), 1, mode="constant", constant_values=1.0)
    return np.sum(u ** 2)


def pad_tuple_width(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = u + k * np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], (1, 1))
    return np.sum(np.tanh(u))


def pad_one_sided(u0, c, steps):
    """Upwind advection, the first point held at zero inflow: (2, 0) pad of a difference two wide."""
    u = u0
    for _ in range(steps):
        u = u - c * np.pad(u[2:] - u[:-2], (2, 0))
    return np.sum(u ** 2)


def pad_uneven(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = u + k * np.pad(u[1:] - u[:-1], (0, 1))
    return np.sum(u ** 2)


def pad_edge_ghost(u0, k, steps):
    u = u0
    for _ in range(steps):
        g = np.pad(u, 1, mode="edge")
        u = u + k * (g[:-2] - 2.0 * g[1:-1] + g[2:])
    return np.sum(u ** 2 * np.arange(len(u)))


# ---- joins of an array's own pieces, and joins that look like it -----------------------------------


def concat_tuple_join(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate((u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]))
    return np.sum(u ** 2)


def neumann_concat(u0, k, steps):
    """Zero-flux ends: each end copies its neighbour."""
    u = u0
    for _ in range(steps):
        mid = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u = np.concatenate([mid[:1], mid, mid[-1:]])
    return np.sum(u ** 2)


def shift_right(u0, k, steps):
    """u[:1] and u[:-1] add up to u's length but overlap: not a write into u."""
    u = u0
    for _ in range(steps):
        u = (1.0 - k) * u + k * np.concatenate([u[:1], u[:-1]])
    return np.sum(u * np.arange(1.0, len(u) + 1.0))


def shift_left_repeat(u0, c, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[1:], u[-1:]]) * c + (1.0 - c) * u
    return np.sum(u ** 2 * np.linspace(0.0, 1.0, len(u)))


def shift_into_self(u0, c, steps):
    """The join is the carried array itself, shifted: u[0] then u[:-1]."""
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1] * c, u[:-1]])
    return np.sum(u * np.arange(1.0, len(u) + 1.0))


def rotate_half(u0, k, steps):
    u = u0
    n = len(u0)
    for _ in range(steps):
        u = np.concatenate([u[n // 2:], u[:n // 2]]) * k + u
    return np.sum(u * np.arange(len(u)))


def hstack_rotate(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = k * np.hstack([u[1:], u[:1]]) + (1.0 - k) * u
    return np.sum(u * np.arange(len(u)))


def concat_rolled_left(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[-1:], u[:-1]]) * k + u * (1.0 - k)
    return np.sum(u ** 2 * np.arange(len(u)))


def concat_ends_swapped(u0, k, steps):
    """u's ends placed at the other end: the pieces tile u's length, but not its positions."""
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[-1:], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[:1]])
    return np.sum(u * np.arange(len(u)))


def concat_two_one(u0, k, steps):
    """Ends two and one wide: 2 + (n - 3) + 1 = n for n >= 3."""
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:2], u[2:-1] + k * (u[1:-2] - u[3:]), u[-1:]])
    return np.sum(u ** 2)


def concat_scaled_ends(u0, k, steps):
    """Ends decayed, not copied."""
    u = u0
    for _ in range(steps):
        u = np.concatenate([0.5 * u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:] * 0.9])
    return np.sum(np.sin(u))


def concat_reversed(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = k * u[::-1] + (1.0 - k) * np.concatenate([u[:1], u[1:]])
    return np.sum(u * np.arange(len(u)))


def concat_variable_bounds(u0, k, lo, hi, steps):
    """Only u[lo:hi] diffuses (lo, hi ints)."""
    u = u0
    for _ in range(steps):
        mid = u[lo:hi] + k * (u[lo - 1:hi - 1] - 2.0 * u[lo:hi] + u[lo + 1:hi + 1])
        u = np.concatenate([u[:lo], mid, u[hi:]])
    return np.sum(u ** 2)


def concat_loop_index_bounds(u0, k, steps):
    """The updated window moves with the step."""
    u = u0
    for i in range(steps):
        j = i % (len(u) - 2) + 1
        u = np.concatenate([u[:j], u[j:j + 1] + k * (u[j - 1:j] + u[j + 1:j + 2]), u[j + 1:]])
    return np.sum(u ** 2)


# ---- writes by index: boundary conditions, copies, in place ----------------------------------------


def dirichlet_by_index(u0, k, left, right, steps):
    u = u0.copy()
    for _ in range(steps):
        u[0] = left
        u[-1] = right
        u[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(u ** 2)


def neumann_by_index(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] += k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u[0] = u[1]
        u[-1] = u[-2]
    return np.sum(np.cos(u))


def zeros_like_interior(u0, k, steps):
    """A new array each step, its ends left zero."""
    u = u0
    for _ in range(steps):
        new = np.zeros_like(u)
        new[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u = new
    return np.sum(u ** 2) + np.sum(u0)


def zeros_like_ends_copied(u0, k, steps):
    u = u0
    for _ in range(steps):
        new = np.zeros_like(u)
        new[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        new[0] = u[0]
        new[-1] = u[-1]
        u = new
    return np.sum(u ** 3)


def copy_zero_ends(u0, k, steps):
    u = u0
    for _ in range(steps):
        new = u.copy()
        new[0] = 0.0
        new[-1] = 0.0
        new[1:-1] += k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u = new
    return np.sum(u ** 2)


def copy_write_middle_only(u0, k, steps):
    u = u0
    for _ in range(steps):
        new = u.copy()
        new[2:-2] = u[2:-2] * (1.0 - k) + k * u[1:-3]
        u = new
    return np.sum(u * np.arange(len(u)))


def gauss_seidel_sweep(u0, k, steps):
    """Each point updated from its already-updated left neighbour."""
    u = u0.copy()
    for _ in range(steps):
        for i in range(1, len(u) - 1):
            u[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    return np.sum(u ** 2)


def write_then_read_old(u0, k, steps):
    """The old array read after the copy is written."""
    u = u0
    total = 0.0
    for _ in range(steps):
        new = u.copy()
        new[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        total = total + np.sum((new - u) ** 2)
        u = new
    return total + np.sum(u)


def copy_written_twice(u0, k, steps):
    u = u0
    for _ in range(steps):
        new = u.copy()
        new[1:] = new[1:] + k * u[:-1]
        new[:-1] = new[:-1] + k * new[1:]
        u = new
    return np.sum(u ** 2)


def write_scalar_index(u0, k, steps):
    u = u0.copy()
    for i in range(steps):
        j = i % len(u)
        u[j] = u[j] * k + 1.0
    return np.sum(u ** 2)


# ---- np.roll: advection, waves, 2-D ----------------------------------------------------------------


def upwind_roll(u0, c, steps):
    u = u0
    for _ in range(steps):
        u = u - c * (u - np.roll(u, 1))
    return np.sum(u ** 2 * np.arange(len(u)))


def burgers_roll(u0, nu, steps):
    u = u0
    for _ in range(steps):
        up, um = np.roll(u, -1), np.roll(u, 1)
        u = u - 0.1 * u * (up - um) * 0.5 + nu * (up - 2.0 * u + um)
    return np.sum(u ** 2)


def burgers_concat_periodic(u0, nu, steps):
    u = u0
    for _ in range(steps):
        g = np.concatenate([u[-1:], u, u[:1]])
        u = u - 0.05 * u * (g[2:] - g[:-2]) + nu * (g[2:] - 2.0 * g[1:-1] + g[:-2])
    return np.sum(u ** 2)


def wave_leapfrog(u0, c, steps):
    u_prev, u = u0, u0
    for _ in range(steps):
        lap = np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], 1)
        u_prev, u = u, 2.0 * u - u_prev + c * lap
    return np.sum(u ** 2)


def wave_three_arrays(u0, c, steps):
    um, u = u0.copy(), u0.copy()
    for _ in range(steps):
        up = u.copy()
        up[1:-1] = 2.0 * u[1:-1] - um[1:-1] + c * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        um = u
        u = up
    return np.sum(u ** 2) + np.sum(um * u)


def plate_roll(u0, k, steps):
    u = u0
    for _ in range(steps):
        lap = np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1) - 4.0 * u
        u = u + k * lap
    return np.sum(np.sin(u))


# ---- 2-D ---------------------------------------------------------------------------------------------


def plate_concat_rows_cols(u0, k, steps):
    u = u0
    for _ in range(steps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
        inner = np.concatenate([u[1:-1, :1], u[1:-1, 1:-1] + k * lap, u[1:-1, -1:]], axis=1)
        u = np.concatenate([u[:1], inner, u[-1:]], axis=0)
    return np.sum(u ** 2)


def plate_vstack_hstack(u0, k, steps):
    u = u0
    for _ in range(steps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
        inner = np.hstack([u[1:-1, :1], u[1:-1, 1:-1] + k * lap, u[1:-1, -1:]])
        u = np.vstack([u[:1], inner, u[-1:]])
    return np.sum(u ** 3)


def plate_pad_edge(u0, k, steps):
    u = u0
    for _ in range(steps):
        g = np.pad(u, 1, mode="edge")
        u = u + k * (g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:] - 4.0 * u)
    return np.sum(u ** 2 * np.arange(u.shape[1]))


def plate_neumann_by_index(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1, 1:-1] += k * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
        u[0, :] = u[1, :]
        u[-1, :] = u[-2, :]
        u[:, 0] = u[:, 1]
        u[:, -1] = u[:, -2]
    return np.sum(u ** 2)


def plate_pad_rows_only(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = u + k * np.pad(u[:, :-2] - 2.0 * u[:, 1:-1] + u[:, 2:], ((0, 0), (1, 1)))
    return np.sum(np.tanh(u))


def column_vector_heat(u0, k, steps):
    """A carried (n, 1) column."""
    u = u0
    for _ in range(steps):
        u = u + k * np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], ((1, 1), (0, 0)))
    return np.sum(u ** 2)


def plate_transposed(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]]).T
    return np.sum(u ** 2 * np.arange(u.shape[1]))


# ---- shapes that change across iterations -----------------------------------------------------------


def grows_concat(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u, k * u[-1:]])
    return np.sum(u ** 2)


def grows_pad(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.pad(u, 1) + k
    return np.sum(np.sin(u))


def grows_edge_pad(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.pad(u * k, 1, mode="edge")
    return np.sum(u * np.arange(len(u)))


def shrinks_average(u0, steps):
    u = u0
    total = 0.0
    for _ in range(steps):
        u = 0.5 * (u[1:] + u[:-1])
        total = total + np.sum(u ** 2)
    return total


def shrinks_while(u0):
    u = u0
    while len(u) > 2:
        u = u[1:] * u[:-1] + 0.1
    return np.sum(u)


def doubles(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u, k * u[::-1]])
    return np.sum(u * np.arange(len(u)))


def downsample(u0, steps):
    u = u0
    for _ in range(steps):
        u = u[::2] + 0.5 * u[1::2]
    return np.sum(u ** 2)


def grow_or_shrink(u0, k, steps):
    u = u0
    for i in range(steps):
        if i % 2 == 0:
            u = np.pad(u, 1) * k
        else:
            u = u[1:-1] + k * u[2:]
    return np.sum(u ** 2 * np.arange(len(u)))


def append_grows(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.append(u, k * np.sum(u))
    return np.sum(np.sin(u))


def pyramid_list(u0, steps):
    levels = [u0]
    u = u0
    for _ in range(steps):
        u = 0.5 * (u[1:] + u[:-1])
        levels.append(u)
    return sum(np.mean(v ** 2) for v in levels)


def grows_then_stencil(u0, k, steps):
    """Grown by one, then a same-shape update: the update keeps the new shape only."""
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u])
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.sum(u ** 2 * np.arange(len(u)))


def window_grows(u0, k, steps):
    u = u0
    acc = 0.0
    for i in range(1, steps + 1):
        w = u[:i]
        acc = acc + np.sum(w ** 2)
        u = np.concatenate([u[:i] * k, u[i:]])
    return acc + np.sum(u)


# ---- broadcasting inside the loop -------------------------------------------------------------------


def column_times_row(u0, a, steps):
    """(n, 1) * (n,) is (n, n): the carried array's shape changes after the first step."""
    u = u0
    for _ in range(steps):
        u = a[:, None] * u + 0.1
        u = np.tanh(u)
    return np.sum(u)


def outer_summed_back(u0, c, k, steps):
    u = u0
    for _ in range(steps):
        u = u + k * np.sum(c[:, None] * u[None, :], axis=0) / len(u)
    return np.sum(u ** 2)


def column_broadcast_stencil(u0, w, k, steps):
    """A (n, 1) column of weights scales each row of a plate's update."""
    u = u0
    for _ in range(steps):
        u = u + k * w * np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], ((1, 1), (0, 0)))
    return np.sum(u ** 2)


def scalar_array_start(u0, x, steps):
    """The carried value starts a number and becomes an array."""
    s = u0
    for _ in range(steps):
        s = s * x + 1.0
    return np.sum(s ** 2)


# ---- while, break, continue, branches -----------------------------------------------------------------


def while_until_small(u0, k):
    u = u0
    steps = 0
    while np.max(np.abs(u)) > 0.5 and steps < 50:
        u = np.concatenate([u[:1] * 0.9, u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:] * 0.9])
        steps += 1
    return np.sum(u ** 2)


def break_after(u0, k, steps):
    u = u0
    for i in range(100):
        if i >= steps:
            break
        u = u + k * np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], 1)
    return np.sum(u ** 2)


def continue_odd(u0, k, steps):
    u = u0
    for i in range(steps):
        if i % 2 == 1:
            continue
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.sum(np.sin(u))


def continue_before_copy_kept(u0, k, steps):
    u = u0
    for i in range(steps):
        new = u.copy()
        new[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        if i % 2:
            continue
        u = new
    return np.sum(u ** 2)


def branch_two_schemes(u0, k, steps):
    u = u0
    for i in range(steps):
        if i % 2 == 0:
            u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
        else:
            u = u + k * np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], 1)
    return np.sum(u ** 3)


def branch_on_value(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        if np.sum(u) > 0.0:
            u[1:-1] += k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        else:
            u[1:-1] -= k * u[1:-1]
    return np.sum(u ** 2)


def branch_grows_one_way(u0, k, steps):
    u = u0
    for i in range(steps):
        if i == 1:
            u = np.concatenate([u, u[-1:]])
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.sum(u * np.arange(len(u)))


# ---- lists of states, list and tuple parameters, scalars carried ---------------------------------------


def history_list(u0, k, steps):
    hist = []
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
        hist.append(u)
    return sum(np.sum(h ** 2) for h in hist)


def history_stacked(u0, k, steps):
    hist = [u0]
    u = u0
    for _ in range(steps):
        u = u + k * np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], 1)
        hist.append(u)
    return np.sum(np.stack(hist) ** 2 * np.arange(len(hist))[:, None])


def weights_list(u0, w, steps):
    """Stencil weights passed as a list."""
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], w[0] * u[:-2] + w[1] * u[1:-1] + w[2] * u[2:], u[-1:]])
    return np.sum(u ** 2)


def state_tuple(state, c, steps):
    u, v = state
    for _ in range(steps):
        v = v + c * np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], 1)
        u = u + 0.1 * v
    return np.sum(u ** 2) + np.sum(v ** 2)



def time_carried(u0, dt, steps):
    u = u0
    t = 0.0
    for _ in range(steps):
        t = t + dt
        u = u + dt * np.sin(t) * np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], 1)
    return np.sum(u ** 2) + t


def energy_scaled(u0, k, steps):
    u = u0
    s = 1.0
    for _ in range(steps):
        s = 0.9 * s + 0.1 * np.mean(u ** 2)
        u = np.concatenate([u[:1], u[1:-1] + k * s * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.sum(u ** 2) + s



def list_repeated_init(u0, k, steps):
    u = u0
    acc = [0.0] * len(u0)
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
        acc = [a + b for a, b in zip(acc, u)]
    return sum(a * a for a in acc)



def _v(r, n, scale=1.0):
    return scale * r.normal(size=n)


def _pos(r, n):
    return 1.0 + 0.5 * r.random(size=n)


PROGRAMS = [
    ("pad_edge", pad_edge, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("pad_edge_k", pad_edge, lambda r: (_v(r, 7), 0.2, 4), 1),
    ("pad_reflect_ghost", pad_reflect_ghost, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("pad_symmetric_ghost", pad_symmetric_ghost, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("pad_wrap_ghost", pad_wrap_ghost, lambda r: (_v(r, 6), 0.2, 4), 0),
    ("pad_constant_value", pad_constant_value, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("pad_tuple_width", pad_tuple_width, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("pad_one_sided", pad_one_sided, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("pad_one_sided_c", pad_one_sided, lambda r: (_v(r, 7), 0.2, 4), 1),
    ("pad_uneven", pad_uneven, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("pad_edge_ghost", pad_edge_ghost, lambda r: (_v(r, 6), 0.2, 4), 0),
    ("concat_tuple_join", concat_tuple_join, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("neumann_concat", neumann_concat, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("shift_right", shift_right, lambda r: (_v(r, 6), 0.3, 4), 0),
    ("shift_left_repeat", shift_left_repeat, lambda r: (_v(r, 6), 0.3, 4), 0),
    ("shift_into_self", shift_into_self, lambda r: (_v(r, 6), 0.7, 4), 0),
    ("shift_into_self_c", shift_into_self, lambda r: (_v(r, 6), 0.7, 4), 1),
    ("rotate_half", rotate_half, lambda r: (_v(r, 6), 0.3, 3), 0),
    ("hstack_rotate", hstack_rotate, lambda r: (_v(r, 6), 0.3, 4), 0),
    ("concat_rolled_left", concat_rolled_left, lambda r: (_v(r, 6), 0.3, 4), 0),
    ("concat_ends_swapped", concat_ends_swapped, lambda r: (_v(r, 6), 0.2, 4), 0),
    ("concat_two_one", concat_two_one, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("concat_scaled_ends", concat_scaled_ends, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("concat_reversed", concat_reversed, lambda r: (_v(r, 6), 0.3, 3), 0),
    ("concat_variable_bounds", concat_variable_bounds, lambda r: (_v(r, 8), 0.2, 2, 6, 3), 0),
    ("concat_loop_index_bounds", concat_loop_index_bounds, lambda r: (_v(r, 6), 0.3, 5), 0),
    ("dirichlet_by_index", dirichlet_by_index, lambda r: (_v(r, 7), 0.2, 0.5, -0.3, 4), 0),
    ("dirichlet_by_index_left", dirichlet_by_index, lambda r: (_v(r, 7), 0.2, 0.5, -0.3, 4), 2),
    ("neumann_by_index", neumann_by_index, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("zeros_like_interior", zeros_like_interior, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("zeros_like_ends_copied", zeros_like_ends_copied, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("copy_zero_ends", copy_zero_ends, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("copy_write_middle_only", copy_write_middle_only, lambda r: (_v(r, 8), 0.3, 4), 0),
    ("gauss_seidel_sweep", gauss_seidel_sweep, lambda r: (_v(r, 6), 0.2, 2), 0),
    ("write_then_read_old", write_then_read_old, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("copy_written_twice", copy_written_twice, lambda r: (_v(r, 6), 0.3, 3), 0),
    ("write_scalar_index", write_scalar_index, lambda r: (_v(r, 4), 0.7, 6), 0),
    ("upwind_roll", upwind_roll, lambda r: (_v(r, 6), 0.3, 4), 0),
    ("burgers_roll", burgers_roll, lambda r: (_v(r, 7), 0.1, 4), 0),
    ("burgers_concat_periodic", burgers_concat_periodic, lambda r: (_v(r, 7), 0.1, 4), 0),
    ("wave_leapfrog", wave_leapfrog, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("wave_leapfrog_c", wave_leapfrog, lambda r: (_v(r, 7), 0.2, 4), 1),
    ("wave_three_arrays", wave_three_arrays, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("plate_roll", plate_roll, lambda r: (r.normal(size=(4, 5)), 0.1, 3), 0),
    ("plate_concat_rows_cols", plate_concat_rows_cols, lambda r: (r.normal(size=(5, 4)), 0.1, 3), 0),
    ("plate_vstack_hstack", plate_vstack_hstack, lambda r: (r.normal(size=(4, 5)), 0.1, 3), 0),
    ("plate_pad_edge", plate_pad_edge, lambda r: (r.normal(size=(4, 5)), 0.1, 3), 0),
    ("plate_neumann_by_index", plate_neumann_by_index, lambda r: (r.normal(size=(5, 5)), 0.1, 3), 0),
    ("plate_pad_rows_only", plate_pad_rows_only, lambda r: (r.normal(size=(3, 6)), 0.2, 3), 0),
    ("column_vector_heat", column_vector_heat, lambda r: (r.normal(size=(7, 1)), 0.2, 4), 0),
    ("plate_transposed", plate_transposed, lambda r: (r.normal(size=(5, 5)), 0.2, 3), 0),
    ("plate_transposed_rect", plate_transposed, lambda r: (r.normal(size=(4, 6)), 0.2, 2), 0),
    ("grows_concat", grows_concat, lambda r: (_v(r, 4), 0.5, 3), 0),
    ("grows_concat_k", grows_concat, lambda r: (_v(r, 4), 0.5, 3), 1),
    ("grows_pad", grows_pad, lambda r: (_v(r, 4), 0.3, 3), 0),
    ("grows_edge_pad", grows_edge_pad, lambda r: (_v(r, 4), 0.9, 3), 0),
    ("shrinks_average", shrinks_average, lambda r: (_v(r, 7), 4), 0),
    ("shrinks_while", shrinks_while, lambda r: (_pos(r, 6),), 0),
    ("doubles", doubles, lambda r: (_v(r, 3), 0.5, 3), 0),
    ("downsample", downsample, lambda r: (_v(r, 16), 3), 0),
    ("grow_or_shrink", grow_or_shrink, lambda r: (_v(r, 5), 0.7, 4), 0),
    ("append_grows", append_grows, lambda r: (_v(r, 4), 0.3, 3), 0),
    ("pyramid_list", pyramid_list, lambda r: (_v(r, 6), 4), 0),
    ("grows_then_stencil", grows_then_stencil, lambda r: (_v(r, 5), 0.2, 3), 0),
    ("window_grows", window_grows, lambda r: (_v(r, 6), 0.7, 4), 0),
    ("column_times_row", column_times_row, lambda r: (r.normal(size=(4, 1)), _v(r, 4), 3), 0),
    ("column_times_row_a", column_times_row, lambda r: (r.normal(size=(4, 1)), _v(r, 4), 3), 1),
    ("outer_summed_back", outer_summed_back, lambda r: (_v(r, 5), _v(r, 5), 0.3, 3), 0),
    ("column_broadcast_stencil", column_broadcast_stencil,
     lambda r: (r.normal(size=(6, 3)), r.normal(size=(6, 1)), 0.2, 3), 0),
    ("column_broadcast_stencil_w", column_broadcast_stencil,
     lambda r: (r.normal(size=(6, 3)), r.normal(size=(6, 1)), 0.2, 3), 1),
    ("scalar_array_start", scalar_array_start, lambda r: (0.5, _v(r, 4, 0.5), 3), 1),
    ("while_until_small", while_until_small, lambda r: (np.array([1.3, -0.2, 0.4, 0.7, -1.1]), 0.2), 0),
    ("break_after", break_after, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("continue_odd", continue_odd, lambda r: (_v(r, 7), 0.2, 5), 0),
    ("continue_before_copy_kept", continue_before_copy_kept, lambda r: (_v(r, 7), 0.2, 5), 0),
    ("branch_two_schemes", branch_two_schemes, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("branch_on_value", branch_on_value, lambda r: (_pos(r, 7), 0.2, 4), 0),
    ("branch_grows_one_way", branch_grows_one_way, lambda r: (_v(r, 5), 0.2, 4), 0),
    ("history_list", history_list, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("history_stacked", history_stacked, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("weights_list", weights_list, lambda r: (_v(r, 7), [0.2, 0.6, 0.2], 3), 0),
    ("weights_list_w", weights_list, lambda r: (_v(r, 7), [0.2, 0.6, 0.2], 3), 1),
    ("state_tuple", state_tuple, lambda r: ((_v(r, 6), _v(r, 6, 0.1)), 0.2, 4), 0),
    ("time_carried", time_carried, lambda r: (_v(r, 7), 0.3, 4), 0),
    ("time_carried_dt", time_carried, lambda r: (_v(r, 7), 0.3, 4), 1),
    ("energy_scaled", energy_scaled, lambda r: (_v(r, 7), 0.2, 4), 0),
    ("list_repeated_init", list_repeated_init, lambda r: (_v(r, 5), 0.2, 3), 0),
]


# ---- batch two: edge lengths, fancy and masked writes, steps ----------------------------------------


def heat_pad_any(u0, k, steps):
    """At length one the padded Laplacian has length two: u broadcasts to it and stays so."""
    u = u0
    for _ in range(steps):
        u = u + k * np.pad(u[:-2] - 2.0 * u[1:-1] + u[2:], 1)
    return np.sum(u ** 2 * np.arange(1.0, len(u) + 1.0))


def heat_concat_any(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.sum(u ** 2 * np.arange(1.0, len(u) + 1.0))


def plate_pad_any(u0, k, steps):
    u = u0
    for _ in range(steps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
        u = u + k * np.pad(lap, 1)
    return np.sum(u ** 2 * np.arange(1.0, u.shape[1] + 1.0))


def plate_in_place_any(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1, 1:-1] += k * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return np.sum(u ** 2)


def fancy_write(u0, k, steps):
    idx = np.array([4, 1, 2])
    u = u0.copy()
    for _ in range(steps):
        u[idx] = u[idx] * k + 0.1
    return np.sum(u ** 2 * np.arange(len(u)))


def fancy_add(u0, k, steps):
    idx = np.array([0, 3, 1])
    u = u0.copy()
    for _ in range(steps):
        u[idx] = u[idx] + k * u[idx] ** 2
    return np.sum(u ** 2 * np.arange(len(u)))


def masked_write(u0, k, steps):
    mask = np.arange(len(u0)) % 2 == 0
    u = u0.copy()
    for _ in range(steps):
        u[mask] = u[mask] + k * np.sin(u[mask])
    return np.sum(u ** 2)


def stepped_write(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        u[::2] = u[::2] + k * u[1::2]
        u[1::2] = u[1::2] - k * u[::2]
    return np.sum(u ** 2 * np.arange(len(u)))


def stepped_concat(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[::2] + k * u[1::2], u[1::2]])
    return np.sum(u * np.arange(len(u)))


def write_variable_index(u0, k, steps):
    u = u0.copy()
    for i in range(steps):
        j = 1 + i % (len(u) - 2)
        u[j] = u[j] + k * (u[j - 1] + u[j + 1])
    return np.sum(u ** 2)


def write_variable_slice(u0, k, steps):
    u = u0.copy()
    for i in range(steps):
        j = 1 + i % (len(u) - 3)
        u[j:j + 2] = u[j:j + 2] + k * u[j - 1:j + 1]
    return np.sum(u ** 2 * np.arange(len(u)))


def overlapping_write(u0, k, steps):
    """u[1:] = u[:-1] reads positions the same write changes."""
    u = u0.copy()
    for _ in range(steps):
        u[1:] = u[:-1] * k + u[1:] * (1.0 - k)
    return np.sum(u ** 2 * np.arange(len(u)))


def zero_then_fill(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        old = u[1:-1].copy()
        u[1:-1] = 0.0
        u[1:-1] = u[1:-1] + old * k + u[:-2] * u[2:]
    return np.sum(u ** 2)


def view_before_write(u0, k, steps):
    """A view of the carried array taken before the write, read after it (sees the new values)."""
    u = u0.copy()
    total = 0.0
    for _ in range(steps):
        mid = u[1:-1]
        u[1:-1] = mid + k * (u[:-2] - 2.0 * mid + u[2:])
        total = total + np.sum(mid ** 2)
    return total




def float64_mid_in_float32(u0, k, steps):
    """The middle computed with a float64 array: the join is float64 from the first step."""
    w = np.linspace(0.5, 1.5, len(u0) - 2)
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + k * w * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.sum(u ** 2)


def int_start_concat(n, k, steps):
    u = np.arange(n) * 1.0 + k
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    return np.sum(u ** 2)


def int_array_carried(u0, k, steps):
    """The carried array starts as integers; the first step makes it floats."""
    u = np.arange(len(u0))
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + k * u0[1:-1], u[-1:]])
    return np.sum(u ** 2)


def reassembled_backward_twice(u0, k, steps):
    """The array taken apart twice per step (two joins of its pieces)."""
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] * (1.0 - k), u[-1:]])
        u = np.concatenate([u[:1], u[1:-1] + k * u[2:] * u[:-2], u[-1:]])
    return np.sum(u ** 2)


def piece_used_twice(u0, k, steps):
    u = u0
    for _ in range(steps):
        a = u[:1]
        u = np.concatenate([a, u[1:-1] + k * a * u[2:], u[-1:] + a])
    return np.sum(u ** 2)


def pieces_read_after(u0, k, steps):
    u = u0
    total = 0.0
    for _ in range(steps):
        mid = u[1:-1]
        u = np.concatenate([u[:1], mid + k * (u[:-2] - 2.0 * mid + u[2:]), u[-1:]])
        total = total + np.sum(mid * u[1:-1])
    return total


def first_axis_of_plate(u0, k, steps):
    """The join along axis 0 of a plate's rows."""
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]], 0)
    return np.sum(np.sin(u))


def join_axis_one_positional(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([u[:, :1], u[:, 1:-1] + k * (u[:, :-2] - 2.0 * u[:, 1:-1] + u[:, 2:]), u[:, -1:]], 1)
    return np.sum(u ** 2 * np.arange(u.shape[1]))


def hstack_of_plate_columns(u0, k, steps):
    """np.hstack of a plate: joins its second axis."""
    u = u0
    for _ in range(steps):
        u = np.hstack([u[:, :1], u[:, 1:] * (1.0 - k) + k * u[:, :-1]])
    return np.sum(u ** 2 * np.arange(u.shape[1]))


def hstack_of_plate_rows(u0, k, steps):
    """np.hstack of row pieces of a plate with two rows: (1, m) and (1, m) joined along axis 1."""
    u = u0
    for _ in range(steps):
        v = np.hstack([u[:1], u[1:] * k])
        u = v.reshape(u.shape)
    return np.sum(u ** 2 * np.arange(u.shape[1]))


def vstack_of_vector(u0, k, steps):
    """np.vstack of vector pieces makes rows: not a write into the vector."""
    u = u0
    for _ in range(steps):
        m = np.vstack([u[:3], u[3:] * k])
        u = np.concatenate([m[0] * m[1], m[1]])
    return np.sum(u ** 2)


def pad_with_minus_width(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = u + k * np.pad(u[1:-1] - u[:-2], [1, 1])
    return np.sum(u ** 2)


def roll_written(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = np.roll(u, 1)[1:-1] * k + u[1:-1]
    return np.sum(u ** 2 * np.arange(len(u)))


def while_shrink_until(u0, k):
    u = u0
    while u.shape[0] > 3:
        u = np.concatenate([u[:1], u[2:] * k + u[1:-1] * (1 - k)])
    return np.sum(u ** 2)


def carried_scalar_and_slice(u0, k, steps):
    u = u0
    m = 0.0
    for _ in range(steps):
        m = m + u[0] * k
        u = np.concatenate([u[:1] + m, u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:] - m])
    return np.sum(u ** 2) + m




# ---- batch three: histories, aliases, nested loops, breaks ------------------------------------------


def hist_copies(u0, k, steps):
    u = u0.copy()
    hist = []
    for _ in range(steps):
        u[1:-1] += k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        hist.append(u.copy())
    return sum(np.sum(h * np.arange(len(h))) for h in hist)


def hist_concat_inplace_after(u0, k, steps):
    u = u0
    hist = []
    for _ in range(steps):
        u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
        hist.append(u)
    return sum(np.sum(h ** 2 * np.arange(len(h))) for h in hist)


def two_writes_same(u0, a, b, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + a * u[2:]
        u[1:-1] = u[1:-1] * b + u[:-2]
    return np.sum(u ** 2)


def write_no_self(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[:-2] * k + u[2:] * (1 - k)
    return np.sum(u ** 2 * np.arange(len(u)))


def jacobi_old(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        old = u.copy()
        u[1:-1] = old[1:-1] + k * (old[:-2] - 2.0 * old[1:-1] + old[2:])
    return np.sum(u ** 2 * np.arange(len(u)))


def prev_alias(u0, k, steps):
    u = u0.copy()
    total = 0.0
    for _ in range(steps):
        prev = u
        u = u.copy()
        u[1:-1] += k * (prev[:-2] - 2.0 * prev[1:-1] + prev[2:])
        total = total + np.sum((u - prev) ** 2)
    return total + np.sum(u ** 2)


def break_before_carry(u0, k, steps, stop):
    u = u0
    for i in range(steps):
        new = u.copy()
        new[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        if i == stop:
            break
        u = new
    return np.sum(u ** 2 * np.arange(len(u)))


def nested_substeps(u0, k, steps, sub):
    u = u0.copy()
    for _ in range(steps):
        for _ in range(sub):
            u[1:-1] += (k / sub) * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u[0] = u[-1]
    return np.sum(u ** 3)


def nested_concat(u0, k, steps, sub):
    u = u0
    for _ in range(steps):
        v = u
        for _ in range(sub):
            v = np.concatenate([v[:1], v[1:-1] + k * (v[:-2] - 2.0 * v[1:-1] + v[2:]), v[-1:]])
        u = 0.5 * (u + v)
    return np.sum(u ** 3)


def shrink_to_one(u0, w, steps):
    u = u0
    total = 0.0
    for _ in range(steps):
        u = u[1:] * 0.5 + u[:-1] * 0.7
        z = u * w[:len(u)]
        total = total + np.sum(z * u)
    return total


def shrink_then_pad(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.pad(u[1:-1] * k, 1) + u
    return np.sum(u ** 2 * np.arange(len(u)))


def ends_from_other(u0, v0, k, steps):
    u = u0
    for _ in range(steps):
        u = np.concatenate([v0[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), v0[-1:]])
    return np.sum(u ** 2 * np.arange(len(u)))


def join_middle_is_old(u0, k, steps):
    u = u0
    for _ in range(steps):
        old = u
        u = np.concatenate([u[:1] * k, old[1:-1], u[-1:] * k])
        u = u + k * old
    return np.sum(u ** 2 * np.arange(len(u)))


PROGRAMS += [
    ("heat_pad_len1", heat_pad_any, lambda r: (_v(r, 1), 0.2, 3), 0),
    ("heat_pad_len2", heat_pad_any, lambda r: (_v(r, 2), 0.2, 3), 0),
    ("heat_pad_len3", heat_pad_any, lambda r: (_v(r, 3), 0.2, 3), 0),
    ("heat_concat_len1_k", heat_concat_any, lambda r: (_v(r, 1), 0.2, 3), 1),
    ("heat_concat_len2", heat_concat_any, lambda r: (_v(r, 2), 0.2, 3), 0),
    ("plate_pad_1x5", plate_pad_any, lambda r: (r.normal(size=(1, 5)), 0.2, 3), 0),
    ("plate_pad_5x1", plate_pad_any, lambda r: (r.normal(size=(5, 1)), 0.2, 3), 0),
    ("plate_pad_2x5", plate_pad_any, lambda r: (r.normal(size=(2, 5)), 0.2, 3), 0),
    ("plate_in_place_1x5", plate_in_place_any, lambda r: (r.normal(size=(1, 5)), 0.2, 3), 0),
    ("plate_in_place_3x3", plate_in_place_any, lambda r: (r.normal(size=(3, 3)), 0.2, 3), 0),
    ("fancy_write", fancy_write, lambda r: (_v(r, 6), 0.7, 3), 0),
    ("fancy_write_k", fancy_write, lambda r: (_v(r, 6), 0.7, 3), 1),
    ("fancy_add", fancy_add, lambda r: (_v(r, 5, 0.5), 0.2, 3), 0),
    ("masked_write", masked_write, lambda r: (_v(r, 6), 0.3, 3), 0),
    ("stepped_write", stepped_write, lambda r: (_v(r, 6), 0.3, 3), 0),
    ("stepped_concat", stepped_concat, lambda r: (_v(r, 6), 0.3, 3), 0),
    ("write_variable_index", write_variable_index, lambda r: (_v(r, 6), 0.3, 6), 0),
    ("write_variable_slice", write_variable_slice, lambda r: (_v(r, 7), 0.3, 5), 0),
    ("overlapping_write", overlapping_write, lambda r: (_v(r, 6), 0.3, 3), 0),
    ("zero_then_fill", zero_then_fill, lambda r: (_v(r, 6), 0.5, 3), 0),
    ("view_before_write", view_before_write, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("float64_mid_in_float32", float64_mid_in_float32, lambda r: (_v(r, 6).astype(np.float32), 0.2, 3), 1),
    ("int_start_concat", int_start_concat, lambda r: (6, 0.2, 3), 1),
    ("int_array_carried", int_array_carried, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("int_array_carried_k", int_array_carried, lambda r: (_v(r, 6), 0.2, 3), 1),
    ("reassembled_backward_twice", reassembled_backward_twice, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("piece_used_twice", piece_used_twice, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("pieces_read_after", pieces_read_after, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("first_axis_of_plate", first_axis_of_plate, lambda r: (r.normal(size=(5, 3)), 0.2, 3), 0),
    ("join_axis_one_positional", join_axis_one_positional, lambda r: (r.normal(size=(3, 5)), 0.2, 3), 0),
    ("hstack_of_plate_columns", hstack_of_plate_columns, lambda r: (r.normal(size=(3, 5)), 0.3, 3), 0),
    ("hstack_of_plate_rows", hstack_of_plate_rows, lambda r: (r.normal(size=(2, 4)), 0.3, 3), 0),
    ("vstack_of_vector", vstack_of_vector, lambda r: (_v(r, 6), 0.9, 2), 0),
    ("pad_with_list_width", pad_with_minus_width, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("roll_written", roll_written, lambda r: (_v(r, 6), 0.3, 3), 0),
    ("while_shrink_until", while_shrink_until, lambda r: (_v(r, 7), 0.3), 0),
    ("carried_scalar_and_slice", carried_scalar_and_slice, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("carried_scalar_and_slice_k", carried_scalar_and_slice, lambda r: (_v(r, 6), 0.2, 3), 1),
]


PROGRAMS += [
    ("hist_copies", hist_copies, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("hist_concat_inplace_after", hist_concat_inplace_after, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("two_writes_same", two_writes_same, lambda r: (_v(r, 6), 0.3, 0.8, 3), 0),
    ("two_writes_same_b", two_writes_same, lambda r: (_v(r, 6), 0.3, 0.8, 3), 2),
    ("write_no_self", write_no_self, lambda r: (_v(r, 6), 0.3, 3), 0),
    ("jacobi_old", jacobi_old, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("prev_alias", prev_alias, lambda r: (_v(r, 6), 0.2, 3), 0),
    ("break_before_carry", break_before_carry, lambda r: (_v(r, 6), 0.2, 5, 2), 0),
    ("nested_substeps", nested_substeps, lambda r: (_v(r, 6), 0.2, 3, 2), 0),
    ("nested_concat", nested_concat, lambda r: (_v(r, 6), 0.2, 3, 2), 0),
    ("shrink_to_one", shrink_to_one, lambda r: (_v(r, 5), _v(r, 5), 4), 0),
    ("shrink_to_one_w", shrink_to_one, lambda r: (_v(r, 5), _v(r, 5), 4), 1),
    ("shrink_then_pad", shrink_then_pad, lambda r: (_v(r, 6), 0.5, 3), 0),
    ("ends_from_other", ends_from_other, lambda r: (_v(r, 6), _v(r, 6), 0.2, 3), 0),
    ("ends_from_other_v", ends_from_other, lambda r: (_v(r, 6), _v(r, 6), 0.2, 3), 1),
    ("join_middle_is_old", join_middle_is_old, lambda r: (_v(r, 6), 0.3, 3), 0),
]
