"""``a = b = np.zeros(3)`` (found by the red team's fourth wave): Python evaluates the value
once, so a and b are one array and a write through either is seen through both.  srcdiff
evaluated the value once per target, two arrays: value and gradient came back silently wrong
(``s = t = np.ones(2); s *= w; return np.sum(t)`` gave 2.0 and [0, 0], truth 3.5 and [1, 1]).
Now the second name is the first's array: writes through an alias are refused at the line, as
for ``b = a``, and the chains people write (state initialised to zeros, counters, Adam's
moments) are differentiated, against central differences."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import assert_close, central_difference, hessian_difference

import srcdiff


def write_through_both(w):
    a = b = np.zeros(3)
    a[0] = w[0]
    b[1] = w[1] * 2
    return np.sum(a * b) + np.sum(a ** 2)


def update_one_read_other(w):
    s = t = np.ones(3)
    s *= w
    return np.sum(t)


def slice_write_of_chain(w):
    out = acc = np.zeros(3)
    acc[1:] = w[:2] ** 2
    return np.sum(out * w)


@pytest.mark.parametrize("f", [write_through_both, update_one_read_other, slice_write_of_chain],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", ["grad", "value_and_grad", "jvp", "hessian", "numba"])
def test_a_write_through_a_chained_alias_is_refused_at_its_line(f, how):
    w = np.array([1.5, 2.0, 0.5])
    call = {"grad": lambda: srcdiff.grad(f)(w), "value_and_grad": lambda: srcdiff.value_and_grad(f)(w),
            "jvp": lambda: srcdiff.jvp(f, (w,), (np.ones(3),)), "hessian": lambda: srcdiff.hessian(f)(w),
            "numba": lambda: srcdiff.grad(f, jit="numba")(w)}[how]
    if how == "numba":
        pytest.importorskip("numba")
    with pytest.raises(srcdiff.SrcDiffError, match="shares its memory") as info:
        call()
    assert "test_chained_assignment.py:" in str(info.value).splitlines()[0]


def recurrent_state(w):
    h = c = np.zeros(3)
    for _ in range(2):
        h, c = np.tanh(w * h + c + 0.5), c + w
    return np.sum(h * c)


def counters(x):
    total = count = 0.0
    for v in x:
        total += v ** 2
        count += 1.0
    return total / count


def adam_moments(w):
    m = v = np.zeros_like(w)
    g = 2 * w + np.sin(w)
    m = 0.9 * m + 0.1 * g
    v = 0.99 * v + 0.01 * g ** 2
    return np.sum(w - 0.1 * m / (np.sqrt(v) + 1e-8))


def three_names(w):
    a = b = c = w * 2.0
    return np.sum(a * b * np.sin(c))


def scalars(x):
    lo = hi = x[0]
    lo = lo - 1.0
    return lo * hi + x[1] * x[2]


CHAINS = [recurrent_state, counters, adam_moments, three_names, scalars]
POINT = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("f", CHAINS, ids=lambda f: f.__name__)
def test_chains_without_writes_are_differentiated(f):
    want = central_difference(f, (POINT,), 0)
    value, got = srcdiff.value_and_grad(f)(POINT)
    assert_close(value, f(POINT), rtol=1e-12, atol=1e-12)
    assert_close(got, want, rtol=1e-5, atol=1e-6)
    v = np.array([0.5, 1.0, -2.0])
    assert_close(srcdiff.jvp(f, (POINT,), (v,))[1], want @ v, rtol=1e-5, atol=1e-6)
    assert_close(srcdiff.hessian(f)(POINT), hessian_difference(f, (POINT,)), rtol=1e-4, atol=1e-4)
