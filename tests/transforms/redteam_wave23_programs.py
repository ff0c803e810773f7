"""The red team's twenty-third wave: programs written the way scientists and ML users write them,
aimed at state threaded through loops (tuples, lists, dicts of arrays, layers zipped and
enumerated), helpers nested in the differentiated function (early returns, if/else returning
different expressions, defaults, closures over loop variables; called from loops and
comprehensions), vector outputs for jacobian (VECTOR_OUTPUTS) and what must be refused at its line
(REFUSED).  test_redteam_wave23.py runs them through every transformation against float64 central
differences."""

import numpy as np


def M(r, *shape):
    return r.normal(size=shape)


# ---- 1. a tuple rebound in a loop (finding 1: its items were read from before the loop) ----------


def tuple_state_loop(x):
    s = (x, 1.0)
    for _ in range(3):
        a, b = s
        s = (a * b + 0.1, b * 0.9 + np.sum(a) * 0.01)
    return np.sum(s[0]) + s[1]


def tuple_while(x):
    s = (x, 1.0)
    n = 0
    while n < 3:
        a, b = s
        s = (a * b + 0.1, b * 0.9)
        n += 1
    return np.sum(s[0]) * s[1]


def tuple_index_reads(x):
    s = (x, 2.0 * x)
    for _ in range(3):
        s = (s[0] * 0.5 + s[1], s[1] - 0.1 * s[0])
    return np.sum(s[0] ** 2 + s[1])


def tuple_nested_loops(x):
    s = (x, x * 0.0)
    for _ in range(2):
        for _ in range(2):
            p, q = s
            s = (p + 0.1 * q, q - 0.1 * np.sin(p))
    return np.sum(s[0] * s[1]) + np.sum(s[0])


def tuple_branch_in_loop(x):
    s = (x, 1.0)
    for k in range(4):
        a, b = s
        if k % 2 == 0:
            s = (a * 1.5, b)
        else:
            s = (a - b * 0.1, b * 2.0)
    return np.sum(s[0] ** 2) + s[1]


def tuple_swap_loop(x):
    s = (x, np.cos(x))
    for _ in range(3):
        s = (s[1], s[0] * 0.7)
    u, v = s
    return np.sum(u * 2.0 + v)


def leapfrog_state_tuple(x):
    state = (x, np.zeros_like(x), 0.0)
    for _ in range(4):
        p, v, t = state
        a = -np.sin(p)
        state = (p + 0.1 * v, v + 0.1 * a, t + 0.1)
    p, v, t = state
    return np.sum(p ** 2 + v ** 2) + t


def tuple_of_scalars_summed(x):
    s = (x[0], x[1])
    for _ in range(3):
        s = (s[0] + s[1] * 0.5, s[1] * s[0])
    return sum(s)


def tuple_read_into_list(x):
    pair = (x, x)
    out = []
    for _ in range(3):
        a, b = pair
        pair = (a * 0.9, b + a)
        out.append(pair[1])
    return np.sum(np.stack(out))


# ---- 2. helpers nested in the differentiated function (finding 2: early returns refused) ---------


def nested_if_else_return(x):
    def act(u, kind="tanh"):
        if kind == "tanh":
            return np.tanh(u)
        else:
            return np.maximum(u, 0.0)

    return np.sum(act(x) ** 2) + np.sum(act(x, "relu"))


def nested_elif_chain(x):
    def act(u, kind):
        """an activation by name"""
        if kind == "relu":
            return np.maximum(u, 0.0)
        elif kind == "tanh":
            return np.tanh(u)
        elif kind == "softplus":
            return np.log1p(np.exp(u))
        return u

    return sum(np.sum(act(x, k) ** 2) for k in ("relu", "tanh", "softplus", "id"))


def nested_huber_in_loop(x):
    def huber(r, d=1.0):
        a = np.abs(r)
        if a <= d:
            return 0.5 * r * r
        return d * (a - 0.5 * d)

    tot = 0.0
    for v in x:
        tot = tot + huber(v)
    return tot


def nested_guard_then_compute(x, w):
    def safe_norm(v):
        n2 = np.sum(v * v)
        if n2 < 1e-12:
            return 0.0
        n = np.sqrt(n2)
        return n * w

    return safe_norm(x) + safe_norm(2.0 * x)


def nested_nested_if(x):
    def piece(u):
        if u > 0:
            if u > 1:
                return np.log(u) + 1.0
            return u
        else:
            y = u * u
            return -y

    return sum(piece(v) * (i + 1) for i, v in enumerate(x))


