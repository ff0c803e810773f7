"""Reach 28: programs of four classes srcdiff refused (or was suspected of getting wrong), each
through every transformation in test_reach28.py against float64 central differences:

1. an augmented assignment (``+=``, ``-=``, ``*=``) on a copy of an argument (``x = x0``,
   ``x = x0.copy()``, ``x = 1.0 * x0``), a float or an array, in a loop;
2. nested unpacking of tuples (``a, (b, c) = theta``, of constants and values mixed, in a loop
   over ``zip``);
3. a helper returning a dict (nested or module-level), assigned or read at once
   (``layer(p, x)["h"]``);
4. a gradient object of a function of a tree called inside a differentiated function, its result
   read at once (``dtree(p)["w"]``) or assigned, with dict, namedtuple and dataclass arguments;
   and namedtuple and dataclass arguments of the differentiated function itself.
"""

from __future__ import annotations

import collections
import dataclasses

import numpy as np

import srcdiff


def M(r, *shape):
    """Standard normal float64 numbers."""
    return r.standard_normal(shape)


def F(r, *shape):
    """Standard normal float32 numbers."""
    return r.standard_normal(shape).astype(np.float32)


# ---- 1. augmented assignment on a copy of an argument ----


def aug_float(x0, n):
    x = x0
    for _ in range(3):
        x += 0.5 * np.sin(x)
    return x


def aug_float_sub_mul(x0, n):
    x = x0
    for _ in range(n):
        x -= 0.2 * np.cos(x)
        x *= 1.0 + 0.1 * x
    return x


def aug_float_spring(params, x0):
    k, c = params
    x, v, t = x0, 0.0, 0
    while t < 25:
        a = -k * x - c * v
        v += 0.04 * a
        x += 0.04 * v
        t += 1
    return x * x + v


def aug_float_spring_for(params, x0):
    k, c = params
    x = x0
    v = 0.0 * x0
    for _ in range(20):
        v -= 0.05 * (k * x + c * v)
        x += 0.05 * v
    return np.sum(x**2) + np.sum(v)


def aug_alias(x0, n):
    x = x0
    for _ in range(3):
        x += 0.5 * np.sin(x)
    return np.sum(x**2)


def aug_alias_sub(x0, n):
    x = x0
    for _ in range(3):
        x -= 0.3 * np.tanh(x)
    return np.sum(x * x.shape[0])


def aug_alias_read_after(x0, n):
    x = x0
    for _ in range(3):
        x += 0.5 * np.sin(x)
    return np.sum(x) + np.sum(x0)  # NumPy changed x0 too: refused at the update


def aug_own_argument(x0, n):
    x0 += 0.5 * np.sin(x0)
    return np.sum(x0**2)


def aug_alias_mul(x0, n):
    x = x0
    x *= 1.5
    for _ in range(2):
        x *= 1.0 + 0.1 * np.sin(x)
    return np.sum(x)


def aug_copy(x0, n):
    x = x0.copy()
    for _ in range(3):
        x -= 0.5 * np.sin(x)
    return np.sum(x) + np.sum(x0**2)


def aug_scaled(x0, n):
    x = 1.0 * x0
    for _ in range(3):
        x *= 1.0 + 0.1 * np.sin(x)
    return np.sum(x)


def aug_argument_row(X, n):
    s = X[0]
    s *= 2.0
    for _ in range(n):
        s += np.sin(s)
    return np.sum(s**2)


def aug_alias_helper(x0):
    x = x0
    x += 0.5 * np.sin(x)
    return np.sum(x**2)


def aug_alias_helper_caller(y):
    return aug_alias_helper(y) + 1.0


# ---- 2. nested unpacking ----


def unpack_theta(theta, x):
    a, (b, c) = theta
    return a * x + b * np.sin(c * x)


def unpack_theta_arrays(theta, x):
    a, (b, c) = theta
    return np.sum(a * x + b * np.sin(c * x))


def unpack_constants(x):
    a, (b, c) = (1.0, (2.0, x))
    return a * b * np.sin(c)


def unpack_mixed(x):
    a, (b, (c, d)) = (x[0], (2.0, (x[1], 0.5)))
    return a * b * np.sin(c) + d * a


def zip_nested(xs, ys):
    t = 0.0
    for a, (b, c) in zip(xs, zip(ys, xs)):
        t = t + a * b * np.sin(c)
    return t


