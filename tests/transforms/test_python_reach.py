"""The Python people write around their math (#25): helpers taking ``*args`` / ``**opts``
bound to each call's arguments, ``cfg = cfg or {}`` defaults, built-ins over a 1-D array,
an ``import`` in the body, static methods.  Every program goes through grad,
value_and_grad, jvp, vjp, hessian, a tree-wrapped gradient and float32, each against
float64 central differences (tests/numeric.py)."""

import functools

import numpy as np
import pytest
from numeric import assert_close, central_difference, hessian_difference

import srcdiff

RNG = np.random.default_rng(2025)


# ---- *args / **opts helpers, bound to the call ----

def plain_product(a, b):
    return np.sum(a * np.sin(b))


def symmetric(a):
    return 0.5 * (a + a.T)


def symmetrized(*args):
    return plain_product(*[symmetric(a) for a in args])


def first_symmetrized(*args, **kwargs):
    args = list(args)
    args[0] = symmetric(args[0])
    return plain_product(*args, **kwargs)


spread = lambda *args: plain_product(args[0] ** 2, *args[1:])  # noqa: E731


def inner(w, scale=1.0, shift=0.0):
    return np.sum(np.tanh(w * scale + shift) ** 2)


def loss(w, **opts):
    return inner(w, **opts)


def loss_reading(w, **opts):
    scale = opts.get("scale", 1.0)
    if "shift" in opts:
        return np.sum(np.cos(w) * scale) + opts["shift"] * np.sum(w ** 3)
    return np.sum(np.cos(w) * scale)


def mixed(w, *args, power=2, **opts):
    return np.sum(w ** power) * len(args) + sum(np.sum(a * w) for a in args) + inner(w, **opts)


partial_loss = functools.partial(loss, scale=3.0)


def varargs_list(x):
    return symmetrized(x, x ** 2 + 1.0)


def varargs_written(x):
    return first_symmetrized(x, np.cos(x))


def varargs_lambda(x):
    return spread(x, 2.0 * x)


def kwargs_passed(x):
    return loss(x, scale=2.0, shift=0.5) + loss(x)


def kwargs_read(x):
    return loss_reading(x, scale=1.5, shift=0.25) + loss_reading(x ** 2)


def kwargs_partial(x):
    return partial_loss(x) + partial_loss(x, shift=-0.3)


def varargs_and_kwargs(x):
    return mixed(x, np.sin(x), x * x, power=3, scale=0.5)


# ---- built-ins over a 1-D array (Python iterates its elements) or a list ----

def builtins_of_rows(x):
    v = np.sin(x[0])
    return max(v) * min(v ** 2) + sum(v) * sorted(v)[0] + sorted(v)[-1] ** 2


def builtins_of_list(x):
    values = [np.sum(x[0] * x[1]), np.sum(np.cos(x[2])), np.sum(x[1] ** 3)]
    return max(values) - min(values) ** 2 + sorted(values)[1] + max(v * x[0, 0] for v in values)


def sorted_loop(x):
    total = 0.0
    for k, v in enumerate(sorted(x[1] * x[2])):
        total = total + (k + 1.0) * v ** 2
    return total + max(np.exp(x[0]))


# ---- an import in the body ----

def imported_numpy(x):
    import numpy as np
    return np.sum(np.sin(x) * x)


def imported_names(x):
    import numpy.linalg
    from numpy import cos as cosine
    from scipy.special import gammaln
    return numpy.linalg.norm(x) + np.sum(cosine(x) * gammaln(x ** 2 + 1.0))


def imported_math(x):
    import math
    return math.exp(np.sum(x[0])) * np.sum(x[1] ** 2) + math.sqrt(np.sum(x ** 2))


# ---- static methods ----

class Model:
    def __init__(self, w):
        self.w = w

    @staticmethod
    def cube(x):
        return np.sum(x ** 3)

    @staticmethod
    def chained(x):
        return Model.cube(np.tanh(x)) + Sub.cube(x * 0.5)

    def loss(self, x):
        return self.cube(x) * self.w + Model.cube(np.sin(x) * self.w)


class Sub(Model):
    pass


INSTANCE = Sub(0.7)


def static_through_class(x):
    return Model.cube(x) + Sub.cube(np.cos(x))


