"""Everyday Python and library idioms grad refused after the red team's twelfth and thirteenth
waves, each written several ways as users write them: (1) ``math.dist`` of points written out or
of arrays, (2) ``np.piecewise`` of lambdas, ufuncs and numbers, (3) ``itertools.zip_longest``
with a fillvalue and ``itertools.starmap`` of a zip, (4) ``min``/``max``/``sorted`` with ``key=`` a
lambda, a nested def or a function, over a range, a list or an array's rows, (5) ``np.ix_`` indices, read
and written (a stiffness matrix assembled by ``K[np.ix_(dofs, dofs)] += ke``), (6) ``**kwargs``
given defaults by ``setdefault`` and forwarded, a dict literal spread into keywords (``**{"k": v}``),
(7) ``np.vectorize`` of a function (with an ``if``, nested, a lambda with ``otypes``) and
``np.apply_along_axis`` of a lambda or a NumPy function, along rows and columns, (8) a function
chosen by its name: ``getattr(np, name)``, (9) ``match`` on a configuration dict with mapping
patterns (a capture, a guard, an or-pattern, a wildcard), (10) lambdas made in a list comprehension
reading its loop variable late (Python's closures see its last value), (11) ``**weights`` read
by a name (``weights.get(name, 1.0)`` over ``*terms``) and loops over ``np.unique(labels)``.
test_idioms14.py runs every transformation on them."""

import functools
import itertools
import math
import operator

import numpy as np

# ---- 1. math.dist ---------------------------------------------------------------------------------


def dist_written_out(p):  # the red team's: points written as tuples
    a, b, c = p[0], p[1], p[2]
    return math.dist((a, b), (c, 1.0)) + 0.5 * math.dist([a, b, c], [1.0, 2.0, 0.5])


def dist_of_slices(p):  # points as array slices
    return math.dist(p[:2], p[2:]) ** 2 + math.dist(p[:2], (0.0, 0.0))


def circumradius(tri):  # three side lengths of a triangle, then Heron
    A, B, C = tri[0], tri[1], tri[2]
    a, b, c = math.dist(B, C), math.dist(A, C), math.dist(A, B)
    s = 0.5 * (a + b + c)
    area = math.sqrt(s * (s - a) * (s - b) * (s - c))
    return a * b * c / (4.0 * area)


def path_length(pts):  # a loop over consecutive points
    total = 0.0
    for k in range(len(pts) - 1):
        total += math.dist(pts[k], pts[k + 1])
    return total


# ---- 2. np.piecewise ----------------------------------------------------------------------------


def piecewise_lambdas(x):  # the red team's
    y = np.piecewise(x, [x < 0, x >= 0], [lambda v: np.expm1(v), lambda v: v + 0.5 * v ** 2])
    return np.sum(y * x)


def piecewise_otherwise(x, a=0.7):  # an `otherwise` constant, a lambda reading a parameter
    y = np.piecewise(x, [x < -0.5, x > 0.5], [lambda t: -a * t, lambda t: t * t, 0.25])
    return np.sum(y ** 2)


def piecewise_ufuncs(x):  # NumPy functions named, one condition not in a list
    return np.sum(np.piecewise(x, x < 0.1, [np.sin, np.cos]) * x)


def piecewise_overlapping(x):  # both conditions hold below 0: NumPy's last one wins
    return np.sum(np.piecewise(x, [x < 0.3, x < 0.0], [lambda t: 2.0 * t, lambda t: 3.0 * t ** 2 + np.tanh(t)]))


def huber_piecewise(r, delta=0.4):
    y = np.piecewise(r, [np.abs(r) <= delta, np.abs(r) > delta],
                     [lambda u: 0.5 * u ** 2, lambda u: delta * (np.abs(u) - 0.5 * delta)])
    return np.mean(y)


# ---- 3. zip_longest and starmap -------------------------------------------------------------------


def zip_longest_weights(x, w=(0.5, 2.0)):  # the red team's: a generator over zip_longest
    return sum(a * b for a, b in itertools.zip_longest(x, w, fillvalue=1.0))


