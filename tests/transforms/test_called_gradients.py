"""A srcdiff gradient object called inside a differentiated function (``dloss(w, X, y)`` in a
MAML step, gradient penalties, a Newton step, value_and_grad, several parameters): every
transformation of the outer function agrees with central differences of it; a rebound global
or gradient is seen; what srcdiff cannot differentiate is refused at the call's line."""

import numpy as np
import pytest
from modules import import_source
from numeric import assert_close, central_difference, hessian_difference

import srcdiff

from . import called_gradient_programs as programs
from . import corpus, matrix

#: the rows the default run keeps (the slow set runs every row); the tests below cover the rest of
#: the kinds of call (two kinds of arguments, a parameter, rebinding) with one transformation each
DEFAULT = ("maml", "value_and_gradient", "dict_step", "tuple_display")


def table():
    return corpus.from_table(programs.PROGRAMS, "called_gradients", "called_gradient_programs", 5)


def rows():
    return [p if p.name.partition(":")[2] in DEFAULT else pytest.param(p, marks=pytest.mark.slow) for p in table()]


@pytest.mark.parametrize("program", rows(), ids=lambda p: p.name.partition(":")[2])
def test_every_transformation_of_a_function_calling_a_gradient(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree"))


@pytest.mark.parametrize("program", [p if p.name.endswith(("maml", "jitted_inside")) else
                                     pytest.param(p, marks=pytest.mark.slow) for p in table()
                                     if p.name.endswith(("maml", "jitted_inside", "dict_step", "tuple_display"))],
                         ids=lambda p: p.name.partition(":")[2])
def test_numba_agrees_on_a_function_calling_a_gradient(program):
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome == matrix.OK, cell.message


@pytest.mark.parametrize("program", [p if p.name.endswith(":maml") else pytest.param(p, marks=pytest.mark.slow)
                                     for p in table()
                                     if p.name.endswith(("maml", "gradient_penalty", "tuple_display"))],
                         ids=lambda p: p.name.partition(":")[2])
def test_float32_gradients_stay_float32_through_a_called_gradient(program):
    matrix.assert_float32_stays_float32(program)


def test_maml_against_its_hand_derived_gradient(rng):
    w, X, y, Xv, yv = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5), rng.normal(size=(4, 3)), \
        rng.normal(size=4)
    step = np.eye(3) - 0.1 * 2.0 / len(y) * X.T @ X  # w2 = step @ w + (0.2 / n) X^T y
    w2 = step @ w + 0.1 * 2.0 / len(y) * X.T @ y
    want = step.T @ (2.0 / len(yv) * Xv.T @ (Xv @ w2 - yv))
    assert_close(srcdiff.grad(programs.maml)(w, X, y, Xv, yv), want)
    assert_close(srcdiff.grad(programs.maml_inline)(w, X, y, Xv, yv), want)


def test_jacobian_hvp_jvp_and_vjp_of_a_function_calling_a_gradient(rng):
    w, X, y, Xv, yv = programs.MAML_ARGS(rng)
    step = programs.inner_step
    rows = np.stack([central_difference(lambda w, i=i: step(w, X, y)[i], (w,), 0) for i in range(3)])
    assert_close(srcdiff.jacobian(step)(w, X, y), rows, rtol=1e-5, atol=1e-7)
    v = rng.normal(size=3)
    _, tangent = srcdiff.jvp(step, (w, X, y), (v, np.zeros_like(X), np.zeros_like(y)))
    assert_close(tangent, rows @ v, rtol=1e-5, atol=1e-7)
    _, pullback = srcdiff.vjp(step, w, X, y)
    assert_close(pullback(v), rows.T @ v, rtol=1e-5, atol=1e-7)
    hessian = hessian_difference(programs.maml, (w, X, y, Xv, yv))
    assert_close(srcdiff.hvp(programs.maml, w, v, X, y, Xv, yv), hessian @ v, rtol=1e-4, atol=1e-6)


def test_the_generated_code_reads_like_the_step_written_out(rng):
    source = srcdiff.grad(programs.maml).source_for(*programs.MAML_ARGS(rng))
    assert "# adjoint of called_gradient_programs.py:20  w2 = w - 0.1 * dloss(w, X, y)" in source, source
    assert "X.T @" in source and "dloss" not in source.replace("dloss(w, X, y)\n", ""), source  # its code, inlined


MODULE = """
import numpy as np
import srcdiff

SCALE = np.array([0.5, 1.5, 2.0])

def inner(w):
    return np.sum(SCALE * helper(w))

def helper(w):
    return w ** 4

dinner = srcdiff.grad(inner)

def outer(w):
    return np.sum(dinner(w) * w)
"""


def test_rebinding_what_the_called_gradient_reads_is_seen(tmp_path):
    module = import_source(tmp_path, MODULE, "called_rebound")
    gradient = srcdiff.grad(module.outer)
    w = np.array([0.3, -0.7, 1.1])
    first = gradient(w)
    assert_close(first, central_difference(module.outer, (w,), 0), rtol=1e-5, atol=1e-6)
    module.SCALE = np.array([2.0, -1.0, 0.5])  # a global the inner gradient's function reads
    assert_close(gradient(w), central_difference(module.outer, (w,), 0), rtol=1e-5, atol=1e-6)
    module.helper = lambda w: np.sin(w) * w  # its helper, redefined
    assert_close(gradient(w), central_difference(module.outer, (w,), 0), rtol=1e-5, atol=1e-6)
    module.dinner = srcdiff.grad(lambda w: np.sum(np.cos(w)))  # the gradient object itself, rebound
    assert_close(gradient(w), central_difference(module.outer, (w,), 0), rtol=1e-5, atol=1e-6)
    assert not np.allclose(gradient(w), first)


