"""Writes by index into an array the function creates (`out[i] = ...`), and their refusals."""

import numpy as np
import pytest

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
def test_write_into_fresh_array_matches_central_differences(func, shapes, wrt, rng, check_gradient):
    check_gradient(func, [rng.normal(size=s) for s in shapes], wrt, rtol=1e-6, atol=1e-7)


def test_write_leaves_the_arguments_untouched():
    w, x = np.arange(1.0, 6.0), np.linspace(-1.0, 1.0, 5)
    w0, x0 = w.copy(), x.copy()
    srcdiff.grad(slice_of_a_copy, wrt=(0, 1))(w, x)
    assert np.array_equal(w, w0) and np.array_equal(x, x0)


def test_loop_of_writes_reverses_without_saving_the_array():
    source = srcdiff.grad(fill_in_loop).source
    # the loop reads out only to write into it: written in place, plain NumPy, no helper
    assert "set_item(" not in source and "zero_item(" not in source and "        out[i] = t3\n" in source
    assert "stack.append(out" not in source  # the write's adjoint reads no version of out


def sums_in_loop(x, n):
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.sum(x * i)
    return np.sum(out ** 2)


def test_a_loop_writing_an_element_per_iteration_needs_no_helper_and_no_fill(rng, check_gradient):
    x = rng.normal(size=3)
    df = srcdiff.grad(sums_in_loop)
    check_gradient(sums_in_loop, (x, 4), gradient=df)
    source = df.source_for(x, 4)
    assert "        out[i] = (x * i).sum()\n" in source
    for unwanted in ("set_item", "zero_item", "unbroadcast", "np.full"):
        assert unwanted not in source, unwanted


def rows_of_a_new_matrix(X):
    Y = np.zeros((2, 3))
    Y[0, :] = X[1] * 2.0
    Y[1, 1] = X[0, 2]
    return np.sum(Y ** 2)


def test_a_row_written_whole_passes_its_adjoint_back_as_it_is(rng, check_gradient):
    X = rng.normal(size=(2, 3))
    df = srcdiff.grad(rows_of_a_new_matrix)
    check_gradient(rows_of_a_new_matrix, (X,), gradient=df)
    source = df.source_for(X)
    assert "    X_bar[1] += Y_1_bar[0, :] * 2.0\n" in source  # the row broadcast into a row: same length
    for unwanted in ("set_item", "zero_item", "unbroadcast"):
        assert unwanted not in source, unwanted


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


def writes_under_broadcast_view(x):
    y = np.zeros(3)
    b = np.broadcast_to(y, (2, 3))
    y[0] = x[0]
    return np.sum(b * x)


REFUSED = [
    (writes_under_broadcast_view, "b shares its memory with y", 3),
    (writes_argument, "x is an argument", 1),
    (writes_into_listed_array, "xs shares its memory with out", 3),
    (loop_aliases_written_array, "y also refers to", 3),
    (loop_rebinds_written_array, "assigns it a different array", 2),
    (writes_through_newaxis, "writing through None", 2),
]


@pytest.mark.parametrize("func", [writes_through_alias, writes_under_a_view, writes_into_view])
def test_a_write_through_a_second_name_or_view_has_numpys_meaning(func, rng, check_gradient):
    # (refused before; frontend/view_writes.py writes it into the array itself)
    check_gradient(func, (rng.normal(size=3),))


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


# ---- `y += v`: NumPy updates an array in place, a number is replaced ----

def scalar_accumulator(x, w):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * w
        s *= 1.1
    return s


def aliased_python_float(x, w):
    s = w * 2.0
    t = s
    s += 1.0
    return s * t * np.sum(x)


def fresh_accumulator(x, w):
    acc = np.zeros(3)
    acc += x
    acc *= x * w
    return np.sum(acc)


def fresh_accumulator_over_rows(X, w):
    acc = np.zeros(3)
    for row in X:
        acc += row * row * w
    return np.sum(acc)


def argument_updated(x, w):
    x += w
    x *= x
    return np.sum(x)


def view_of_a_rebound_argument(x, w):
    y = x[:2]
    x = x * 3.0
    y += w
    return np.sum(x) + np.sum(y * y)


def new_array_updated(x, w):
    h = x * 2.0
    h += w * x
    h /= 3.0
    return np.sum(h * h)


def previous_array_kept(x, w):
    cur = x * 1.0
    s = 0.0
    for _ in range(3):
        prev = cur
        cur = cur * w
        cur += prev
        s = s + np.sum(prev * cur)
    return s


