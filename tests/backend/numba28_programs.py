"""User-style programs whose differentiated parameter is a tree, for jit="numba" in every transformation
(test_numba28.py): vector-valued ones (jacobian, vjp, jvp) and scalar ones (grad, hessian as well).
Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np

# ---- vector-valued -------------------------------------------------------------------------------------


def layer_of_dict(p, x):
    return np.tanh(x @ p["W"] + p["b"]) * p["s"]


def nested_dict(p, x):
    return np.sin(p["inner"]["w"] * x) + p["pair"][0] * p["pair"][1]


def tuple_of_arrays(p, x):
    w, b = p
    return np.cos(w @ x + b)


def list_with_a_float(p, x):
    return p[0] * x + p[1] ** 2


def dict_with_a_name(p, x):
    return p["w"] * x * (2.0 if p["name"] == "relu" else 1.0)


def dict_with_a_count(p, x):
    return p["w"] * x * p["n"]


def dict_in_a_loop(p, x):
    y = x
    for _ in range(3):
        y = np.tanh(p["a"] * y + p["b"])
    return y


# ---- scalar --------------------------------------------------------------------------------------------


def mlp_loss(p, x):
    h = np.tanh(x @ p["W1"] + p["b1"])
    return np.mean((h @ p["w2"]) ** 2)


def nested_loss(p, x):
    return np.sum(np.sin(p["inner"]["w"] * x)) * p["pair"][0] + np.sum(p["pair"][1] ** 2)


def tuple_loss(p, x):
    w, b = p
    return np.sum(np.cos(w @ x + b) ** 2)


def loop_loss(p, x):
    y = x
    for _ in range(3):
        y = np.tanh(p["a"] * y + p["b"])
    return np.sum(y**2)


def _v(r, *shape):
    return r.normal(size=shape)


#: vector-valued programs: jacobian, vjp, jvp
VECTOR = [
    ("layer_of_dict", layer_of_dict, lambda r: ({"W": _v(r, 3, 4), "b": _v(r, 4), "s": 0.7}, _v(r, 3)), 0),
    ("nested_dict", nested_dict, lambda r: ({"inner": {"w": _v(r, 3)}, "pair": (0.3, _v(r, 3))}, _v(r, 3)), 0),
    ("tuple_of_arrays", tuple_of_arrays, lambda r: ((_v(r, 2, 3), _v(r, 2)), _v(r, 3)), 0),
    ("list_with_a_float", list_with_a_float, lambda r: ([_v(r, 3), 0.4], _v(r, 3)), 0),
    ("dict_with_a_name", dict_with_a_name, lambda r: ({"w": _v(r, 3), "name": "relu"}, _v(r, 3)), 0),
    ("dict_with_a_count", dict_with_a_count, lambda r: ({"w": _v(r, 3), "n": 3}, _v(r, 3)), 0),
    ("dict_in_a_loop", dict_in_a_loop, lambda r: ({"a": 0.8, "b": _v(r, 3)}, _v(r, 3)), 0),
]

#: scalar programs: grad, value_and_grad, hessian as well
SCALAR = [
    ("mlp_loss", mlp_loss, lambda r: ({"W1": _v(r, 3, 2), "b1": _v(r, 2), "w2": _v(r, 2)}, _v(r, 4, 3)), 0),
    ("nested_loss", nested_loss, lambda r: ({"inner": {"w": _v(r, 3)}, "pair": (0.3, _v(r, 2))}, _v(r, 3)), 0),
    ("tuple_loss", tuple_loss, lambda r: ((_v(r, 2, 3), _v(r, 2)), _v(r, 3)), 0),
    ("loop_loss", loop_loss, lambda r: ({"a": 0.8, "b": _v(r, 3)}, _v(r, 3)), 0),
]


# ---- a string leaf's adjoint, in a called gradient's code ------------------------------------------------

import srcdiff  # noqa: E402  (the gradient objects the programs below call)


def layers_loss(p, x):
    h = np.tanh(p["l1"] * x)
    return np.sum((p["l2"] * h) ** 2) if p["act"] == "sq" else np.sum(p["l2"] * h)


dlayers = srcdiff.grad(layers_loss)
vg_layers = srcdiff.value_and_grad(layers_loss)


def string_leaf_step(p, x):
    g = dlayers(p, x)
    return np.sum(g["l1"] ** 2) + np.sum(g["l2"] * p["l1"])


def string_leaf_value_and_grad(p, x):
    v, g = vg_layers(p, x)
    return v * np.sum(g["l2"] ** 2)


def string_leaf_in_a_list(p, x):
    q = {"l1": p[0], "l2": p[1], "act": "sq"}
    g = dlayers(q, x)
    return np.sum(np.sin(g["l1"])) + np.sum(g["l2"] * p[0])


def string_leaf_other_branch(p, x):
    q = {"l1": p[0], "l2": p[1], "act": "lin"}  # (the branch not taken sets ``t3 = None``: its zeros)
    g = dlayers(q, x)
    return np.sum(np.sin(g["l1"])) + np.sum(g["l2"] * p[0])


def _l(r):
    return {"l1": _v(r, 3), "l2": _v(r, 3), "act": "sq"}, _v(r, 3)


#: a called value_and_grad of a tree is refused at its line (open: its value's function is called as Python)
CALLED_VALUE_AND_GRAD = ("string_leaf_value_and_grad", string_leaf_value_and_grad, _l, 0)

#: a gradient of a tree with a string in it, called: its adjoint ``zeros_like(p_act)`` (grad, value_and_grad)
STRING_LEAVES = [
    ("string_leaf_step", string_leaf_step, _l, 0),
    ("string_leaf_in_a_list", string_leaf_in_a_list, lambda r: ([_v(r, 3), _v(r, 3)], _v(r, 3)), 0),
    ("string_leaf_other_branch", string_leaf_other_branch, lambda r: ([_v(r, 3), _v(r, 3)], _v(r, 3)), 0),
]


# ---- numba's refusal in a called gradient's code ---------------------------------------------------------


def number_or_array(x, flag):
    if flag > 0:
        out = x * 2.0
    else:
        out = np.sum(x)
    return np.sum(out) * np.sum(x**2)


dnumber_or_array = srcdiff.grad(number_or_array)


def calls_number_or_array(x, flag):
    return np.sum(dnumber_or_array(x, flag) ** 2)


# ---- a value first assigned inside a loop (``v = None`` before it in the generated code) ----------------


def sinkhorn_scaling(C, eps=0.5):
    K = np.exp(-C / eps)
    a = np.ones(C.shape[0]) / C.shape[0]
    b = np.ones(C.shape[1]) / C.shape[1]
    u = np.ones_like(a)
    for _ in range(6):
        v = b / (K.T @ u)
        u = a / (K @ v)
    return np.sum(u[:, None] * K * v[None, :] * C)


def pairwise_with_continue(pos, m):
    n = len(m)
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if j == i:
                continue
            d = pos[j] - pos[i]
            acc[i] = acc[i] + m[j] * d / (d @ d + 0.1) ** 1.5
    return np.sum(acc**2) + np.sum(d**2)


def first_in_a_while(x):
    k = 0
    while k < 3:
        y = np.sin(x * (k + 1))
        x = x + 0.1 * y
        k += 1
    return np.sum(y * x)


def first_in_an_inner_loop(x):
    total = 0.0
    for i in range(2):
        for j in range(3):
            h = np.tanh(x * (i + j + 1))
            total = total + np.sum(h**2)
    return total + np.sum(h)


def matrix_first_in_a_loop(W):
    acc = np.eye(W.shape[0])
    for _ in range(3):
        P = acc @ W
        acc = 0.5 * (P + P.T)
    return np.sum(P * acc)


def number_first_in_a_loop(x):
    s = np.sum(x)
    for k in range(3):
        t = np.sum(np.sin(x * k)) + s
        s = s * 0.5 + t
    return s * t


FIRST_IN_A_LOOP = [
    ("sinkhorn_scaling", sinkhorn_scaling, lambda r: (np.abs(_v(r, 3, 4)),), 0),
    ("pairwise_with_continue", pairwise_with_continue, lambda r: (_v(r, 3, 2), np.abs(_v(r, 3)) + 0.5), 0),
    ("first_in_a_while", first_in_a_while, lambda r: (_v(r, 3),), 0),
    ("first_in_an_inner_loop", first_in_an_inner_loop, lambda r: (_v(r, 3),), 0),
    ("matrix_first_in_a_loop", matrix_first_in_a_loop, lambda r: (0.3 * _v(r, 3, 3),), 0),
    ("number_first_in_a_loop", number_first_in_a_loop, lambda r: (_v(r, 3),), 0),
]


# ---- a list of an array and a number carried through a loop: refused, the tuple it suggests compiles ----


def list_with_a_dot(x):
    s = [x, np.dot(x, x)]
    for _ in range(3):
        s = [s[0] * 0.9 + np.sin(s[0]), s[1] * 0.5 + np.dot(s[0], s[0])]
    return np.sum(s[0]) + s[1]


def tuple_with_a_dot(x):
    s = (x, np.dot(x, x))
    for _ in range(3):
        s = (s[0] * 0.9 + np.sin(s[0]), s[1] * 0.5 + np.dot(s[0], s[0]))
    return np.sum(s[0]) + s[1]


def list_with_a_norm_in_a_while(x):
    s = [x, np.linalg.norm(x)]
    k = 0
    while k < 3:
        s = [np.tanh(s[0]) * s[1], s[1] * 0.5 + np.sum(s[0])]
        k += 1
    return np.sum(s[0]) * s[1]


def tuple_with_a_norm_in_a_while(x):
    s = (x, np.linalg.norm(x))
    k = 0
    while k < 3:
        s = (np.tanh(s[0]) * s[1], s[1] * 0.5 + np.sum(s[0]))
        k += 1
    return np.sum(s[0]) * s[1]


def list_with_a_float(x):
    s = [x, 1.5]
    for _ in range(3):
        s = [s[0] * s[1], s[1] * 0.5 + 0.1]
    return np.sum(s[0]) + s[1]


def tuple_with_a_float(x):
    s = (x, 1.5)
    for _ in range(3):
        s = (s[0] * s[1], s[1] * 0.5 + 0.1)
    return np.sum(s[0]) + s[1]


#: (the list, refused at its line, the tuple its refusal suggests)
MIXED_LISTS = [
    (list_with_a_dot, tuple_with_a_dot),
    (list_with_a_norm_in_a_while, tuple_with_a_norm_in_a_while),
    (list_with_a_float, tuple_with_a_float),
]