def zip_longest_loop(x):  # a for loop, the weights the longer one
    w = [0.5, 2.0, 3.0, 1.5, 0.1, 0.2]
    total = 0.0
    for a, b in itertools.zip_longest(x, w, fillvalue=0.0):
        total += a * b + a ** 2
    return total


def zip_longest_three(x, y):  # three sequences of different lengths, a comprehension
    terms = [a * b - c for a, b, c in itertools.zip_longest(x, y, [0.1, 0.2], fillvalue=0.5)]
    return sum(terms) + terms[0] ** 2


def starmap_reduce(x, y):  # the red team's: operator.mul over a zip, then reduce
    terms = itertools.starmap(operator.mul, zip(x, y))
    return functools.reduce(operator.add, terms) + functools.reduce(operator.mul, x)


def starmap_lambda(x, y):
    return sum(itertools.starmap(lambda a, b: a * math.sin(b), zip(x, y)))


def _pair_energy(a, b):
    return (a - b) ** 2 + a * b


def starmap_helper(x):  # a function of the module, over consecutive pairs
    return sum(itertools.starmap(_pair_energy, zip(x[:-1], x[1:])))


def starmap_zip_longest(x, w=(1.0, 0.5)):  # the red team's thirteenth wave: the two together
    return sum(itertools.starmap(operator.mul, itertools.zip_longest(x, w, fillvalue=0.25)))


# ---- 4. min / max with key= ----------------------------------------------------------------------


def min_key_select(x):  # the red team's
    best = min(range(len(x)), key=lambda i: abs(x[i] - 0.3))
    return x[best] ** 2 + np.sum(x)


def max_key_nested_def(x):
    def score(i):
        return x[i] * math.cos(x[i])

    k = max(range(1, len(x)), key=score)
    return x[k] * x[k - 1] + 0.1 * np.sum(x ** 2)


def _norm2(r):
    return r @ r


def closest_row(X, q=(0.2, -0.1)):  # the rows of an array, a function of the module as key
    nearest = min(X - np.array(q), key=_norm2)
    return np.sum(nearest ** 2) + 0.01 * np.sum(X)


def max_key_of_list(x):  # a list built in the function, a lambda key
    cands = [x[0] * 2.0, x[1] + 1.0, np.sin(x[2])]
    return max(cands, key=lambda c: c * c) * 3.0


def sorted_by_abs(x):  # a list of numbers, a lambda key
    vals = [x[0] * 2.0, x[1] + 1.0, x[2] ** 2]
    s = sorted(vals, key=lambda v: abs(v))
    return s[0] * 3.0 + s[1] * 2.0 + s[2]


def sorted_reversed(x):  # an array's numbers, reverse=True, ranks as weights
    s = sorted(x, key=lambda v: math.sin(v), reverse=True)
    return sum(v * (i + 1) for i, v in enumerate(s))


def sorted_rows_by_norm(X):  # an array's rows, a function of the module as key
    rows = sorted(X, key=_norm2)
    return np.sum(rows[0] * 2.0 + rows[-1])


# ---- 5. np.ix_ ----------------------------------------------------------------------------------


def truss_ix(k):  # the red team's assembly: K[np.ix_(dofs, dofs)] += ke, then a solve of a block
    K = np.zeros((4, 4))
    ke = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for e, (i, j) in enumerate([(0, 1), (1, 2), (2, 3)]):
        dofs = [i, j]
        K[np.ix_(dofs, dofs)] += k[e] * ke
    K = K + 0.5 * np.eye(4)
    free = np.arange(1, 4)
    return np.sum(np.linalg.solve(K[np.ix_(free, free)], np.ones(3)))


def ix_block_read(A):  # an index held in a name
    idx = np.ix_([0, 2], [1, 2])
    return np.sum(A[idx] ** 2) + np.trace(A[np.ix_([1, 2], [0, 1])])