def elements_updated(x, w):
    s = 0.0
    for v in x:
        v *= w
        s = s + v * v
    return s


def _accumulate(s, v):
    s += v * v
    return s


def number_updated_in_a_helper(x, w):
    return _accumulate(w, 3.0) * np.sum(x)


def _fresh_in_helper(a, w):
    b = a * 1.0
    b += w
    return np.sum(b * b)


def helper_updates_its_own_array(x, w):
    return _fresh_in_helper(x, w) + np.sum(x)


UPDATES = [scalar_accumulator, aliased_python_float, fresh_accumulator, fresh_accumulator_over_rows,
           argument_updated, view_of_a_rebound_argument, new_array_updated, previous_array_kept,
           elements_updated, number_updated_in_a_helper, helper_updates_its_own_array]


@pytest.mark.parametrize("func", UPDATES, ids=[f.__name__ for f in UPDATES])
@pytest.mark.parametrize("wrt", [0, 1])
@pytest.mark.parametrize("w", [0.7, np.float64(0.7)], ids=["float", "float64"])
def test_augmented_assignment_matches_central_differences(func, wrt, w, check_gradient):
    x = np.array([0.3, -1.2, 2.5]) if func is not fresh_accumulator_over_rows \
        else np.array([[0.3, -1.2, 2.5], [1.5, 0.2, -0.4]])
    check_gradient(func, (x, w), wrt, rtol=1e-6, atol=1e-7)


def alias_updated(x):
    y = x
    y += 1.0
    return np.sum(x * y)


def aliased_array(x):
    s = x * 2.0
    t = s
    s += 1.0
    return np.sum(s * t)


def row_updated(X):
    s = 0.0
    for row in X:
        row += 1.0
        s = s + np.sum(row)
    return s * np.sum(X)


def zero_d_array_aliased(x):
    y = np.zeros(())
    z = y
    z += np.sum(x)
    return y * np.sum(x)


def zero_d_product_aliased(x):
    y = np.sum(x) * np.ones(())  # a number times a 0-d array: NumPy gives a number, not an array
    z = y
    z += 1.0
    return y * np.sum(x)


def test_a_zero_d_result_of_arithmetic_is_a_number(rng, check_gradient):
    check_gradient(zero_d_product_aliased, (rng.normal(size=3),))


def alias_on_one_side(x, c=1.0):
    if c > 0:
        y = x
    else:
        y = x * 1.0
    y += 1.0
    return np.sum(x * y)


def appended_then_updated(x):
    acc = x * 1.0
    xs = []
    for _ in range(3):
        acc += x
        xs.append(acc)
    return np.sum(xs[0] * x)


def kept_then_updated(x):
    acc = x * 1.0
    keep = x * 0.0
    for _ in range(3):
        acc += 1.0
        keep = acc
    return np.sum(keep * x) + np.sum(acc)


def _add_in_place(a):
    a -= 1.0
    return np.sum(a)


def helper_updates_the_callers_array(x):
    return _add_in_place(x) * np.sum(x)


SHARED_UPDATES = [
    (alias_updated, "x shares its memory with y", 2),
    (aliased_array, "t shares its memory with s", 3),
    (row_updated, "X shares its memory with row", 3),
    (zero_d_array_aliased, "y shares its memory with z", 3),
    (alias_on_one_side, "x shares its memory with y", 5),
    (appended_then_updated, "xs shares its memory with acc", 4),
    (kept_then_updated, "keep shares its memory with acc", 4),
    (_add_in_place, "x shares its memory with a", 1),  # the helper is copied into its caller
]


@pytest.mark.parametrize("func, message, offset", SHARED_UPDATES, ids=[r[0].__name__ for r in SHARED_UPDATES])
def test_update_of_a_shared_array_is_refused_naming_the_line(func, message, offset):
    f = helper_updates_the_callers_array if func is _add_in_place else func
    x = np.ones((2, 3)) if func is row_updated else np.array([0.3, -1.2, 2.5])
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(x)
    assert message in str(info.value) and "write `" in str(info.value)
    assert f"test_writes.py:{func.__code__.co_firstlineno + offset}:" in str(info.value)
    assert np.array_equal(x, np.ones((2, 3)) if func is row_updated else [0.3, -1.2, 2.5])


def astype_without_copy(w):
    g = w.astype(float, copy=False)  # the same array when w is float already
    g += 1.0
    return np.sum(w * w)


def test_astype_without_a_copy_is_an_alias():
    with pytest.raises(srcdiff.SrcDiffError, match="w shares its memory with g"):
        srcdiff.grad(astype_without_copy)(np.array([1.0, 2.0]))
