"""Wave 34 (lead): reductions along an axis whose result is indexed, differentiated twice.

``sd = x.std(axis=1)[:, None]`` (wave 27b's layer_norm_input) gave "operands could not be broadcast
together with shapes (3,3) () (3,4)" in the Hessian and hvp since wave 32's use masks: the mask of a
value read by an index (``index_add(zeros_like(t), index, 1.0)``) is shaped like the value, the
reduction's result, while std's contribution (and the kink at a row of equal entries inside it) is
shaped like its operand.  The mask was and-ed into that kink's condition as if the two had one
shape: a broadcast error, or on a square operand a mask along the wrong axis.  A contribution shaped
otherwise than the value now keeps its conditions as they are (ad/unused_elements._shaped_like_value).

Census (6 rows x grad, value_and_grad, hessian, jvp, vjp, tree, jacobian, hvp, float32), before ->
after: hessian and hvp of std_rows_indexed refused at the line -> every cell ok (the other rows,
written to find the class's edges, were ok before: their masks are not and-ed into a kink, or
broadcast by luck on a square operand, away from a kink where the mask changes nothing).
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix


def std_rows_indexed(x):
    mu = x.mean(axis=1)[:, None]
    sd = x.std(axis=1)[:, None]
    return np.sum(np.sin((x - mu) / (sd + 1e-6)))


def std_columns_square(x):
    sd = np.std(x, axis=0)[None, :]
    return np.sum(np.cos(x / (sd + 0.1)))


def norm_rows_reshaped(x):
    n = np.linalg.norm(x, axis=1).reshape(-1, 1)
    return np.sum(x / n * np.arange(1.0, 5.0))


def max_rows_sliced(x):
    m = np.max(x, axis=1)
    return np.sum(np.exp(x - m[:, None])) + m[0] ** 2


def var_keepdims_indexed(x):
    v = np.var(x, axis=1)[1:]
    return np.sum(np.sqrt(v + 1.0)) * x[0, 0]


def std_of_square_picked(x):
    s = x.std(axis=1)
    return s[0] * s[2] + np.sum(x**2)


ROWS = [
    ("std_rows_indexed", std_rows_indexed, lambda r: (r.normal(size=(3, 4)),), 0),
    ("std_columns_square", std_columns_square, lambda r: (r.normal(size=(3, 3)),), 0),
    ("norm_rows_reshaped", norm_rows_reshaped, lambda r: (r.normal(size=(3, 4)),), 0),
    ("max_rows_sliced", max_rows_sliced, lambda r: (r.normal(size=(3, 4)),), 0),
    ("var_keepdims_indexed", var_keepdims_indexed, lambda r: (r.normal(size=(3, 3)),), 0),
    ("std_of_square_picked", std_of_square_picked, lambda r: (r.normal(size=(3, 3)),), 0),
]

ALL = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree", *closure_cells.EXTRA)


@pytest.mark.parametrize("program", [corpus.slow_unless(i < 2, p) for i, p in
                                     enumerate(corpus.from_table(ROWS, "w34z", "test_wave34z", 34))],
                         ids=lambda p: p.name)
def test_reduction_indexed_every_transformation(program):
    matrix.assert_ok(program, ALL)


def rk_like(y0, k, dt):
    y = y0
    for _ in range(3):
        y = y + dt / 6.0 * (k * np.sin(y) - 0.5 * y * y)
    return np.sum(y * y)


def test_a_first_order_gradient_holds_no_product_by_a_factor_after_a_division():
    """Wave 34f's hold of a product whose other factor may be infinite (it comes after a division, here
    ``dt / 6.0``) is for code differentiated again and pullbacks: a plain gradient has none (the RK4
    benchmark's gradient went 0.87 -> 2.5x hand with one hold a product)."""
    g = srcdiff.grad(rk_like, wrt=(0, 1))
    args = (np.linspace(-1.0, 1.0, 5), np.linspace(0.5, 1.5, 5), 0.1)
    got = g(*args)
    assert "held_still" not in g.source, g.source
    for i in (0, 1):
        np.testing.assert_allclose(got[i], central_difference(rk_like, args, i), rtol=1e-6, atol=1e-8)
