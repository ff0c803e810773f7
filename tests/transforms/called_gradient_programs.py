"""Functions that call a srcdiff gradient object (``dloss(w, X, y)``, ``srcdiff.grad(loss)(w, X, y)``):
one inner step of MAML, gradient penalties, a Newton step, value_and_grad, several parameters."""

import numpy as np

import srcdiff


def loss(w, X, y):
    r = X @ w - y
    return np.mean(r * r)


dloss = srcdiff.grad(loss)
vg_loss = srcdiff.value_and_grad(loss)
dloss_jit = srcdiff.grad(loss, jit="numba")


def maml(w, X, y, Xv, yv):
    w2 = w - 0.1 * dloss(w, X, y)
    return loss(w2, Xv, yv)


def maml_inline(w, X, y, Xv, yv):
    w2 = w - 0.1 * srcdiff.grad(loss)(w, X, y)
    return loss(w2, Xv, yv)


def inner_step(w, X, y):
    return w - 0.1 * dloss(w, X, y)


def inner_step_norm(w, X, y, Xv, yv):
    return np.sum(inner_step(w, X, y) ** 2) + np.sum(Xv @ w - yv)


def maml_three_steps(w, X, y, Xv, yv):
    for _ in range(3):
        w = w - 0.1 * dloss(w, X, y)
    return loss(w, Xv, yv)


def energy(w):
    return np.sum(np.sin(w) * w) + 0.5 * np.sum(w * w) ** 2


denergy = srcdiff.grad(energy)


def gradient_penalty(w):
    return energy(w) + 0.3 * np.sum(denergy(w) ** 2)


def model(p, x):
    return np.sum(np.tanh(p * x))


dmodel_x = srcdiff.grad(model, wrt=1)


def input_gradient_penalty(p, x):
    return np.sum((p - 1.0) ** 2) + np.sum(dmodel_x(p, x) ** 2)


def cubic(x):
    return np.sum(x ** 3 / 3.0 - 2.0 * x + np.cosh(x))


dcubic = srcdiff.grad(cubic)
d2cubic = srcdiff.grad(srcdiff.grad(cubic))


def newton_step(x):
    x1 = x - dcubic(x) / (1.0 + dcubic(x) ** 2)
    return cubic(x1)


def value_and_gradient(w, X, y):
    value, g = vg_loss(w, X, y)
    return value * np.sum(g * g)


def pair(a, b):
    return np.sum(a * b * b) + np.sum(np.exp(a))


dpair = srcdiff.grad(pair, wrt=(0, 1))
dpair_argnums = srcdiff.grad(pair, argnums=1)


def both_gradients(a, b):
    ga, gb = dpair(a, b)
    return np.sum(ga * gb) + np.sum(dpair_argnums(a, b) * a)


def called_at_two_kinds(w, s):
    return np.sum(denergy(w) ** 2) + np.sum(denergy(s) ** 2)


SCALE = np.array([0.5, 1.5, 2.0])


def scaled(w):
    return np.sum(SCALE * w ** 4)


dscaled = srcdiff.grad(scaled)


def reads_a_global(w):
    return np.sum(dscaled(w) * w)


def jitted_inside(w, X, y, Xv, yv):
    w2 = w - 0.1 * dloss_jit(w, X, y)
    return loss(w2, Xv, yv)


def made_in_the_body(w, X, y, Xv, yv):
    step = srcdiff.grad(loss)
    return loss(w - 0.1 * step(w, X, y), Xv, yv)


def passed_as_a_parameter(w, X, y, Xv, yv, step=dloss):
    return loss(w - 0.1 * step(w, X, y), Xv, yv)


STEPS = {"sgd": dloss}


def read_from_a_table(w, X, y, Xv, yv):
    return loss(w - 0.1 * STEPS["sgd"](w, y=y, X=X), Xv, yv)


def make_closure():
    step = srcdiff.grad(loss)

    def closure(w, X, y, Xv, yv):
        return loss(w - 0.1 * step(w, X, y), Xv, yv)
    return closure


closure = make_closure()


def tree_loss(p, x):
    return np.sum(np.tanh(p["w"] * x + p["b"]) ** 2)


dtree = srcdiff.grad(tree_loss)


def dict_step(p, x):
    g = dtree(p, x)
    p2 = {"w": p["w"] - 0.1 * g["w"], "b": p["b"] - 0.1 * g["b"]}
    return tree_loss(p2, x)


def dict_penalty(p, x):
    g = dtree(p, x)
    return tree_loss(p, x) + 0.5 * np.sum(g["w"] ** 2) + np.sum(g["b"] * p["w"])


def pair_loss(t, x):
    return np.sum((t[0] * x + t[1]) ** 2 * np.cos(t[0]))