def ix_three_axes(A):
    T = A[:, :, None] * A[None, :, :]
    return np.sum(T[np.ix_([0, 2], [1], [2, 0])] ** 3)


# ---- 6. **kwargs given defaults, a dict literal spread into keywords -----------------------------


def _inner_loss(w, x, scale=1.0, power=2):
    return scale * np.sum(np.abs(np.sin(x * w)) ** power)


def _forwarding(w, x, **kw):  # the red team's: setdefault, then forwarded; a literal spread
    kw.setdefault("scale", 0.5)
    return _inner_loss(w, x, **kw) + _inner_loss(w, x, power=3, **{"scale": 1.0})


def kwargs_forwarding(w, x):
    return _forwarding(w, x) + _forwarding(w, x, power=1.5)


def _loss_with_defaults(w, **opts):
    opts.setdefault("scale", 2.0)
    opts.setdefault("power", 2)
    return _inner_loss(w, np.ones_like(w), **opts) + opts["scale"] * np.sum(w)


def kwargs_default_overridden(w):  # the second call's own scale wins over the default
    return _loss_with_defaults(w) + _loss_with_defaults(w, scale=0.1)


def dict_literal_spread(w, s=0.3):
    return _inner_loss(w, w, **{"scale": s, "power": 3})


# ---- 7. np.vectorize and np.apply_along_axis of the user's functions ----------------------------


def _soft(v):
    return v / (1.0 + abs(v))


def _kink(v):
    if v > 0.0:
        return v * v
    return -0.5 * v


def vectorize_module_function(x):  # the red team's
    return np.sum(np.vectorize(_soft)(x) ** 2)


def vectorize_branchy_2d(X):  # a function with an if, over a matrix
    return np.sum(np.vectorize(_kink)(X) @ X)


def vectorize_nested_def(x, c=0.5):
    def sq(v):
        return v * v if v > 0 else c * v
    return np.sum(np.vectorize(sq)(2.0 * x))


def vectorize_lambda_otypes(x):
    return np.sum(np.vectorize(lambda v: max(0.0, v) * v, otypes=[float])(x))


def apply_along_rows(A):  # the red team's: a lambda over rows
    return np.sum(np.apply_along_axis(lambda row: np.sum(row ** 2) / (1 + row[0] ** 2), 1, A))


def apply_along_columns(A):  # a vector per column, stacked back as columns
    return np.sum(np.apply_along_axis(lambda c: c * c[0], 0, A) @ A)


def apply_along_norm(A):
    return np.sum(np.apply_along_axis(np.linalg.norm, -1, A) ** 3)


# ---- 8. a function of NumPy or math chosen by its name ----------------------------------------


def getattr_numpy(w, x, name="tanh"):  # the red team's
    act = getattr(np, name)
    return np.sum(act(x @ w))


def getattr_called_at_once(x, name="sin"):
    return np.sum(getattr(np, name)(x) ** 2)


def getattr_math_constant_name(x):
    f = getattr(math, "exp")  # noqa: B009  (as written by a user)
    return f(x[0]) * 2.0 + f(-x[1])


# ---- 9. match with mapping patterns ------------------------------------------------------------


def match_mapping(w, x, cfg=None):  # the red team's: a default config built in the function
    cfg = cfg or {"kind": "huber", "delta": 0.5}
    r = x * w - 1.0
    match cfg:
        case {"kind": "huber", "delta": d}:
            loss = np.where(np.abs(r) <= d, 0.5 * r ** 2, d * (np.abs(r) - 0.5 * d))
        case {"kind": "l2"}:
            loss = r ** 2
        case _:
            raise ValueError(cfg)
    return np.sum(loss)


def _penalty(r, spec):
    match spec:
        case {"kind": "l1", "scale": s} if s > 0:
            return s * np.sum(np.abs(r))
        case {"kind": "l2" | "mse"}:
            return np.sum(r ** 2)
        case {"kind": "huber", "delta": d}:
            return np.sum(np.where(np.abs(r) <= d, 0.5 * r ** 2, d * (np.abs(r) - 0.5 * d)))
        case _:
            return np.sum(r)


