"""User-style programs for jit="numba" in every transformation (test_numba27.py): lists and tuples of a
number and an array in helpers with adjoints of their own (a closure helper is one: its code is not
copied into its caller), ``np.tile`` / ``np.repeat`` counted from shapes, ``sum`` of a list of items of
two kinds, loops srcdiff.vmap batches.  Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np

# ---- lists in helpers with adjoints of their own --------------------------------------------------------


def _closing(scale):
    def carried(x):  # a closure: called by its own adjoint, not copied into its caller
        s = [x * scale, np.sum(x)]
        for _ in range(3):
            s = [np.tanh(s[0]), s[1] * 0.5 + np.sum(s[0] ** 2)]
        return np.sum(s[0]) * s[1]

    def appended(x):
        out = []
        for i in range(3):
            if i == 1:
                out.append(np.sum(x) * scale)
            else:
                out.append(x * i)
        return np.sum(out[0]) + out[1] + np.sum(out[2] ** 2)

    def appended_untold(x):
        parts = [x * scale]
        for _ in range(2):
            parts.append(np.dot(x, x))  # (a number srcdiff's numba kinds do not tell: numba refuses it)
        return np.sum(parts[0]) + parts[1]

    def arrays_only(x):
        s = [x, x * scale]
        for _ in range(2):
            s = [s[0] + 0.1 * s[1], np.sin(s[0])]
        return np.sum(s[0] * s[1])

    def tuple_state(x):
        state = (scale, x)
        for _ in range(3):
            c, v = state
            state = (c * 0.5 + np.sum(v), np.sin(v))
        return state[0] + np.sum(state[1])

    return carried, appended, appended_untold, arrays_only, tuple_state


_carried, _appended, _appended_untold, _arrays_only, _tuple_state = _closing(2.0)


def carried_list_in_helper(x):
    return _carried(x) + 0.5 * _carried(np.sin(x))


def appended_in_helper(x):
    return _appended(x) * 2.0


def appended_untold_in_helper(x):
    return _appended_untold(x) + np.sum(x)


def arrays_list_in_helper(x):
    return _arrays_only(x) + _arrays_only(x * 0.5)


def tuple_in_helper(x):
    return _tuple_state(x) * np.sum(x)


def list_of_arrays_loop(x):
    s = [x, x * 2.5]  # (float32 x: numba's x * 2.5 is float64, the list of two widths: its compiler did not finish)
    for _ in range(2):
        s = [s[0] + 0.1 * s[1], np.sin(s[0])]
    return np.sum(s[0] * s[1])


# ---- tuples of a number and an array carried through loops ----------------------------------------------


def tuple_number_array_while(x):
    st = (np.sum(x), x * 2.0)
    k = 0
    while k < 3:
        st = (st[0] * 0.3 + np.dot(st[1], st[1]) * 0.1, np.tanh(st[1]) + st[0])
        k += 1
    return st[0] * np.sum(st[1])


def tuple_of_three(x):
    state = (1.0, x, 0.5)
    for _ in range(2):
        a, v, b = state
        state = (a * b + np.sum(v**2), np.cos(v) * a, b + np.mean(v))
    return state[0] + np.sum(state[1]) * state[2]


# ---- copies counted from shapes ---------------------------------------------------------------------------


def tile_rows_by_shape(b, X):
    B = np.tile(b, (X.shape[0], 1))
    return np.sum((X + B) ** 2 * np.arange(1.0, 4.0))


def repeat_state_by_shape(h0, X):
    H = np.repeat(h0[None, :], X.shape[0], axis=0)
    return np.sum(np.tanh(X + H))


def tile_by_len_ratio(x, y):
    return np.sum(np.tile(x, len(y) // len(x)) * y) + np.sum(np.repeat(x, y.size // x.size) ** 2)


def repeat_columns_by_shape(b, X):
    B = np.repeat(b[:, None], X.shape[1], axis=1)
    return np.sum(np.sin(B * X))


# ---- sum of a list of items of two kinds -------------------------------------------------------------------


def summed_terms(w, x):
    terms = [np.sum(w * x), w * x]
    return np.sum(sum(terms) ** 2)


def mixed_terms(w, X):
    terms = [X * w, w, np.sum(X * w)]
    return np.sum(sum(terms) ** 2)


# ---- loops srcdiff.vmap batches -----------------------------------------------------------------------------


def loop_state(w, x):
    h = w
    for _ in range(3):
        h = np.tanh(h * x + 0.1)
    return np.sum(h**2)


def appended_losses(w, x):
    out = []
    for k in range(3):
        out.append(np.sum(w * x**k))
    return sum(out)


def _v(r, *shape):
    return r.normal(size=shape)


PROGRAMS = [
    ("carried_list_in_helper", carried_list_in_helper, lambda r: (_v(r, 4),), 0),
    ("appended_in_helper", appended_in_helper, lambda r: (_v(r, 4),), 0),
    ("appended_untold_in_helper", appended_untold_in_helper, lambda r: (_v(r, 4),), 0),
    ("arrays_list_in_helper", arrays_list_in_helper, lambda r: (_v(r, 4),), 0),
    ("list_of_arrays_loop", list_of_arrays_loop, lambda r: (_v(r, 4),), 0),
    ("tuple_in_helper", tuple_in_helper, lambda r: (_v(r, 4),), 0),
    ("tuple_number_array_while", tuple_number_array_while, lambda r: (0.5 * _v(r, 4),), 0),
    ("tuple_of_three", tuple_of_three, lambda r: (_v(r, 3),), 0),
    ("tile_rows_by_shape", tile_rows_by_shape, lambda r: (_v(r, 3), _v(r, 4, 3)), 0),
    ("tile_rows_by_shape_X", tile_rows_by_shape, lambda r: (_v(r, 3), _v(r, 4, 3)), 1),
    ("repeat_state_by_shape", repeat_state_by_shape, lambda r: (_v(r, 3), _v(r, 4, 3)), 0),
    ("tile_by_len_ratio", tile_by_len_ratio, lambda r: (_v(r, 2), _v(r, 6)), 0),
    ("repeat_columns_by_shape", repeat_columns_by_shape, lambda r: (_v(r, 3), _v(r, 3, 4)), 0),
    ("summed_terms", summed_terms, lambda r: (_v(r, 3), _v(r, 3)), 0),
    ("mixed_terms", mixed_terms, lambda r: (_v(r, 3), _v(r, 4, 3)), 0),
    ("loop_state", loop_state, lambda r: (_v(r, 3), _v(r, 3)), 0),
    ("appended_losses", appended_losses, lambda r: (_v(r, 3), _v(r, 3)), 0),
]
