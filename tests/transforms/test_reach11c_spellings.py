"""Python spellings grad refused after reach11a (reach11c_programs.py): every transformation, numba
included, agrees with central differences (or numba refuses at the user's line), float32 stays
float32; a helper that rebuilds a state object, redefined, gives a new gradient (never a stale one);
and what srcdiff still does not cover is refused at the user's line."""

import collections
import dataclasses
import functools
import importlib
import sys
import textwrap

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .reach11c_programs import PROGRAMS, Orbit, namedtuple_argument_stepped

HERE = __file__.rsplit("/", 1)[-1]


def programs():
    return corpus.from_table(PROGRAMS, "reach11c", "reach11c_programs", 13)


def _name(p):
    return p.name.partition(":")[2]


#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED: dict = {
    "deque_of_rows": "a window of arrays: its empty slots hold 0.0, a float, where numba wants one type per name",
    # popleft of a window of a computed width: the parts of the array it joins are kept in a branch (Optional)
    "deque_of_a_given_width_popped": "the shape of an optional array",
}

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


def test_a_namedtuple_argument_stepped_by_a_helper():
    q, p = np.array([0.5, -0.3]), np.array([0.2, 0.9])
    value, got = srcdiff.value_and_grad(namedtuple_argument_stepped)(Orbit(q, p, 0.2))
    assert isinstance(got, Orbit) and value == pytest.approx(namedtuple_argument_stepped(Orbit(q, p, 0.2)))
    np.testing.assert_allclose(got.q, central_difference(lambda a: namedtuple_argument_stepped(Orbit(a, p, 0.2)),
                                                         (q,), 0), rtol=1e-6)
    np.testing.assert_allclose(got.p, central_difference(lambda b: namedtuple_argument_stepped(Orbit(q, b, 0.2)),
                                                         (p,), 0), rtol=1e-6)
    np.testing.assert_allclose(got.t, central_difference(lambda t: namedtuple_argument_stepped(Orbit(q, p, t)),
                                                         (0.2,), 0), rtol=1e-6)


class Dense:
    def __init__(self, W, b, act=np.tanh):
        self.W = W
        self.b = b
        self.act = act

    def __call__(self, x):
        return self.act(x @ self.W + self.b)


def _layer(W, b):
    return Dense(W, b)


def layer_from_a_factory(W, x):  # an object holding a function: read as before (a factory's tree)
    layer = _layer(W, 0.1)
    return np.sum(layer(x) ** 2)


def test_a_factory_of_an_object_holding_a_function_still_works():
    W, x = np.array([[0.3, -0.2], [0.5, 0.1], [-0.4, 0.7]]), np.array([0.2, -1.0, 0.6])
    np.testing.assert_allclose(srcdiff.grad(layer_from_a_factory)(W, x),
                               central_difference(layer_from_a_factory, (W, x), 0), rtol=1e-6)


# ---- a helper redefined: the gradient is built again ------------------------------------------------

MODEL = '''
import dataclasses
import numpy as np


@dataclasses.dataclass
class State:
    q: np.ndarray
    p: np.ndarray


def step(s, dt):
    return State(s.q + dt * s.p, s.p - dt * s.q)


def energy(q0):
    s = State(q0, 2.0 * q0)
    for _ in range(3):
        s = step(s, 0.1)
    return np.sum(s.q ** 2)
'''


def test_a_redefined_helper_gives_a_new_gradient(tmp_path, monkeypatch):
    (tmp_path / "reach11c_model.py").write_text(textwrap.dedent(MODEL))
    monkeypatch.syspath_prepend(str(tmp_path))
    model = importlib.import_module("reach11c_model")
    try:
        x = np.array([0.5, 0.25, -0.4])
        gradient = srcdiff.grad(model.energy)
        np.testing.assert_allclose(gradient(x), central_difference(model.energy, (x,), 0), rtol=1e-6)
        State = model.State

        def faster(s, dt):  # the user redefines step: twice the velocity
            return State(s.q + 2.0 * dt * s.p, s.p - dt * s.q)

        monkeypatch.setattr(model, "step", faster)
        want = central_difference(model.energy, (x,), 0)
        np.testing.assert_allclose(gradient(x), want, rtol=1e-6)
        np.testing.assert_allclose(srcdiff.grad(model.energy)(x), want, rtol=1e-6)
        np.testing.assert_allclose(srcdiff.value_and_grad(model.energy)(x)[1], want, rtol=1e-6)
    finally:
        sys.modules.pop("reach11c_model", None)


# ---- Python's own errors stay errors ---------------------------------------------------------------


