"""Programs written for issue 23's reach8b classes (state in dicts and lists, partials and
closures in lists, objects from factories, try/except alternatives); test_reach8b_constructs.py
runs each through every transformation against central differences."""

import functools
from dataclasses import dataclass

import numpy as np


def M(r, *shape):
    return r.normal(size=shape)


# ---- dict state written in a loop the dict was not built in ----

def _drift(q, k):
    return k * q + 0.2 * q ** 3


def dict_state_euler(q0, k=1.3, steps=5):
    state = {"q": q0, "v": np.zeros_like(q0)}
    for _ in range(steps):
        state["v"] = state["v"] - 0.1 * _drift(state["q"], k)
        state["q"] = state["q"] + 0.1 * state["v"]
    return np.sum(state["q"] ** 2) + np.sum(np.sin(state["v"]))


def dict_state_augassign(x, steps=4):
    acc = {"s": 0.0, "p": x}
    for i in range(steps):
        acc["s"] += np.sum(acc["p"] ** 2) / (i + 1)
        acc["p"] = np.tanh(acc["p"]) * 1.1
    return acc["s"]


def dict_state_branch(x, a):
    state = {"y": x * a, "z": x}
    for i in range(3):
        if i % 2 == 0:
            state["y"] = np.sin(state["y"]) + state["z"]
        else:
            state["z"] = state["z"] * state["y"]
    return np.sum(state["y"] * state["z"])


def _energy(state):
    return np.sum(state["a"] ** 2) + np.sum(state["a"] * state["b"])


def dict_state_to_helper(x):
    st = {"a": x, "b": 2.0 * x}
    total = 0.0
    for _ in range(3):
        total = total + _energy(st)
        st["a"] = st["a"] + 0.3 * np.cos(st["b"])
        st["b"] = st["b"] * 0.9 - 0.1 * st["a"]
    return total + _energy(st)


def dict_state_while(x, tol=1e-3):
    st = {"x": x, "n": 0}
    while st["n"] < 4:
        st["x"] = 0.5 * (st["x"] + 2.0 / st["x"])
        st["n"] = st["n"] + 1
    return np.sum(st["x"] ** 2)


# ---- partials made in the function, alone and in lists ----

def _pow_term(x, p, scale=1.0):
    return scale * np.sum(np.abs(x) ** p) / p


def _weighted_fit(x, w, target=0.0):
    return np.sum((np.tanh(x * w) - target) ** 2)


def _bilinear(x, a, b):
    return a @ np.sin(x) + np.sum(b * x ** 2)


def partials_over_constants(x):
    fs = [functools.partial(_pow_term, p=p) for p in (2, 3, 4)]
    total = 0.0
    for f in fs:
        total = total + f(x)
    return total + fs[0](2.0 * x)


def partials_over_rows(x, W):
    fits = [functools.partial(_weighted_fit, w=w, target=0.1) for w in W]
    total = 0.0
    for fit in fits:
        total = total + fit(x)
    return total


def partials_over_zip(x, A, B):
    terms = [functools.partial(_bilinear, a=a, b=b) for a, b in zip(A, B)]
    return sum(k * t(x) for k, t in enumerate(terms)) / len(terms)


def partials_in_a_literal(x, c):
    fs = [functools.partial(_pow_term, p=2, scale=c), functools.partial(_pow_term, p=3, scale=c ** 2)]
    c = 0.0
    return sum(f(x) for f in fs) + c


def partial_of_computed_target(w, X, y):
    loss = functools.partial(_weighted_fit, target=2.0 * y)
    pred = X @ w
    return loss(pred, 0.5)


def partials_by_index(x, y):
    fs = [functools.partial(_weighted_fit, w=1.0 + i, target=y[i]) for i in range(len(y)) if i % 2 == 0]
    return sum(f(x) for f in fs)


# ---- objects made by a factory in the function ----

class Standardizer:
    def __init__(self, center, spread):
        self.center = center
        self.spread = spread

    @classmethod
    def fit(cls, X, eps=1e-6):
        center = X.mean(axis=0)
        spread = np.sqrt(((X - center) ** 2).mean(axis=0) + eps)
        return cls(center, spread)

    @staticmethod
    def around(c):
        return Standardizer(c, np.ones_like(c))

    def __call__(self, X):
        return (X - self.center) / self.spread

    def inverse(self, Z):
        return Z * self.spread + self.center


@dataclass
class Quadratic:
    A: np.ndarray
    shift: float = 0.0

    @classmethod
    def gram(cls, B, shift=0.5):
        return cls(B @ B.T, shift)

    def energy(self, x):
        return 0.5 * x @ self.A @ x + self.shift * np.sum(x)


def make_standardizer(X, scale=2.0):
    return Standardizer(X.min(axis=0), scale * X.std(axis=0) + 1.0)


def factory_classmethod_twice(X, w):
    s = Standardizer.fit(X, eps=1e-3)
    Z = s(X)
    return np.sum(np.tanh(Z @ w) ** 2) + np.sum(s.inverse(0.5 * Z))


def factory_staticmethod(c, X):
    return np.sum(Standardizer.around(c)(X) ** 2)


