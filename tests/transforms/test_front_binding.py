"""The one front: argnums and has_aux in grad (argnums in jacobian, hessian and vjp too), a tuple
returned without has_aux, lambdas, cache keys on every static argument, and defaults changed at
run time, in every transformation."""

import numpy as np
import pytest
import scipy.special
from numeric import assert_close, central_difference

import srcdiff


def two(x, y):
    return np.sum(x ** 2 * y) + np.sum(np.sin(y))


def with_aux(x, y):
    loss = np.sum(x ** 2 * y)
    return loss, {"scale": y}


@pytest.mark.parametrize("argnums, wrt", [(0, 0), (1, 1), ((0, 1), (0, 1)), ((1,), (1,))])
def test_argnums_is_integer_wrt(argnums, wrt):
    x, y = np.array([1.0, 2.0]), np.array([0.5, -1.5])
    got = srcdiff.grad(two, argnums=argnums)(x, y)
    expected = srcdiff.grad(two, wrt=wrt)(x, y)
    if isinstance(argnums, tuple):
        assert isinstance(got, tuple) and len(got) == len(argnums)
        for g, index in zip(got, argnums):
            assert_close(g, central_difference(two, (x, y), index))
    else:
        assert_close(got, central_difference(two, (x, y), argnums))
        assert_close(got, expected)
    with pytest.raises(srcdiff.SrcDiffError, match="not both"):
        srcdiff.grad(two, wrt=1, argnums=0)
    with pytest.raises(srcdiff.SrcDiffError, match="indices"):
        srcdiff.grad(two, argnums="x")


def squash(x, y):
    return np.tanh(x * y) * y


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1,)])
def test_argnums_in_every_reverse_transformation(argnums):
    """JAX's spelling in the other reverse-mode transformations: the Jacobian and the vjp against
    central differences, the Hessian against the one written by hand."""
    x, y = np.array([0.3, -0.8]), np.array([1.5, 0.4])
    several = isinstance(argnums, tuple)
    indices = argnums if several else (argnums,)
    J = srcdiff.jacobian(squash, argnums=argnums)(x, y)
    H = srcdiff.hessian(two, argnums=argnums)(x, y)
    value, pullback = srcdiff.vjp(squash, x, y, argnums=argnums)
    adjoint = np.array([0.7, -1.1])
    pulled = pullback(adjoint)
    for k, i in enumerate(indices):
        columns = [central_difference(lambda *a, r=r: squash(*a)[r], (x, y), i) for r in range(2)]
        assert_close(J[k] if several else J, np.stack(columns))
        assert_close(pulled[k] if several else pulled, adjoint @ np.stack(columns))
        for m, j in enumerate(indices):  # two's Hessian by hand: diag(2y), diag(2x), diag(-sin y)
            block = np.diag(2 * y if i == j == 0 else -np.sin(y) if i == j == 1 else 2 * x)
            assert_close(H[k][m] if several else H, block)
    assert_close(value, squash(x, y))
    for transform in (srcdiff.jacobian, srcdiff.hessian):
        with pytest.raises(srcdiff.SrcDiffError, match="not both"):
            transform(two, wrt=1, argnums=0)
        with pytest.raises(srcdiff.SrcDiffError, match="indices"):
            transform(two, argnums="x")
    with pytest.raises(srcdiff.SrcDiffError, match="not both"):
        srcdiff.vjp(squash, x, y, wrt=1, argnums=0)


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_has_aux_in_grad_and_value_and_grad(argnums):
    x, y = np.array([1.0, 2.0]), np.array([0.5, -1.5])
    gradient, aux = srcdiff.grad(with_aux, argnums=argnums, has_aux=True)(x, y)
    assert aux["scale"] is y
    plain = lambda x_, y_: with_aux(x_, y_)[0]  # noqa: E731
    indices = argnums if isinstance(argnums, tuple) else (argnums,)
    for g, index in zip(gradient if isinstance(argnums, tuple) else (gradient,), indices):
        assert_close(g, central_difference(plain, (x, y), index))
    (value, aux), gradient = srcdiff.value_and_grad(with_aux, argnums=argnums, has_aux=True)(x, y)
    assert_close(value, plain(x, y))


def test_lambdas_with_aux_and_on_tuples():
    x = np.array([1.0, 2.0])
    gradient, aux = srcdiff.grad(lambda v: (np.sum(v ** 3), v * 2.0), has_aux=True)(x)
    assert_close(gradient, 3 * x ** 2)
    assert_close(aux, x * 2.0)
    (value, aux), gradient = srcdiff.value_and_grad(lambda v: (np.sum(v ** 2), 7), has_aux=True)(x)
    assert value == 5.0 and aux == 7
    assert srcdiff.grad(lambda t: t[0] * t[1])((2.0, 3.0)) == (3.0, 2.0)
    assert_close(srcdiff.grad(lambda t: np.sum(t[0] * t[1] ** 2))([x, x + 1.0])[1], 2 * x * (x + 1.0))


def returns_pair(x):
    return np.sum(x ** 2), x


def returns_triple(x):
    y = np.sum(x)
    if y > 100.0:
        return y, y, y
    return np.sum(x ** 2)