def nested_helper_in_listcomp(x):
    def softclip(u, lim=2.0):
        if lim <= 0:
            return u
        return lim * np.tanh(u / lim)

    parts = [softclip(x, L) for L in (0.0, 1.0, 3.0)]
    return np.sum(np.stack(parts) ** 2)


def nested_step_in_while(x):
    def step(y, h):
        if h > 0.25:
            return y - h * np.sin(y)
        return y - h * y

    t = 0.0
    y = x
    while t < 1.0:
        y = step(y, 0.15 + 0.1 * t)
        t = t + 0.3
    return np.sum(y ** 2)


def nested_return_after_update(x):
    def g(u, mode):
        out = u * 2.0
        if mode:
            out = out + 1.0
            return out * u
        return out

    return np.sum(g(x, True) + g(x, False))


def early_return_helper_in_loop(x):
    def limited(u, i):
        if i % 2 == 0:
            return np.sin(u)
        return np.cos(u) * i

    total = 0.0
    for i in range(4):
        total = total + np.sum(limited(x * (i + 1.0), i))
    return total


#: (name, function, arguments(rng), the parameter differentiated)
PROGRAMS = [
    ("tuple_state_loop", tuple_state_loop, lambda r: (M(r, 4),), 0),
    ("tuple_while", tuple_while, lambda r: (M(r, 3),), 0),
    ("tuple_index_reads", tuple_index_reads, lambda r: (M(r, 3),), 0),
    ("tuple_nested_loops", tuple_nested_loops, lambda r: (M(r, 3),), 0),
    ("tuple_branch_in_loop", tuple_branch_in_loop, lambda r: (M(r, 3),), 0),
    ("tuple_swap_loop", tuple_swap_loop, lambda r: (M(r, 3),), 0),
    ("leapfrog_state_tuple", leapfrog_state_tuple, lambda r: (M(r, 3),), 0),
    ("tuple_of_scalars_summed", tuple_of_scalars_summed, lambda r: (M(r, 2),), 0),
    ("tuple_read_into_list", tuple_read_into_list, lambda r: (M(r, 3),), 0),
    ("nested_if_else_return", nested_if_else_return, lambda r: (M(r, 4),), 0),
    ("nested_elif_chain", nested_elif_chain, lambda r: (M(r, 4),), 0),
    ("nested_huber_in_loop", nested_huber_in_loop, lambda r: (np.array([0.3, -2.0, 1.7, 0.5]),), 0),
    ("nested_guard_then_compute", nested_guard_then_compute, lambda r: (M(r, 3), 0.8), 0),
    ("nested_guard_then_compute_w", nested_guard_then_compute, lambda r: (M(r, 3), 0.8), 1),
    ("nested_nested_if", nested_nested_if, lambda r: (np.array([0.5, 2.0, -1.0]),), 0),
    ("nested_helper_in_listcomp", nested_helper_in_listcomp, lambda r: (M(r, 4),), 0),
    ("nested_step_in_while", nested_step_in_while, lambda r: (M(r, 3),), 0),
    ("nested_return_after_update", nested_return_after_update, lambda r: (M(r, 3),), 0),
    ("early_return_helper_in_loop", early_return_helper_in_loop, lambda r: (M(r, 3),), 0),
]


# ---- 3. a tuple assigned on one side of an `if` in a loop (finding 3: refused) --------------------


def tuple_one_side_in_loop(x):
    y = x
    for k in range(4):
        if k % 2 == 0:
            y = y * 1.5
        else:
            s = (y, 2.0)
            y = np.sin(s[0]) * s[1]
    return np.sum(y ** 2)


def list_each_side_in_loop(x):
    y = x
    for k in range(4):
        if k % 2 == 0:
            parts = [y, y * 2.0]
        else:
            parts = [np.cos(y), y]
        y = parts[0] * parts[1]
    return np.sum(y)


PROGRAMS += [
    ("tuple_one_side_in_loop", tuple_one_side_in_loop, lambda r: (M(r, 3),), 0),
    ("list_each_side_in_loop", list_each_side_in_loop, lambda r: (M(r, 3),), 0),
]


# ---- 4. a nested helper's default computed from names (finding 4: refused) ------------------------


def default_from_loop_variable(x):
    total = 0.0
    for k in range(3):
        def g(u, k=k):
            return np.sin((k + 1) * u)

        total = total + np.sum(g(x))
    return total


def default_array_parameter(x, w):
    def model(u, w=w, scale=2.0):
        return scale * np.tanh(u * w)

    return np.sum(model(x) ** 2) + np.sum(model(x, 0.5 * w))


def default_computed_at_the_def(x):
    s = 2.0 * x
    def g(u, s=s):  # (Python keeps s's value at the def, not the 5.0 below)
        return u * s

    s = 5.0
    return np.sum(g(x)) + s


