"""Everyday Python grad refused after the red team's thirteenth wave (reach15_programs.py): every
transformation agrees with central differences (numba too, or it refuses at the user's line), float32
stays float32; one row of each class runs by default, the others in the slow set.  Then what is
still refused, each at the user's line, and the behaviours the new spellings rest on: a factory
redefined builds the gradient again, a second name of an array updated in place is refused (it was
silently left unchanged), a cached property is computed once."""

import importlib
import itertools
import sys
import textwrap

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .reach15_chosen import Circle, Square
from .reach15_factory_module import make_untranslatable
from .reach15_objects import Quadratic
from .reach15_programs import CLASSES, PROGRAMS
from .redteam_wave12_idioms import groupby_static

HERE = __file__.rsplit("/", 1)[-1]
DEFAULT = {rows[0][0] for rows in CLASSES.values()}


def programs():
    return corpus.from_table(PROGRAMS, "reach15", "reach15_programs", 15)


def _name(p):
    return p.name.partition(":")[2]


def _rows(programs_):
    """One row of each class in the default run, the others slow."""
    return [p if _name(p) in DEFAULT else pytest.param(p, marks=pytest.mark.slow) for p in programs_]


#: what jit="numba" refuses at the user's line, and why
#: (a cached helper whose value is an array compiles since wave 32d: numba/cached_calls.py reads it on every call)
NUMBA_REFUSED = {  # (a partial or a tuple of functions passed as an argument, a wrapper's *args bound to a
    # keyword, np.zeros_like of a float carried by a loop with floats: compile, found by wave 36e's census)
    "nested_list_walked_recursively": "a helper's isinstance(tree, list) of a number: both branches kept, numba "
                                      "cannot type the list one",
    "smoothed_with_a_depth": "a recursive helper given a list, with a depth argument: a Python call (one flattened "
                             "function a level)",
    "prepended_then_summed": "a list that starts empty, prepended to through insert (the other lists that start "
                             "empty compile since wave 30: test_numba30.py)",
}


#: a partial given as an argument: the tree cell's wrapper passes it on, and the tree's gradient refuses it at
#: the user's line ("no adjoint rule for loss_fn"); every other transformation, numba included, takes it
TREE_REFUSED = {"w15_partial_default_argument", "partial_as_a_default", "partial_of_a_leading_argument"}


@pytest.mark.parametrize("program", _rows(programs()), ids=_name)
def test_every_transformation(program):  # (check and hessian on a sample: matrix.SAMPLE)
    matrix.assert_ok(program, tuple(t for t in matrix.EVERY if t != "tree" or _name(program) not in TREE_REFUSED))


