"""Lists and iteration grad refused after the red team's eleventh wave (reach12a_programs.py): every
transformation, numba included, agrees with central differences (or numba refuses at the user's
line), float32 stays float32; Python's own semantics are kept (a list another name holds, an
iterator read twice, an array where a list was expected); and the spellings srcdiff still does not
cover are refused at their line."""

import itertools

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .reach12a_programs import PROGRAMS

HERE = __file__.rsplit("/", 1)[-1]


def programs():
    return corpus.from_table(PROGRAMS, "reach12a", "reach12a_programs", 12)


def _name(p):
    return p.name.partition(":")[2]


#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED = {  # (the lists that start empty compile since wave 30: backend/numba/empty_lists.py)
    "float32_history": "numba's compiled gradient of float32 items disagrees with its own dtype check",
}

#: first order, in the default run (value_and_grad and vjp, which share grad's code, in the slow set and
#: test_numba_included); second order and `srcdiff.check` (sympy) in a sampled family
FIRST = ("grad", "jvp", "tree")

#: second order refused at the user's line (running_sum_of_list was, its list rebuilt inside a branch
#: of the loop; its Hessian agrees with central differences since wave 32)
SECOND_REFUSED: set = set()


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, FIRST)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_value_and_grad_and_vjp(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp"))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    if _name(program) in SECOND_REFUSED:
        row = matrix.run(program, ("grad", "hessian"))
        assert row.cells["grad"].outcome == matrix.OK
        assert row.cells["hessian"].outcome == matrix.REFUSED and row.cells["hessian"].located
        return
    matrix.assert_ok(program, ("grad", "hessian", "check"))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_included(program):  # every transformation again, numba too (one in NUMBA_SAMPLE by default)
    if _name(program) in SECOND_REFUSED:
        matrix.assert_numba_agrees_or_refuses(program)
        return
    matrix.assert_numba_included(program, NUMBA_REFUSED)


def _every_third_in_default_run(programs: list) -> list:
    return [p if i % 3 == 0 else pytest.param(p, marks=pytest.mark.slow) for i, p in enumerate(programs)]


@pytest.mark.parametrize("program", _every_third_in_default_run(matrix.with_array_argument(programs())), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


# ---- Python's semantics are kept -------------------------------------------------------------------


def grown_with_a_second_name(x):
    xs = [x]
    alias = xs
    for _ in range(3):
        xs.append(np.sin(xs[-1]))
    return np.sum(alias[-1])


def reversed_with_a_second_name(x):
    out = []
    for v in x:
        out.append(v * v)
    kept = out
    out.reverse()
    return kept[0] * 2.0 + out[0]


def chain_read_twice(a, b):
    it = itertools.chain(a, b)
    first = sum(v * v for v in it)
    return first + sum(v for v in it)  # Python's iterator is spent: this sum is 0


def _sums_twice(it):
    return sum(v for v in it) + sum(v * v for v in it)  # Python's second sum is 0 for an iterator


def chain_given_to_a_helper(a, b):
    return _sums_twice(itertools.chain(a, b))


def chain_held_by_two_names(a, b):
    p = q = itertools.chain(a, b)
    return sum(p) + sum(v * v for v in q)


def list_plus_array_argument(x, arr):
    return np.sum([x[0]] + arr)  # NumPy's sum of an array, not a list joined


@pytest.mark.parametrize("f, args", [
    (grown_with_a_second_name, (np.array([0.4, -0.3]),)),
    (reversed_with_a_second_name, (np.array([0.4, -0.3, 0.8]),)),
    (chain_read_twice, (np.array([0.4, -0.3]), np.array([0.7]))),
    (chain_given_to_a_helper, (np.array([0.4, -0.3]), np.array([0.7]))),
    (chain_held_by_two_names, (np.array([0.4, -0.3]), np.array([0.7]))),
    (list_plus_array_argument, (np.array([0.4, -0.3]), np.array([0.7, 0.1]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_python_semantics_or_a_refusal_at_the_line(f, args):
    """Either the gradient of what Python computes, or a refusal naming this file: never the
    gradient of a rewrite that changed the value."""
    want = central_difference(f, args, 0)
    try:
        got = srcdiff.grad(f)(*args)
    except srcdiff.SrcDiffError as exc:
        assert HERE in str(exc).splitlines()[0], str(exc)
        return
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


def empty_repeat(x, n=0):
    xs = [x[0], x[1]] * n
    return sum(xs) + x[0] * 2.0


def test_a_list_repeated_zero_times_is_empty():
    x = np.array([0.3, 0.9])
    np.testing.assert_allclose(srcdiff.grad(empty_repeat)(x), [2.0, 0.0])
    np.testing.assert_allclose(srcdiff.grad(empty_repeat)(x, 2), [4.0, 2.0])


def islice_past_the_end(x):
    ys = [v * v for v in x]
    return sum(itertools.islice(ys, 1, 10))


def test_islice_stops_at_the_end_of_the_list():
    x = np.array([0.3, 0.9, -0.4])
    np.testing.assert_allclose(srcdiff.grad(islice_past_the_end)(x), [0.0, 1.8, -0.8])


def maximum_at_untouched(x, idx):
    best = np.zeros(3)
    np.maximum.at(best, idx, x)
    return np.sum(best * np.array([1.0, 2.0, 3.0]))


def test_maximum_at_gives_the_winners_and_leaves_untouched_slots_alone():
    x, idx = np.array([0.5, -0.2, 0.9, 0.1]), np.array([0, 0, 2, 2])
    np.testing.assert_allclose(srcdiff.grad(maximum_at_untouched)(x, idx), [1.0, 0.0, 3.0, 0.0])


# ---- still refused at the line ---------------------------------------------------------------------


def grown_in_a_while(a):
    ys = [1.0]
    while len(ys) < 5:
        ys.append(ys[-1] * a + np.sin(sum(ys)))
    return ys[-1]


def maximum_at_of_a_tuple_index(x, rows, cols):
    M = np.zeros((2, 2))
    np.maximum.at(M, (rows, cols), x)
    return np.sum(M)


@pytest.mark.parametrize("f, args", [
    (grown_in_a_while, (0.7,)),
    (maximum_at_of_a_tuple_index, (np.array([0.5, 0.2]), np.array([0, 1]), np.array([1, 1]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_still_refused_at_the_line(f, args):
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(f)(*args)
    assert HERE in str(caught.value).splitlines()[0]
