"""``itertools.groupby`` over keys known when the gradient is built, generators of yours feeding each other,
and ``list(array)`` of computed rows (class 6 of reach15_programs.py)."""

import itertools

import numpy as np

# ---- 6a. itertools.groupby over static keys ------------------------------------------------------------

SEGMENTS = (0, 0, 1, 1, 1, 2)


def grouped_runs_of_a_module_tuple(x):
    start, total = 0, 0.0
    for label, run in itertools.groupby(SEGMENTS):
        n = len(list(run))
        total = total + (label + 1.0) * np.sum(x[start:start + n] ** 2)
        start = start + n
    return total


def _bucket(i):
    return i // 2


def grouped_by_a_function_of_yours(x):
    out = 0.0
    for b, members in itertools.groupby(range(6), key=_bucket):
        idx = list(members)
        out = out + (b + 1.0) * np.prod(np.tanh(x[idx]))
    return out


def grouped_by_a_lambda_of_constants(x):
    labels = ("a", "a", "b", "c", "c", "c")
    total = 0.0
    for name, members in itertools.groupby(range(len(labels)), key=lambda i: labels[i]):
        idx = list(members)
        weight = 2.0 if name == "b" else 1.0
        total = total + weight * np.max(x[idx]) + np.mean(x[idx]) ** 2
    return total


# ---- 6b. a generator of yours given another one's values ---------------------------------------------------


def _scaled(xs, s):
    for v in xs:
        yield s * v


def _shifted(xs, c):
    for v in xs:
        yield v + c


def _differences(xs):
    prev = None
    for v in xs:
        if prev is not None:
            yield v - prev
        prev = v


def pipeline_summed(x):
    return sum(np.exp(-v * v) for v in _shifted(_scaled(x, 0.5), 0.1))


def pipeline_in_a_loop(x):
    total = 0.0
    for d in _differences(_scaled(x, 2.0)):
        total = total + d ** 2
    return total


def pipeline_of_three(x):
    return sum(_shifted(_scaled(_shifted(x, 1.0), 0.5), -0.2))


def pipeline_listed(x):
    values = list(_shifted(_scaled(x, 3.0), 0.5))
    return np.sum(np.tanh(np.array(values)))


def pipeline_of_rows(X):
    return sum(np.sum(r ** 2) for r in _scaled(_shifted(X, 0.1), 2.0))


def _products(x):
    for i in range(len(x) - 1):
        yield x[i] * x[i + 1]


def largest_of_a_generator(x):
    return max(_products(x)) + min(_products(np.sin(x)))


def generator_enumerated(x):
    total = 0.0
    for i, v in enumerate(_products(x)):
        total = total + (i + 1) * v
    return total


def generator_zipped(x):
    return sum(a * b for a, b in zip(_products(x), x))


def generator_summed_from_a_start(x):
    return sum(_products(x), 1.0) * max(_shifted(x, 0.5))


# ---- 6c. list(array) of computed rows ----------------------------------------------------------------------


def rows_of_a_reshape(ctrl):
    pts = list(ctrl.reshape(-1, 2))
    return sum(np.sum(p ** 2) * (k + 1) for k, p in enumerate(pts))


def rows_reversed_by_a_slice(A):
    rows = list(A[::-1])
    return np.sum(rows[0] * rows[-1]) + np.sum(np.tanh(rows[1]))


def rows_of_an_argument_written(A):
    rows = list(A)
    rows[0] = rows[0] * 2.0
    return sum(np.sum(np.tanh(r)) for r in rows)