@pytest.mark.parametrize("program", _rows(programs()), ids=_name)
def test_numba_included(program):  # every transformation again, numba too (one in NUMBA_SAMPLE by default)
    if _name(program) in TREE_REFUSED:
        matrix.assert_ok(program, tuple(t for t in matrix.TRANSFORMS if t != "tree"))
        matrix.assert_refused_at_the_line(program, ("tree",))
    else:
        matrix.assert_numba_included(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", _rows(matrix.with_array_argument(programs())), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


# ---- what is still refused, at the user's line -----------------------------------------------------------


def _make_in_a_branch(c):
    if c > 0:
        def f(v):
            return v * c
    else:
        def f(v):
            return -v
    return f


def factory_defining_in_a_branch(x):
    f = _make_in_a_branch(2.0)  # (not a factory srcdiff writes out: which def runs is decided when it runs)
    return np.sum(f(x))


def factory_of_another_module_without_a_rule(x):
    b = make_untranslatable(2.0)
    return np.sum(b(x))


class _Box:
    def __init__(self, v):
        self.v = v

    def grow(self, k):
        self.v = self.v * k


def method_updating_an_argument(box, x):
    box.grow(2.0)  # changes the caller's object
    return np.sum(box.v * x)


class _Scaled:
    def __init__(self, w):
        self._w = w
        self._scale = 1.0

    @property
    def scale(self):
        return self._scale

    @scale.setter
    def scale(self, value):
        self._scale = value * 2.0


def property_setter_of_an_argument(m, x):
    m.scale = np.sum(x)  # Python runs the setter on the caller's object
    return m.scale * np.sum(x)


def dict_item_updated_in_place_with_a_second_name(x):
    d = {"w": np.zeros(3)}
    a = d["w"]
    d["w"] += x  # NumPy changes a too
    return np.sum(a * x)


def object_attribute_updated_in_place_with_a_second_name(x):
    box = _Box(np.zeros(3))
    snapshot = box.v
    box.v += x  # NumPy changes snapshot too
    return np.sum(snapshot * x)


def list_item_updated_in_place(x):
    rows = [x] * 2
    rows[0] += 1.0  # NumPy adds into x, which every item holds
    return np.sum(rows[1])


def list_item_written_with_a_second_name(x):
    xs = [x, 2.0 * x]
    ys = xs
    xs[0] = x ** 2
    return np.sum(ys[0])


def sorted_by_a_tuple_key(x):
    pairs = [(np.sin(v), v) for v in x]
    pairs = sorted(pairs, key=lambda p: (p[1], p[0]))
    return pairs[0][0]


def _make_scaled(k):
    def f(v):
        return k * v
    return f


def factory_rebound_after_a_call_in_a_loop(x):
    g = _make_scaled(0.5)
    total = 0.0
    for c in x:
        total = total + np.sum(g(x) ** 2)  # from the second pass on: the g of the pass before
        g = _make_scaled(c)
    return total


def nested_def_redefined_after_a_call_in_a_loop(x):
    def g(v):
        return 0.5 * v
    total = 0.0
    for c in x:
        total = total + np.sum(g(x) ** 2)  # was silently the first g in every pass
        def g(v):
            return c * v  # noqa: B023  (called in the next pass, with that c)
    return total


def _first_above(f, a, b):
    if f(a) > 0:
        return a  # (a `return` before the last: the helper is not written out)
    return b


def lambda_to_a_helper_returning_early(x):
    return _first_above(lambda v: v - 1.0, x[0], x[1]) * x[2]


def group_read_twice(x, groups=(0, 0, 1)):
    total = 0.0
    for _, members in itertools.groupby(range(3), key=lambda i: groups[i]):
        total = total + len(list(members)) + np.sum(x[list(members)])  # noqa: B031  (Python reads it empty)
    return total


def loop_over_functions_with_a_break(x, fs=(np.sin, np.tanh)):
    total = 0.0
    for f in fs:
        total = total + np.sum(f(x))
        if total > 10.0:
            break
    return total


def _casteljau(pts, t):
    if len(pts) == 1:
        return pts[0]
    return _casteljau([(1 - t) * a + t * b for a, b in zip(pts[:-1], pts[1:])], t)


def rows_of_an_array_to_a_helper(x):
    return np.sum(_casteljau(list(x.reshape(-1, 2)), 0.4) ** 2)  # recursive, and the rows' count the array's shape


def _smooth(pts, n):
    if n == 0:
        return pts
    return _smooth([0.5 * a + 0.5 * b for a, b in zip(pts[:-1], pts[1:])], n - 1)


def list_returned_at_a_depth(x):
    out = _smooth([x[0:2], x[2:4], x[4:6], x[6:8]], 2)  # a list at n == 0, the call's value else
    return np.sum(out[0] * out[1])


def _doubled_first(ps):
    ps[0] = 2.0 * ps[0]  # Python changes the caller's list
    return np.sum(ps[0])


def list_given_to_a_helper_that_writes_it(x):
    ps = [x[:2], x[2:4]]
    return _doubled_first(ps) + np.sum(ps[0])


def _products(x):
    for i in range(len(x) - 1):
        yield x[i] * x[i + 1]


def generator_sorted(x):
    vals = sorted(_products(x))  # (sum, list, max, min and loops read a generator of yours)
    return vals[0] * vals[-1]


def four_objects_chosen_one_after_another(x):
    a = Circle(x[0]) if x[0] > 0 else Square(x[0])
    b = Circle(x[1]) if x[1] > 0 else Square(x[1])
    c = Circle(x[2]) if x[2] > 0 else Square(x[2])
    d = Circle(x[3]) if x[3] > 0 else Square(x[3])  # (16 copies of what follows: past the limit of 8)
    return a.area() + b.area() + c.area() + d.area()


def _add(xs, v):
    xs.append(v)
    return len(xs)


def helper_appending_to_a_list_read_before(x):
    xs = []
    n = _add(xs, x[0] ** 2)
    n = _add(xs, x[1] * x[0])  # (the second call appends after the first read the list's length)
    return np.sum(xs[0] + xs[1]) * n


X3 = np.array([0.3, -0.7, 1.1])
X8 = np.linspace(-0.9, 1.2, 8)
REFUSED = [
    (factory_defining_in_a_branch, (X3,), "cannot tell which function f is"),
    (factory_of_another_module_without_a_rule, (X3,), "no adjoint rule for numpy.i0"),
    (method_updating_an_argument, (_Box(X3.copy()), X3), "changes an argument"),
    (property_setter_of_an_argument, (_Scaled(X3), X3), "changes an argument"),
    (dict_item_updated_in_place_with_a_second_name, (X3,), "a shares its memory"),
    (object_attribute_updated_in_place_with_a_second_name, (X3,), "snapshot shares its memory"),
    (list_item_updated_in_place, (X3,), "writing into rows[0]"),
    (list_item_written_with_a_second_name, (X3,), "writing into xs[0]"),
    (sorted_by_a_tuple_key, (X3,), ""),
    (loop_over_functions_with_a_break, (X3,), "unrolled"),
    (group_read_twice, (X3,), "read other than once whole"),
    (lambda_to_a_helper_returning_early, (X3,), "Lambda"),
    (factory_rebound_after_a_call_in_a_loop, (X3,), "defined in a loop that calls it before"),
    (nested_def_redefined_after_a_call_in_a_loop, (X3,), "defined in a loop that calls it before"),
    (rows_of_an_array_to_a_helper, (X8,), "_casteljau does not take a list"),
    (list_returned_at_a_depth, (X8,), "a list on one side of this branch"),
    (list_given_to_a_helper_that_writes_it, (X8,), "changes an argument"),
    (generator_sorted, (X8,), "makes a generator used here other than by looping over it"),
    (four_objects_chosen_one_after_another, (X8,), "holds a different tree on each side of the `if`"),
]
# (helper_appending_to_a_list_read_before, refused here, differentiates since wave 30: a list's length
# read before an append is the length then, test_reach30.py)


@pytest.mark.parametrize("f, args, words", REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_still_refused_at_the_users_line(f, args, words):
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(f, wrt=len(args) - 1)(*args)
    first = str(caught.value).splitlines()[0]
    assert caught.value.location is not None and HERE in first, first
    assert words in first, first


def test_groupby_of_a_default_tuple_is_static_in_grad_and_refused_by_jvp():
    """The red team's ``groupby(range(len(groups)), key=lambda i: groups[i])`` of a default tuple: computed when
    the gradient is built (``groups`` a static argument) by every transformation but ``jvp``, whose tuple
    arguments are trees of values read when it runs (refused at the line)."""
    row = matrix.run(corpus.Program("reach15:w12_itertools_groupby", groupby_static,
                                    (np.random.default_rng(12).normal(size=6),), 0, "reach15_programs"),
                     ("grad", "value_and_grad", "hessian", "vjp", "tree", "jvp"))
    jvp = row.cells.pop("jvp")
    assert jvp.outcome in (matrix.OK, matrix.REFUSED) and jvp.located, jvp.message
    assert not matrix.not_ok(row), matrix.not_ok(row)


def test_a_cached_property_read_first_in_a_loop_is_refused():
    with pytest.raises(srcdiff.SrcDiffError, match="cached_property read first inside a loop"):
        srcdiff.grad(_cached_property_in_a_loop)(X3)


def _cached_property_in_a_loop(x):
    q = Quadratic(np.outer(x, x), x)
    total = 0.0
    for _ in range(len(x)):  # (a loop srcdiff keeps: its bound is known when the function runs)
        total = total + np.sum(q.sym)
    return total


# ---- what the spellings rest on ----------------------------------------------------------------------------


def test_a_redefined_factory_builds_the_gradient_again(tmp_path, monkeypatch):
    """The factory is read when the gradient is built (its body written out in the caller): rebinding it
    must build the gradient again, as for any callee."""
    (tmp_path / "factory_user.py").write_text(textwrap.dedent("""
        import numpy as np

        def make(k):
            def f(v):
                return k * v ** 2
            return f

        def loss(x):
            g = make(2.0)
            return np.sum(g(x))

        def make_cubed(k):
            def f(v):
                return k * v ** 3
            return f
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("factory_user")
    try:
        gradient = srcdiff.grad(module.loss)
        np.testing.assert_allclose(gradient(X3), 4.0 * X3)
        module.make = module.make_cubed
        np.testing.assert_allclose(gradient(X3), 6.0 * X3 ** 2)
    finally:
        sys.modules.pop("factory_user", None)


def test_a_cached_property_is_computed_once_and_kept():
    np.testing.assert_allclose(srcdiff.grad(_sym_kept)(X3), central_difference(_sym_kept, (X3,), 0), rtol=1e-6)


def _sym_kept(x):
    q = Quadratic(np.outer(x, x), x)
    first = np.sum(q.sym)
    q.A = 2.0 * q.A  # Python keeps the cached sym: the second read is the first value
    return first + np.sum(q.sym ** 2)


def test_a_list_item_write_raises_pythons_index_error():
    def out_of_range(x):
        xs = [x, x]
        xs[2] = x
        return np.sum(xs[0])
    with pytest.raises((IndexError, srcdiff.SrcDiffError)):
        srcdiff.grad(out_of_range)(X3)


def test_np_roll_by_a_loop_index_keeps_its_literal_shift_readable():
    source = srcdiff.grad(_rolled_twice).source_for(X3)
    assert "np.roll(" in source and "-2" in source, source


def _rolled_twice(x):
    return np.sum(np.roll(x, 2) * x)
