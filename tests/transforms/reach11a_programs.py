"""Python spellings grad refused after the red team's tenth wave, each written several ways as
everyday code writes it: dicts merged (``{**defaults, **overrides}``, ``dict(a, k=v)``, ``a | b``),
``enum.Enum`` arguments deciding branches, namedtuples built in the function from computed values
(``_replace``, unpacking, items), ``nonlocal`` accumulators, ``zip(*pairs)``, a list's ``.pop`` /
``.insert`` / ``.reverse`` / ``.extend``, and ``list(...)`` / ``tuple(...)`` / ``[*...]`` of a
computed array.  test_reach11a_spellings.py runs every transformation on them."""

import collections
import enum
from typing import NamedTuple

import numpy as np

# ---- 1. dicts merged ------------------------------------------------------------------------------

DEFAULTS = {"l2": 0.1, "scale": 1.0, "power": 2}


def merged_config_loss(w, X, y, overrides=None):  # the red team's
    cfg = {**DEFAULTS, **(overrides or {})}
    r = (X @ w - y) * cfg["scale"]
    return np.mean(np.abs(r) ** cfg["power"]) + cfg["l2"] * np.sum(w ** 2)


def merged_with_a_display(w):
    cfg = {**DEFAULTS, "scale": 2.0, "shift": np.sum(w)}
    return cfg["scale"] * np.sum(w ** 2) + cfg["l2"] * cfg["shift"] ** 2


def dict_call_with_keywords(w):
    cfg = dict(DEFAULTS, scale=np.sum(np.sin(w)))
    return cfg["scale"] * np.sum(w ** 2) + cfg["l2"] * np.sum(w)


def merged_by_or(w):
    base = {"a": w[0] * 2.0, "b": w[1]}
    both = base | {"b": w[1] ** 2, "c": np.tanh(w[2])}
    return both["a"] * both["b"] + both["c"] * base["b"]


def merged_in_place(w):
    state = {"acc": w[0] ** 2, "scale": 1.0}
    state |= {"acc": state["acc"] + state["scale"] * np.sin(w[1])}
    state = {**state, "scale": state["acc"] * 0.5}
    return state["acc"] * state["scale"] + w[2] * state["scale"]


def merged_parameters(params, x):
    p = {**params, "b": params["b"] * 2.0}
    return np.sum(np.tanh(p["W"] @ x + p["b"]) ** 2)


# ---- 2. enum members deciding branches ----------------------------------------------------------


class Activation(enum.Enum):
    TANH = "tanh"
    SOFTPLUS = "softplus"


class Mode(enum.Enum):
    SUM = 1
    MEAN = 2


def enum_activation(W, X, act=Activation.SOFTPLUS):  # the red team's
    z = X @ W
    h = np.tanh(z) if act is Activation.TANH else np.logaddexp(0.0, z)
    return np.sum(h ** 2)


def enum_equality_and_value(w, mode=Mode.MEAN):
    if mode == Mode.SUM:
        return np.sum(np.sin(w)) * mode.value
    return np.sum(w ** 2) / mode.value


def _activate(z, act):
    if act is not Activation.TANH:
        return np.logaddexp(0.0, z)
    return np.tanh(z)


def enum_in_a_helper_loop(w, X, act=Activation.TANH):
    total = 0.0
    for row in X:
        total = total + _activate(row @ w, act) ** 2
    return total


REDUCE = Mode.SUM


def enum_of_the_module(w):
    scale = 2.0 if REDUCE is Mode.SUM else 0.5
    return scale * np.sum(w ** 3) + (1.0 if REDUCE.name == "SUM" else 0.0) * np.sum(w)


# ---- 3. namedtuples built from computed values ----------------------------------------------------


class Params(NamedTuple):
    w: np.ndarray
    b: float


Pair = collections.namedtuple("Pair", "a b")


def namedtuple_replace_step(w, X, y, b=0.2, lr=0.1):  # the red team's
    params = Params(w, b)
    r = X @ params.w + params.b - y
    params = params._replace(w=params.w - lr * X.T @ r / len(y))
    return np.mean((X @ params.w + params.b - y) ** 2)


