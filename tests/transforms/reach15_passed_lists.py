"""Tuples and lists of arrays made in the function and given whole to a helper of the user's
(reach15_programs.py's ``sequences_to_a_helper`` class): a display in the call, ``tuple()``/``list()``
of one, a comprehension over items known when the gradient is built, a helper calling itself with
a shorter list (de Casteljau, Horner, a pairwise sum).  Each takes one vector of 8."""

import numpy as np


def _norms(ps):
    return sum(np.sum(p ** 2) for p in ps)


def _weighted(x, pts=(), scale=1.0):
    return scale * sum(np.sum(np.sin(p) * x[:2]) for p in pts)


def _product(p):
    a, b = p
    return np.sum(a * b)


def tuple_display_in_the_call(x):
    return _product((x[:2], x[2:4] ** 2))


def list_display_in_the_call(x):
    return _norms([x[:2], x[2:4] * 2.0, np.tanh(x[4:6])])


def display_as_a_keyword(x):
    return _weighted(x, pts=(x[2:4], x[4:6] ** 2), scale=0.5)


def tuple_of_a_list(x):
    ps = [x[:2], x[2:4]]
    return _product(tuple(ps)) + _norms(list(ps))


def comprehension_of_slices(x):
    return _norms([np.sin(x[2 * i:2 * i + 2]) for i in range(4)])


def comprehension_over_a_list(x):
    ps = [x[:2], x[2:4], x[4:6]]
    return _norms([np.cos(p) * 2.0 for p in ps])


def comprehension_of_neighbours(x):
    ps = [x[:2], x[2:4], x[4:6]]
    return _norms([a * b for a, b in zip(ps[:-1], ps[1:])])


def comprehension_with_a_condition(x):
    return _norms([x[i] * x[i + 1] for i in range(7) if i % 2 == 0]) + _norms([x[2 * i:2 * i + 2] for i in range(4)
                                                                             if i != 2])


def display_in_a_loop(x):
    total = 0.0
    for t in (0.5, 1.5):
        total = total + _norms((x[:2] * t, x[2:4]))
    return total


def display_in_a_generator(x):
    return sum(_norms((x[:2] * t, x[2:4])) for t in (0.5, 1.5))


def _casteljau(pts, t):
    if len(pts) == 1:
        return pts[0]
    return _casteljau([(1 - t) * a + t * b for a, b in zip(pts[:-1], pts[1:])], t)


def de_casteljau_of_a_list(x):
    ctrl = [x[0:2], x[2:4], x[4:6], x[6:8]]
    return sum(np.sum(_casteljau(ctrl, t) ** 2) for t in (0.2, 0.5, 0.9))


def de_casteljau_of_a_comprehension(x):
    return np.sum(_casteljau([x[2 * i:2 * i + 2] for i in range(4)], 0.3) ** 2)


def _horner(cs, z):
    return cs[0] if len(cs) == 1 else cs[0] + z * _horner(cs[1:], z)


def horner_recursive(x):
    return np.sum(_horner([x[0], x[1], x[2] ** 2, x[3]], x[4:8]))


def _pairwise_sum(xs):
    if len(xs) == 1:
        return xs[0]
    mid = len(xs) // 2
    return _pairwise_sum(xs[:mid]) + _pairwise_sum(xs[mid:])


def pairwise_sum_recursive(x):
    return np.sin(_pairwise_sum([x[i] * x[i + 1] for i in range(7)]))


def _smoothed_energy(pts, n):
    if n == 0:
        return sum(np.sum(p ** 2) for p in pts)
    return _smoothed_energy([0.5 * a + 0.5 * b for a, b in zip(pts[:-1], pts[1:])], n - 1)


def smoothed_with_a_depth(x):
    return _smoothed_energy([x[0:2], x[2:4], x[4:6], x[6:8]], 2)


def _doubled(ps):
    return [2.0 * p for p in ps]


def list_returned_by_the_helper(x):
    qs = _doubled((x[:2], x[2:4]))
    return np.sum(qs[0] * qs[1])


def _ends(ps):
    return ps[0], ps[-1]


def ends_of_a_list(x):
    a, b = _ends([x[:2], x[2:4] ** 2, x[4:6]])
    return np.sum(a * b)


def _nested_sum(tree, w):
    if isinstance(tree, (list, tuple)):
        return sum(_nested_sum(t, w) for t in tree)
    return np.sin(w * tree)


def nested_list_walked_recursively(x):
    return np.sum(_nested_sum([1.0, [x[0], (2.0, x[1:3])], 0.5 * x[3]], x[4:6]))


def _size_of(shape):
    n = 1
    for k in shape:
        n = n * k
    return n


def _padded(x, shape):
    return np.sum(np.ones(shape) * x[:shape[-1]]) / _size_of(shape)


def tuple_of_computed_sizes(x):
    n = x.size // 4
    return _padded(x, (n, 3)) + _padded(x ** 2, (2, n + 1))


# ---- a list built when the function runs (its length the data's) given to a helper: written out there ----


def _loss(preds):
    return sum(np.sum(p ** 2) for p in preds) / len(preds)


def appended_then_given(x):
    preds = []
    for i in range(len(x) - 1):
        preds.append(x[i] * x[i + 1])
    return _loss(preds)


def _mean(xs):
    return sum(xs) / len(xs)


def filtered_appends_then_mean(x):
    vals = []
    for v in x:
        if v > -0.5:
            vals.append(v ** 2)
    return _mean(vals)


def rows_of_an_argument_given(X):
    return _loss(list(np.tanh(X)))


def comprehension_over_an_array_given(x):
    return _loss([np.sin(v) * x for v in x])


def _first_doubled(xs, v):
    xs[0] = 2.0 * v  # Python changes the caller's list
    return len(xs)


def helper_writes_the_callers_list(x):
    xs = [x[0] * 1.0 for _ in range(3)]
    n = _first_doubled(xs, x[1] ** 2)
    return xs[0] * xs[1] * n


def _append_then_rebind(xs, v):
    xs.append(v)
    xs = [v * 2.0]
    return xs[0]


def helper_appends_then_rebinds(x):
    xs = []
    a = _append_then_rebind(xs, x[0] ** 2)
    return a + xs[0] * x[1]


def list_per_pass_given(x):
    total = 0.0
    for scale in (0.5, 2.0):
        preds = []
        for v in x:
            preds.append(np.tanh(scale * v))
        total = total + _loss(preds)
    return total