def default_arithmetic_in_loop(x):
    tot = 0.0
    for k in range(3):
        def g(u, c=k * x[0] + 1.0):
            return u * c

        tot = tot + np.sum(g(x)) + np.sum(g(x, 1.0))
    return tot


PROGRAMS += [
    ("default_from_loop_variable", default_from_loop_variable, lambda r: (M(r, 4),), 0),
    ("default_array_parameter", default_array_parameter, lambda r: (M(r, 4), M(r, 4)), 0),
    ("default_array_parameter_w", default_array_parameter, lambda r: (M(r, 4), M(r, 4)), 1),
    ("default_computed_at_the_def", default_computed_at_the_def, lambda r: (M(r, 4),), 0),
    ("default_arithmetic_in_loop", default_arithmetic_in_loop, lambda r: (M(r, 3),), 0),
]


# ---- 5. vector outputs for jacobian (finding 5: numba refused a tuple or list without a line) -----


def out_array_of_scalars(x):
    return np.array([x[0] * x[1], np.sin(x[2]), x[0] ** 2 + x[2]])


def out_stack_of_reductions(x):
    return np.stack([np.sum(x ** 2), np.prod(x), np.mean(np.tanh(x))])


def out_concatenate_loop(x):
    parts = []
    for i in range(3):
        parts.append(x[i:i + 1] * (i + 1.0) + x[0] * x[i])
    return np.concatenate(parts)


def out_filled_in_loop(x):
    out = np.zeros(3)
    for i in range(3):
        out[i] = np.sum(x[: i + 1] ** 2)
    return out


def out_nested_helper(x):
    def component(u, i):
        if i == 0:
            return u[0] ** 2
        return u[i] * u[i - 1]

    return np.array([component(x, i) for i in range(3)])


def out_tuple_of_scalars(x):
    return x[0] * x[1], np.sum(x ** 2)


def out_list_of_scalars(x):
    return [x[0] * 3.0, x[1] * x[2]]


#: functions of a vector returning several numbers: their Jacobians against central differences
VECTOR_OUTPUTS = [out_array_of_scalars, out_stack_of_reductions, out_concatenate_loop, out_filled_in_loop,
                  out_nested_helper, out_tuple_of_scalars, out_list_of_scalars]


# ---- 6. a list or tuple another name also holds, rebound in a loop (finding 6: that name read the loop's) --


def tuple_kept_before_loop(x):
    s = (x, 2.0)
    keep = s
    for _ in range(2):
        s = (s[0] * s[1], s[1] * 0.5)
    return np.sum(keep[0] * s[0]) + keep[1] * s[1]


def tuple_previous_state(x):
    s = (x, 0.5)
    prev = s
    for _ in range(3):
        prev = s
        s = (prev[0] * prev[1] + 1.0, prev[1] + 0.25)
    return np.sum(prev[0]) * s[1] + np.sum(s[0])


def list_previous_state(x):
    s = [x]
    old = s
    for _ in range(3):
        old = s
        s = [old[0] * 2.0 + np.sin(old[0])]
    return np.sum(old[0]) + np.sum(s[0] ** 2)


def list_concatenated_alias(x):
    xs = [x]
    ys = xs
    for _ in range(3):
        xs = xs + [xs[-1] * 0.5 + np.sin(xs[-1])]
    return np.sum(ys[0] * xs[-1]) + len(ys) * np.sum(xs[1])


def initial_state_unpacked_after(x):
    s = (x, 1.0)
    first = s
    for _ in range(2):
        s = (s[0] * 2.0, s[1] + np.sum(s[0]))
    a, b = first
    c, d = s
    return np.sum(a * c) + b * d


def current_and_next_swapped(x):
    cur = (x, np.cos(x))
    nxt = cur
    for _ in range(3):
        cur, nxt = nxt, (nxt[1] * 0.5, nxt[0] + 0.1)
    return np.sum(cur[0] * nxt[1]) + np.sum(cur[1])


def alias_through_two_loops(x):
    p = (x, x * 2.0)
    q = p
    for _ in range(2):
        p = (p[1], p[0] * 0.5)
    for _ in range(2):
        q = (q[0] + p[0], q[1])
    return np.sum(p[0] * q[0]) + np.sum(q[1])