def namedtuple_unpacked(w):
    p = Pair(a=w[0] * 2.0, b=np.sin(w[1]))
    a, b = p
    return a * b + p.a ** 2 + p[1] * w[2]


def namedtuple_of_arrays(w, X):
    p = Pair(np.tanh(X @ w), w * 2.0)
    return np.sum(p.a ** 2) + np.sum(p[1] * w)


def namedtuple_replaced_in_a_loop(w):
    s = Params(w, 0.5)
    for _ in range(3):
        s = s._replace(w=np.tanh(s.w) * s.b, b=s.b + 0.1 * np.sum(s.w))
    return np.sum(s.w ** 2) + s.b


def namedtuple_argument_replaced(p, x):
    q = p._replace(w=p.w * 2.0)
    return np.sum(np.sin(q.w * x)) + q.b * p.b


# ---- 4. nonlocal --------------------------------------------------------------------------------


def nonlocal_counter_closure(w, X):  # the red team's
    total = 0.0

    def add(term):
        nonlocal total
        total = total + term
    for row in X:
        add(np.tanh(row @ w) ** 2)
    add(0.1 * w @ w)
    return total


def nonlocal_with_a_result(w):
    acc = np.zeros_like(w)
    n = 0

    def push(v, s):
        nonlocal acc, n
        scaled = s * v
        acc = acc + scaled
        n = n + 1
        return np.sum(scaled)
    a = push(w, 2.0)
    b = push(np.sin(w), a)
    return np.sum(acc ** 2) / n + b


def nonlocal_in_a_branch(w):
    best = 0.0

    def keep(v):
        nonlocal best
        best = best + np.exp(-v ** 2)
    for v in w:
        if v > 0.0:
            keep(v)
        else:
            keep(2.0 * v)
    return best


# ---- 5. zip(*pairs) -------------------------------------------------------------------------------


def zip_star_transpose(pairs_w, xs):  # the red team's
    a_s, b_s = zip(*pairs_w)
    return sum(a * np.sin(x) + b * x ** 2 for a, b, x in zip(a_s, b_s, xs))


def zip_star_of_tuples(w):
    pairs = [(w[0], w[1]), (w[2], w[0] * w[1]), (np.sin(w[2]), 1.0)]
    xs, ys = zip(*pairs)
    return sum(x * y for x, y in zip(xs, ys)) + sum(xs) ** 2


def zip_star_looped(W):
    total = 0.0
    for a, b, c in zip(*W):
        total = total + a * b - np.sin(c)
    return total


# ---- 6. a list's .pop / .insert / .reverse / .extend ---------------------------------------------


def list_pop_front(x):  # the red team's
    xs = [x, 2.0 * x, x * x]
    first = xs.pop(0)
    return first * xs[0] + xs[-1]


def list_pops_and_inserts(x):
    xs = [x, 2.0 * x]
    xs.insert(1, x * x)
    xs.reverse()
    xs.extend([np.sin(x), 3.0])
    last = xs.pop()
    return xs[0] * xs[1] + xs[3] * last + sum(xs)


def list_of_arrays_changed(w):
    parts = [w, np.sin(w)]
    parts.append(w ** 2)
    parts.insert(0, np.cos(w))
    mid = parts.pop(1)
    parts.reverse()
    return np.sum(np.stack(parts) ** 2) + np.sum(mid * parts[0]) + sum(np.sum(p) for p in parts)


# ---- 7. list(...) / tuple(...) / [*...] of a computed array ---------------------------------------


def list_of_a_call(A):
    rows = list(np.tanh(A))
    return sum(np.sum(r ** 2) for r in rows)


def spread_split(x):
    parts = [*np.split(x, 2)]
    return np.sum(parts[0] * parts[1])


def tuple_of_an_expression(w):
    t = tuple(w * 2.0)
    first = tuple(np.cumsum(w))[1]
    return t[0] * t[1] + first * sum(tuple(np.sin(w)))


