"""Constructs grad used to refuse, each written several ways as everyday code writes it: lists
holding the tuples a helper returns, a dict's ``.values()``/``.items()``/``.keys()`` used as a
value, ``super()`` in a method of a user class, generator functions, views updated in place,
complex values kept in variables, ``np.repeat`` with counts (its adjoint np.add.reduceat).
test_reach9_constructs.py runs every transformation on them."""

import numpy as np

# ---- a list of the tuples a helper returns ---------------------------------------------------------


def _step(x, a):
    return a * x, np.sin(x) * a


def _euler(s, v, k, dt):
    return s + dt * v, v - dt * k * np.sin(s), 0.5 * v * v


def tuple_list_unpacked(a, x0):
    out = []
    x = x0
    for _ in range(3):
        out.append(_step(x, a))
        x = x * 0.9 + 0.1
    total = 0.0
    for y, z in out:
        total = total + np.sum(y * z)
    return total


def tuple_list_last_item(k, s0):
    traj = []
    s, v = s0, 0.0
    for _ in range(4):
        s, v, e = _euler(s, v, k, 0.1)
        traj.append((s, v, e))
    last_s, last_v, _ = traj[-1]
    return np.sum(last_s ** 2 + traj[1][2] + 0.5 * last_v)


def tuple_list_literal_tuples(w):
    pairs = []
    for i in range(3):
        pairs.append((w * (i + 1), np.cos(w) + i))
    return np.sum(np.stack([p[0] * p[1] for p in pairs]))


def tuple_list_enumerate(a, x0):
    out = []
    for i in range(3):
        out.append(_step(x0 + i, a))
    total = 0.0
    for i, (y, z) in enumerate(out):
        total = total + (i + 1.0) * np.sum(y - z ** 2)
    return total / len(out)


def tuple_list_local_helper(x):
    def split(t):
        return np.sin(t), t ** 2

    parts = []
    for j in range(len(x)):
        parts.append(split(x[j]))
    return sum(p[0] * p[1] for p in parts) + parts[0][1]


def tuple_list_literal_of_calls(a, x0):
    out = [_step(x0, a), _step(2.0 * x0, a), (x0, a * a)]
    first, _ = out[0]
    return np.sum(out[1][0] * first + out[2][0] * out[2][1])


# ---- a dict's views used as values -----------------------------------------------------------------


def dict_values_summed(w, X, y):
    losses = {}
    r = X @ w - y
    losses["mse"] = np.mean(r ** 2)
    losses["smooth"] = np.mean(np.sqrt(r ** 2 + 0.01))
    losses["l2"] = 0.1 * w @ w
    return sum(losses.values())


def dict_values_stacked(w):
    feats = {"sin": np.sin(w), "sq": w ** 2, "exp": np.exp(-w)}
    return np.sum(np.stack(list(feats.values())) ** 2)


def dict_values_max(w):
    scores = {"a": np.sum(np.sin(w)), "b": np.sum(w ** 2), "c": np.sum(np.tanh(w)) - 1.0}
    return max(scores.values()) + min(scores.values())


def dict_values_generator(w):
    terms = {"a": np.sin(w), "b": w ** 3}
    return np.sum(sum(v * 2.0 for v in terms.values()))


def dict_items_weighted(p, scale):
    weights = {"W": 0.1, "b": 0.01}
    return scale * sum(weights[k] * np.sum(v ** 2) for k, v in p.items()) + len(list(p.keys()))


# ---- super() in the methods of a user class -----------------------------------------------------------


class Penalty:
    def __init__(self, weight, power=2.0):
        self.weight = weight
        self.power = power

    def penalty(self, w):
        return self.weight * np.sum(np.abs(w) ** self.power)


class ElasticPenalty(Penalty):
    def __init__(self, weight, l1):
        super().__init__(weight * 2.0)
        self.l1 = l1

    def penalty(self, w):
        return super().penalty(w) + self.l1 * np.sum(np.sqrt(w ** 2 + 1e-6))


class ShiftedPenalty(ElasticPenalty):
    def penalty(self, w):
        return 0.5 * super(ShiftedPenalty, self).penalty(w) + np.sum(w)


_ELASTIC = ElasticPenalty(0.1, 0.05)


def super_module_object(w, X, y):
    return np.mean((X @ w - y) ** 2) + _ELASTIC.penalty(w)


def super_built_object(w, lam):
    return ElasticPenalty(lam, 0.05).penalty(np.tanh(w))


def super_two_levels(w, lam):
    return ShiftedPenalty(lam, 0.3).penalty(w * w)


def super_passed_object(w, reg):
    return reg.penalty(np.sin(w)) + np.sum(w ** 2)