def test_a_gradient_passed_as_an_argument_is_specialised_on(rng):
    w, X, y, Xv, yv = programs.MAML_ARGS(rng)
    gradient = srcdiff.grad(programs.passed_as_a_parameter)
    other = srcdiff.grad(lambda w, X, y: np.sum(np.sin(X @ w) * y))
    for step in (programs.dloss, other, programs.dloss):
        f = lambda w, step=step: programs.passed_as_a_parameter(w, X, y, Xv, yv, step)  # noqa: E731
        assert_close(gradient(w, X, y, Xv, yv, step), central_difference(f, (w,), 0), rtol=1e-5, atol=1e-7)


def test_the_same_gradient_called_at_two_kinds_of_arguments(rng):
    w, s = rng.normal(size=3), 0.4
    got = srcdiff.grad(programs.called_at_two_kinds, wrt=(0, 1))(w, s)
    f = programs.called_at_two_kinds
    assert_close(got[0], central_difference(f, (w, s), 0), rtol=1e-5, atol=1e-6)
    assert_close(got[1], central_difference(f, (w, s), 1), rtol=1e-5, atol=1e-6)


REFUSED = """
import numpy as np
import srcdiff

def loss(w):
    return np.sum(w ** 3)

def loss_aux(w):
    return np.sum(w ** 3), w

def by_axis(w, axis):
    return np.sum(np.sum(w ** 3, axis=axis) ** 2)

aux = srcdiff.grad(loss_aux, has_aux=True)
noisy = srcdiff.grad(loss, debug=True)
jac = srcdiff.jacobian(loss)
hess = srcdiff.hessian(loss)
twice = srcdiff.grad(srcdiff.grad(loss))
daxis = srcdiff.grad(by_axis)

def with_aux(w):
    return np.sum(aux(w)[0])

def with_debug(w):
    return np.sum(noisy(w))

def with_jacobian(w):
    return np.sum(jac(w))

def with_hessian(w):
    return np.sum(hess(w))

def with_second_derivative(w):
    return np.sum(twice(w))

def axis_in_a_loop(w):
    for _ in range(2):
        w = w * 0.5 + daxis(w, 0)
    return np.sum(w)
"""


@pytest.mark.parametrize("name, words", [
    ("with_aux", "has_aux"), ("with_debug", "debug=True"), ("with_jacobian", "other than grad"),
    ("with_hessian", "other than grad"), ("with_second_derivative", "other than grad"),
    ("axis_in_a_loop", "cannot tell the shape"),
])  # (a gradient of a dict read at once, np.sum(dtree(p)["w"]), is accepted since reach 28: test_reach28.py)
def test_refused_at_the_call_s_line(tmp_path, name, words):
    module = import_source(tmp_path, REFUSED, "called_refused")
    w = np.array([[0.5, 1.5], [0.2, -0.3]])
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(getattr(module, name))(w)
    err = caught.value
    assert words in str(err), str(err)
    assert err.location is not None and err.location.filename.endswith("called_refused.py"), str(err)
    assert err.location.code.strip().startswith(("return", "w = ")) and err.hint, str(err)


def test_a_gradient_of_a_dict_called_inside_hvp_jacobian_and_vmap(rng):
    p, x = programs.P(rng)
    v = {"w": rng.normal(size=3), "b": rng.normal(size=3)}
    gradient = srcdiff.grad(programs.dict_step)

    def along(t):
        moved = {k: p[k] + t * v[k] for k in p}
        g = gradient(moved, x)
        return np.concatenate([g["w"], g["b"]])
    want = central_difference(along, (0.0,), 0)
    got = srcdiff.hvp(programs.dict_step, p, v, x)
    assert_close(np.concatenate([got["w"], got["b"]]), want, rtol=1e-5, atol=1e-7)
    w, b, x = rng.normal(size=(3, 3)) * 0.5
    step = programs.tuple_display
    rows = np.stack([central_difference(lambda w, i=i: srcdiff.grad(step)(w, b, x)[i], (w,), 0) for i in range(3)])
    assert_close(srcdiff.jacobian(srcdiff.grad(step))(w, b, x), rows, rtol=1e-4, atol=1e-6)
    W = rng.normal(size=(4, 3)) * 0.5
    want = np.array([central_difference(step, (wi, b, x), 0) for wi in W])
    assert_close(srcdiff.vmap(srcdiff.grad(step), in_axes=(0, None, None))(W, b, x), want, rtol=1e-5, atol=1e-7)


def test_a_value_and_grad_given_a_dict_not_unpacked_is_refused_at_the_call_s_line(tmp_path):
    module = import_source(tmp_path, VALUE_AND_GRAD_OF_A_DICT, "called_vg_tree")
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(module.outer)({"w": np.array([0.5, -0.2])})
    err = caught.value
    assert "value_and_grad given trees" in str(err) and "v, g = vg(p)" in err.hint, str(err)
    assert err.location is not None and err.location.filename.endswith("called_vg_tree.py"), str(err)
    assert err.location.code.strip().startswith("pair = vg(p)"), str(err)


VALUE_AND_GRAD_OF_A_DICT = """
import numpy as np
import srcdiff

def loss(p):
    return np.sum(p["w"] ** 3)

vg = srcdiff.value_and_grad(loss)

def outer(p):
    pair = vg(p)
    return pair[0] * np.sum(pair[1]["w"])
"""