def _M(r, *shape):
    return r.normal(size=shape)


PROGRAMS = [
    ("merged_config_loss", merged_config_loss, lambda r: (r.normal(size=3), _M(r, 5, 3), r.normal(size=5)), 0),
    ("merged_config_overrides", merged_config_loss,
     lambda r: (r.normal(size=3), _M(r, 5, 3), r.normal(size=5), {"l2": 0.3}), 0),
    ("merged_with_a_display", merged_with_a_display, lambda r: (r.normal(size=3),), 0),
    ("dict_call_with_keywords", dict_call_with_keywords, lambda r: (r.normal(size=3),), 0),
    ("merged_by_or", merged_by_or, lambda r: (r.normal(size=3),), 0),
    ("merged_in_place", merged_in_place, lambda r: (r.normal(size=3),), 0),
    ("merged_parameters", merged_parameters,
     lambda r: ({"W": _M(r, 2, 3), "b": r.normal(size=2)}, r.normal(size=3)), 0),
    ("enum_activation", enum_activation, lambda r: (_M(r, 3, 2), _M(r, 4, 3)), 0),
    ("enum_activation_tanh", enum_activation, lambda r: (_M(r, 3, 2), _M(r, 4, 3), Activation.TANH), 0),
    ("enum_equality_and_value", enum_equality_and_value, lambda r: (r.normal(size=3),), 0),
    ("enum_equality_sum", enum_equality_and_value, lambda r: (r.normal(size=3), Mode.SUM), 0),
    ("enum_in_a_helper_loop", enum_in_a_helper_loop, lambda r: (r.normal(size=3), _M(r, 4, 3)), 0),
    ("enum_in_a_helper_softplus", enum_in_a_helper_loop,
     lambda r: (r.normal(size=3), _M(r, 4, 3), Activation.SOFTPLUS), 0),
    ("enum_of_the_module", enum_of_the_module, lambda r: (r.normal(size=3),), 0),
    ("namedtuple_replace_step", namedtuple_replace_step,
     lambda r: (r.normal(size=3), _M(r, 5, 3), r.normal(size=5)), 0),
    ("namedtuple_unpacked", namedtuple_unpacked, lambda r: (r.normal(size=3),), 0),
    ("namedtuple_of_arrays", namedtuple_of_arrays, lambda r: (r.normal(size=3), _M(r, 4, 3)), 0),
    ("namedtuple_replaced_in_a_loop", namedtuple_replaced_in_a_loop, lambda r: (0.5 * r.normal(size=3),), 0),
    ("nonlocal_counter_closure", nonlocal_counter_closure, lambda r: (r.normal(size=3), _M(r, 4, 3)), 0),
    ("nonlocal_with_a_result", nonlocal_with_a_result, lambda r: (r.normal(size=3),), 0),
    ("nonlocal_in_a_branch", nonlocal_in_a_branch, lambda r: (np.array([0.4, -0.7, 1.1, -0.2]),), 0),
    ("zip_star_transpose", zip_star_transpose, lambda r: (_M(r, 3, 2), r.normal(size=3)), 0),
    ("zip_star_of_tuples", zip_star_of_tuples, lambda r: (r.normal(size=3),), 0),
    ("zip_star_looped", zip_star_looped, lambda r: (_M(r, 3, 4),), 0),
    ("list_pop_front", list_pop_front, lambda r: (0.7,), 0),
    ("list_pops_and_inserts", list_pops_and_inserts, lambda r: (0.7,), 0),
    ("list_of_arrays_changed", list_of_arrays_changed, lambda r: (r.normal(size=3),), 0),
    ("list_of_a_call", list_of_a_call, lambda r: (_M(r, 3, 2),), 0),
    ("spread_split", spread_split, lambda r: (r.normal(size=4),), 0),
    ("tuple_of_an_expression", tuple_of_an_expression, lambda r: (r.normal(size=4),), 0),
]
