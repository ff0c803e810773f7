"""A value the derivative does not need is still computed where f would raise computing it
(issue 24.4): no check can compare the shapes of ``np.linalg.solve``, ``np.einsum``,
``np.concatenate``..., so the call stays in the forward code; a dropped loop keeps the checks
of what it computed.  Every transformation raises where f raises, and answers as before
where the shapes agree."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff


def unused_solve(w, A):
    s = np.linalg.solve(A, w)  # noqa: F841
    return np.sum(w ** 2)


def unused_einsum(w, A):
    t = np.einsum("ij,j->i", A, w)  # noqa: F841
    return np.sum(np.sin(w))


def unused_concatenate(w, A):
    c = np.concatenate([A, w[None, :]], axis=1)  # noqa: F841
    return np.sum(w ** 3)


def unused_in_a_loop(w, A):
    total = 0.0
    for k in range(3):
        s = np.linalg.solve(A, w * k)  # noqa: F841
        total = total + np.sum(np.cos(w))
    return total


def unused_in_a_branch(w, A):
    if np.sum(w) > -100.0:
        s = np.stack([A[0], w])  # noqa: F841
    return np.sum(w * w)


def only_in_the_value(w, A):
    return np.sum(np.linalg.solve(A, w)) * 0.0 + np.sum(w ** 2)


PROGRAMS = [unused_solve, unused_einsum, unused_concatenate, unused_in_a_loop, unused_in_a_branch,
            only_in_the_value]
HOW = ["grad", "value_and_grad", "hvp", "jvp", "vjp", "numba"]


def _run(how, f, w, A):
    if how == "grad":
        return srcdiff.grad(f)(w, A)
    if how == "value_and_grad":
        return srcdiff.value_and_grad(f)(w, A)[1]
    if how == "hvp":
        return srcdiff.hvp(f, w, np.ones_like(w), A)
    if how == "jvp":
        return srcdiff.jvp(f, (w, A), (np.ones_like(w), None))[1]
    if how == "vjp":
        return srcdiff.vjp(f, w, A)[1](1.0)
    pytest.importorskip("numba")
    return srcdiff.grad(f, jit="numba")(w, A)


def _cases():
    """Every program in every transformation; numba's compiles (seconds each on a cold cache)
    of all but one program in the slow set."""
    return [pytest.param(f, how, id=f"{f.__name__}-{how}",
                         marks=pytest.mark.slow if how == "numba" and f is not unused_in_a_loop else ())
            for f in PROGRAMS for how in HOW]


@pytest.mark.parametrize(("f", "how"), _cases())
def test_raises_where_f_raises(f, how):
    w, A = np.array([0.3, -0.5, 0.9]), np.eye(4) + 0.1
    with pytest.raises(ValueError):
        f(w, A)
    with pytest.raises((ValueError, srcdiff.SrcDiffError)):
        _run(how, f, w, A)


@pytest.mark.parametrize(("f", "how"), _cases())
def test_answers_where_the_shapes_agree(f, how):
    w, A = np.array([0.3, -0.5, 0.9]), np.eye(3) * 2.0 + 0.1
    if f is unused_concatenate:
        A = np.ones((1, 2))
    got = _run(how, f, w, A)
    gradient = central_difference(f, (w, A), 0)
    if how == "jvp":
        expected = gradient @ np.ones(3)
    elif how == "hvp":
        expected = central_difference(lambda w_, A_: srcdiff.grad(f)(w_, A_) @ np.ones(3), (w, A), 0)
    else:
        expected = gradient
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


def unpacked_pair(w):
    pair = (np.sum(w * w), w * 2.0)  # a number and an array
    a, b = pair
    return a * np.sum(b)


def test_a_tuple_of_values_is_not_computed_for_errors():
    w = np.array([0.5, -1.0, 2.0])
    gradient = srcdiff.grad(unpacked_pair)
    np.testing.assert_allclose(gradient(w), central_difference(unpacked_pair, (w,), 0), rtol=1e-6)
    code = [line.strip() for line in gradient.source.splitlines()]
    assert not any(line.startswith(("computed_for_errors", "pair =")) for line in code), gradient.source