def pops_an_empty_window(x):
    window = collections.deque(maxlen=2)
    window.append(x)
    window.popleft()
    window.popleft()
    return x * 2.0


def test_a_popleft_python_refuses_raises_as_python_does():
    with pytest.raises(IndexError):
        pops_an_empty_window(0.5)
    with pytest.raises(IndexError):
        srcdiff.grad(pops_an_empty_window)(0.5)


# ---- still refused, at the user's line -------------------------------------------------------------


@dataclasses.dataclass
class Pair:
    a: np.ndarray
    b: np.ndarray


@dataclasses.dataclass
class Other:
    a: np.ndarray
    b: np.ndarray


def _nested(s):
    return Pair(s.a * 2.0, Pair(s.b, s.a))


def returns_a_nested_object(w):
    s = Pair(w, w ** 2)
    s = _nested(s)
    return np.sum(s.a)


def _either(s, flag):
    if flag:
        return Pair(s.a, s.b)
    return Other(s.b, s.a)


def two_classes_returned(w):
    s = Pair(w, w ** 2)
    s = _either(s, True)
    return np.sum(s.a)


def _same(s):
    return s


def returns_its_argument(w):
    s = Pair(w, 2.0 * w)
    s = _same(s)
    return np.sum(s.a * s.b)


def _shift(s):
    return Pair(s.a + s.b, s.b * 0.5)


def rebuilt_while_another_name_holds_it(w, steps=2):
    s = Pair(w, 2.0 * w)
    prev = s
    for _ in range(steps):  # (a loop of a literal count is written out, and its aliases are exact)
        prev = s
        s = _shift(s)
    return np.sum(s.a ** 2) + np.sum(prev.a ** 3)


def nonlocal_returned_in_an_expression(w):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
        return total

    return 2.0 * add(np.sum(w))


def window_iterated(x):
    window = collections.deque(maxlen=2)
    total = 0.0
    for v in x:
        window.append(v)
        total = total + max(window)
    return total


def columns_of_an_array(W):
    cols = list(zip(*W))
    return sum(c[0] * c[1] for c in cols)


def columns_looped_over(w):
    table = [(w[0], w[1]), (w[2], w[0])]
    total = 0.0
    for col in list(zip(*table)):
        total = total + col[0] * col[1]
    return total


def test_a_helper_returning_a_nested_object_is_that_object():
    """``s = _nested(s)``, ``return Pair(s.a * 2.0, Pair(s.b, s.a))``: the factory's object, a field an object
    (refused before reach15, where objects built in the function became trees a method may update)."""
    x = np.array([0.5, 0.25, -0.4])
    np.testing.assert_allclose(srcdiff.grad(returns_a_nested_object)(x),
                               central_difference(returns_a_nested_object, (x,), 0), rtol=1e-6)


@pytest.mark.parametrize("func, words, where", [
    (columns_of_an_array, "list(zip(*W)) as a value", "cols = list(zip(*W))"),
    (window_iterated, "window.append", "window.append(v)"),
    (two_classes_returned, "returns a tree", "return Pair(s.a, s.b)"),
    (returns_its_argument, "returns a tree", "return s"),
    (nonlocal_returned_in_an_expression, "nonlocal", "nonlocal total"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_spellings_still_refused_name_the_users_line(func, words, where):
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(func)(np.ones((2, 3)) if func is columns_of_an_array else np.array([0.5, 0.25, -0.4]))
    message = str(caught.value)
    assert words in message and where in message and HERE in message, message


def test_columns_of_a_list_of_tuples_looped_over_agree():
    """``for col in list(zip(*table))`` of a list of tuples made in the function: unrolled since wave 33g
    (refused before as a list of lists)."""
    x = np.array([0.5, 0.25, -0.4])
    np.testing.assert_allclose(srcdiff.grad(columns_looped_over)(x),
                               central_difference(columns_looped_over, (x,), 0), rtol=1e-6)
    np.testing.assert_allclose(srcdiff.hessian(columns_looped_over)(x),
                               [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]], atol=1e-12)


def test_rebuilt_while_another_name_holds_it_over_a_count_given_agrees():
    """``for _ in range(steps)`` of an int argument: since wave 33a the count is a constant of the rewrite (each
    count its own gradient), so the loop is written out as one of a literal count, its aliases exact."""
    x = np.array([0.5, 0.25, -0.4])
    for steps in (0, 1, 3):
        f = functools.partial(rebuilt_while_another_name_holds_it, steps=steps)
        np.testing.assert_allclose(srcdiff.grad(rebuilt_while_another_name_holds_it)(x, steps),
                                   central_difference(f, (x,), 0), rtol=1e-6, atol=1e-9)
