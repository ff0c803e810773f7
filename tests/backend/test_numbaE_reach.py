"""jit="numba" on programs it refused before, by class, each against float64 central
differences (or a second-order difference for Hessians), never against srcdiff itself:

- a helper (a closure, so not copied into its caller) or a copied helper with a branch
  returning a tuple of a float and an array: its adjoint is a tuple of two kinds
  (backend/numba/tuple_parts.py), through grad, jvp, vjp, jacobian and hessian;
- a dict read at constant keys from a closure or a global, and an object's attributes
  (backend/numba/scope_reads.py): read on every call, rebound or changed in place;
- an empty list argument (numba cannot type an empty Python list);
- float32 matrices meeting float64 values in the adjoints of cholesky and solve, and the
  Cholesky factor's tangent (cholesky_more.py);
- the kink and tie helpers a Hessian runs (``np.abs``, ``np.maximum``, ``np.clip``, norms:
  kink_helpers.py).

The first case of each class runs by default; the others are marked slow (numba compiles
for seconds each): ``pytest -m slow tests/backend/test_numbaE_reach.py`` runs them.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

pytest.importorskip("numba")

slow = pytest.mark.slow


# ---- tuples of a float and an array ------------------------------------------------------


def _tuple_programs(scale):
    def helper(x, w):
        s = np.sum(np.sin(x * w)) * scale
        return s, x * s

    def both_parts(x, w):
        a, b = helper(x, w)
        return a + np.sum(b ** 2)

    def float_part_only(x, w):
        a, b = helper(x, w)
        return a * 3.0

    def helper_twice(x, w):
        r = helper(x, w)
        c, d = helper(r[1], w)
        return c + np.sum(d)

    return both_parts, float_part_only, helper_twice


BOTH_PARTS, FLOAT_PART_ONLY, HELPER_TWICE = _tuple_programs(0.7)


def branch_helper(x):
    if np.sum(x) > 100:
        return 0.0, x
    return np.sum(x ** 2), 2.0 * x


def branch_tuple(x, w):
    a, b = branch_helper(x * w)
    return a + np.sum(b * w)


def looped_helper(x, w):
    s = 0.0
    for _ in range(3):
        s = s + np.sum(np.sin(x * w)) * 0.1
    return s, x * s


def tuple_indexed(x, w):
    r = looped_helper(x, w)
    return r[0] + np.sum(r[1] ** 2)


def tuple_in_loop(x, w):
    s = 0.0
    for _ in range(3):
        a, b = looped_helper(x + s, w)
        s = s + a
        x = b
    return s + np.sum(x)


TUPLES = [BOTH_PARTS, pytest.param(FLOAT_PART_ONLY, marks=slow), pytest.param(HELPER_TWICE, marks=slow),
          pytest.param(branch_tuple, marks=slow), pytest.param(tuple_indexed, marks=slow),
          pytest.param(tuple_in_loop, marks=slow)]


def _xw():
    rng = np.random.default_rng(3)
    return rng.normal(size=4), rng.normal(size=4)


@pytest.mark.parametrize("f", TUPLES)
@pytest.mark.parametrize("wrt", [0, 1])
def test_tuple_of_two_kinds_grad(f, wrt):
    x, w = _xw()
    got = srcdiff.grad(f, wrt=wrt, jit="numba")(x, w)
    np.testing.assert_allclose(got, central_difference(f, [x, w], wrt), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [pytest.param(BOTH_PARTS, marks=slow), pytest.param(HELPER_TWICE, marks=slow)])
def test_tuple_of_two_kinds_other_transformations(f):
    x, w = _xw()
    v = np.linspace(0.3, -0.7, 4)
    ref = central_difference(f, [x, w], 0)
    _, tangent = srcdiff.jvp(f, (x, w), (v, np.zeros(4)), jit="numba")
    np.testing.assert_allclose(tangent, ref @ v, rtol=1e-6, atol=1e-7)
    _, pullback = srcdiff.vjp(f, x, w, jit="numba")
    back = pullback(1.5)
    np.testing.assert_allclose(back[0] if isinstance(back, tuple) else back, 1.5 * ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(srcdiff.jacobian(f, jit="numba")(x, w), ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(srcdiff.hessian(f, jit="numba")(x, w), hessian_difference(f, [x, w]),
                               rtol=1e-4, atol=1e-5)


# ---- dicts and objects read from the function's scope ------------------------------------

CONFIG = {"scale": 1.5, "shift": np.array([0.1, -0.2, 0.3, 0.0]), "rate": 0.25}


class Settings:
    def __init__(self):
        self.rate = 0.75
        self.bias = np.array([1.0, 2.0, 0.5, -1.0])


SETTINGS = Settings()


def config_helper(x):
    return CONFIG["scale"] * np.sum(np.sin(x + CONFIG["shift"])) + CONFIG["rate"] * np.sum(x ** 2)


def global_dict_in_helper(x):
    return config_helper(x) ** 2


def global_dict_in_main(x):
    return np.sum(CONFIG["shift"] * x ** 2) * CONFIG["scale"]


def settings_helper(x):
    return SETTINGS.rate * np.sum((x - SETTINGS.bias) ** 2)


def global_object(x):
    return settings_helper(x) + settings_helper(2.0 * x)


def _closures():
    state = {"rate": 0.3, "scale": 2.0, "w": np.array([1.0, -1.0, 0.5, 2.0])}

    def helper(x):
        total = 0.0
        for _ in range(3):
            total = total + state["scale"] * np.sum(state["w"] * x) ** 2 * state["rate"]
        return total

    def closure_dict(x):
        return helper(x) + np.sum(x) * state["scale"]

    def dict_by_variable_key(x):
        s = 0.0
        for k in ("scale", "w"):
            s = s + np.sum(state[k] * x)
        return s

    return state, closure_dict, dict_by_variable_key


def test_closure_over_a_dict_rebound_and_changed_in_place():
    state, closure_dict, _ = _closures()
    x = np.array([0.3, -0.5, 0.8, 0.1])
    df = srcdiff.grad(closure_dict, jit="numba")
    np.testing.assert_allclose(df(x), central_difference(closure_dict, [x], 0), rtol=1e-6, atol=1e-7)
    state["scale"], state["rate"] = -0.5, 1.25
    state["w"] = np.array([2.0, 0.0, 1.0, 1.0])
    np.testing.assert_allclose(df(x), central_difference(closure_dict, [x], 0), rtol=1e-6, atol=1e-7)
    state["w"][0] = 7.0
    np.testing.assert_allclose(df(x), central_difference(closure_dict, [x], 0), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [pytest.param(global_dict_in_helper, marks=slow),
                               pytest.param(global_dict_in_main, marks=slow), pytest.param(global_object, marks=slow)])
def test_globals_read_through_keys_and_attributes(f):
    x = np.array([0.3, -0.5, 0.8, 0.1])
    df = srcdiff.grad(f, jit="numba")
    np.testing.assert_allclose(df(x), central_difference(f, [x], 0), rtol=1e-6, atol=1e-7)
    saved = dict(CONFIG), dict(vars(SETTINGS))
    try:
        CONFIG["rate"], CONFIG["shift"] = 2.0, np.ones(4)
        SETTINGS.rate, SETTINGS.bias = 3.0, np.zeros(4)
        np.testing.assert_allclose(df(x), central_difference(f, [x], 0), rtol=1e-6, atol=1e-7)
    finally:
        CONFIG.update(saved[0])
        vars(SETTINGS).update(saved[1])


@slow
def test_dict_read_by_a_variable_key_is_refused_at_its_line():
    _, _, f = _closures()
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f, jit="numba")(np.ones(4))
    assert "test_numbaE_reach.py" in str(info.value) and "state[k]" in str(info.value)


# ---- empty list arguments ---------------------------------------------------------------


def scaled_by_items(x, extra):
    s = np.sum(x ** 2)
    for e in extra:
        s = s + e * np.sum(x)
    return s


def counted_items(x, extra):
    s = np.sum(np.sin(x))
    for e in extra:
        s = s + np.sum(e * x)
    return s + len(extra)


def first_item_if_any(x, extra):
    total = np.sum(x)
    if len(extra) > 0:
        total = total * extra[0]
    return total


def list_first(extra, x):
    return scaled_by_items(x, extra)


def layers(x, weights, biases):
    h = x
    for W, b in zip(weights, biases):
        h = np.tanh(W @ h + b)
    return np.sum(h ** 2)


@pytest.mark.parametrize("f, make, wrt", [
    (scaled_by_items, lambda x: (x, []), 0),
    pytest.param(counted_items, lambda x: (x, []), 0, marks=slow),
    pytest.param(first_item_if_any, lambda x: (x, []), 0, marks=slow),
    pytest.param(list_first, lambda x: ([], x), 1, marks=slow),
    pytest.param(scaled_by_items, lambda x: (x, [1.5, -2.0]), 0, marks=slow),
])
def test_empty_list_argument(f, make, wrt):
    args = make(np.array([0.3, -0.5, 0.8, 0.1]))
    got = srcdiff.grad(f, wrt=wrt, jit="numba")(*args)
    np.testing.assert_allclose(got, central_difference(f, list(args), wrt), rtol=1e-6, atol=1e-7)


@slow
def test_empty_lists_read_as_arrays_are_refused_at_the_line():
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(layers, jit="numba")(np.ones(3), [], [])
    assert "test_numbaE_reach.py" in str(info.value) and "W @ h + b" in str(info.value)


# ---- float32 meeting float64 in linear algebra ---------------------------------------------


def cholesky_float64_eye(a):
    L = np.linalg.cholesky(a @ a.T + np.eye(a.shape[0]))
    return np.sum(np.log(np.diag(L)))


def cholesky_float32_eye(a):
    A = a @ a.T + np.eye(a.shape[0], dtype=np.float32)
    L = np.linalg.cholesky(A)
    return np.sum(np.log(np.diag(L))) + np.float32(0.5) * np.sum(a ** 2)


def solve_mixed(a, b):
    A = a @ a.T + 2.0 * np.eye(a.shape[0])
    return np.sum(np.linalg.solve(A, b) ** 2)


def cholesky_then_solve(a):
    L = np.linalg.cholesky(a @ a.T + np.eye(a.shape[0], dtype=np.float32))
    y = np.linalg.solve(L, np.ones(a.shape[0]))
    return np.sum(y ** 2)


def _matrix():
    return np.random.default_rng(1).normal(size=(3, 3))


@pytest.mark.parametrize("f", [cholesky_float32_eye, pytest.param(cholesky_float64_eye, marks=slow),
                               pytest.param(cholesky_then_solve, marks=slow)])
def test_float32_cholesky(f):
    a = _matrix()
    got = srcdiff.grad(f, jit="numba")(a.astype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, central_difference(f, [a], 0), rtol=2e-3, atol=2e-3)


@slow
def test_float32_solve_with_float64_matrix():
    a, b = _matrix(), np.array([0.5, -1.0, 2.0])
    got = srcdiff.grad(solve_mixed, jit="numba")(a.astype(np.float32), b.astype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, central_difference(solve_mixed, [a, b], 0), rtol=2e-3, atol=2e-3)


@slow
def test_cholesky_tangent_and_hessian():
    a = _matrix()
    v = np.linspace(-1.0, 1.0, 9).reshape(3, 3)
    _, tangent = srcdiff.jvp(cholesky_float64_eye, (a,), (v,), jit="numba")
    np.testing.assert_allclose(tangent, np.sum(central_difference(cholesky_float64_eye, [a], 0) * v),
                               rtol=1e-6, atol=1e-7)
    H = srcdiff.hessian(cholesky_float64_eye, jit="numba")(a)
    np.testing.assert_allclose(H, hessian_difference(cholesky_float64_eye, [a]), rtol=1e-4, atol=1e-5)


# ---- kinks and ties in second order -------------------------------------------------------


def abs_log(x):
    return np.sum(np.log(np.abs(x) + 0.5) * x)


def sqrt_of_maximum(x):
    return np.sum(np.sqrt(np.maximum(x, 0.0)) + x ** 2)


def norm_times_minimum(x):
    return np.linalg.norm(x) * np.sum(np.minimum(x, 0.2) ** 2)


def clipped_abs(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2 * np.abs(x))


@pytest.mark.parametrize("f", [abs_log, pytest.param(sqrt_of_maximum, marks=slow),
                               pytest.param(norm_times_minimum, marks=slow), pytest.param(clipped_abs, marks=slow)])
def test_hessian_through_kinks_and_ties(f):
    x = np.array([0.6, -0.3, 1.2, 0.1])  # no tie, no kink at the point
    H = srcdiff.hessian(f, jit="numba")(x)
    np.testing.assert_allclose(H, hessian_difference(f, [x]), rtol=1e-4, atol=1e-5)
    v = np.array([0.5, -1.0, 0.25, 2.0])
    _, tangent = srcdiff.jvp(f, (x,), (v,), jit="numba")
    np.testing.assert_allclose(tangent, central_difference(f, [x], 0) @ v, rtol=1e-6, atol=1e-7)

