"""Never silently stale (#24, class 5): every specialisation key holds what the code was built on.

A gradient compiled once and called again after something it read changed must give the new
function's derivative: a default changed at run time (``__defaults__``, ``__kwdefaults__``, of
the function or of a helper it calls), a rebound global (a number, a NumPy function, a helper),
a global array changed in place, a closure cell, a partial's arguments, a static argument
(a flag), and a rule registered again.  Each is checked in every transformation against
float64 central differences of the function as it is now (never srcdiff's earlier answer).
"""

from __future__ import annotations

import functools
import importlib
import sys

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

MODULE = '''
import functools
import numpy as np

C = 2.0
A = np.array([1.0, 2.0, 3.0])
ACT = np.tanh


def with_default(x, s=2.0):
    return np.sum(s * x ** 2)


def with_kwdefault(x, *, s=2.0):
    return np.sum(s * x ** 2)


def global_number(x):
    return np.sum(C * x ** 2)


def global_array(x):
    return np.sum(A * x ** 2)


def global_function(x):
    return np.sum(ACT(x))


def helper(x, s=2.0):
    return C * s * x ** 2


def through_helper(x):
    return np.sum(helper(x))


def base(x, s):
    return np.sum(s * x ** 2)


P = functools.partial(base, s=2.0)


def through_partial(x):
    return P(x)


def make(c):
    def inner(x):
        return np.sum(c * x ** 2)
    return inner


def other(x):
    return np.sum(np.cos(x) * x)


def helper_other(x, s=2.0):
    return np.sin(x) * s


def flagged(x, squared):
    if squared:
        return np.sum(x ** 2)
    return np.sum(np.sin(x))
'''

X = np.array([0.5, -1.0, 2.0])
V = np.array([1.0, -0.5, 0.25])


