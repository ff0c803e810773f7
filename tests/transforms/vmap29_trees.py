"""More of wave 29's per-example programs (test_vmap29_census.py): parameters as trees (a dict, a
tuple, a list, a namedtuple), a batched argument that is a dict, a parameter left to its default,
more losses, and value_and_grad of programs of vmap29_programs.py.  `MORE` rows are (function, the
maker of its arguments, the arguments differentiated, whether value_and_grad is batched)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from . import vmap29_programs as programs

Layer = namedtuple("Layer", "W b")


def _layer(r):
    return r.normal(size=(3, 2)) / 2, r.normal(size=2) / 2


def dict_args(r, b):
    W, c = _layer(r)
    return ({"W": W, "b": c}, r.normal(size=(b, 3)), r.normal(size=(b, 2))), (None, 0, 0)


def tuple_args(r, b):
    return (_layer(r), r.normal(size=(b, 3)), r.normal(size=(b, 2))), (None, 0, 0)


def list_args(r, b):
    return (list(_layer(r)), r.normal(size=(b, 3)), r.normal(size=(b, 2))), (None, 0, 0)


def namedtuple_args(r, b):
    return (Layer(*_layer(r)), r.normal(size=(b, 3)), r.normal(size=(b, 2))), (None, 0, 0)


def two_layer_args(r, b):
    params = {"W1": r.normal(size=(3, 4)) / 2, "b1": r.normal(size=4) / 2, "w2": r.normal(size=4) / 2}
    return (params, r.normal(size=(b, 3)), r.normal(size=b)), (None, 0, 0)


def features_args(r, b):
    return (r.normal(size=3), {"x": r.normal(size=(b, 3)), "z": r.normal(size=b)}, r.normal(size=b)), (None, 0, 0)


def mlp_dict(params, x, y):
    h = np.tanh(x @ params["W"] + params["b"])
    return np.sum((h - y) ** 2)


def mlp_tuple(params, x, y):
    W, b = params
    return np.sum((np.tanh(x @ W + b) - y) ** 2)


def mlp_list(params, x, y):
    return np.sum((np.tanh(x @ params[0] + params[1]) - y) ** 2)


def mlp_namedtuple(params, x, y):
    return np.sum((np.tanh(x @ params.W + params.b) - y) ** 2)


def two_layer(params, x, y):
    h = np.maximum(x @ params["W1"] + params["b1"], 0.0)
    return (h @ params["w2"] - y) ** 2


def features_dict(w, feats, y):
    return (np.tanh(feats["x"] @ w) + 0.5 * feats["z"] - y) ** 2


def scaled_by_default(w, x, y, scale=2.0):
    return scale * (x @ w - y) ** 2


def log_cosh(w, x, y):
    return np.log(np.cosh(x @ w - y))


def smooth_l1(w, x, y):
    r = np.abs(x @ w - y)
    return np.where(r < 1.0, 0.5 * r ** 2, r - 0.5) + 0.1 * np.sum(np.abs(w))


def gaussian_nll(w, x, y):
    mu, log_var = x @ w, w[0] * x[1]
    return 0.5 * (log_var + (y - mu) ** 2 / np.exp(log_var))


def focal(w, x, y):
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    pt = np.where(y > 0.5, p, 1.0 - p)
    return -((1.0 - pt) ** 2) * np.log(pt)


def clipped_ce(w, x, y):
    p = np.clip(1.0 / (1.0 + np.exp(-(x @ w))), 1e-6, 1.0 - 1e-6)
    return -(y * np.log(p) + (1.0 - y) * np.log1p(-p))


def square_args(r, b):
    return (r.normal(size=(3, 3)), r.normal(size=(b, 3))), (None, 0)  # (a batch of 3 as long as a row)


def relu_layer(A, x):
    return np.sum(np.where(A @ x > 0, A @ x, 0.0))  # a product in a test kept whole


def gated_by_quadratic_form(A, x):
    return np.sum(np.where(x @ A @ x > 0.5, x ** 2, -x))


MORE = ([(relu_layer, square_args, (0, 1), False), (gated_by_quadratic_form, square_args, (0, 1), False)]
        + [(f, make, (0,), False) for f, make in ((mlp_dict, dict_args), (mlp_tuple, tuple_args),
                                                 (mlp_list, list_args), (mlp_namedtuple, namedtuple_args),
                                                 (two_layer, two_layer_args))]
        + [(features_dict, features_args, (0, 1), False)]
        + [(f, programs.labels_args, (0, 1), False) for f in (scaled_by_default, log_cosh, smooth_l1, gaussian_nll,
                                                              focal, clipped_ce)]
        + [(f, make, (0, 1), True) for f, make in (
            (programs.squared_error, programs.loss_args), (programs.logistic_nll, programs.labels_args),
            (programs.loss_index_test, programs.loss_args), (programs.masked_by_where, programs.loss_args),
            (programs.masked_sum, programs.loss_args), (programs.svd_values, programs.matrices_args),
            (programs.qr_of_tall, programs.tall_args))]
        + [(mlp_dict, dict_args, (0,), True), (focal, programs.labels_args, (0, 1), True)])
