"""What the red team's sixth wave found (issues 23 and 24), each a class with variants of its own.
A class still open is a strict xfail naming it; references are float64 central differences of
the function (tests/numeric.py) or derivatives written by hand."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special
from numeric import central_difference

import srcdiff

# ---- 1. a float32 parameter's gradient is float32, whatever the function's constants make it ----
# ``np.eye(C)[labels]`` (float64 targets), ``q @ k.T / np.sqrt(d)`` (a NumPy float64 number), a
# float64 stiffness matrix filled from float32 values, ``np.linspace`` weights: the function computes
# in float64 and the gradient came back float64 from grad, value_and_grad, vjp and the Hessian.  And
# where the function computes in float32 (``h @ h`` of 1-D arrays), the matmul adjoint made the
# Python seed 1.0 a float64 array (np.asarray), and the gradient was float64 too.


def smoothed_targets(z):
    targets = np.eye(3)[np.array([0, 2, 1, 2])] * 0.9 + 0.1 / 3
    return -np.sum(targets * scipy.special.log_softmax(z, axis=1))


def scaled_scores(q):
    s = q @ q.T / np.sqrt(q.shape[1])
    return np.sum(np.tanh(s))


def filled_float64(k):
    K = np.zeros((3, 3))
    for i in range(3):
        K[i, i] = k[i] + 2.0
    return np.sum(np.linalg.solve(K, np.ones(3)))


def linspace_weights(x):
    return np.sum(np.linspace(0.0, 1.0, x.shape[-1]) * np.sin(x))


def vector_dot_seed(r):
    h = np.cross(r, np.array([0.5, -1.0, 2.0], dtype=np.float32))
    return 0.5 * (r @ r) + 0.1 * (h @ h)


def float64_casts(x):
    return np.sum(np.cos(x.astype(np.float64)) * np.arange(x.size).reshape(x.shape))


PROMOTING = [smoothed_targets, scaled_scores, filled_float64, linspace_weights, vector_dot_seed, float64_casts]
POINTS = {smoothed_targets: (4, 3), scaled_scores: (3, 2), filled_float64: (3,), linspace_weights: (2, 3),
          vector_dot_seed: (3,), float64_casts: (2, 2)}


def _point(f):
    return (np.random.default_rng(len(f.__name__)).normal(size=POINTS[f]) * 0.5).astype(np.float32)


def _reference(f, x):
    return central_difference(f, (x.astype(np.float64),), 0)


@pytest.mark.parametrize("how", ["grad", "value_and_grad", "vjp", "tree"])
@pytest.mark.parametrize("f", PROMOTING, ids=lambda f: f.__name__)
def test_a_float32_parameter_gets_a_float32_gradient(f, how):
    x = _point(f)
    got = {"grad": lambda: srcdiff.grad(f)(x),
           "value_and_grad": lambda: srcdiff.value_and_grad(f)(x)[1],
           "vjp": lambda: srcdiff.vjp(f, x)[1](1.0),
           "tree": lambda: srcdiff.grad(_in_a_dict(f))({"x": x})["x"]}[how]()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _reference(f, x), rtol=2e-3, atol=2e-3)


def _in_a_dict(f):
    def wrapped(params):
        return f(params["x"])
    return wrapped


@pytest.mark.parametrize("f", PROMOTING, ids=lambda f: f.__name__)
def test_a_float32_parameter_gets_a_float32_hessian(f):
    x = _point(f)
    got = srcdiff.hessian(f)(x)
    assert got.dtype == np.float32
    want = srcdiff.hessian(f)(x.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)


def test_float64_arguments_keep_float64_gradients():
    x = _point(scaled_scores).astype(np.float64)
    assert srcdiff.grad(scaled_scores)(x).dtype == np.float64
    assert "float32" not in srcdiff.grad(scaled_scores).source_for(x)


# ---- 2. higher order through a whole-array read with None in a loop ----
# ``alpha[:, None] + log_A`` in an HMM forward loop: the gradient wrote its adjoint through None
# (``alpha_bar[:, None] = t_bar``, in place because it is in a loop), code the second derivative
# refused ("writing through None ... is not supported").  A read of the whole array is added
# functionally, with its rule, as outside loops.

A = np.arange(9.0).reshape(3, 3) / 10


def hmm_like(x):
    a = x
    for _ in range(2):
        a = np.log(np.sum(np.exp(a[:, None] + A), axis=0))
    return np.sum(a)


def rows_broadcast(x):
    a = x
    for _ in range(2):
        a = np.sin(a[None, :] * A).sum(axis=1)
    return np.sum(a ** 2)


def outer_in_loop(x):
    a = x
    for _ in range(2):
        a = np.tanh(a[:, None] * a[None, :] + A).sum(axis=0)
    return np.sum(a)


def ellipsis_newaxis(x):
    a = x
    for _ in range(3):
        a = np.cos(a[..., None] * A[0]).mean(axis=-1)
    return np.sum(a)


def while_newaxis(x):
    a, n = x, 0
    while n < 2:
        a = scipy.special.logsumexp(a[:, None] - A, axis=0)
        n += 1
    return np.sum(a ** 2)


NEWAXIS = [hmm_like, rows_broadcast, outer_in_loop, ellipsis_newaxis, while_newaxis]


def _gradient_differences(f, x, eps=1e-5):
    g = srcdiff.grad(f)
    return np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(x.size)], axis=-1)


@pytest.mark.parametrize("how", ["hessian", "hvp", "jvp_of_grad"])
@pytest.mark.parametrize("f", NEWAXIS, ids=lambda f: f.__name__)
def test_higher_order_through_a_newaxis_read_in_a_loop(f, how):
    x = np.array([0.3, -0.2, 0.5])
    np.testing.assert_allclose(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-6, atol=1e-7)
    want = _gradient_differences(f, x)
    v = np.array([0.4, -1.0, 0.7])
    if how == "hessian":
        np.testing.assert_allclose(srcdiff.hessian(f)(x), want, rtol=1e-5, atol=1e-6)
    elif how == "hvp":
        np.testing.assert_allclose(srcdiff.hvp(f, x, v), want @ v, rtol=1e-5, atol=1e-6)
    else:
        _, tangent = srcdiff.jvp(srcdiff.grad(f), (x,), (v,))
        np.testing.assert_allclose(tangent, want @ v, rtol=1e-5, atol=1e-6)
