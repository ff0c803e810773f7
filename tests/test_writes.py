"""Writes by index into an array the function creates (`out[i] = ...`), and their refusals."""

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff


def fill_in_loop(w, x):
    n = len(x)
    out = np.zeros(n)
    for i in range(n):
        out[i] = w[i] * x[i]
    return out.sum()


def fill_squared(w, x):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = np.sin(w[i] * x[i])
    return np.sum(out ** 2)


def rows_in_loop(W, x):
    out = np.zeros((3, 4))
    for i in range(3):
        out[i, :] = np.tanh(W[i] * x)
    return (out * out).sum()


def slice_of_a_copy(w, x):
    out = x.copy()
    out[1:] = out[:-1] * w[1:]
    out[0] += 2.0 * w[0]
    return np.sum(np.sin(out))


def recurrence(w, x):
    out = np.zeros(len(x))
    out[0] = x[0]
    for i in range(1, len(x)):
        out[i] = out[i - 1] * w[i] + np.sin(out[i - 1]) * x[i]
    return out.sum()


def number_into_a_slice(w, x):
    out = np.ones((3, 4))
    out[1, :] = w[0] * x[0]
    out[:, 2] = np.cos(w[1])
    return np.sum(out * np.outer(w[:3], x[:4]))


def written_in_a_branch(w, x):
    out = np.zeros(4)
    for i in range(4):
        if x[i] > 0:
            out[i] = w[i] * x[i]
        else:
            out[i] = w[i] ** 2
    return (out * out).sum()


def read_before_and_after(w, x):
    out = np.full(4, 0.5)
    before = np.sum(out * w)
    out[2] = w[1] * x[3]
    after = np.sum(out * x)
    return before * after


CASES = [
    (fill_in_loop, (5, 5)),
    (fill_squared, (5, 5)),
    (rows_in_loop, ((3, 4), (4,))),
    (slice_of_a_copy, (5, 5)),
    (recurrence, (6, 6)),
    (number_into_a_slice, (4, 4)),
    (written_in_a_branch, (4, 4)),
    (read_before_and_after, (4, 4)),
]


@pytest.mark.parametrize("func, shapes", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("wrt", [0, 1])
def test_write_into_fresh_array_matches_central_differences(func, shapes, wrt):
    rng = np.random.default_rng(7)
    args = [rng.normal(size=s) for s in shapes]
    assert_close(srcdiff.grad(func, wrt=wrt)(*args), central_difference(func, args, wrt))


def test_write_leaves_the_arguments_untouched():
    w, x = np.arange(1.0, 6.0), np.linspace(-1.0, 1.0, 5)
    w0, x0 = w.copy(), x.copy()
    srcdiff.grad(slice_of_a_copy, wrt=(0, 1))(w, x)
    assert np.array_equal(w, w0) and np.array_equal(x, x0)


def test_loop_of_writes_reverses_without_saving_the_array():
    source = srcdiff.grad(fill_in_loop).source
    assert "set_item(" in source and "zero_item(" in source
    assert "stack.append(out" not in source  # the write's adjoint reads no version of out


# ---- refused, with the line ----

def writes_argument(x):
    x[0] = 1.0
    return np.sum(x)


def writes_through_alias(x):
    out = np.zeros(3)
    y = out
    out[0] = x[0]
    return np.sum(y * x)


def writes_under_a_view(x):
    out = np.zeros(3)
    a = out[1:]
    out[1] = x[0]
    return np.sum(a * x[1:])


def writes_into_listed_array(x):
    out = np.zeros(3)
    xs = [out]
    out[0] = x[0]
    return np.sum(xs[0])


def writes_into_view(x):
    out = np.zeros(3)
    a = out[1:]
    a[0] = x[0]
    return np.sum(out * x)


def loop_aliases_written_array(x):
    out = np.zeros(3)
    y = 0.0
    for i in range(3):
        out[i] = x[i]
        y = out
    return np.sum(y * x)


def loop_rebinds_written_array(x):
    out = np.zeros(3)
    for i in range(3):
        out[i] = x[i]
        out = np.ones(3)
    return np.sum(out * x)


def writes_through_newaxis(x):
    out = np.zeros(3)
    out[None] = x
    return np.sum(out)


REFUSED = [
    (writes_argument, "x is an argument", 1),
    (writes_through_alias, "y shares its memory with out", 3),
    (writes_under_a_view, "a shares its memory with out", 3),
    (writes_into_listed_array, "xs shares its memory with out", 3),
    (writes_into_view, "writing into a[0]", 3),
    (loop_aliases_written_array, "y also refers to", 3),
    (loop_rebinds_written_array, "assigns it a different array", 2),
    (writes_through_newaxis, "writing through None", 2),
]


@pytest.mark.parametrize("func, message, offset", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_unsafe_write_is_refused_naming_the_line(func, message, offset):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(func)(np.ones(3))
    assert message in str(info.value)
    assert f"test_writes.py:{func.__code__.co_firstlineno + offset}:" in str(info.value)


def int_array(x):
    out = np.zeros(3, dtype=int)
    out[0] = x[0]
    return np.sum(out * x)


def repeated_index(x):
    out = np.zeros(3)
    out[np.array([0, 0])] = x[:2]
    return np.sum(out * x)


@pytest.mark.parametrize("func, message", [(int_array, "would truncate"),
                                           (repeated_index, "integer index array")])
def test_write_that_would_lose_a_gradient_is_refused_when_run(func, message):
    with pytest.raises(srcdiff.SrcDiffError, match=message):
        srcdiff.grad(func)(np.ones(3))
