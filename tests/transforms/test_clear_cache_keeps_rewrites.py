"""A gradient made before `srcdiff.clear_cache()` still works after it, for functions srcdiff
rewrites before differentiating (a `try`, a lambda, a dict built inside, a dict argument, a
partial): it used to read the original source of the rewritten function again and refuse its
`try` or dict at the user's line.  Every transformation that keeps an object between calls,
checked against central differences before and after."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

X = np.array([0.3, -0.7, 1.1])


def with_try(x):
    try:
        L = np.linalg.cholesky(np.diag(x * x + 1.0))
    except np.linalg.LinAlgError:
        L = np.diag(x)
    return np.sum(L * L) + np.sum(np.sin(x))


def with_lambda(x):
    sq = lambda z: z * z  # noqa: E731
    return np.sum(sq(x) * np.cos(x))


def with_dict(x):
    d = {"a": x * 2.0, "b": np.sin(x)}
    return np.sum(d["a"] * d["b"])


def _scaled(x, s):
    return np.sum(s * x ** 3)


def with_partial(x):
    f = functools.partial(_scaled, s=0.5)
    return f(x) + np.sum(np.tanh(x))


def of_a_dict(p):
    return np.sum(p["w"] ** 3 * np.cos(p["w"]))


PROGRAMS = [with_try, with_lambda, with_dict, with_partial, of_a_dict]


def _point(f):
    return {"w": X.copy()} if f is of_a_dict else X.copy()


def _plain(f):
    return (lambda x: f({"w": x})) if f is of_a_dict else f


def _leaf(result):
    return result["w"] if isinstance(result, dict) else result


def _gradient(f, x):
    return central_difference(_plain(f), (x,), 0)


MAKERS = {
    "grad": lambda f: (lambda g: lambda a: _leaf(g(a)))(srcdiff.grad(f)),
    "value_and_grad": lambda f: (lambda g: lambda a: _leaf(g(a)[1]))(srcdiff.value_and_grad(f)),
    "hessian_row": lambda f: (lambda h: lambda a: np.asarray(_leaf(_leaf(h(a))))[0])(srcdiff.hessian(f)),
    "numba": lambda f: (lambda g: lambda a: _leaf(g(a)))(srcdiff.grad(f, jit="numba")),
}


def _reference(name, f):
    if name == "hessian_row":
        g = srcdiff.grad(f)  # (checked against central differences of f by the "grad" rows)
        return central_difference(lambda x: _leaf(g({"w": x} if f is of_a_dict else x))[0], (X,), 0)
    return _gradient(f, X)


@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_a_gradient_made_before_clear_cache_works_after_it(f, name):
    if name == "numba":
        pytest.importorskip("numba")
    run = MAKERS[name](f)
    want = _reference(name, f)
    np.testing.assert_allclose(run(_point(f)), want, rtol=1e-6, atol=1e-8)
    srcdiff.clear_cache()
    np.testing.assert_allclose(run(_point(f)), want, rtol=1e-6, atol=1e-8)
