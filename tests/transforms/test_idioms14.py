"""Everyday idioms grad refused after the red team's twelfth and thirteenth waves (idioms14_programs.py):
math.dist, np.piecewise of lambdas, zip_longest, starmap, min/max with key=, np.ix_.  Every
transformation, numba included, agrees with central differences (or numba refuses at the user's
line), float32 stays float32; Python's own semantics are kept (NumPy's last condition wins, the
fillvalue pads the shorter sequence, min's first of equal keys); and the spellings srcdiff still does
not cover are refused at their line."""

import itertools
import math
import operator

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .idioms14_programs import PROGRAMS

HERE = __file__.rsplit("/", 1)[-1]


def programs():
    return corpus.from_table(PROGRAMS, "idioms14", "idioms14_programs", 14)


def _name(p):
    return p.name.partition(":")[2]


#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED = {
    "truss_ix": "numba has no fancy write at two broadcast index arrays (K[rows[:, None], cols] += ke)",
    "ix_block_read": "numba has no read at two broadcast index arrays",
    "match_mapping": "numba has no dict of strings and numbers (the default config the function builds)",
}

#: first order, in the default run (value_and_grad and vjp, which share grad's code, in the slow set and
#: test_numba_included); second order and `srcdiff.check` (sympy) in a sampled family
FIRST = ("grad", "jvp", "tree")


#: one program of each class in the default run (the slow set runs every row): the default run stays short
DEFAULT_ROWS = {"circumradius", "piecewise_otherwise", "zip_longest_weights", "starmap_reduce", "min_key_select",
                "sorted_reversed", "truss_ix", "kwargs_forwarding", "vectorize_branchy_2d", "apply_along_columns",
                "getattr_numpy", "match_configs_of_a_helper", "late_and_default_bound", "weights_by_name",
                "unique_group_means"}


def _one_per_class(programs: list) -> list:
    return [p if _name(p) in DEFAULT_ROWS else pytest.param(p, marks=pytest.mark.slow) for p in programs]