# ---- generator functions looped over, summed or listed ------------------------------------------------


def _residuals(w, X, y):
    for row, target in zip(X, y):
        yield np.dot(row, w) - target


def _batches(X, size):
    for start in range(0, len(X), size):
        yield X[start:start + size]


def _neighbour_products(x, limit):
    """Products of neighbours, up to `limit` of them."""
    for i in range(len(x) - 1):
        if i >= limit:
            break
        yield x[i] * x[i + 1]


def _early_return(x):
    for v in x:
        if v > 10.0:
            return
        yield v * v


def _delegating(x):
    yield from _early_return(x)


def _sent(x):
    scale = yield x[0]
    yield x[1] * scale


def generator_returning_early(x):
    return sum(_early_return(x))


def generator_yield_from(x):
    return sum(_delegating(x))


def generator_sent_values(x):
    total = 0.0
    for v in _sent(x):
        total = total + v
    return total


def generator_summed_squares(w, X, y):
    return sum(r ** 2 for r in _residuals(w, X, y))


def generator_batches_loop(W, X):
    total = 0.0
    for batch in _batches(X, 2):
        total = total + np.sum(np.tanh(batch @ W) ** 2)
    return total


def generator_listed_stacked(w, X, y):
    return np.sum(np.stack(list(_residuals(w, X, y))) ** 2) + sum(_neighbour_products(w, 2))


def generator_with_break(x):
    return sum(_neighbour_products(np.sin(x), 3)) + sum(_neighbour_products(x, 10))


# ---- a view updated in place ---------------------------------------------------------------------------


def view_halves(x):
    buf = np.zeros(6)
    head = buf[:3]
    head += x
    tail = buf[3:]
    tail += 2.0 * x
    return np.sum(buf ** 2)


def view_column_scaled(A):
    B = A * 1.0
    col = B[:, 1]
    col *= np.sin(A[:, 0])
    return np.sum(B ** 2) + np.sum(col)


def view_rows_in_loop(A, w):
    out = np.tanh(A)
    for i in range(A.shape[0]):
        row = out[i, :]
        row -= 0.5 * w * row
    return np.sum(out ** 2)


def view_ellipsis_updated(x):
    grid = np.outer(x, x)
    diag_part = grid[..., 0]
    diag_part += np.exp(x)
    return np.sum(np.log1p(grid ** 2))


def view_of_int_index(A):
    B = A * 1.0
    for i in range(2):
        row = B[i]
        row *= 2.0
    return np.sum(B ** 3)


def view_kept_in_a_list(x):
    acc = np.zeros(3)
    rows = []
    for i in range(3):
        acc += x[i]
        rows.append(acc)
    return np.sum(np.stack(rows))


# ---- complex values kept in variables ----------------------------------------------------------------


def complex_dft_power(x):
    n = x.shape[0]
    k = np.arange(n)
    basis = np.exp(-2j * np.pi * np.outer(k, k) / n)
    spectrum = basis @ x
    return np.sum(np.abs(spectrum) ** 2) / n


def complex_rfft_conj(x):
    X = np.fft.rfft(x * x)
    power = (X * np.conj(X)).real
    return np.sum(power[1:] * np.arange(1, len(power))) + np.sum(np.angle(X[1:3]))


def complex_rotation(x, t):
    z = x[0] + 1j * x[1]
    z = z * np.exp(1j * t)
    z += 0.5j
    return z.real ** 2 + 3.0 * z.imag + np.imag(z * z)


def complex_phasor_sum(x):
    phasors = np.exp(1j * x) * (1.0 + x)
    total = np.sum(phasors)
    return np.abs(total) ** 2 + np.sum(np.real(phasors.conj()) * x)


def complex_log(x):
    z = x + 1j
    return np.sum(np.log(z).real)


# ---- np.repeat with counts and np.add.reduceat (its adjoint) ------------------------------------------


def repeat_counts(x):
    return np.sum(np.sin(np.repeat(x, [1, 3, 2])) * np.arange(6.0))


def repeat_counts_rows(A):
    return np.sum(np.tanh(np.repeat(A, [2, 1], axis=0)) ** 2)


def reduceat_segments(x):
    return np.sum(np.sin(np.add.reduceat(x, [0, 2, 3])) ** 2)


