"""Calls to other user functions: each differentiated through its own generated adjoint."""

import math
import re

import numpy as np
import pytest

import srcdiff


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def uses_recursion(x, y):
    return power(x, 4) * y + power(y, 2)


def scale(v, k=1.0):
    return v * k + math.sin(v)


def keyword_and_default(x, y):
    return scale(x) + scale(y, k=3.0) * x


def layer(W, h):
    return np.tanh(W @ h)


def helper_in_loop(W, h0, T):
    h = h0
    for t in range(T):  # noqa: B007
        h = layer(W, h)
    return np.sum(h)


def make_closure(c):
    def inner(x):
        return x * c + x * x

    def outer(x):
        return inner(x) * inner(2.0 * x)

    return outer


closure_user = make_closure(0.5)


def helper_of_constant(x):
    return x * power(2.0, 3)


CASES = [
    ("recursive helper with a depth argument", uses_recursion, (1.3, 0.6), (0, 1)),
    ("keyword and default arguments", keyword_and_default, (0.4, 0.9), (0, 1)),
    ("helper called in a loop", helper_in_loop, lambda rng: (rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3), 4),
     (0, 1)),
    ("closure calling a closure", closure_user, (0.7,), (0,)),
    ("helper on constants only", helper_of_constant, (1.5,), (0,)),
]


@pytest.mark.parametrize("label, func, args, wrt", CASES, ids=[c[0] for c in CASES])
def test_calls_match_central_differences(label, func, args, wrt, rng, check_gradient):
    check_gradient(func, args(rng) if callable(args) else args, wrt)


def test_caller_calls_the_generated_adjoint_and_its_pullback():
    df = srcdiff.grad(uses_recursion, wrt=(0, 1))
    df(1.3, 0.6)
    assert "power_vjp(x, 4)" in df.source
    assert "_pullback(" in df.source


def test_recursive_adjoint_calls_itself():
    df = srcdiff.grad(uses_recursion, wrt=(0, 1))
    df(1.3, 0.6)
    recursive = [s for s in df.callee_sources.values() if s.startswith("def power_vjp")]
    assert recursive and any(re.search(r"power_vjp\(x, t\d+\)", s) for s in recursive)


def test_inactive_helper_is_called_plainly():
    df = srcdiff.grad(helper_of_constant)
    assert df(1.5) == pytest.approx(8.0)
    assert "power(2.0, 3)" in df.source and "_vjp" not in df.source


def test_source_lists_every_callee_adjoint_under_its_own_name():
    df = srcdiff.grad(uses_recursion, wrt=(0, 1))
    df(1.3, 0.6)
    source = df.source
    for name in df.callee_sources:
        assert source.count(f"def {name}(") == 1
    namespace = {}
    exec(compile(source, "<listing>", "exec"), namespace)  # every name it calls is defined in it
    assert all(name in namespace for name in df.callee_sources)


def test_a_lambda_from_another_module_is_called_by_a_valid_name(tmp_path):
    import importlib
    import sys

    (tmp_path / "lambdas_mod.py").write_text("sq = lambda v: v * v\n")
    (tmp_path / "uses_lambda.py").write_text(
        "from lambdas_mod import sq\n\n\ndef f(x):\n    return sq(x) * 3.0\n")
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("uses_lambda")
        assert srcdiff.grad(module.f)(2.0) == pytest.approx(12.0)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("uses_lambda", None)
        sys.modules.pop("lambdas_mod", None)
