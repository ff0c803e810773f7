"""Globals, closure variables and decorators: what a gradient depends on besides its source.

A name lowering reads statically (a callee, ``axis=AXIS``) is re-checked on every call, so
rebinding it re-transforms; a name read as a value at run time (data) is not.  A decorator is
looked through only when it provably passes the call through unchanged.
"""

import functools
import sys

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

THIS = sys.modules[__name__]
X = np.arange(9.0).reshape(3, 3) * 0.1
W = np.array([1.0, 2.0, 3.0])

HELPER_AXIS = 0
SCALE = 2.0
POWER = 2


def sums_over_helper_axis(X):
    return np.sum(X, axis=HELPER_AXIS)


def calls_helper_with_global_axis(X):
    return np.sum(sums_over_helper_axis(X) * W)


def scaled_by_data_global(x):
    return np.sum(x * SCALE)


def power_of_global(x):
    return x ** POWER


def _check(f, args):
    assert_close(srcdiff.grad(f)(*args), central_difference(f, args, 0))


def test_helper_static_argument_rebound_between_calls(monkeypatch):
    monkeypatch.setattr(THIS, "HELPER_AXIS", 0)
    gradient = srcdiff.grad(calls_helper_with_global_axis)
    for axis in (0, 1, 0):
        monkeypatch.setattr(THIS, "HELPER_AXIS", axis)
        for _ in range(2):  # the second call takes the fast path
            assert_close(gradient(X), central_difference(calls_helper_with_global_axis, (X,), 0))


def test_data_global_rebound_is_read_at_run_time_without_a_new_transform(monkeypatch):
    gradient = srcdiff.grad(scaled_by_data_global)
    x = np.array([0.5, -1.0])
    assert_close(gradient(x), np.full(2, SCALE))
    before = srcdiff.cache_info().transforms
    for scale in (3.0, -1.5, 4.0):
        monkeypatch.setattr(THIS, "SCALE", scale)
        assert_close(gradient(x), np.full(2, scale))
    assert srcdiff.cache_info().transforms == before


def test_number_read_as_a_value_follows_its_rebinding(monkeypatch):
    gradient = srcdiff.grad(power_of_global)
    for power in (2, 3, 2):
        monkeypatch.setattr(THIS, "POWER", power)
        assert_close(gradient(1.5), power * 1.5 ** (power - 1))


def _closure_calling(helper):
    def f(x):
        return np.sum(helper(x))

    def rebind(new):
        nonlocal helper
        helper = new
    return f, rebind


def test_closure_function_alias_rebound_between_calls():
    f, rebind = _closure_calling(np.sin)
    gradient = srcdiff.grad(f)
    x = np.array([0.3, 1.2])
    assert_close(gradient(x), np.cos(x))
    assert_close(gradient(x), np.cos(x))
    rebind(np.exp)
    assert_close(gradient(x), np.exp(x))
    assert_close(gradient(x), np.exp(x))


# ---- decorators ----

def passes_through(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        """Counts calls."""
        global CALLS
        CALLS = CALLS + 1
        print("calling", fn.__name__)
        return fn(*args, **kwargs)
    return wrapper


CALLS = 0


def scales_result(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return 3.0 * fn(*args, **kwargs)
    return wrapper


def changes_arguments(fn):
    @functools.wraps(fn)
    def wrapper(x, y):
        return fn(y, x)
    return wrapper


def logs_arguments(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        args[0].fill(0.0)
        return fn(*args, **kwargs)
    return wrapper


@passes_through
def logged_cube(x):
    return x ** 3


@functools.lru_cache(maxsize=None)
def cached_cube(x):
    return x ** 3


@scales_result
def scaled_cube(x):
    return x ** 3


@changes_arguments
def swapped(x, y):
    return x * y * y


@logs_arguments
def zeroed(x):
    return np.sum(x ** 3)


@pytest.mark.parametrize("f, expected", [(logged_cube, 3 * 1.5 ** 2), (cached_cube, 3 * 1.5 ** 2)],
                         ids=["logging-wrapper", "lru_cache"])
def test_transparent_wrapper_is_looked_through(f, expected):
    assert_close(srcdiff.grad(f)(1.5), expected)


def test_wrapper_with_the_same_parameters_is_differentiated_itself():
    # wrapper(x, y) calls swapped(y, x): the gradient wrt x is d/dx (y * x * x) = 2xy
    assert_close(srcdiff.grad(swapped)(1.5, 2.0), 2 * 1.5 * 2.0)


def test_wrapper_passing_star_args_on_whole_is_differentiated_itself():
    # wrapper(*args, **kwargs) returns 3 * fn(*args, **kwargs): read as wrapper(x) = 3 * fn(x)
    assert_close(srcdiff.grad(scaled_cube)(1.5), 3.0 * 3 * 1.5 ** 2)


def test_wrapper_that_may_change_the_result_is_refused():
    with pytest.raises(srcdiff.SrcDiffError, match=r"is wrapped by .*wrapper which may change its "
                       r"result(.|\n)*__wrapped__"):
        srcdiff.grad(zeroed)(np.array([1.5]))


def test_undecorated_function_of_a_refused_wrapper_works():
    assert_close(srcdiff.grad(scaled_cube.__wrapped__)(1.5), 3 * 1.5 ** 2)