def factory_function_call(X, w):
    return np.sum(np.sin(make_standardizer(X)(X) @ w))


def factory_dataclass(B, x):
    return Quadratic.gram(B).energy(x) + Quadratic.gram(B, shift=0.1).energy(2.0 * x)


# ---- try/except whose handler is an alternative computation ----

def jitter_cholesky(a, B):
    K = B @ B.T - a * np.eye(B.shape[0])  # indefinite for the larger a: the handler's path
    try:
        L = np.linalg.cholesky(K + 1e-9 * np.eye(len(K)))
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(K + (a + 1.0) * np.eye(len(K)))
    return np.sum(np.log(np.diag(L))) + np.sum(L ** 2)


def safe_ratio(a, b):
    try:
        r = a / b
    except ZeroDivisionError:
        r = 3.0 * a
    return r ** 2 + a


def solve_or_scale(A, b):
    try:
        M = A @ A.T
        v = np.linalg.solve(M, b)
    except (ValueError, TypeError):
        M = A
        v = b
    except np.linalg.LinAlgError:
        M = A + A.T
        v = b / (1.0 + np.sum(M ** 2))
    else:
        v = 2.0 * v
    return np.sum(v ** 2) + 0.1 * np.sum(M)


# ---- tuples and lists of arrays carried as state through helpers ----

def _gru_like(x, state, U):
    h, m = state
    z = np.tanh(U @ h + x)
    return (0.5 * (h + z), 0.9 * m + 0.1 * z * z)


def _pair_step(pair, k, dt=0.1):
    x, v = pair[0], pair[1]
    a = -k * x - 0.1 * x ** 3
    return x + dt * v, v + dt * a


def tuple_state_rows(U, xs):
    state = (np.zeros(U.shape[0]), np.ones(U.shape[0]))
    for x in xs:
        state = _gru_like(x, state, U)
    h, m = state
    return np.sum(h ** 2) + np.sum(np.sqrt(m))


def list_state_steps(x0, k, steps=5):
    pair = [x0, np.zeros_like(x0)]
    for _ in range(steps):
        pair = _pair_step(pair, k)
    return np.sum(pair[0] ** 2) + 0.5 * np.sum(pair[1] ** 2)


def tuple_state_with_previous(U, xs):
    state = (xs[0], xs[0] ** 2)
    change = 0.0
    for t in range(1, xs.shape[0]):
        prev = state
        state = _gru_like(xs[t], state, U)
        change = change + np.sum((state[0] - prev[0]) ** 2)
    return change + np.sum(state[1])


def tuple_state_while(x0, k):
    pair = (x0, 0.5 * x0)
    n = 0
    while n < 4:
        pair = _pair_step(pair, k, dt=0.05)
        n += 1
    return np.sum(pair[0] * pair[1])


# ---- lambdas (closures) made in the function, alone and in lists ----

def lambdas_over_constants(x):
    fs = [lambda z, s=s: s * np.sum(z ** 2) + np.sum(np.sin(s * z)) for s in (0.5, 1.0, 2.0)]
    return sum(f(x) for f in fs)


def lambdas_over_rows(x, Y):
    losses = [lambda z, y=y: np.sum((np.tanh(z) - y) ** 2) for y in Y]
    total = 0.0
    for loss in losses:
        total = total + loss(x)
    return total / len(losses)


def lambdas_in_a_literal(x, c):
    fs = [lambda z: c * np.sum(z ** 2), lambda z, k=2.0: np.sum(np.cos(k * z))]
    return fs[0](x) + fs[1](x) + fs[1](x, k=c)


def lambda_closure_late(x, a):
    f = lambda z: a * np.sum(np.exp(-z ** 2))  # noqa: E731
    a = 2.0 * a
    return f(x)


