"""Python spellings grad refused after the red team's tenth wave (reach11a_programs.py): every
transformation, numba included, agrees with central differences (or numba refuses at the user's
line), float32 stays float32; an enum argument is part of the cache key; Python's own errors stay
errors; and the spellings srcdiff still does not cover are refused at their line."""


import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .reach11a_programs import PROGRAMS, Activation, Mode, Params, enum_equality_and_value

HERE = __file__.rsplit("/", 1)[-1]


def programs():
    return corpus.from_table(PROGRAMS, "reach11a", "reach11a_programs", 11)


def _name(p):
    return p.name.partition(":")[2]


#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED: dict = {}


#: first order, in the default run; second order and `srcdiff.check` (sympy) in a sampled family


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    matrix.assert_ok(program, ("grad", "hessian", "check"))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_included(program):  # every transformation again, numba too (one in NUMBA_SAMPLE by default)
    matrix.assert_numba_included(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


# ---- an enum member is a static argument: each member its own variant ------------------------------


def test_each_enum_member_has_its_own_gradient():
    x = np.array([0.4, -0.9, 1.3])
    gradient = srcdiff.grad(enum_equality_and_value)
    for mode in (Mode.SUM, Mode.MEAN, Mode.SUM, Mode.MEAN):
        want = central_difference(lambda v, m=mode: enum_equality_and_value(v, m), (x,), 0)
        np.testing.assert_allclose(gradient(x, mode), want, rtol=1e-6, atol=1e-9)


def test_the_generated_code_holds_no_enum():
    source = srcdiff.grad(enum_equality_and_value).source_for(np.ones(3), Mode.SUM)
    assert "Mode" not in source and "np.cos(w)" in source


def namedtuple_argument_replaced(p, x):
    q = p._replace(w=p.w * 2.0)
    return np.sum(np.sin(q.w * x)) + q.b * p.b


def test_replace_of_a_namedtuple_argument():
    p, x = Params(np.array([0.3, -0.2, 0.8]), 0.7), np.array([1.1, 0.4, -0.6])
    got = srcdiff.grad(namedtuple_argument_replaced)(p, x)
    assert isinstance(got, Params)
    np.testing.assert_allclose(got.w, central_difference(lambda w: namedtuple_argument_replaced(Params(w, 0.7), x),
                                                         (p.w,), 0), rtol=1e-6)
    np.testing.assert_allclose(got.b, 1.4, rtol=1e-9)  # d(q.b * p.b)/db with q.b = p.b


# ---- Python's own errors stay errors ---------------------------------------------------------------


def zip_star_of_wider_pairs(w):
    xs, ys = zip(*[(w[0], w[1], w[2])])
    return sum(xs) * sum(ys)


def zip_star_of_more_rows(W):
    total = 0.0
    for a, b in zip(*W):
        total = total + a * b
    return total


@pytest.mark.parametrize("f, args", [(zip_star_of_wider_pairs, (np.ones(3),)),
                                     (zip_star_of_more_rows, (np.ones((3, 2)),))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_zip_star_of_the_wrong_width_raises_as_python_does(f, args):
    with pytest.raises(ValueError):
        f(*args)
    with pytest.raises((ValueError, srcdiff.SrcDiffError)):
        srcdiff.grad(f)(*args)


def pops_an_empty_list(x):
    xs = [x]
    xs.pop()
    return xs.pop() * x


def test_a_pop_python_refuses_is_refused():
    with pytest.raises(IndexError):
        pops_an_empty_list(0.5)
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(pops_an_empty_list)(0.5)
    assert HERE in str(caught.value)


# ---- still refused, at the user's line -------------------------------------------------------------


def transposed_rows(W):
    cols = list(zip(*W))
    return sum(c[0] * c[1] for c in cols)


def merged_in_a_loop(w):
    state = {"acc": 0.0}
    for v in w:
        state = {**state, "acc": state["acc"] + v ** 2}
    return state["acc"]


def spreads_an_array(w):
    cfg = {**w}
    return cfg["a"]


def pops_in_a_loop(w):
    xs = [w[0], w[1], w[2]]
    total = 0.0
    for _ in range(2):
        total = total + xs.pop() * w[0]
    return total


def nonlocal_passed_on(w):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
    for v in w:
        add(v)
    return total + np.sum([add] and w)


@pytest.mark.parametrize("func, words", [
    (transposed_rows, "list("), (merged_in_a_loop, "state"), (spreads_an_array, "**w"),
    (pops_in_a_loop, "pop"), (nonlocal_passed_on, "nonlocal"),  # (s = _step(s), a deque: since reach11c)
], ids=lambda v: getattr(v, "__name__", ""))
def test_spellings_still_refused_name_the_users_line(func, words):
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(func)(np.array([[0.5, 0.25, 0.1], [0.3, -0.2, 0.7]]) if func is transposed_rows
                           else np.array([0.5, 0.25, -0.4]))
    assert words in str(caught.value) and HERE in str(caught.value), str(caught.value)


def test_an_enum_argument_not_used_statically_still_works():
    x = np.ones((3, 2)) * 0.3
    X = np.arange(12.0).reshape(4, 3) * 0.1
    from .reach11a_programs import enum_activation
    np.testing.assert_allclose(srcdiff.grad(enum_activation)(x, X, Activation.TANH),
                               central_difference(lambda W: enum_activation(W, X, Activation.TANH), (x,), 0),
                               rtol=1e-6)