PROGRAMS = [
    ("tuple_list_unpacked", tuple_list_unpacked, lambda r: (0.7, r.normal(size=3)), 0),
    ("tuple_list_unpacked_x0", tuple_list_unpacked, lambda r: (0.7, r.normal(size=3)), 1),
    ("tuple_list_last_item", tuple_list_last_item, lambda r: (1.3, 0.4), 0),
    ("tuple_list_last_item_s0", tuple_list_last_item, lambda r: (1.3, r.normal(size=2)), 1),
    ("tuple_list_literal_tuples", tuple_list_literal_tuples, lambda r: (r.normal(size=4),), 0),
    ("tuple_list_enumerate", tuple_list_enumerate, lambda r: (r.normal(size=2), r.normal(size=2)), 0),
    ("tuple_list_local_helper", tuple_list_local_helper, lambda r: (r.normal(size=4),), 0),
    ("tuple_list_literal_of_calls", tuple_list_literal_of_calls, lambda r: (0.6, r.normal(size=3)), 1),
    ("dict_values_summed", dict_values_summed,
     lambda r: (r.normal(size=3), r.normal(size=(5, 3)), r.normal(size=5)), 0),
    ("dict_values_stacked", dict_values_stacked, lambda r: (r.normal(size=4),), 0),
    ("dict_values_max", dict_values_max, lambda r: (np.array([0.3, -0.6, 1.1]),), 0),
    ("dict_values_generator", dict_values_generator, lambda r: (r.normal(size=3),), 0),
    ("dict_items_weighted", dict_items_weighted,
     lambda r: ({"W": r.normal(size=(2, 3)), "b": r.normal(size=3)}, 1.5), 0),
    ("super_module_object", super_module_object,
     lambda r: (r.normal(size=3), r.normal(size=(4, 3)), r.normal(size=4)), 0),
    ("super_built_object", super_built_object, lambda r: (r.normal(size=3), 0.4), 0),
    ("super_built_object_lam", super_built_object, lambda r: (r.normal(size=3), 0.4), 1),
    ("super_two_levels", super_two_levels, lambda r: (r.normal(size=3), 0.4), 0),
    ("super_passed_object", super_passed_object, lambda r: (r.normal(size=3), ShiftedPenalty(0.2, 0.1)), 0),
    ("generator_summed_squares", generator_summed_squares,
     lambda r: (r.normal(size=3), r.normal(size=(4, 3)), r.normal(size=4)), 0),
    ("generator_batches_loop", generator_batches_loop,
     lambda r: (r.normal(size=(3, 2)) * 0.5, r.normal(size=(5, 3))), 0),
    ("generator_batches_loop_X", generator_batches_loop,
     lambda r: (r.normal(size=(3, 2)) * 0.5, r.normal(size=(5, 3))), 1),
    ("generator_listed_stacked", generator_listed_stacked,
     lambda r: (r.normal(size=3), r.normal(size=(4, 3)), r.normal(size=4)), 0),
    ("generator_with_break", generator_with_break, lambda r: (r.normal(size=6),), 0),
    ("view_halves", view_halves, lambda r: (r.normal(size=3),), 0),
    ("view_column_scaled", view_column_scaled, lambda r: (r.normal(size=(4, 2)),), 0),
    ("view_rows_in_loop", view_rows_in_loop, lambda r: (r.normal(size=(3, 4)), r.normal(size=4)), 0),
    ("view_rows_in_loop_w", view_rows_in_loop, lambda r: (r.normal(size=(3, 4)), r.normal(size=4)), 1),
    ("view_ellipsis_updated", view_ellipsis_updated, lambda r: (r.normal(size=3),), 0),
    ("complex_dft_power", complex_dft_power, lambda r: (r.normal(size=5),), 0),
    ("complex_rfft_conj", complex_rfft_conj, lambda r: (r.normal(size=6),), 0),
    ("complex_rotation", complex_rotation, lambda r: (r.normal(size=2), 0.3), 0),
    ("complex_rotation_t", complex_rotation, lambda r: (r.normal(size=2), 0.3), 1),
    ("complex_phasor_sum", complex_phasor_sum, lambda r: (r.normal(size=4),), 0),
    ("repeat_counts", repeat_counts, lambda r: (r.normal(size=3),), 0),
    ("repeat_counts_rows", repeat_counts_rows, lambda r: (r.normal(size=(2, 3)),), 0),
]


# ---- what the rewrites leave as written (test_reach9_constructs.py checks each) ---------------------


def generator_kept_in_a_name(x):
    squares = _early_return(x)
    return sum(squares) + sum(squares)  # Python: the second sum is 0, the generator is spent


def view_of_an_index_array(A, idx):
    rows = A[idx, :]  # advanced indexing: a copy, A is not changed
    rows *= 2.0
    return np.sum(A ** 2) + np.sum(rows)


def complex_parameter(x):
    y = np.sum(x)
    x = x * 1j
    return y + np.sum(np.abs(x))