PROGRAMS += [
    ("tuple_kept_before_loop", tuple_kept_before_loop, lambda r: (M(r, 3),), 0),
    ("tuple_previous_state", tuple_previous_state, lambda r: (M(r, 3),), 0),
    ("list_previous_state", list_previous_state, lambda r: (M(r, 3),), 0),
    ("list_concatenated_alias", list_concatenated_alias, lambda r: (M(r, 3),), 0),
    ("initial_state_unpacked_after", initial_state_unpacked_after, lambda r: (M(r, 3),), 0),
    ("current_and_next_swapped", current_and_next_swapped, lambda r: (M(r, 3),), 0),
    ("alias_through_two_loops", alias_through_two_loops, lambda r: (M(r, 3),), 0),
]


def energy_drift_from_the_start(x):
    def energy(state):
        q, p = state
        return np.sum(q ** 2 + p ** 2)

    s = (x, np.zeros_like(x))
    s0 = s
    for _ in range(3):
        q, p = s
        p = p - 0.1 * q
        q = q + 0.1 * p
        s = (q, p)
    return energy(s) - energy(s0)


def list_kept_through_while(x):
    s = [x, 1.0]
    orig = s
    n = 0
    while n < 3:
        s = [s[0] * s[1], s[1] + 0.5]
        n += 1
    return np.sum(orig[0] * s[0]) + orig[1] * s[1]


def alias_read_in_the_loop(x):
    s = (x, 1.0)
    keep = s
    outs = []
    for k in range(3):
        s = (s[0] + k, s[1] * 2.0)
        outs.append(np.sum(keep[0] * s[0]) * s[1])
    return sum(outs)


PROGRAMS += [
    ("energy_drift_from_the_start", energy_drift_from_the_start, lambda r: (M(r, 3),), 0),
    ("list_kept_through_while", list_kept_through_while, lambda r: (M(r, 3),), 0),
    ("alias_read_in_the_loop", alias_read_in_the_loop, lambda r: (M(r, 3),), 0),
]


# ---- 7. a literal tuple of numbers on one side of an `if`, a computed one on the other (finding 7) ------


def _polar(v):
    r = np.sqrt(v[0] ** 2 + v[1] ** 2)
    if r > 0:
        return r, np.arctan2(v[1], v[0])
    return 0.0, 0.0


def polar_helper_returns_zeros(x):
    r, th = _polar(x)
    return r * np.cos(th) + r ** 2


def nested_polar_returns_zeros(x):
    def polar(v):
        r = np.sqrt(v[0] ** 2 + v[1] ** 2)
        if r > 1.5:
            return r, np.arctan2(v[1], v[0])
        return 0.0, 1

    r, th = polar(x)
    return r * np.cos(th) + r ** 2 + th


def literal_pair_on_one_side(x):
    if x[0] > 0:
        s = (x[0], x[1] * 2.0)
    else:
        s = (0.5, 1.0)
    return s[0] * s[1] + np.sum(x ** 2)


PROGRAMS += [
    ("polar_helper_returns_zeros", polar_helper_returns_zeros, lambda r: (np.array([0.6, -0.8]),), 0),
    ("nested_polar_returns_zeros", nested_polar_returns_zeros, lambda r: (np.array([0.6, -0.8]),), 0),
    ("nested_polar_returns_zeros_far", nested_polar_returns_zeros, lambda r: (np.array([1.6, -0.8]),), 0),
    ("literal_pair_on_one_side", literal_pair_on_one_side, lambda r: (np.array([0.6, -0.8]),), 0),
    ("literal_pair_on_one_side_taken", literal_pair_on_one_side, lambda r: (np.array([-0.6, -0.8]),), 0),
]


# ---- 8. a tuple index given another tuple by an `if` or a loop (finding 8: read as an index array) -----


def index_tuple_from_a_branch(x, c):
    k = x.shape[0] - 2
    j = x.shape[1] - 1
    if c > 0:
        idx = (k, j)
    else:
        idx = (k, 0)
    return np.sum(x[idx] ** 2)


def index_tuple_literal_or_computed(x, c):
    k = x.shape[0] - 2
    if c > 0:
        idx = (0, 1)
    else:
        idx = (k, 0)
    return np.sum(x[idx] ** 2) + np.sum(x)


def index_tuple_from_a_loop(x):
    k = x.shape[0] - 2
    idx = (k, 0)
    for _ in range(2):
        idx = (idx[0], 1)
    return np.sum(x[idx] ** 2)


#: what every transformation must refuse at the user's line: (name, function, arguments(rng), wrt)
REFUSED = [
    ("index_tuple_from_a_branch", index_tuple_from_a_branch, lambda r: (M(r, 3, 2), 1.0), 0),
    ("index_tuple_literal_or_computed", index_tuple_literal_or_computed, lambda r: (M(r, 3, 2), -1.0), 0),
    ("index_tuple_from_a_loop", index_tuple_from_a_loop, lambda r: (M(r, 3, 2),), 0),
]
