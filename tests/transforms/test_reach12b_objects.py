"""Objects and calls grad refused after the red team's eleventh wave (reach12b_programs.py): every
transformation, numba included, agrees with central differences (or numba refuses at the user's
line), float32 stays float32; and what srcdiff still does not cover is refused at the user's line:
an operator method that may return NotImplemented, a memo whose values depend on more than the key,
a helper's in-place update of an array its caller reads again."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .reach12b_programs import PROGRAMS, Dual, _centre_

HERE = __file__.rsplit("/", 1)[-1]


def programs():
    return corpus.from_table(PROGRAMS, "reach12b", "reach12b_programs", 12)


def _name(p):
    return p.name.partition(":")[2]


#: what jit="numba" refuses at the user's line, and why
_CALLED = "a helper that stays a call (recursive, or a method holding cells): numba compiles only generated code"
NUMBA_REFUSED: dict = {
    "vector_accumulated": _CALLED,
    "vector_accumulated_s": _CALLED,
    "vector_plus_number": _CALLED,
    "memo_catalan": _CALLED,
    "memo_pascal": _CALLED,
    "lru_fibonacci_weights": _CALLED,
    "partial_inside_a_method": "a bound partial's call numba cannot bind",
    "frozen_beta": "scipy.stats.beta's methods inside numba",
    "frozen_before_rebinding": "scipy.stats.gamma's methods inside numba",
}

@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)  # second order and check: a sampled family, below


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    matrix.assert_ok(program, ("grad", "hessian", "check"))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_included(program):  # every transformation again, numba too (one in NUMBA_SAMPLE by default)
    matrix.assert_numba_included(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


# ---- what is still refused, at the user's line -------------------------------------------------------


class Lazy:
    def __init__(self, v):
        self.v = v

    def __mul__(self, other):
        if not isinstance(other, Lazy):
            return NotImplemented  # Python then tries other.__rmul__, which srcdiff does not follow
        return Lazy(self.v * other.v)


def not_implemented_operator(x):
    return np.sum((Lazy(x) * Lazy(x)).v)


def _weighted(n, x, memo):
    if n in memo:
        return memo[n]  # the value depends on x too: a memo shared across x would be stale in Python
    memo[n] = x if n == 0 else x * _weighted(n - 1, x, memo)
    return memo[n]


def memo_depending_on_more_than_its_key(x):
    return _weighted(3, x, {})


def _get(n, memo):
    if n in memo:
        return memo[n]
    v = n * 2.0
    memo[n] = v
    return v


def memo_given_filled(x):
    memo = {1: 99.0}  # Python answers 99.0 from it
    return _get(1, memo) * x


def memo_read_by_the_caller(x):
    memo = {}
    return _get(1, memo) * x + len(memo)  # Python's memo holds one value by then


def caller_reads_after_the_update(x):
    v = _centre_(x)
    return v + np.sum(x)  # NumPy's _centre_ changed x: the sum is of the centred array


def tree_read_after_the_update(params):
    v = _centre_(params["w"])
    return v * np.sum(params["w"] ** 2)


REFUSED = [
    (not_implemented_operator, (np.array([0.3, 0.5]),), "NotImplemented"),
    (memo_depending_on_more_than_its_key, (0.7,), "memo"),
    (memo_given_filled, (0.7,), "empty dict"),
    (memo_read_by_the_caller, (0.7,), "memo"),
    (caller_reads_after_the_update, (np.array([0.3, 0.5, -0.1]),), "in-place"),
    (tree_read_after_the_update, ({"w": np.array([0.3, 0.5, -0.1])},), "in-place"),
]


@pytest.mark.parametrize("f, args, what", REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_refused_at_the_users_line(f, args, what):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(*args)
    assert HERE in str(info.value) or "reach12b_programs.py" in str(info.value), str(info.value)
    assert what in str(info.value), str(info.value)


def dual_square(x):
    d = Dual(x, 1.0)
    e = d * d
    return e.a + e.b


def test_an_operator_of_objects_is_its_method_written_into_the_line():
    gradient = srcdiff.grad(dual_square)
    np.testing.assert_allclose(gradient(0.7), central_difference(dual_square, (0.7,), 0))
    source = gradient.source_for(0.7)  # Dual.__mul__ copied into the line and simplified: plain arithmetic
    assert "adjoint of test_reach12b_objects.py" in source and "e = d * d" in source and "Dual" not in source


def test_the_callers_array_is_left_as_it_was():
    w = np.array([0.3, 0.5, -0.1])
    before = w.copy()
    srcdiff.grad(lambda_free_wrapped)({"w": w}, 1.5)
    np.testing.assert_array_equal(w, before)  # as for the function's own parameter, the gradient writes nothing


def lambda_free_wrapped(params, y):
    return _centre_(params["w"]) * y