def zip_nested_deeper(X, ys):
    t = 0.0
    for row, (b, (c, d)) in zip(X, zip(ys, zip(ys[::-1], X[:, 0]))):
        t = t + np.sum(row * b) * np.sin(c) + d**2
    return t


def zip_nested_enumerated(xs, ys):
    t = 0.0
    for i, (a, (b, c)) in enumerate(zip(xs, zip(ys, xs))):
        t = t + (i + 1.0) * a * b * np.cos(c)
    return t


def zip_pairs(xs, ys):
    t = 0.0
    pairs = [(ys[0], xs[1]), (ys[1], xs[0])]
    for a, (b, c) in zip(xs, pairs):
        t = t + a * b * np.sin(c)
    return t


def zip_enumerate(xs, ys):
    t = 0.0
    for i, (a, b) in enumerate(zip(xs, ys)):
        t = t + (i + 1) * a * np.sin(b)
    return t


def zip_rows(X, ys):
    t = 0.0
    for (a, b), c in zip(X, ys):
        t = t + a * b * np.sin(c)
    return t


def zip_constant_pairs(xs, theta):
    t = 0.0
    for a, (b, c) in zip(xs, theta):
        t = t + a * b * np.sin(c)
    return t


def zip_rows_and_tree(X, theta):
    t = 0.0
    for row, (b, c) in zip(X, theta):
        t = t + np.sum(row * b) * np.sin(c)
    return t


def zip_written_and_tree(xs, theta):
    t = 0.0
    for a, (b, c) in zip(xs, theta):
        t = t + a * b * np.sin(c)
        xs = xs * 2.0
    return t


# ---- 3. helpers returning a dict ----


def nested_layer(p, x):
    def layer(p, x):
        return {"h": np.tanh(p["W"] @ x), "n": x.sum()}

    out = layer(p, x)
    return out["h"].sum() + out["n"]


def nested_layer_in_a_comprehension(p, x):
    def layer(p, x):
        return {"h": np.tanh(p["W"] @ x), "n": x.sum()}

    return sum([layer(p, x * k)["h"].sum() for k in range(3)])


def nested_helper_in_a_comprehension(p, x):
    def layer(p, x):
        return np.tanh(p["W"] @ x).sum()

    return sum([layer(p, x * k) for k in range(3)])


def nested_helper_in_a_generator(p, x):
    def layer(p, x):
        return np.tanh(p["W"] @ x).sum()

    t = 2.0
    return sum(layer(p, x * t) for t in (0.5, -1.5)) + t  # (was silently t = 2.0 in each call)


def nested_helper_in_a_lambda(p, x):
    def layer(p, x):
        return np.tanh(p["W"] @ x).sum()

    t = 2.0
    f = lambda t: layer(p, x * t)  # noqa: E731
    return f(0.5) + f(-1.5) + t


def module_layer(p, x):
    return {"h": np.tanh(p["W"] @ x), "n": x.sum()}


def module_layer_assigned(p, x):
    out = module_layer(p, x)
    return out["h"].sum() + out["n"]


def module_layer_read_at_once(p, x):
    return module_layer(p, x)["h"].sum() * module_layer(p, x)["n"]


def module_layer_in_a_comprehension(p, x):
    return sum([module_layer(p, x * k)["h"].sum() * module_layer(p, x * k)["n"] for k in (1.0, 2.0)])


def module_layer_in_a_loop(p, x):
    total = 0.0
    for k in range(2):
        total = total + np.sum(module_layer(p, x * (k + 1))["h"] ** 2)
    return total


# ---- 4. gradient objects of tree functions called inside ----


def tree_loss(p):
    return np.sum(np.tanh(p["w"]) ** 2) + p["b"] ** 2


dtree = srcdiff.grad(tree_loss)


def gradient_read_at_once(p):
    return np.sum(dtree(p)["w"] * p["w"]) + dtree(p)["b"] * p["b"]


def gradient_assigned(p):
    g = dtree(p)
    return np.sum(g["w"] * p["w"]) + g["b"]


def gradient_step(p):
    q = {"w": p["w"] - 0.1 * dtree(p)["w"], "b": p["b"] - 0.1 * dtree(p)["b"]}
    return tree_loss(q)


Pair = collections.namedtuple("Pair", "w b")


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float


def object_loss(p):
    return np.sum(np.tanh(p.w) ** 2) + np.sin(p.b) * p.b


