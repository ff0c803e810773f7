"""Draws from a random generator the function seeds itself (``rng = np.random.default_rng(0);
z = rng.standard_normal(3)``) are constants of the function: every transformation agrees with central
differences of it, vmap with a Python loop over the examples (each call draws the same numbers); a
generator made without a seed, a draw of parameters that carry a gradient and an in-place shuffle are
refused at the user's line."""

import numpy as np
import pytest
from modules import import_source
from numeric import assert_close, central_difference

import srcdiff

from . import corpus, matrix
from . import generator_draw_programs as programs


def table():
    return corpus.from_table(programs.PROGRAMS, "generator_draws", "generator_draw_programs", 5)


#: the rows the default run keeps (the slow set runs every row)
DEFAULT = ("standard_normal", "draws_in_a_loop")


def rows():
    return [p if p.name.endswith(DEFAULT) else pytest.param(p, marks=pytest.mark.slow) for p in table()]


@pytest.mark.parametrize("program", rows(), ids=lambda p: p.name.partition(":")[2])
def test_every_transformation_of_a_function_drawing_from_its_own_generator(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree"))


@pytest.mark.parametrize(
    "program",
    [p for p in table() if p.name.endswith(("standard_normal", "draws_in_a_loop"))],
    ids=lambda p: p.name.partition(":")[2],
)
@pytest.mark.slow  # (numba compiles for seconds a program)
def test_numba_agrees_on_a_function_drawing_from_its_own_generator(program):
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome == matrix.OK, cell.message


@pytest.mark.parametrize(
    "name",
    [
        "two_draws_in_order",
        pytest.param("standard_normal", marks=pytest.mark.slow),
        pytest.param("drawn_index", marks=pytest.mark.slow),
        pytest.param("draws_in_a_loop", marks=pytest.mark.slow),
    ],
)
def test_vmap_jacobian_and_hvp_draw_what_a_loop_over_calls_draws(name, rng):
    f = getattr(programs, name)
    X = rng.normal(size=(4, 3)) * 0.7
    assert_close(srcdiff.vmap(f)(X), np.array([f(x) for x in X]))
    assert_close(
        srcdiff.vmap(srcdiff.grad(f))(X), np.array([central_difference(f, (x,), 0) for x in X]), rtol=1e-5, atol=1e-7
    )
    gradient = srcdiff.grad(f)
    hessian = np.stack([central_difference(lambda x, i=i: gradient(x)[i], (X[0],), 0) for i in range(3)])
    assert_close(srcdiff.jacobian(gradient)(X[0]), hessian, rtol=1e-4, atol=1e-6)
    assert_close(srcdiff.hvp(f, X[0], X[1]), hessian @ X[1], rtol=1e-4, atol=1e-6)


def test_float32_stays_float32_through_a_draw():
    matrix.assert_float32_stays_float32(table()[0])


REFUSED = """
import numpy as np

def unseeded(x):
    rng = np.random.default_rng()
    return np.sum(x * rng.standard_normal(3))

def drawn_at_x(x):
    rng = np.random.default_rng(0)
    return np.sum(rng.normal(loc=x))

def shuffled(x):
    rng = np.random.default_rng(0)
    y = x * 1.0
    rng.shuffle(y)
    return np.sum(y * np.arange(3.0))
"""


X = np.array([0.3, 0.5, -0.2])


@pytest.mark.parametrize(
    "name, transform, x, words",
    [
        ("unseeded", lambda f: srcdiff.jacobian(srcdiff.grad(f)), X, "without a seed"),
        ("unseeded", lambda f: srcdiff.vmap(srcdiff.grad(f)), np.stack([X, 2 * X]), "without a seed"),
        ("drawn_at_x", srcdiff.grad, X, "parameters carry a gradient"),
        ("shuffled", srcdiff.grad, X, "shuffle"),
    ],
)
def test_refused_at_the_draw_s_line(tmp_path, name, transform, x, words):
    module = import_source(tmp_path, REFUSED, "draws_refused")
    f = getattr(module, name)
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        transform(f)(x)
    err = caught.value
    assert words in str(err), str(err)
    assert err.location is not None and err.location.filename.endswith("draws_refused.py"), str(err)


def test_an_unseeded_generator_s_gradient_is_of_the_draws_of_its_run(tmp_path):
    f = import_source(tmp_path, REFUSED, "draws_unseeded").unseeded
    x = np.array([0.3, 0.5, -0.2])
    value, gradient = srcdiff.value_and_grad(f)(x)
    assert_close(value, float(x @ gradient))  # f is linear in x: its value is its gradient's dot with x