def static_through_instance(x):
    return INSTANCE.cube(x * 2.0) * 0.5


def static_calling_static(x):
    return Sub.chained(x) * 0.5


PROGRAMS = [varargs_list, varargs_written, varargs_lambda, kwargs_passed, kwargs_read, kwargs_partial,
            varargs_and_kwargs, builtins_of_rows, builtins_of_list, sorted_loop, imported_numpy, imported_names,
            imported_math, static_through_class, static_through_instance, static_calling_static]


def point(f):
    return RNG.uniform(0.2, 1.2, size=(3, 3)) * np.array([1.0, -1.0, 1.0])


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_grad_and_value(f):
    x = point(f)
    expected = central_difference(f, (x,), 0)
    assert_close(srcdiff.grad(f)(x), expected, rtol=1e-5, atol=1e-6)
    value, g = srcdiff.value_and_grad(f)(x)
    assert_close(value, f(x))
    assert_close(g, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jvp_and_vjp(f):
    x = point(f)
    v = RNG.normal(size=x.shape)
    expected = central_difference(f, (x,), 0)
    value, tangent = srcdiff.jvp(f, (x,), (v,))
    assert_close(value, f(x))
    assert_close(tangent, np.sum(expected * v), rtol=1e-5, atol=1e-6)
    value, pullback = srcdiff.vjp(f, x)
    assert_close(pullback(1.0), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_hessian(f):
    x = point(f)
    assert_close(srcdiff.hessian(f)(x), hessian_difference(f, (x,)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_tree_wrapped(f):
    def wrapped(params):
        return f(params["x"]) * params["s"]

    params = {"x": point(f), "s": 1.3}
    g = srcdiff.grad(wrapped)(params)
    assert_close(g["x"], central_difference(lambda x: wrapped({"x": x, "s": 1.3}), (params["x"],), 0),
                 rtol=1e-5, atol=1e-6)
    assert_close(g["s"], f(params["x"]), rtol=1e-6)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_float32(f):
    x = point(f).astype(np.float32)
    g = srcdiff.grad(f)(x)
    assert g.dtype == np.float32
    assert_close(g, central_difference(f, (x.astype(np.float64),), 0), rtol=2e-3, atol=2e-3)


def test_static_method_through_self():
    """``self.cube(x)`` in a method of a model passed as a parameter tree."""
    def run_model(model, x):
        return model.loss(x)

    x, model = point(run_model), Model(0.6)
    expected = central_difference(lambda v: run_model(model, v), (x,), 0)
    assert_close(srcdiff.grad(run_model, wrt=1)(model, x), expected, rtol=1e-5, atol=1e-6)
    # d/dw [w * sum(x^3) + sum((w sin x)^3)], by hand
    assert_close(srcdiff.grad(run_model, wrt=0)(model, x)["w"],
                 np.sum(x ** 3) + 3 * 0.6 ** 2 * np.sum(np.sin(x) ** 3), rtol=1e-6)


def _closure_helper():
    z = 2.0

    def helper(x, c=1.0):
        return np.sum(np.sin(x)) * c * z
    return helper


def _imports_helper(x, c=1.0):
    import numpy as np
    return np.sum(np.sin(x)) * c


def _kwargs_helper(x, c=1.0, **opts):
    return inner(x, **opts) * c


CLOSURE_HELPER = _closure_helper()


def calls_closure_helper(x):
    return CLOSURE_HELPER(x)


def calls_imports_helper(x):
    return _imports_helper(x)


def calls_kwargs_helper(x):
    return _kwargs_helper(x, scale=2.0)


@pytest.mark.parametrize("f, helper", [(calls_closure_helper, CLOSURE_HELPER), (calls_imports_helper, _imports_helper),
                                       (calls_kwargs_helper, _kwargs_helper)], ids=["closure", "imports", "kwargs"])
def test_a_helper_default_changed_after_the_first_gradient(f, helper):
    """A helper srcdiff does not copy into its caller (a closure, one with an import in its
    body) or binds to a call (``**opts``): its default, changed later, is the one used."""
    x = point(f)
    saved = helper.__defaults__
    try:
        assert_close(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-5, atol=1e-6)
        helper.__defaults__ = (3.5,)
        assert_close(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-5, atol=1e-6)
    finally:
        helper.__defaults__ = saved