dobject = srcdiff.grad(object_loss)


def namedtuple_gradient(p):
    g = dobject(p)
    return np.sum(g.w * p.w) + g.b


def namedtuple_gradient_at_once(p):
    return np.sum(dobject(p).w ** 2) + dobject(p).b * p.b


def namedtuple_built_inside(w, b):
    g = dobject(Pair(w, b))
    return np.sum(g.w * w) + g.b


def dataclass_gradient(p):
    g = dobject(p)
    return np.sum(g.w * p.w) + g.b


def dataclass_gradient_at_once(p):
    return np.sum(dobject(p).w * p.w) - dobject(p).b


def _params(r):
    return Params(M(r, 3), 0.7)


def _tree(r):
    return {"w": M(r, 3), "b": 0.7}


def _layer(r):
    return {"W": 0.5 * M(r, 2, 2)}


AUGMENTED = [
    ("aug_float", aug_float, lambda r: (0.3, 2), 0),
    ("aug_float_sub_mul", aug_float_sub_mul, lambda r: (0.4, 3), 0),
    ("aug_float_spring", aug_float_spring, lambda r: ((2.0, 0.3), 1.0), 1),
    ("aug_float_spring_params", aug_float_spring, lambda r: ((2.0, 0.3), 1.0), 0),
    ("aug_float_spring_array", aug_float_spring_for, lambda r: ((2.0, 0.3), M(r, 3)), 1),
    ("aug_float_spring_array_params", aug_float_spring_for, lambda r: ((2.0, 0.3), M(r, 3)), 0),
    ("aug_alias", aug_alias, lambda r: (M(r, 3), 2), 0),
    ("aug_alias_sub", aug_alias_sub, lambda r: (M(r, 3), 2), 0),
    ("aug_own_argument", aug_own_argument, lambda r: (M(r, 3), 2), 0),
    ("aug_alias_mul", aug_alias_mul, lambda r: (M(r, 3), 2), 0),
    ("aug_alias_float32", aug_alias, lambda r: (F(r, 3), 2), 0),
    ("aug_argument_row", aug_argument_row, lambda r: (M(r, 2, 3), 2), 0),
    ("aug_copy", aug_copy, lambda r: (M(r, 3), 2), 0),
    ("aug_scaled", aug_scaled, lambda r: (M(r, 3), 2), 0),
    ("aug_alias_helper_caller", aug_alias_helper_caller, lambda r: (M(r, 3),), 0),
]

UNPACKING = [
    ("unpack_theta", unpack_theta, lambda r: ((0.5, (1.5, 0.7)), 0.3), 0),
    ("unpack_theta_x", unpack_theta, lambda r: ((0.5, (1.5, 0.7)), 0.3), 1),
    ("unpack_theta_arrays", unpack_theta_arrays, lambda r: ((M(r, 3), (M(r, 3), M(r, 3))), M(r, 3)), 0),
    ("unpack_constants", unpack_constants, lambda r: (0.4,), 0),
    ("unpack_mixed", unpack_mixed, lambda r: (M(r, 2),), 0),
    ("zip_nested", zip_nested, lambda r: (M(r, 2), M(r, 2)), 0),
    ("zip_nested_ys", zip_nested, lambda r: (M(r, 3), M(r, 4)), 1),
    ("zip_nested_deeper", zip_nested_deeper, lambda r: (M(r, 3, 2), M(r, 3)), 0),
    ("zip_nested_deeper_ys", zip_nested_deeper, lambda r: (M(r, 3, 2), M(r, 3)), 1),
    ("zip_nested_enumerated", zip_nested_enumerated, lambda r: (M(r, 3), M(r, 3)), 0),
    ("zip_pairs", zip_pairs, lambda r: (M(r, 2), M(r, 2)), 0),
    ("zip_pairs_ys", zip_pairs, lambda r: (M(r, 2), M(r, 2)), 1),
    ("zip_enumerate", zip_enumerate, lambda r: (M(r, 3), M(r, 3)), 0),
    ("zip_rows", zip_rows, lambda r: (M(r, 3, 2), M(r, 3)), 0),
    ("zip_constant_pairs", zip_constant_pairs, lambda r: (M(r, 2), [(0.5, 0.7), (1.1, 0.2)]), 0),
    ("zip_tree_pairs", zip_constant_pairs, lambda r: (M(r, 2), ((0.5, 0.7), (1.1, 0.2))), 1),
    ("zip_tree_pairs_list", zip_constant_pairs, lambda r: (M(r, 3), [(0.5, 0.7), (1.1, 0.2)]), 1),
    ("zip_tree_pairs_xs", zip_constant_pairs, lambda r: (M(r, 2), ((0.5, 0.7), (1.1, 0.2))), 0),
    ("zip_rows_and_tree", zip_rows_and_tree, lambda r: (M(r, 2, 3), [(M(r, 3), 0.3), (M(r, 3), -0.4)]), 1),
    ("zip_rows_and_tree_X", zip_rows_and_tree, lambda r: (M(r, 2, 3), [(M(r, 3), 0.3), (M(r, 3), -0.4)]), 0),
]