@pytest.mark.parametrize("program", _one_per_class(programs()), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, FIRST)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_value_and_grad_and_vjp(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp"))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    matrix.assert_ok(program, ("grad", "hessian", "check"))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_included(program):  # every transformation again, numba too (one in NUMBA_SAMPLE by default)
    matrix.assert_numba_included(program, NUMBA_REFUSED)


def _every_third_in_default_run(programs: list) -> list:
    return [p if i % 3 == 0 else pytest.param(p, marks=pytest.mark.slow) for i, p in enumerate(programs)]


@pytest.mark.parametrize("program", _every_third_in_default_run(matrix.with_array_argument(programs())), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


# ---- Python's semantics are kept -------------------------------------------------------------------


def piecewise_last_condition_wins(x):
    return np.sum(np.piecewise(x, [x > -1.0, x > 0.0], [lambda t: t, lambda t: 5.0 * t]))


def piecewise_reads_the_current_value(x):
    a = 1.0
    y = np.piecewise(x, [x < 0], [lambda t: a * t, lambda t: 2.0 * a * t])
    a = 10.0  # NumPy called the lambdas already: a was 1.0
    return np.sum(y) + a


def sorted_keeps_equal_keys_in_order(x):
    s = sorted([x[0], -x[0], x[1]], key=lambda v: v * v, reverse=True)  # x[0] and -x[0] tie: their order kept
    return s[0] * 3.0 + s[1] * 2.0 + s[2]


def test_sorted_keeps_equal_keys_in_their_order():
    x = np.array([0.4, 0.2])
    value, got = srcdiff.value_and_grad(sorted_keeps_equal_keys_in_order)(x)
    assert value == sorted_keeps_equal_keys_in_order(x)
    np.testing.assert_allclose(got, central_difference(lambda v: v[0] * 3.0 - v[0] * 2.0 + v[1], (x,), 0),
                               rtol=1e-6, atol=1e-9)


def late_binding_sees_the_last_value(x):
    fs = [lambda v: v ** k for k in (1, 2, 3)]  # noqa: B023  every lambda is v ** 3
    return sum(np.sum(f(x)) for f in fs)


def zip_longest_pads_the_shorter(x):
    return sum(a * b for a, b in itertools.zip_longest([1.0, 2.0], x, fillvalue=3.0))


def zip_longest_fill_read_once(x):
    fills = [0.5]
    out = sum(a + b for a, b in itertools.zip_longest(x, [1.0], fillvalue=fills[0] * x[0]))
    return out


def min_first_of_equal_keys(x):
    best = min(range(len(x)), key=lambda i: abs(x[i]))  # two keys equal: Python's first
    return x[best] * 3.0 + x[0]


def max_first_of_equal_keys(x):
    return max([x[0], -x[0], x[1]], key=lambda v: v * v) * 2.0


def dist_of_equal_points_elsewhere(p):
    return math.dist((p[0], p[1]), (p[2], p[2])) + math.dist((p[0],), (2.0,))


def starmap_is_lazy(x):
    terms = itertools.starmap(operator.mul, zip(x, x[1:]))
    return sum(terms) + sum(terms)  # Python's second sum is 0: the iterator is spent


@pytest.mark.parametrize("f, args", [
    (piecewise_last_condition_wins, (np.array([-0.5, 0.4, 1.2, -2.0]),)),
    (piecewise_reads_the_current_value, (np.array([-0.5, 0.4]),)),
    (zip_longest_pads_the_shorter, (np.array([0.3, -0.4, 0.9, 1.1]),)),
    (late_binding_sees_the_last_value, (np.array([0.3, -0.4, 0.9]),)),
    (zip_longest_fill_read_once, (np.array([0.3, -0.4, 0.9]),)),
    (dist_of_equal_points_elsewhere, (np.array([0.4, 0.2, 1.5]),)),
    (starmap_is_lazy, (np.array([0.4, 0.2, 1.5]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_python_semantics_or_a_refusal_at_the_line(f, args):
    """Either the gradient of what Python computes, or a refusal naming this file: never the
    gradient of a rewrite that changed the value."""
    want = central_difference(f, args, 0)
    try:
        value, got = srcdiff.value_and_grad(f)(*args)
    except srcdiff.SrcDiffError as exc:
        assert HERE in str(exc).splitlines()[0], str(exc)
        return
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("f, x, chosen", [
    (min_first_of_equal_keys, np.array([0.4, -0.4, 0.7]), lambda x: x[0] * 3.0 + x[0]),
    (max_first_of_equal_keys, np.array([0.4, 0.2]), lambda x: x[0] * 2.0),
], ids=lambda v: getattr(v, "__name__", ""))
def test_equal_keys_choose_the_first_as_python_does(f, x, chosen):
    """At a tie the function jumps, so no difference quotient of `f` applies: the value is Python's,
    and the gradient that of the branch Python chose (the first of the equal keys)."""
    value, got = srcdiff.value_and_grad(f)(x)
    assert value == f(x)
    np.testing.assert_allclose(got, central_difference(chosen, (x,), 0), rtol=1e-6, atol=1e-9)


def along_the_last_axis_of_3d(x):
    return np.sum(np.apply_along_axis(lambda r: r[0] * r[1], -1, x.reshape(1, 2, 2)))


def test_apply_along_axis_of_another_number_of_axes_raises_rather_than_map_rows():
    with pytest.raises((ValueError, srcdiff.SrcDiffError)):
        srcdiff.grad(along_the_last_axis_of_3d)(np.array([0.4, 0.2, 1.5, -0.3]))


def _activation(x, name="tanh"):
    act = getattr(np, name)
    return np.sum(act(x) * x)


def each_name_its_own_function(x):
    return _activation(x) + _activation(x, "sin") + _activation(x, name="arctan")


def test_getattr_by_name_is_the_function_of_each_call():
    x = np.array([0.4, -0.3, 1.1])
    np.testing.assert_allclose(srcdiff.grad(each_name_its_own_function)(x),
                               central_difference(each_name_its_own_function, (x,), 0), rtol=1e-6)
    for name in ("cos", "exp"):
        np.testing.assert_allclose(srcdiff.grad(_activation)(x, name), central_difference(_activation, (x, name), 0),
                                   rtol=1e-6)


def _loss_of(r, cfg):
    match cfg:
        case {"kind": "huber", "delta": d} if d > 0.2:
            return np.sum(d * np.abs(r))
        case {"kind": "huber"}:  # a delta of 0.2 or less falls through the guard to here
            return np.sum(r ** 2)
        case {"scale": s}:  # no "kind": the key decides, not the order of the dict
            return s * np.sum(r)
        case _:
            return np.sum(np.sin(r))


def match_falls_through(r):
    return (_loss_of(r, {"kind": "huber", "delta": 0.5}) + _loss_of(r, {"kind": "huber", "delta": 0.1})
            + _loss_of(r, {"scale": 3.0, "other": 1.0}) + _loss_of(r, {"kind": "l1"}))


def test_match_takes_the_case_python_takes():
    r = np.array([0.4, -0.3, 1.1])
    np.testing.assert_allclose(srcdiff.grad(match_falls_through)(r), central_difference(match_falls_through, (r,), 0),
                               rtol=1e-6)


def min_of_a_nan_key(x):
    return x[min(range(len(x)), key=lambda i: x[i] / x[i])]  # 0/0 is NaN: Python keeps comparing with `<`


def test_a_nan_key_raises_rather_than_choose_differently():
    x = np.array([0.4, 0.0, 0.7])
    with np.errstate(all="ignore"), pytest.raises((ValueError, srcdiff.SrcDiffError)):
        srcdiff.grad(min_of_a_nan_key)(x)


# ---- still refused at the line ---------------------------------------------------------------------


def piecewise_not_elementwise(x):
    return np.sum(np.piecewise(x, [x < 0], [lambda t: t - t.mean(), 1.0]))  # NumPy's t is x[x < 0]


def min_of_a_tuple_key(x):
    def key(i):
        return x[i], -x[i + 1]
    return x[min(range(2), key=key)] ** 2


def zip_longest_of_none(x):
    return sum(a * (b or 1.0) for a, b in itertools.zip_longest(x, [2.0]))


def _scaled_sum(w, scale=1.0):
    return scale * np.sum(w ** 2)


def _default_in_a_branch(w, **opts):
    if w.size > 2:
        opts.setdefault("scale", 2.0)  # on one path only: opts is then not the same dict after the if
    return _scaled_sum(w, **opts)


def setdefault_in_a_branch(w):
    return _default_in_a_branch(w)


def _relu_int(v):
    return max(0, v)  # an int 0 first: NumPy's vectorize then makes an int array


def vectorize_may_return_an_int(x):
    return np.sum(np.vectorize(_relu_int)(x))


def lambdas_made_lazily(x):
    fs = (lambda v: v * k for k in range(1, 4))  # noqa: B023  a generator: each lambda called before the next k
    return sum(np.sum(f(x)) for f in fs)


@pytest.mark.parametrize("f, args", [
    (lambdas_made_lazily, (np.array([0.4, 0.2]),)),
    (vectorize_may_return_an_int, (np.array([-0.4, 0.2, 1.5]),)),
    (setdefault_in_a_branch, (np.array([0.4, 0.2, 1.5]),)),
    (piecewise_not_elementwise, (np.array([-0.5, 0.4, -1.2]),)),
    (min_of_a_tuple_key, (np.array([0.4, 0.2, 1.5]),)),
    (zip_longest_of_none, (np.array([0.4, 0.2]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_still_refused_at_the_line(f, args):
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(f)(*args)
    assert HERE in str(caught.value).splitlines()[0]