PROGRAMS = [
    ("lambdas_over_constants", lambdas_over_constants, lambda r: (M(r, 3),), 0),
    ("lambdas_over_rows", lambdas_over_rows, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("lambdas_over_rows_Y", lambdas_over_rows, lambda r: (M(r, 3), M(r, 4, 3)), 1),
    ("lambdas_in_a_literal", lambdas_in_a_literal, lambda r: (M(r, 3), 0.7), 0),
    ("lambdas_in_a_literal_c", lambdas_in_a_literal, lambda r: (M(r, 3), 0.7), 1),
    ("lambda_closure_late", lambda_closure_late, lambda r: (M(r, 3), 0.7), 1),
    ("tuple_state_rows", tuple_state_rows, lambda r: (0.5 * M(r, 3, 3), M(r, 4, 3)), 0),
    ("tuple_state_rows_xs", tuple_state_rows, lambda r: (0.5 * M(r, 3, 3), M(r, 4, 3)), 1),
    ("list_state_steps", list_state_steps, lambda r: (M(r, 3), 1.2), 0),
    ("list_state_steps_k", list_state_steps, lambda r: (M(r, 3), 1.2), 1),
    ("tuple_state_with_previous", tuple_state_with_previous, lambda r: (0.5 * M(r, 3, 3), M(r, 4, 3)), 0),
    ("tuple_state_while", tuple_state_while, lambda r: (M(r, 3), 1.2), 0),
    ("jitter_cholesky_body", jitter_cholesky, lambda r: (0.01, M(r, 4, 6)), 1),
    ("jitter_cholesky_handler", jitter_cholesky, lambda r: (50.0, M(r, 4, 2)), 1),
    ("jitter_cholesky_handler_a", jitter_cholesky, lambda r: (50.0, M(r, 4, 2)), 0),
    ("safe_ratio_body", safe_ratio, lambda r: (1.3, 0.7), 0),
    ("safe_ratio_handler", safe_ratio, lambda r: (1.3, 0.0), 0),
    ("solve_or_scale_body", solve_or_scale, lambda r: (M(r, 3, 3) + 3 * np.eye(3), M(r, 3)), 0),
    ("solve_or_scale_handler_b", solve_or_scale, lambda r: (M(r, 3, 3) * [[1], [1], [0]], M(r, 3)), 1),
    ("factory_classmethod_twice", factory_classmethod_twice, lambda r: (M(r, 6, 3), M(r, 3)), 0),
    ("factory_classmethod_twice_w", factory_classmethod_twice, lambda r: (M(r, 6, 3), M(r, 3)), 1),
    ("factory_staticmethod", factory_staticmethod, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("factory_function_call", factory_function_call, lambda r: (M(r, 6, 3), M(r, 3)), 0),
    ("factory_dataclass", factory_dataclass, lambda r: (M(r, 3, 3), M(r, 3)), 0),
    ("factory_dataclass_x", factory_dataclass, lambda r: (M(r, 3, 3), M(r, 3)), 1),
    ("partials_over_constants", partials_over_constants, lambda r: (M(r, 4),), 0),
    ("partials_over_rows", partials_over_rows, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("partials_over_rows_W", partials_over_rows, lambda r: (M(r, 3), M(r, 4, 3)), 1),
    ("partials_over_zip", partials_over_zip, lambda r: (M(r, 3), M(r, 4, 3), M(r, 4, 3)), 0),
    ("partials_over_zip_B", partials_over_zip, lambda r: (M(r, 3), M(r, 4, 3), M(r, 4, 3)), 2),
    ("partials_in_a_literal", partials_in_a_literal, lambda r: (M(r, 3), 0.7), 0),
    ("partials_in_a_literal_c", partials_in_a_literal, lambda r: (M(r, 3), 0.7), 1),
    ("partial_of_computed_target", partial_of_computed_target, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("partial_of_computed_target_y", partial_of_computed_target, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 2),
    ("partials_by_index", partials_by_index, lambda r: (M(r, 5), M(r, 5)), 0),
    ("partials_by_index_y", partials_by_index, lambda r: (M(r, 5), M(r, 5)), 1),
    ("dict_state_euler", dict_state_euler, lambda r: (M(r, 4),), 0),
    ("dict_state_euler_k", dict_state_euler, lambda r: (M(r, 4), 1.3), 1),
    ("dict_state_augassign", dict_state_augassign, lambda r: (M(r, 3),), 0),
    ("dict_state_branch", dict_state_branch, lambda r: (M(r, 3), 0.7), 0),
    ("dict_state_branch_a", dict_state_branch, lambda r: (M(r, 3), 0.7), 1),
    ("dict_state_to_helper", dict_state_to_helper, lambda r: (M(r, 4),), 0),
    ("dict_state_while", dict_state_while, lambda r: (1.0 + np.abs(M(r, 3)),), 0),
]


def dict_copy_then_write(x, steps=2):  # (refused before reach15: the copy's items are its own since)
    state = {"q": x}
    saved = dict(state)
    for _ in range(steps):
        state["q"] = state["q"] * 2.0
    return np.sum(saved["q"] * state["q"])


# ---- refused, naming the line ----


def dict_new_key_in_loop(x, steps=2):
    state = {"q": x}
    for _ in range(steps):
        state["r"] = state["q"] * 2.0
    return np.sum(state["r"])


def partials_read_a_rebound_name(x):
    cs = x[:2] + 1.0
    fs = [functools.partial(_pow_term, p=2, scale=c) for c in cs]
    cs = cs * 2.0
    return sum(f(x) for f in fs) + np.sum(cs)


def try_handler_reads_half_done(x):
    y = np.sin(x)
    try:
        z = np.cos(x)
        w = np.linalg.cholesky(np.outer(z, z))
    except np.linalg.LinAlgError:
        w = np.outer(z, z)
    return np.sum(w) + np.sum(y)


def try_with_finally(x):
    try:
        y = np.sin(x)
    except ValueError:
        y = x
    finally:
        x = 2 * x
    return np.sum(y * x)


def lambdas_read_the_comprehension_name(x):
    fs = [lambda z: s * np.sum(z) for s in (1.0, 2.0)]  # noqa: B023  (Python: s is 2.0 in both)
    return sum(f(x) for f in fs)


def lambdas_read_the_comprehension_name_known(x):
    fs = [lambda z: k * np.sum(z) for k in (1, 2)]  # noqa: B023
    return sum(f(x) for f in fs)