DICT_HELPERS = [
    ("nested_layer", nested_layer, lambda r: (_layer(r), M(r, 2)), 0),
    ("nested_layer_x", nested_layer, lambda r: (_layer(r), M(r, 2)), 1),
    ("module_layer_assigned", module_layer_assigned, lambda r: (_layer(r), M(r, 2)), 0),
    ("module_layer_assigned_x", module_layer_assigned, lambda r: (_layer(r), M(r, 2)), 1),
    ("module_layer_read_at_once", module_layer_read_at_once, lambda r: (_layer(r), M(r, 2)), 0),
    ("module_layer_read_at_once_x", module_layer_read_at_once, lambda r: (_layer(r), M(r, 2)), 1),
    ("nested_layer_in_a_comprehension", nested_layer_in_a_comprehension, lambda r: (_layer(r), M(r, 2)), 0),
    ("nested_layer_in_a_comprehension_x", nested_layer_in_a_comprehension, lambda r: (_layer(r), M(r, 2)), 1),
    ("nested_helper_in_a_comprehension", nested_helper_in_a_comprehension, lambda r: (_layer(r), M(r, 2)), 0),
    ("nested_helper_in_a_comprehension_x", nested_helper_in_a_comprehension, lambda r: (_layer(r), M(r, 2)), 1),
    ("nested_helper_in_a_lambda", nested_helper_in_a_lambda, lambda r: (_layer(r), M(r, 2)), 1),
    ("module_layer_in_a_comprehension", module_layer_in_a_comprehension, lambda r: (_layer(r), M(r, 2)), 0),
    ("module_layer_in_a_loop", module_layer_in_a_loop, lambda r: (_layer(r), M(r, 2)), 0),
]

#: (namedtuple arguments: test_reach28.py's own test, the matrix perturbs no namedtuple)
GRADIENT_OBJECTS = [
    ("gradient_read_at_once", gradient_read_at_once, lambda r: (_tree(r),), 0),
    ("gradient_assigned", gradient_assigned, lambda r: (_tree(r),), 0),
    ("gradient_step", gradient_step, lambda r: (_tree(r),), 0),
    ("dataclass_argument", object_loss, lambda r: (_params(r),), 0),
    ("namedtuple_built_inside", namedtuple_built_inside, lambda r: (M(r, 3), 0.7), 0),
    ("namedtuple_built_inside_b", namedtuple_built_inside, lambda r: (M(r, 3), 0.7), 1),
    ("dataclass_gradient", dataclass_gradient, lambda r: (_params(r),), 0),
    ("dataclass_gradient_at_once", dataclass_gradient_at_once, lambda r: (_params(r),), 0),
]

#: refused at the line before wave 31: the generator over ``(0.5, -1.5)`` (a display, ``-1.5`` not a
#: constant the rewrite read) is unrolled now (frontend/display_items.py), each call bound to its item
UNROLLED = [
    ("nested_helper_in_a_generator", nested_helper_in_a_generator, lambda r: (_layer(r), M(r, 2)), 1),
]

#: refused by every transformation at the user's line (and why)
REFUSED = [
    ("aug_alias_read_after", aug_alias_read_after, lambda r: (M(r, 3), 2), 0),  # x0 read after x += ...
    # a tree zipped with a name the function assigns again: zip's items are read where Python reads them
    ("zip_written_and_tree", zip_written_and_tree, lambda r: (M(r, 2), ((0.5, 0.7), (1.1, 0.2))), 1),
]

PROGRAMS = AUGMENTED + UNPACKING + DICT_HELPERS + GRADIENT_OBJECTS + UNROLLED
