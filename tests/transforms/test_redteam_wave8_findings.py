"""What the red team's eighth wave found (issue 23, closure on unseen programs), each a class with
variants of its own.  A class still open is a strict xfail naming it; references are float64
central differences of the function (tests/numeric.py) or derivatives written by hand."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

HERE = "test_redteam_wave8_findings.py"


def open_class(name: str, cases, failing):
    """`cases` as pytest params, the ones in `failing` a strict xfail naming the class."""
    return [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=name)) if c in failing else c for c in cases]


def _located_here(exc: srcdiff.SrcDiffError) -> bool:
    return exc.location is not None and str(exc.location.filename).endswith(HERE)


def _numeric_hessian(f, args, wrt=0, h=1e-4):
    """Central differences of the float64 central-difference gradient."""
    x = np.asarray(args[wrt], dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = h
        hi, lo = list(args), list(args)
        hi[wrt], lo[wrt] = x + e, x - e
        cols.append((central_difference(f, tuple(hi), wrt) - central_difference(f, tuple(lo), wrt)).ravel() / (2 * h))
    return np.stack(cols, axis=-1)


# ---- 1. a refusal grad defers to run time, differentiated again, names generated code -------------
# grad refuses a set (and, before class 6 was fixed, `t_obs.index(s)`) at the user's line, but inside a
# branch or loop the refusal is a `refused(...)` call the gradient makes when it runs.  Differentiating that gradient
# again (hessian, hvp, jvp(grad), jacobian(grad)) reported generated code (`f_grad_grad:5`, the
# message quoted inside itself) or "met generated code it cannot differentiate" at the def line.


def set_in_loop(k):
    total = 0.0
    for s in range(3):
        if s == 1:
            marks = {s, s + 1}
            total = total + k[0] * len(marks)
        total = total + k[0] ** 2
    return total


def set_in_branch(k):
    if k[0] > 0:
        seen = {1, 2}
        seen.add(3)
        return k[0] * len(seen)
    return k[0] ** 3


def set_comprehension_in_loop_branch(k):
    total = k[0] ** 2
    for s in range(4):
        if s > 2:
            total = total + k[0] * len({v % 2 for v in range(s)})
    return total


RUNTIME_REFUSALS = [(f, how) for f in (set_in_loop, set_in_branch, set_comprehension_in_loop_branch)
                    for how in ("hessian", "hvp", "jvp_of_grad", "jacobian_of_grad")]
RUNTIME_REFUSALS_OPEN: set = set()  # FIXED: lower/effects.is_refusal_call lowers `refused(...)` as a raise


@pytest.mark.parametrize("case", open_class("deferred refusal at second order", RUNTIME_REFUSALS,
                                            RUNTIME_REFUSALS_OPEN), ids=lambda c: f"{c[0].__name__}-{c[1]}")
def test_a_deferred_refusal_differentiated_again_names_the_users_line(case):
    f, how = case
    k = np.array([0.9])
    with pytest.raises(srcdiff.SrcDiffError) as first:
        srcdiff.grad(f)(k)
    assert _located_here(first.value)
    compute = {"hessian": lambda: srcdiff.hessian(f)(k), "hvp": lambda: srcdiff.hvp(f, k, k),
               "jvp_of_grad": lambda: srcdiff.jvp(srcdiff.grad(f), (k,), (k,)),
               "jacobian_of_grad": lambda: srcdiff.jacobian(srcdiff.grad(f))(k)}[how]
    with pytest.raises(srcdiff.SrcDiffError) as again:
        compute()
    assert _located_here(again.value), str(again.value)
    assert again.value.location.line == first.value.location.line, str(again.value)
    assert "refused(" not in str(again.value).splitlines()[0]


@pytest.mark.parametrize("how", ["hessian", "hvp", "jvp_of_grad", "jacobian_of_grad"])
def test_a_deferred_refusal_not_taken_leaves_the_second_derivative_right(how):
    k = np.array([-0.9])  # set_in_branch takes the side it differentiates: 6 k
    f = set_in_branch
    got = {"hessian": lambda: srcdiff.hessian(f)(k), "hvp": lambda: srcdiff.hvp(f, k, k),
           "jvp_of_grad": lambda: srcdiff.jvp(srcdiff.grad(f), (k,), (k,))[1],
           "jacobian_of_grad": lambda: srcdiff.jacobian(srcdiff.grad(f))(k)}[how]()
    want = 6 * k[0] * (k[0] if how in ("hvp", "jvp_of_grad") else 1.0)
    np.testing.assert_allclose(np.ravel(got), [want], rtol=1e-12)


# ---- 2. jacobian(grad(f)) refuses a function with a dict / NamedTuple argument it does not differentiate ----
# The wave 6 decision (jacobian(grad) of a TREE parameter refuses) also caught functions whose
# differentiated parameter is an array and only a configuration argument is a dict: "its gradient
# of a tree, method or partial takes leaves".  hessian, hvp and jvp(grad) differentiate them.  FIXED:
# the outer derivative's wrt becomes the inner code's leaves (api/outer.py; test_second_order_trees.py).


def dict_config_argument(W, X, cfg):
    return np.sum(np.tanh(X @ W * cfg["scale"])) + cfg["l2"] * np.sum(W ** 2)


def dict_config_default(W, X, cfg={"scale": 0.5, "l2": 0.01}):  # noqa: B006  read, never written
    return np.sum(np.tanh(X @ W * cfg["scale"])) + cfg["l2"] * np.sum(W ** 2)


NESTED = {"act": {"scale": 0.5}, "reg": {"l2": 0.01}}


def nested_config_default(W, X, cfg=NESTED):
    return np.sum(np.tanh(X @ W * cfg["act"]["scale"])) + cfg["reg"]["l2"] * np.sum(W ** 2)


class Settings(NamedTuple):
    scale: float
    l2: float


def namedtuple_config_argument(W, X, cfg):
    return np.sum(np.tanh(X @ W * cfg.scale)) + cfg.l2 * np.sum(W ** 2)


CONFIG_ARGS = {dict_config_argument: ({"scale": 0.5, "l2": 0.01},), dict_config_default: (),
               nested_config_default: (), namedtuple_config_argument: (Settings(0.5, 0.01),)}
CONFIG_CASES = list(CONFIG_ARGS)
CONFIG_OPEN: set = set()  # FIXED: api/outer.py maps the outer wrt onto the inner code's leaves


@pytest.mark.parametrize("f", open_class("jacobian(grad) of a config tree", CONFIG_CASES, CONFIG_OPEN),
                         ids=lambda f: f.__name__)
def test_jacobian_of_grad_with_a_configuration_tree(f):
    rng = np.random.default_rng(8)
    args = (rng.normal(size=(3, 2)), rng.normal(size=(4, 3))) + CONFIG_ARGS[f]
    want = hessian_difference(f, args)  # (four-point differences: the nested ones are too noisy for atol)
    got = srcdiff.jacobian(srcdiff.grad(f))(*args)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ---- 3. a helper with a dict default argument, called from another function ---------------------------
# grad differentiates `f(W, X, cfg={...})` itself, but a caller of f (and so every tree-wrapped
# transformation) is refused: "index 'scale' is not an integer" at the helper's line.  FIXED: a
# helper's default that is a (nested) dict of numbers and strings is a dict of constants, read with
# constant keys; frontend/depends compares it by value, so changing it in place lowers it again.


def calls_dict_default(W, X):
    return dict_config_default(W, X) + 1.0


def calls_nested_default(W, X):
    return 2.0 * nested_config_default(W, X)


def calls_dict_argument(W, X):
    return dict_config_argument(W, X, {"scale": 0.5, "l2": 0.01})


DEFAULT_CASES = [calls_dict_default, calls_nested_default, calls_dict_argument]
DEFAULT_OPEN: set = set()  # FIXED: lower/facts.constant_dict: a dict default is a dict of constants


@pytest.mark.parametrize("f", open_class("dict default of a helper", DEFAULT_CASES, DEFAULT_OPEN),
                         ids=lambda f: f.__name__)
def test_a_helper_with_a_dict_default(f):
    rng = np.random.default_rng(9)
    args = (rng.normal(size=(3, 2)), rng.normal(size=(4, 3)))
    np.testing.assert_allclose(srcdiff.grad(f)(*args), central_difference(f, args, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcdiff.hessian(f)(*args), _numeric_hessian(f, args).reshape(3, 2, 3, 2),
                               rtol=1e-5, atol=1e-6)


# ---- 4. second order of np.trace / np.tensordot of a matrix built with np.eye or np.identity ----------
# `np.eye(n)` had no static shape, so neither had `np.outer(x, x) + np.eye(n)` and what is computed
# from it: np.trace's adjoint was then `np.multiply.outer(eye, g)` and np.tensordot's axes
# `np.arange(np.ndim(A) - 2, ...)`, both fine at first order but refused when the gradient is
# differentiated again ("cannot tell which function np.multiply.outer is", "must be a constant here").


def trace_of_inverse(x):
    A = np.outer(x, x) + np.eye(len(x))
    return np.trace(np.linalg.inv(A)) + np.linalg.slogdet(A)[1]


def trace_of_square_identity(x):
    A = np.outer(x, x) + np.identity(3)
    return np.trace(A @ A)


def trace_of_solve(x):
    A = np.outer(x, x) + 2.0 * np.eye(len(x))
    return np.trace(np.linalg.solve(A, np.diag(x)))


def trace_of_matrix_power(x):
    A = np.diag(x) + 0.1 * np.eye(3, 3)
    return np.trace(np.linalg.matrix_power(A, 3))


def tensordot_of_eye_sum(x):
    A = np.outer(x, x) + np.eye(len(x))
    return np.tensordot(A, A, axes=2) ** 2


def trace_offset_of_eye(x):
    A = np.outer(x, np.sin(x)) + np.eye(3, k=1)
    return np.trace(A @ A.T, offset=1)


TRACES = [trace_of_inverse, trace_of_square_identity, trace_of_solve, trace_of_matrix_power, tensordot_of_eye_sum,
          trace_offset_of_eye]
TRACE_CASES = [(f, how) for f in TRACES for how in ("hessian", "jacobian_of_grad", "jvp_of_grad")]
TRACE_OPEN: set = set()  # FIXED: np.eye / np.identity are 2-D (rules/numpy_nograd.py); trace_adjoint


@pytest.mark.parametrize("case", open_class("second order of eye-built matrices", TRACE_CASES, TRACE_OPEN),
                         ids=lambda c: f"{c[0].__name__}-{c[1]}")
def test_second_order_of_trace_and_tensordot_of_eye_built_matrices(case):
    f, how = case
    x = np.array([0.3, -0.5, 0.9])
    want = _numeric_hessian(f, (x,))
    if how == "hessian":
        got = srcdiff.hessian(f)(x)
    elif how == "jacobian_of_grad":
        got = srcdiff.jacobian(srcdiff.grad(f))(x)
    else:
        got, want = srcdiff.jvp(srcdiff.grad(f), (x,), (np.ones(3),))[1], want @ np.ones(3)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)  # differences of differences: 1e-6 noise


def trace_of_stack(x):
    A = np.stack([np.outer(x, x), np.outer(x, np.cos(x))], axis=-1)  # (3, 3, 2): a trace per last index
    return np.sum(np.trace(A) ** 2)


def trace_through_helper_result(x):
    return np.trace(_gram(x) @ _gram(x))


def _gram(x):
    if x[0] > 0:
        return np.outer(x, x) + np.eye(len(x))
    return np.outer(x, x)


@pytest.mark.parametrize("f", [trace_of_stack, trace_through_helper_result], ids=lambda f: f.__name__)
def test_second_order_of_trace_of_an_operand_of_unknown_axes(f):
    # np.trace's adjoint where the number of axes is not known statically is the helper
    # trace_adjoint, which has a rule of its own: second derivatives read it back
    x = np.array([0.3, -0.5, 0.9])
    want = _numeric_hessian(f, (x,))
    np.testing.assert_allclose(srcdiff.hessian(f)(x), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(srcdiff.jacobian(srcdiff.grad(f))(x), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-6, atol=1e-8)


# ---- 5. srcdiff.check says MISMATCH on a right float32 gradient -------------------------------------
# A float32 argument that is not differentiated (`area`) is a number in srcdiff's gradient run on
# sympy values, so ``2 * area / 9.81`` is rounded to float32 before it meets a symbol; sympy's
# derivative keeps it exact.  The 50-digit comparison (rtol 1e-9) then reported a MISMATCH of
# 4e-8 relative on `np.sum(area * v ** 2 / 9.81)`.  FIXED (tools/check_compare.narrow_tolerance:
# float32's rounding, as the point comparisons allow, where an argument is float32).


class Consts:
    GRAVITY = 9.81
    AIR_DENSITY = 1.225
    DRAG = 0.47


def drag_with_constants_class(v, area):
    force = 0.5 * Consts.AIR_DENSITY * Consts.DRAG * area * v ** 2
    return np.sum(force / Consts.GRAVITY)


def drag_with_literals(v, area):
    return np.sum(area * v ** 2 / 9.81)


def drag_in_a_dict(p, area):
    return np.sum(0.5 * area * p["v"] ** 2 / 9.81) + p["c"] * 1.5


def _float32_drag_args(f):
    rng = np.random.default_rng(0)
    v, area = rng.normal(size=4).astype(np.float32), (0.7 + rng.uniform(0.2, 0.9, size=4)).astype(np.float32)
    return ({"v": v, "c": np.float32(0.3)}, area) if f is drag_in_a_dict else (v, area)


@pytest.mark.parametrize("f", [drag_with_constants_class, drag_with_literals, drag_in_a_dict],
                         ids=lambda f: f.__name__)
def test_check_of_a_right_float32_gradient_is_no_mismatch(f):
    report = srcdiff.check(f, *_float32_drag_args(f), progress=False)
    assert report.status != "MISMATCH", str(report)
    assert report or report.numeric, str(report)  # proved, agrees in numbers, or central differences agree


def test_check_still_finds_a_wrong_float32_gradient():
    from srcdiff.rules import TABLE, unary
    old = TABLE.register(unary(np.sin, x="g * np.cos(x) * 1.01"), replace=True)  # off by 1%
    try:
        def sines(v, area):
            return np.sum(area * np.sin(v))
        rng = np.random.default_rng(1)
        args = rng.normal(size=4).astype(np.float32), rng.uniform(0.5, 1.5, size=4).astype(np.float32)
        report = srcdiff.check(sines, *args, progress=False)
        assert report.status == "MISMATCH", str(report)
    finally:
        TABLE.register(old, replace=True)
        srcdiff.clear_cache()


SETTINGS = {"act": {"scale": 0.5}, "reg": {"l2": 0.01}}


def reads_a_mutable_default(W, X, cfg=SETTINGS):
    return np.sum(np.tanh(X @ W * cfg["act"]["scale"])) + cfg["reg"].get("l2", 0.0) * np.sum(W ** 2)


def calls_mutable_default(W, X):
    return reads_a_mutable_default(W, X)


def test_a_dict_default_changed_in_place_is_read_again():
    rng = np.random.default_rng(10)
    args = (rng.normal(size=(3, 2)), rng.normal(size=(4, 3)))
    gradient = srcdiff.grad(calls_mutable_default)
    np.testing.assert_allclose(gradient(*args), central_difference(calls_mutable_default, args, 0), rtol=1e-6)
    SETTINGS["act"]["scale"] = 2.0  # the helper's default, changed in place: no stale gradient
    try:
        np.testing.assert_allclose(gradient(*args), central_difference(calls_mutable_default, args, 0), rtol=1e-6)
        np.testing.assert_allclose(srcdiff.jvp(calls_mutable_default, args, (np.ones((3, 2)), None))[1],
                                   np.sum(central_difference(calls_mutable_default, args, 0)), rtol=1e-6)
    finally:
        SETTINGS["act"]["scale"] = 0.5


def array_in_a_default(W, X, cfg={"shift": np.ones(2)}):  # noqa: B006, B008  an array: not constants
    return np.sum(np.tanh(X @ W + cfg["shift"]))


def calls_array_default(W, X):
    return array_in_a_default(W, X)


def test_a_dict_default_holding_an_array_is_right_or_refused_here():
    rng = np.random.default_rng(11)
    args = (rng.normal(size=(3, 2)), rng.normal(size=(4, 3)))
    try:
        got = srcdiff.grad(calls_array_default)(*args)
    except srcdiff.SrcDiffError as exc:
        assert _located_here(exc), str(exc)
        return
    np.testing.assert_allclose(got, central_difference(calls_array_default, args, 0), rtol=1e-6)


@pytest.mark.parametrize("how", ["jvp", "vjp", "hvp", "tree"])
def test_a_helper_with_a_dict_default_in_other_transformations(how):
    rng = np.random.default_rng(12)
    W, X = rng.normal(size=(3, 2)), rng.normal(size=(4, 3))
    f, V = calls_nested_default, rng.normal(size=(3, 2))
    want = central_difference(f, (W, X), 0)
    if how == "jvp":
        np.testing.assert_allclose(srcdiff.jvp(f, (W, X), (V, None))[1], np.sum(want * V), rtol=1e-6)
    elif how == "vjp":
        np.testing.assert_allclose(srcdiff.vjp(f, W, X)[1](1.0), want, rtol=1e-6)
    elif how == "hvp":
        H = _numeric_hessian(f, (W, X)).reshape(6, 6)
        np.testing.assert_allclose(srcdiff.hvp(f, W, V, X).ravel(), H @ V.ravel(), rtol=1e-4, atol=1e-6)
    else:
        def wrapped(p, X):
            return calls_nested_default(p["W"], X)
        np.testing.assert_allclose(srcdiff.grad(wrapped)({"W": W}, X)["W"], want, rtol=1e-6)


# ---- 6. grad refused `tuple.index` / `list.index` / `list.count` of constants ------------------------
# (pk_two_compartment: ``c_obs[t_obs.index(s)]`` where s is an observation step).  Their value is an
# integer, piecewise constant in the items: no gradient.  FIXED (lower/rule_calls._QUERIES: opaque).


def index_of_tuple_in_loop(k, t_obs=(1, 3), c_obs=(0.5, 0.2)):
    total, x = 0.0, 1.0
    for s in range(5):
        x = x * k[0]
        if s in t_obs:
            total = total + (x - c_obs[t_obs.index(s)]) ** 2
    return total


def index_of_list_in_branch(k):
    obs, vals = [2, 4], [0.3, 0.1]
    total = 0.0
    for s in range(5):
        if s in obs:
            total = total + (k[0] * s - vals[obs.index(s)]) ** 2
    return total


def count_of_a_list(k):
    labels = [0, 1, 1, 2, 1]
    return k[0] ** 2 * labels.count(1) + k[1] * labels.count(2)


@pytest.mark.parametrize("f", [index_of_tuple_in_loop, index_of_list_in_branch, count_of_a_list],
                         ids=lambda f: f.__name__)
def test_index_and_count_of_constants(f):
    k = np.array([0.9, -0.4])
    want = central_difference(f, (k,), 0)
    np.testing.assert_allclose(srcdiff.grad(f)(k), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(srcdiff.jvp(f, (k,), (np.ones(2),))[1], np.sum(want), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(srcdiff.hessian(f)(k), _numeric_hessian(f, (k,)), rtol=1e-4, atol=1e-5)


# ---- 7. jacobian(grad(f)) crashes on a loop whose branch, not taken in the first iteration, sets a saved value ----
# The derivable gradient (the one srcdiff differentiates again) keeps one list per saved value and
# appends every value each iteration; the first-order gradient presets such values to None before
# the loop, the derivable one did not: UnboundLocalError in generated code (found on pk_two_compartment
# once class 6 was fixed; on main for any such loop).  FIXED (ad/regions.py: the derivable plan presets too).


def branch_first_not_taken(k):
    total = 0.0
    for s in range(5):
        if s in (2, 4):
            total = total + (k[0] * s - k[1]) ** 2
    return total


def branch_in_while(k):
    total, s = 0.0, 0
    while s < 4:
        if s % 2 == 1:
            d = np.sin(k[0] * s) - k[1]
            total = total + d * d
        s += 1
    return total


def branch_in_nested_loop(k):
    total = 0.0
    for i in range(2):
        for j in range(3):
            if j == 2:
                total = total + np.exp(k[0] * i - k[1] * j) * k[1]
    return total


@pytest.mark.parametrize("f", [branch_first_not_taken, branch_in_while, branch_in_nested_loop],
                         ids=lambda f: f.__name__)
def test_reverse_over_reverse_of_a_branch_not_taken_at_first(f):
    k = np.array([0.9, -0.4])
    want = _numeric_hessian(f, (k,))
    np.testing.assert_allclose(srcdiff.jacobian(srcdiff.grad(f))(k), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(srcdiff.vjp(srcdiff.grad(f), k)[1](np.ones(2)), np.ones(2) @ want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(srcdiff.hessian(f)(k), want, rtol=1e-4, atol=1e-5)


# ---- 8. second order of a loop with an early `return` inside it: refused (at the user's line) ---------
# grad is right; hessian, hvp, jvp(grad), jacobian(grad) refused "writing into k_bar[1] is not supported:
# k_bar is not known to be a new array" in the generated code (a limit of higher derivatives).  FIXED:
# a branch merge of two fresh arrays is a fresh array (lower/writes.py; test_second_order_returns.py).


def early_return_in_loop(k):
    x = k[0]
    for s in range(6):
        x = x * np.cos(k[1] + s)
        if abs(x) < 1e-3:
            return x * k[1]
    return x + k[1] ** 2


def early_return_in_while(k):
    x, it = k[0], 0
    while it < 5:
        x = x - 0.2 * np.sin(x) * k[1]
        if x * x < 1e-8:
            return x
        it += 1
    return x * k[1]


EARLY_RETURNS = [early_return_in_loop, early_return_in_while]


@pytest.mark.parametrize("f", open_class("second order of an early return in a loop", EARLY_RETURNS,
                                         set()), ids=lambda f: f.__name__)
def test_second_order_of_an_early_return_in_a_loop(f):
    k = np.array([0.9, -0.4])
    np.testing.assert_allclose(srcdiff.grad(f)(k), central_difference(f, (k,), 0), rtol=1e-6, atol=1e-9)
    try:
        got = srcdiff.hessian(f)(k)
    except srcdiff.SrcDiffError as exc:
        assert _located_here(exc), str(exc)  # refused, at least at the user's line
        raise
    np.testing.assert_allclose(got, _numeric_hessian(f, (k,)), rtol=1e-4, atol=1e-5)
