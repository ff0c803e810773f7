"""The red team's seventeenth wave, continued: what is handed to srcdiff is not a plain ``def`` (a bound
method whose instance holds data, a staticmethod and a classmethod read off the class, a functools.partial
of a loss, a lambda, a callable instance, a function returned by a factory closing over a config dict, a
function decorated by the user's own wrapper with functools.wraps, a nested function that reads a
``nonlocal`` counter), and Python's containers around a numeric core (collections.deque as a delay line,
defaultdict and Counter accumulating terms, heapq picking the k smallest, list.pop / insert, dict.get and
setdefault, sorted(dict.items()), map / filter with lambdas, ``zip(*rows)``, copy.deepcopy of a dict of
arrays, ``a = b = np.zeros(n)`` chained, ``for row in A: row *= 2`` writing through the rows, ``x.flat``
and np.put writes, ``x.shape = ...``, operator-module functions).  See redteam_wave17.py.
"""

from __future__ import annotations

import collections
import copy
import functools
import heapq
import operator

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


# ---- what is handed to srcdiff --------------------------------------------------------------------------


class LinearModel:
    def __init__(self, X, y, reg):
        self.X, self.y, self.reg = X, y, reg

    def loss(self, w):
        r = self.X @ w - self.y
        return r @ r / len(self.y) + self.reg * w @ w

    @staticmethod
    def huber(r, delta=1.0):
        a = np.abs(r)
        return np.sum(np.where(a < delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))

    @classmethod
    def from_config(cls, w, X, y):
        model = cls(X, y, 0.05)
        return model.loss(w) + cls.huber(X @ w - y)

    def __call__(self, w):
        return self.loss(w) + self.huber(w, delta=0.5)


_MODEL = LinearModel(np.linspace(-1, 1, 12).reshape(4, 3) ** 2, np.array([0.5, -0.2, 0.3, 1.0]), 0.1)
bound_method = _MODEL.loss
static_method = LinearModel.huber
class_method = LinearModel.from_config
callable_instance = _MODEL


def _weighted(x, w, power):
    return np.sum(w * np.abs(x) ** power)


partial_loss = functools.partial(_weighted, power=3)
lambda_loss = lambda x, A: np.sum(np.tanh(A @ x) ** 2)  # noqa: E731


def make_loss(cfg):
    act = {"tanh": np.tanh, "sin": np.sin}[cfg["act"]]

    def loss(w, X):
        h = act(X @ w) * cfg["scale"]
        return np.sum(h ** 2) + cfg["l2"] * np.sum(w ** 2)
    return loss


factory_loss = make_loss({"act": "tanh", "scale": 1.5, "l2": 0.01})


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        return out
    return wrapper


@logged
def decorated_loss(x, y):
    return np.sum((x - y) ** 2 * np.exp(-x))


def nonlocal_counter(x):
    calls = 0

    def term(v):
        nonlocal calls
        calls += 1
        return v ** 2 * calls
    return sum(term(v) for v in x) + calls


# ---- containers ------------------------------------------------------------------------------------------


def deque_delay_line(x, g=0.6, delay=3):
    buf = collections.deque([0.0] * delay, maxlen=delay)
    out = 0.0
    for v in x:
        echo = buf[0]
        y = v + g * echo
        buf.append(y)
        out += y ** 2
    return out


def defaultdict_groups(x, labels):
    groups = collections.defaultdict(list)
    for v, lab in zip(x, labels):
        groups[lab].append(v)
    total = 0.0
    for _lab, vals in groups.items():
        m = sum(vals) / len(vals)
        total += sum((v - m) ** 2 for v in vals)
    return total


def counter_weights(x, tokens):
    counts = collections.Counter(tokens)
    return sum(x[t] ** 2 / counts[t] for t in counts)


def heapq_smallest(x, k=3):
    smallest = heapq.nsmallest(k, range(len(x)), key=lambda i: x[i])
    return sum(x[i] ** 2 for i in smallest)


def list_pop_insert(x):
    items = list(x)
    last = items.pop()
    items.insert(0, last * 2.0)
    first = items.pop(1)
    return sum(v * (i + 1) for i, v in enumerate(items)) + first ** 2


def dict_get_setdefault(params, X):
    out = X @ params["w"]
    out = out + params.get("b", 0.0)
    scale = params.setdefault("scale", 1.0)
    return np.sum((scale * out) ** 2)


def sorted_dict_items(params):
    total = 0.0
    for i, (name, value) in enumerate(sorted(params.items())):
        total += (i + 1) * np.sum(value ** 2) + len(name)
    return total


def map_filter_lambdas(x):
    squares = list(map(lambda v: v * v, x))
    big = list(filter(lambda v: v > 0.3, squares))
    return sum(big) + sum(map(np.sin, x))


def zip_star_columns(rows):
    cols = list(zip(*rows))
    return sum(np.prod(c) for c in cols)