@pytest.fixture
def mod(tmp_path, monkeypatch):
    (tmp_path / "cache_model.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("cache_model", None)
    yield importlib.import_module("cache_model")
    sys.modules.pop("cache_model", None)


def _grad_at(f, x):
    return central_difference(f, (x,), 0)


def _hv(f):
    eps = 1e-4
    return (_grad_at(f, X + eps * V) - _grad_at(f, X - eps * V)) / (2 * eps)


TRANSFORMS = {
    "grad": (lambda f: srcdiff.grad(f)(X), lambda f: _grad_at(f, X)),
    "value_and_grad": (lambda f: np.append(srcdiff.value_and_grad(f)(X)[1], srcdiff.value_and_grad(f)(X)[0]),
                       lambda f: np.append(_grad_at(f, X), f(X))),
    "jvp": (lambda f: np.array(srcdiff.jvp(f, (X,), (V,))), lambda f: np.array([f(X), _grad_at(f, X) @ V])),
    "vjp": (lambda f: srcdiff.vjp(f, X)[1](1.5), lambda f: 1.5 * _grad_at(f, X)),
    "jacobian": (lambda f: srcdiff.jacobian(f)(X), lambda f: _grad_at(f, X)),
    "hessian": (lambda f: srcdiff.hessian(f)(X) @ V, _hv),
    "hvp": (lambda f: srcdiff.hvp(f, X, V), _hv),
    "grad_of_grad": (lambda f: srcdiff.jvp(srcdiff.grad(f), (X,), (V,))[1], _hv),
    "numba": (lambda f: srcdiff.grad(f, jit="numba")(X), lambda f: _grad_at(f, X)),
}


def _set(obj, name, value):
    setattr(obj, name, value)


#: (function, how it changes in place / is rebound)
CHANGES = {
    "defaults": ("with_default", lambda m: _set(m.with_default, "__defaults__", (5.0,))),
    "kwdefaults": ("with_kwdefault", lambda m: _set(m.with_kwdefault, "__kwdefaults__", {"s": 5.0})),
    "global_number": ("global_number", lambda m: _set(m, "C", 7.0)),
    "global_array_in_place": ("global_array", lambda m: m.A.__setitem__(slice(None), [4.0, -1.0, 0.5])),
    "global_array_rebound": ("global_array", lambda m: _set(m, "A", np.array([4.0, -1.0, 0.5]))),
    "global_function": ("global_function", lambda m: _set(m, "ACT", np.sin)),
    "helper_default": ("through_helper", lambda m: _set(m.helper, "__defaults__", (5.0,))),
    "helper_global": ("through_helper", lambda m: _set(m, "C", 7.0)),
    "helper_rebound": ("through_helper", lambda m: _set(m, "helper", lambda x: np.cos(x) * x)),
    "partial_keywords": ("through_partial", lambda m: m.P.keywords.__setitem__("s", 5.0)),
    "partial_rebound": ("through_partial", lambda m: _set(m, "P", functools.partial(m.base, s=5.0))),
    # a module reloader (IPython's autoreload) gives the function object the new code
    "code_replaced": ("global_number", lambda m: _set(m.global_number, "__code__", m.other.__code__)),
    "helper_code_replaced": ("through_helper", lambda m: _set(m.helper, "__code__", m.helper_other.__code__)),
}


#: a transformation made once and called before and after the change (its fast path, its plans)
def _gradient_of_value_and_grad(f):
    made = srcdiff.value_and_grad(f)
    return lambda x: made(x)[1]


def _hessian_times_v(f):
    made = srcdiff.hessian(f)
    return lambda x: made(x) @ V


KEPT = {
    "grad": srcdiff.grad,
    "value_and_grad": _gradient_of_value_and_grad,
    "hessian": _hessian_times_v,
    "jacobian": srcdiff.jacobian,
    "numba": lambda f: srcdiff.grad(f, jit="numba"),
}
KEPT_REFERENCE = {"hessian": _hv}


@pytest.mark.parametrize("transform", list(KEPT))
@pytest.mark.parametrize("change", ["code_replaced", "helper_code_replaced", "defaults", "global_number"])
def test_a_transformation_made_before_a_change_sees_it(mod, transform, change):
    if transform == "numba":
        pytest.importorskip("numba")
    name, apply = CHANGES[change]
    f = getattr(mod, name)
    reference = KEPT_REFERENCE.get(transform, lambda f: _grad_at(f, X))
    kept = KEPT[transform](f)
    for _ in range(2):  # the first call compiles, the second takes the fast path
        np.testing.assert_allclose(kept(X), reference(f), rtol=1e-5, atol=1e-6)
    apply(mod)
    np.testing.assert_allclose(kept(X), reference(f), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("transform", list(TRANSFORMS))
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_after_the_first_call_is_seen(mod, transform, change):
    if transform == "numba":
        pytest.importorskip("numba")
    name, apply = CHANGES[change]
    run, reference = TRANSFORMS[transform]
    f = getattr(mod, name)
    try:
        first = run(f)
    except srcdiff.SrcDiffError:  # refused before the change: nothing compiled to go stale
        return
    np.testing.assert_allclose(first, reference(f), rtol=1e-5, atol=1e-6)
    apply(mod)
    f = getattr(mod, name)
    try:
        got = run(f)
    except srcdiff.SrcDiffError:
        return  # refusing the new function is honest; a stale answer is not
    np.testing.assert_allclose(got, reference(f), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("transform", ["grad", "jvp", "vjp", "hvp", "numba"])
def test_a_closure_cell_set_after_the_first_call_is_seen(mod, transform):
    if transform == "numba":
        pytest.importorskip("numba")
    run, reference = TRANSFORMS[transform]
    f = mod.make(2.0)
    run(f)
    f.__closure__[0].cell_contents = 6.0
    np.testing.assert_allclose(run(f), reference(f), rtol=1e-5, atol=1e-6)
    g = mod.make(-3.0)  # the same code, another cell
    np.testing.assert_allclose(run(g), reference(g), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("transform", ["jvp", "grad", "vjp", "hessian"])
def test_a_static_flag_is_part_of_the_key(mod, transform):
    for squared in (False, True, False):
        f = functools.partial(mod.flagged, squared=squared)

        def plain(x, squared=squared):
            return mod.flagged(x, squared)
        if transform == "jvp":
            value, tangent = srcdiff.jvp(mod.flagged, (X, squared), (V, None))
            np.testing.assert_allclose([value, tangent], [plain(X), _grad_at(plain, X) @ V], rtol=1e-6)
        elif transform == "grad":
            np.testing.assert_allclose(srcdiff.grad(mod.flagged)(X, squared), _grad_at(plain, X), rtol=1e-6)
        elif transform == "vjp":
            np.testing.assert_allclose(srcdiff.vjp(mod.flagged, X, squared)[1](1.0), _grad_at(plain, X), rtol=1e-6)
        else:
            np.testing.assert_allclose(srcdiff.hessian(mod.flagged)(X, squared) @ V, _hv(plain), rtol=1e-5,
                                       atol=1e-6)
        assert f(X) == plain(X)


def test_a_rule_registered_again_rebuilds_the_gradient(tmp_path, monkeypatch):
    """The rule table's version is part of every key: a replaced adjoint is used at once."""
    (tmp_path / "ruled.py").write_text("import numpy as np\n\n\ndef soft(x):\n    return np.log1p(np.exp(x))\n\n\n"
                                       "def f(x):\n    return np.sum(soft(x))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("ruled", None)
    ruled = importlib.import_module("ruled")
    try:
        grad = srcdiff.grad(ruled.f)
        before = grad(X)
        np.testing.assert_allclose(before, 1 / (1 + np.exp(-X)), rtol=1e-9)
        srcdiff.register_adjoint(ruled.soft, x="g * 2.0", elementwise=True)  # a (deliberately) different rule
        np.testing.assert_allclose(grad(X), np.full(3, 2.0))
        srcdiff.register_adjoint(ruled.soft, x="g * 3.0", elementwise=True, replace=True)
        np.testing.assert_allclose(grad(X), np.full(3, 3.0))
        np.testing.assert_allclose(srcdiff.vjp(ruled.f, X)[1](1.0), np.full(3, 3.0))
    finally:
        from srcdiff.rules import TABLE
        TABLE.remove(ruled.soft)
        sys.modules.pop("ruled", None)