def match_configs_of_a_helper(w):  # dicts given to a helper: a guard, an or-pattern, a fall-through
    return (_penalty(w, {"kind": "l1", "scale": 2.0}) + _penalty(w, {"kind": "mse"})
            + _penalty(w, {"kind": "l1", "scale": -1.0}) + _penalty(w, {"kind": "huber", "delta": 0.3}))


# ---- 10. lambdas made in a list comprehension, reading its loop variable -------------------------


def late_binding_lambdas(x):  # the red team's: every lambda sees k = 3, as Python says
    fs = [lambda v: v * k for k in range(1, 4)]  # noqa: B023
    return sum(np.sum(f(x) ** 2) for f in fs)


def late_and_default_bound(x, c=0.5):  # s bound per lambda by its default, k read late (the last)
    fs = [lambda v, s=s: s * np.sin(k * v) + c for s, k in enumerate(range(2, 4))]  # noqa: B023
    total = 0.0
    for f in fs:
        total = total + np.sum(f(x))
    return total


# ---- 11. **weights read by a name; loops over np.unique of data -------------------------------


def _penalties(w, *terms, **weights):  # the red team's helper library: a weight per term name
    total = 0.0
    for name in terms:
        total = total + weights.get(name, 1.0) * (np.sum(w ** 2) if name == "l2" else np.sum(np.abs(w) ** 1.5))
    return total


def weights_by_name(w):
    return _penalties(w, "l2", "l15", l2=0.1, l15=0.01) + _penalties(w, "l2", "l3", l2=0.5)


def unique_group_means(x, labels):  # the red team's
    total = 0.0
    for g in np.unique(labels):
        m = x[labels == g].mean()
        total += (m - g) ** 2
    return total


def unique_groups_comprehension(x, labels):
    return sum(np.sum(x[labels == g]) ** 2 * (g + 1) for g in np.unique(labels))


def M(rng, *shape):
    return rng.normal(size=shape)