dpair_tuple = srcdiff.grad(pair_loss)


def tuple_display(w, b, x):
    gw, gb = dpair_tuple((w, b), x)
    return np.sum(gw**2) + np.sum(gb * w)


def list_display(w, b, x):
    g = dpair_tuple([w, b], x)
    return np.sum(g[0] * g[1]) + np.sum(np.sin(g[0]))


def layers_loss(p, x):
    h = np.tanh(p["l1"] * x)
    return np.sum((p["l2"] * h) ** 2) if p["act"] == "sq" else np.sum(p["l2"] * h)


dlayers = srcdiff.grad(layers_loss)


def string_leaf_step(p, x):
    g = dlayers(p, x)
    return np.sum(g["l1"] ** 2) + np.sum(g["l2"] * p["l1"])


dtree_b = srcdiff.grad(tree_loss, wrt="p['b']")


def one_leaf_of_a_dict(p, x):
    return np.sum(dtree_b(p, x) ** 2) + np.sum(p["w"] ** 2)


vg_tree = srcdiff.value_and_grad(tree_loss)


def value_and_grad_of_a_dict(p, x):
    v, g = vg_tree(p, x)
    return v * np.sum(g["w"] ** 2) + np.sum(g["b"] * p["b"])


vg_pair = srcdiff.value_and_grad(pair_loss)


def value_and_grad_of_a_tuple(w, b, x):
    v, (gw, gb) = vg_pair((w, b), x)
    return np.sin(v) + np.sum(gw * gb)


M = lambda r, *shape: r.normal(size=shape) * 0.5  # noqa: E731
P = lambda r: ({"w": M(r, 3), "b": M(r, 3)}, M(r, 3))  # noqa: E731
L = lambda r: ({"l1": M(r, 3), "l2": M(r, 3), "act": "sq"}, M(r, 3))  # noqa: E731
MAML_ARGS = lambda r: (M(r, 3), M(r, 5, 3), M(r, 5), M(r, 4, 3), M(r, 4))  # noqa: E731

PROGRAMS = [
    ("maml", maml, MAML_ARGS, 0),
    ("maml_X", maml, MAML_ARGS, 1),
    ("maml_inline", maml_inline, MAML_ARGS, 0),
    ("maml_three_steps", maml_three_steps, MAML_ARGS, 0),
    ("inner_step_norm", inner_step_norm, MAML_ARGS, 0),
    ("gradient_penalty", gradient_penalty, lambda r: (M(r, 4),), 0),
    ("input_gradient_penalty", input_gradient_penalty, lambda r: (M(r, 3), M(r, 3)), 0),
    ("input_gradient_penalty_x", input_gradient_penalty, lambda r: (M(r, 3), M(r, 3)), 1),
    ("newton_step", newton_step, lambda r: (0.7,), 0),
    ("newton_step_array", newton_step, lambda r: (M(r, 3),), 0),
    ("value_and_gradient", value_and_gradient, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("both_gradients", both_gradients, lambda r: (M(r, 3), M(r, 3)), 0),
    ("both_gradients_b", both_gradients, lambda r: (M(r, 3), M(r, 3)), 1),
    ("called_at_two_kinds", called_at_two_kinds, lambda r: (M(r, 3), 0.4), 0),
    ("called_at_two_kinds_s", called_at_two_kinds, lambda r: (M(r, 3), 0.4), 1),
    ("reads_a_global", reads_a_global, lambda r: (M(r, 3),), 0),
    ("jitted_inside", jitted_inside, MAML_ARGS, 0),
    ("made_in_the_body", made_in_the_body, MAML_ARGS, 0),
    ("passed_as_a_parameter", passed_as_a_parameter, MAML_ARGS, 0),
    ("read_from_a_table", read_from_a_table, MAML_ARGS, 0),
    ("closure", closure, MAML_ARGS, 0),
    ("dict_step", dict_step, P, 0),
    ("dict_step_x", dict_step, P, 1),
    ("dict_penalty", dict_penalty, P, 0),
    ("tuple_display", tuple_display, lambda r: (M(r, 3), M(r, 3), M(r, 3)), 0),
    ("tuple_display_b", tuple_display, lambda r: (M(r, 3), M(r, 3), M(r, 3)), 1),
    ("list_display", list_display, lambda r: (M(r, 3), M(r, 3), M(r, 3)), 0),
    ("string_leaf_step", string_leaf_step, L, 0),
    ("one_leaf_of_a_dict", one_leaf_of_a_dict, P, 0),
    ("value_and_grad_of_a_dict", value_and_grad_of_a_dict, P, 0),
    ("value_and_grad_of_a_tuple", value_and_grad_of_a_tuple, lambda r: (M(r, 3), M(r, 3), M(r, 3)), 0),
]