@pytest.mark.parametrize("func, line", [(returns_pair, "return np.sum(x ** 2), x"), (returns_triple, "return y, y, y")])
@pytest.mark.parametrize("make", [srcdiff.grad, srcdiff.value_and_grad, srcdiff.hessian])
def test_a_tuple_returned_without_has_aux_is_refused_at_its_line(func, line, make):
    with pytest.raises(srcdiff.SrcDiffError, match="has_aux=True") as info:
        make(func)(np.array([1.0, 2.0]))
    assert line in str(info.value) and str(info.value).count(line) == 1


def branchy(x, squared):
    if squared:
        return x * x
    else:
        return 2.0 * x


def power(x, n):
    return x ** n


def flagged(x, mode):
    if mode == "cube":
        return x ** 3
    return x + 0.0


@pytest.mark.parametrize("func, first, second, expected", [
    (branchy, False, True, (9.0, 6.0)),
    (branchy, True, False, (6.0, 2.0)),
    (power, 2, 3, (27.0, 27.0)),
    (flagged, "id", "cube", (27.0, 27.0)),
    (flagged, "cube", "id", (3.0, 1.0)),
])
def test_jvp_cache_keys_hold_every_static_argument(func, first, second, expected):
    srcdiff.jvp(func, (3.0, first), (1.0, None))
    value, tangent = srcdiff.jvp(func, (3.0, second), (1.0, None))
    assert (value, tangent) == expected
    assert srcdiff.grad(func)(3.0, second) == expected[1]
    second_derivative = central_difference(
        lambda x_: central_difference(lambda y: func(y, second), (x_,), 0, 1e-5), (3.0,), 0, 1e-4)
    srcdiff.hvp(func, 3.0, 1.0, first)
    assert_close(srcdiff.hvp(func, 3.0, 1.0, second), second_derivative, rtol=1e-4)
    srcdiff.hessian(func)(3.0, first)
    assert_close(srcdiff.hessian(func)(3.0, second), second_derivative, rtol=1e-4)


def make_defaulted():
    def scaled(x, a=2.0):
        return np.sum(x * x) * a
    return scaled


@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jvp", "hessian", "hvp", "jacobian", "vjp"])
@pytest.mark.parametrize("new", [5.0, -1.5])
def test_defaults_changed_at_run_time_are_honoured(transform, new):
    f = make_defaulted()
    x = np.array([1.0, 2.0])
    run = {"grad": lambda: srcdiff.grad(f)(x), "value_and_grad": lambda: srcdiff.value_and_grad(f)(x)[1],
           "jvp": lambda: srcdiff.jvp(f, (x,), (np.ones(2),))[1], "hessian": lambda: srcdiff.hessian(f)(x),
           "hvp": lambda: srcdiff.hvp(f, x, np.ones(2)), "jacobian": lambda: srcdiff.jacobian(f)(x),
           "vjp": lambda: srcdiff.vjp(f, x)[1](1.0)}[transform]
    made = {"grad": srcdiff.grad(f), "value_and_grad": srcdiff.value_and_grad(f)}.get(transform)
    if made is not None:  # the same gradient object, called before and after: the fast path too
        made(x)
        made(x)
        run = (lambda m: lambda: m(x) if transform == "grad" else m(x)[1])(made)
    before = run()
    f.__defaults__ = (new,)
    after = run()
    assert_close(np.asarray(after), np.asarray(before) * new / 2.0)
    if transform == "value_and_grad":
        assert_close(made(x)[0], np.sum(x * x) * new)


def keyword_default(x, *, a=2.0):
    return x * a


def test_kwdefaults_changed_at_run_time_are_honoured():
    gradient = srcdiff.grad(keyword_default)
    assert gradient(3.0) == 2.0
    keyword_default.__kwdefaults__ = {"a": 4.0}
    try:
        assert gradient(3.0) == 4.0
        assert srcdiff.jvp(keyword_default, (3.0,), (1.0,)) == (12.0, 4.0)
    finally:
        keyword_default.__kwdefaults__ = {"a": 2.0}


# ---- functions whose source the front rewrites, without trees (SciPy's, dict-building) ----

def entropy_with_logsumexp(logits, temperature):
    z = logits / temperature
    p = np.exp(z - scipy.special.logsumexp(z))
    return -np.sum(p * np.log(p))


def builds_a_dict(x):
    parts = {"a": x * x, "b": np.sin(x)}
    return np.sum(parts["a"] + parts["b"])


@pytest.mark.parametrize("f, args", [
    (scipy.special.logsumexp, (np.array([0.3, -1.2, 2.0]),)),
    (scipy.special.log_softmax, (np.array([0.3, -1.2, 2.0]),)),
    (entropy_with_logsumexp, (np.array([0.3, -1.2, 2.0]), 1.7)),
    (builds_a_dict, (np.array([0.4, -0.9]),)),
])
def test_jvp_of_a_rewritten_function_is_its_directional_derivative(f, args):
    """The front rewrites these (no trees among the arguments): jvp went round in circles."""
    x = args[0]
    v = np.linspace(-1.0, 1.0, x.size)
    tangents = (v,) + tuple(None if not isinstance(a, float) else 0.0 for a in args[1:])
    value, tangent = srcdiff.jvp(f, args, tangents)
    eps = 1e-6
    expected = (f(x + eps * v, *args[1:]) - f(x - eps * v, *args[1:])) / (2 * eps)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)