PROGRAMS = [
    ("dist_written_out", dist_written_out, lambda r: (r.normal(size=3),), 0),
    ("dist_of_slices", dist_of_slices, lambda r: (M(r, 4),), 0),
    ("circumradius", circumradius, lambda r: (np.array([[0.0, 0.1], [1.2, 0.0], [0.3, 0.9]]) + 0.1 * M(r, 3, 2),), 0),
    ("path_length", path_length, lambda r: (M(r, 4, 2),), 0),
    ("piecewise_lambdas", piecewise_lambdas, lambda r: (M(r, 5),), 0),
    ("piecewise_otherwise", piecewise_otherwise, lambda r: (M(r, 6),), 0),
    ("piecewise_otherwise_a", piecewise_otherwise, lambda r: (M(r, 6), 0.7), 1),
    ("piecewise_ufuncs", piecewise_ufuncs, lambda r: (M(r, 5),), 0),
    ("piecewise_overlapping", piecewise_overlapping, lambda r: (M(r, 6),), 0),
    ("huber_piecewise", huber_piecewise, lambda r: (M(r, 6),), 0),
    ("huber_piecewise_delta", huber_piecewise, lambda r: (M(r, 6), 0.4), 1),
    ("zip_longest_weights", zip_longest_weights, lambda r: (M(r, 4),), 0),
    ("zip_longest_loop", zip_longest_loop, lambda r: (M(r, 4),), 0),
    ("zip_longest_three", zip_longest_three, lambda r: (M(r, 4), M(r, 3)), 0),
    ("zip_longest_three_y", zip_longest_three, lambda r: (M(r, 4), M(r, 3)), 1),
    ("starmap_reduce", starmap_reduce, lambda r: (M(r, 3), M(r, 3)), 0),
    ("starmap_reduce_y", starmap_reduce, lambda r: (M(r, 3), M(r, 3)), 1),
    ("starmap_lambda", starmap_lambda, lambda r: (M(r, 3), M(r, 3)), 1),
    ("starmap_helper", starmap_helper, lambda r: (M(r, 4),), 0),
    ("starmap_zip_longest", starmap_zip_longest, lambda r: (M(r, 4),), 0),
    ("min_key_select", min_key_select, lambda r: (M(r, 5),), 0),
    ("max_key_nested_def", max_key_nested_def, lambda r: (M(r, 5),), 0),
    ("closest_row", closest_row, lambda r: (M(r, 4, 2),), 0),
    ("max_key_of_list", max_key_of_list, lambda r: (M(r, 3),), 0),
    ("sorted_by_abs", sorted_by_abs, lambda r: (M(r, 3),), 0),
    ("sorted_reversed", sorted_reversed, lambda r: (M(r, 4),), 0),
    ("sorted_rows_by_norm", sorted_rows_by_norm, lambda r: (M(r, 3, 2),), 0),
    ("truss_ix", truss_ix, lambda r: (1.0 + r.uniform(size=3),), 0),
    ("ix_block_read", ix_block_read, lambda r: (M(r, 3, 3),), 0),
    ("ix_three_axes", ix_three_axes, lambda r: (M(r, 3, 3),), 0),
    ("kwargs_forwarding", kwargs_forwarding, lambda r: (M(r, 3), M(r, 3)), 0),
    ("kwargs_default_overridden", kwargs_default_overridden, lambda r: (M(r, 3),), 0),
    ("dict_literal_spread", dict_literal_spread, lambda r: (M(r, 3), 0.3), 0),
    ("dict_literal_spread_s", dict_literal_spread, lambda r: (M(r, 3), 0.3), 1),
    ("vectorize_module_function", vectorize_module_function, lambda r: (M(r, 5),), 0),
    ("vectorize_branchy_2d", vectorize_branchy_2d, lambda r: (M(r, 2, 2),), 0),
    ("vectorize_nested_def", vectorize_nested_def, lambda r: (M(r, 4), 0.5), 0),
    ("vectorize_nested_def_c", vectorize_nested_def, lambda r: (M(r, 4), 0.5), 1),
    ("vectorize_lambda_otypes", vectorize_lambda_otypes, lambda r: (M(r, 4),), 0),
    ("apply_along_rows", apply_along_rows, lambda r: (M(r, 3, 3),), 0),
    ("apply_along_columns", apply_along_columns, lambda r: (M(r, 3, 3),), 0),
    ("apply_along_norm", apply_along_norm, lambda r: (M(r, 3, 2),), 0),
    ("getattr_numpy", getattr_numpy, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("getattr_numpy_x", getattr_numpy, lambda r: (M(r, 3, 2), M(r, 4, 3)), 1),
    ("getattr_called_at_once", getattr_called_at_once, lambda r: (M(r, 4), "cos"), 0),
    ("getattr_math_constant_name", getattr_math_constant_name, lambda r: (M(r, 2),), 0),
    ("match_mapping", match_mapping, lambda r: (M(r, 5), M(r, 5)), 0),
    ("match_mapping_l2", match_mapping, lambda r: (M(r, 5), M(r, 5), {"kind": "l2"}), 0),
    ("match_configs_of_a_helper", match_configs_of_a_helper, lambda r: (M(r, 5),), 0),
    ("late_binding_lambdas", late_binding_lambdas, lambda r: (M(r, 4),), 0),
    ("late_and_default_bound", late_and_default_bound, lambda r: (M(r, 3), 0.5), 0),
    ("late_and_default_bound_c", late_and_default_bound, lambda r: (M(r, 3), 0.5), 1),
    ("weights_by_name", weights_by_name, lambda r: (M(r, 3),), 0),
    ("unique_group_means", unique_group_means, lambda r: (M(r, 6), np.array([2, 0, 2, 1, 0, 2])), 0),
    ("unique_groups_comprehension", unique_groups_comprehension, lambda r: (M(r, 5), np.array([1, 1, 3, 0, 3])),
     0),
]
