"""Rules returning a tuple or list (np.linalg.slogdet, np.split), and rule refusals' locations."""

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff


def unpack_slogdet(A, W):
    sign, logdet = np.linalg.slogdet(A * W)
    return sign * logdet + logdet ** 2


def index_slogdet(A, W):
    return np.linalg.slogdet(A @ W)[1]


def unpack_split(x, w):
    a, b = np.split(x * w, 2)
    return np.sum(np.sin(a) * b)


def index_split(x, w):
    return np.sum(np.split(x, 3)[0] ** 2 * w[:2])


def split_on_axis(x, w):
    top, mid, bottom = np.split(x, [1, 3], axis=1)
    return np.sum(top * w[0]) + np.sum(np.cos(bottom))


def _square(rng):
    return np.eye(3) * 2.0 + 0.3 * rng.normal(size=(3, 3))


CASES = [
    (unpack_slogdet, lambda rng: [_square(rng), 1.0 + 0.1 * rng.normal(size=(3, 3))]),
    (index_slogdet, lambda rng: [_square(rng), _square(rng)]),
    (unpack_split, lambda rng: [rng.normal(size=6), rng.normal(size=6)]),
    (index_split, lambda rng: [rng.normal(size=6), rng.normal(size=2)]),
    (split_on_axis, lambda rng: [rng.normal(size=(2, 5)), rng.normal(size=2)]),
]


@pytest.mark.parametrize("func, make", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("wrt", [0, 1])
def test_tuple_result_matches_central_differences(func, make, wrt):
    args = make(np.random.default_rng(3))
    assert_close(srcdiff.grad(func, wrt=wrt)(*args), central_difference(func, args, wrt))


def test_negative_determinant_sign_carries_no_gradient():
    A = np.array([[0.0, 2.0], [1.5, 0.3]])  # det < 0
    ones = np.ones((2, 2))
    assert_close(srcdiff.grad(unpack_slogdet)(A, ones), central_difference(unpack_slogdet, [A, ones], 0))


# ---- a rule refusing its arguments while the gradient is built names the line ----

def norm_with_ord_three(x):
    y = np.outer(x, x) * 2.0  # a matrix: ord=3 is a vector norm only (any ord of a vector has a rule)
    return np.linalg.norm(y, ord=3)


def convolve_with_a_mode_of_its_own(x):
    y = np.sin(x)
    return np.sum(np.convolve(y, x, mode="circular"))


def repeat_with_zero_count(x):
    y = np.repeat(x, [0, 2, 1])
    return np.sum(y)


@pytest.mark.parametrize("func, message, offset", [
    (norm_with_ord_three, "ord=3", 2),
    (convolve_with_a_mode_of_its_own, "mode='circular'", 2),
    (repeat_with_zero_count, "zero count", 1),
], ids=["norm", "convolve", "repeat"])
def test_rule_refusal_names_the_line(func, message, offset):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(func)(np.array([1.0, -2.0, 0.5]))
    text = str(info.value)
    assert message in text
    assert f"test_tuple_results.py:{func.__code__.co_firstlineno + offset}:" in text