def deepcopy_dict_of_arrays(params, lr=0.1):
    new = copy.deepcopy(params)
    new["w"] -= lr * params["w"]
    new["b"] *= 0.5
    return np.sum(new["w"] ** 2) + np.sum(new["b"] * params["b"])


def chained_zeros(x):
    a = b = np.zeros(len(x))
    a[0] = x[0]
    a[1:] = x[1:] * 2
    return np.sum(b * x)


def rows_written_in_loop(A):
    B = A.copy()
    for row in B:
        row *= 2.0
        row += 1.0
    return np.sum(B * A)


def flat_writes(x):
    y = np.zeros((2, 3))
    y.flat[[0, 4]] = x[:2]
    y.flat[5] = x[2] ** 2
    return np.sum(np.exp(y))


def put_writes(x):
    y = np.zeros(6)
    np.put(y, [1, 3, 5], x ** 2)
    return np.sum(y * np.arange(6))


def shape_assignment(x):
    y = x.copy()
    y.shape = (2, 3)
    return np.sum(y[0] * y[1]) + np.sum(y[:, 0] ** 2)


def operator_module(x, y):
    terms = list(map(operator.mul, x, y))
    return functools.reduce(operator.add, terms) + operator.pow(x[0], 3) + operator.truediv(x[1], 2.0)


def tuple_return_unpacked(x):
    def stats(v):
        return v.mean(), v.std(), v.max()
    m, s, top = stats(x)
    return m ** 2 + s + top * 0.1


def star_args_call(x):
    def f(a, b, c):
        return a * b + c ** 2
    return f(*x[:3]) + f(*(x[1:4] * 2))


def enumerate_reversed(x):
    total = 0.0
    for i, v in enumerate(reversed(x)):
        total += v * (i + 1) ** 2
    return total


COMMON_X = lambda r: (M(r, 3),)  # noqa: E731

CALLABLES17 = [
    ("w17_bound_method", bound_method, COMMON_X, 0),
    ("w17_static_method", static_method, lambda r: (np.array([0.3, -1.7, 2.2, -0.4]),), 0),
    ("w17_class_method", class_method, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w17_callable_instance", callable_instance, lambda r: (np.array([0.3, -0.7, 0.2]),), 0),
    ("w17_partial_loss", partial_loss, lambda r: (M(r, 4), r.uniform(size=4)), 0),
    ("w17_lambda_loss", lambda_loss, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("w17_factory_loss", factory_loss, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("w17_decorated_loss", decorated_loss, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w17_nonlocal_counter", nonlocal_counter, lambda r: (M(r, 4),), 0),
    ("w17_deque_delay_line", deque_delay_line, lambda r: (M(r, 8),), 0),
    ("w17_defaultdict_groups", defaultdict_groups, lambda r: (M(r, 6), ["a", "b", "a", "c", "b", "a"]), 0),
    ("w17_counter_weights", counter_weights, lambda r: (M(r, 4), [0, 2, 2, 3, 0, 2]), 0),
    ("w17_heapq_smallest", heapq_smallest, lambda r: (M(r, 6),), 0),
    ("w17_list_pop_insert", list_pop_insert, lambda r: (M(r, 5),), 0),
    ("w17_dict_get_setdefault", dict_get_setdefault, lambda r: ({"w": M(r, 3), "b": 0.3}, M(r, 4, 3)), 0),
    ("w17_sorted_dict_items", sorted_dict_items, lambda r: ({"z": M(r, 2), "a": M(r, 3), "m": M(r, 2, 2)},), 0),
    ("w17_map_filter_lambdas", map_filter_lambdas, lambda r: (np.array([0.2, -0.9, 1.1, 0.4, -0.1]),), 0),
    ("w17_zip_star_columns", zip_star_columns, lambda r: (M(r, 3, 4),), 0),
    ("w17_deepcopy_dict_of_arrays", deepcopy_dict_of_arrays, lambda r: ({"w": M(r, 3), "b": M(r, 2)},), 0),
    ("w17_chained_zeros", chained_zeros, lambda r: (M(r, 4),), 0),
    ("w17_rows_written_in_loop", rows_written_in_loop, lambda r: (M(r, 3, 4),), 0),
    ("w17_flat_writes", flat_writes, lambda r: (M(r, 3),), 0),
    ("w17_put_writes", put_writes, lambda r: (M(r, 3),), 0),
    ("w17_shape_assignment", shape_assignment, lambda r: (M(r, 6),), 0),
    ("w17_operator_module", operator_module, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w17_tuple_return_unpacked", tuple_return_unpacked, lambda r: (M(r, 5),), 0),
    ("w17_star_args_call", star_args_call, lambda r: (M(r, 4),), 0),
    ("w17_enumerate_reversed", enumerate_reversed, lambda r: (M(r, 5),), 0),
]
