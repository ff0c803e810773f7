"""Python constructs inside differentiated code: nested conditional expressions, nested
comprehensions and lists, statements run for their effect (print, logging, assert, raise),
and the refusals that must name the user's line and say what to write instead.

Every gradient is compared with float64 central differences, and every value with the
function's own."""

import logging
import math
import warnings

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff


def _check(f, args, wrt=0):
    """value_and_grad and grad agree with the function and with central differences."""
    value, gradient = srcdiff.value_and_grad(f, wrt=wrt)(*args)
    assert value is not None
    assert_close(value, f(*args))
    assert_close(gradient, central_difference(f, args, wrt), rtol=1e-5, atol=1e-6)
    assert_close(srcdiff.grad(f, wrt=wrt)(*args), gradient)


def _refused(f, args, *words):
    """`f` is refused with a SrcDiffError naming this file, a line, and `words`."""
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(*args)
    text = str(info.value)
    assert info.value.location is not None and info.value.location.filename == __file__, text
    assert "hint:" in text, text
    for word in words:
        assert word in text, text
    return info.value


SCALARS = [-3.5, -2.5, -1.5, -0.7, 0.2, 0.7, 1.3, 1.7, 2.5]
VECTORS = [np.array(v) for v in ([0.7, 0.1, -0.9], [-0.3, 0.8, 1.2], [1.1, -0.6, 0.4], [-0.2, -0.4, -0.6])]


# ---- 1. nested conditional expressions ----

def smooth_hinge(x, lo=1.0, hi=2.0):
    return 0.0 if x < lo else (x - lo) ** 2 if x < hi else 2.0 * (hi - lo) * (x - hi) + (hi - lo) ** 2


def nested_in_both_arms(x):
    return (x * x if x > 1.0 else x ** 3 if x > 0.0 else -x) if x > -1.0 else \
        (math.sin(x) if x > -2.0 else (x + 2.0) ** 2 + math.sin(-2.0) if x > -3.0 else 3.0 * x)


def nested_in_the_test(x):
    y = x * 2.0
    return (y if x > 0.0 else -y) * x if (x * x if x > 0.5 else -x) > 0.3 else y ** 2


def four_levels(x):
    return x if x < -3.0 else x * x if x < -2.0 else math.sin(x) if x < -1.0 else \
        math.exp(x) if x < 0.0 else x ** 3


def nested_assigned_then_used(x):
    a = 1.0 if x > 2.0 else x if x > 0.0 else -x
    b = a * a if a > 0.5 else a
    return a * b + (b if b > 0.3 else 0.3)


@pytest.mark.parametrize("f", [smooth_hinge, nested_in_both_arms, nested_in_the_test, four_levels,
                               nested_assigned_then_used])
@pytest.mark.parametrize("x", SCALARS)
def test_nested_conditional_expression(f, x):
    _check(f, (x,))


def test_nested_conditional_expression_has_no_none_branch():
    source = srcdiff.value_and_grad(smooth_hinge).source
    assert "= None" not in source


def nested_in_a_loop(xs):
    total = 0.0
    for v in xs:
        total = total + (v * v if v > 0.5 else np.sin(v) if v > -0.5 else -v ** 3)
    return total


def nested_in_a_loop_twice(x):
    total = 0.0
    for i in range(len(x)):
        v = x[i]
        total = total + (v * v if v > 0.5 else np.sin(v) if v > -0.5 else -v ** 3)
        total = total * (1.0 if total > 0.0 else 0.5 if total > -1.0 else 0.25)
    return total


def nested_in_a_comprehension(x):
    return np.sum(np.array([v * v if v > 0.5 else np.sin(v) if v > -0.5 else -v ** 3 for v in x]))


def nested_in_a_generator(x):
    return sum((v if v > 0.0 else 0.1 * v) if i % 2 == 0 else (v * v if v > 0.3 else v ** 3)
               for i, v in enumerate(x))


def nested_on_array_items(x):
    a = x[0] if x[1] > 0 else x[1] if x[2] > 0 else x[2] if x[0] > 0 else x[0] * x[1]
    return a * np.sum(x)


def nested_with_array_values(x):
    w = np.sum(x) if x[0] > 0.0 else np.prod(x) if x[1] > 0.0 else np.sum(x * x)
    k = 0
    s = 0.0
    while k < 3:
        s = s + (w if k == 0 else w * w if k == 1 else np.sin(w))
        k = k + 1
    return s


def nested_array_arms(x):
    y = np.tanh(x) if x[0] > 0.0 else x * x if x[1] > 0.0 else np.exp(x)
    return np.sum(y * x)


@pytest.mark.parametrize("f", [nested_in_a_loop, nested_in_a_loop_twice, nested_in_a_comprehension,
                               nested_in_a_generator, nested_on_array_items, nested_with_array_values,
                               nested_array_arms])
@pytest.mark.parametrize("x", VECTORS, ids=range(len(VECTORS)))
def test_nested_conditional_expression_on_arrays(f, x):
    _check(f, (x,))


# ---- 2. nested comprehensions and lists ----

def matrix_of_products(X):
    n = X.shape[0]
    A = np.array([[X[i, j] * X[j, i] for j in range(n)] for i in range(n)])
    return np.sum(A * A)


def filtered_rows(X):
    n = X.shape[0]
    A = np.array([[X[i, j] for j in range(n) if j != i] for i in range(n)])
    return np.sum(np.sin(A))


def three_levels(X):
    n = X.shape[0]
    T = np.array([[[X[i, j] * X[k, j] for k in range(n)] for j in range(n)] for i in range(n)])
    return np.sum(T ** 2)


def rows_then_matmul(X):
    n = X.shape[0]
    return np.sum(np.array([[X[i, j] for j in range(n)] for i in range(n)]) @ X)


def stacked_row_arrays(X):
    n = X.shape[0]
    A = np.stack([np.array([X[i, j] ** 2 for j in range(n)]) for i in range(n)])
    return np.sum(A * X)


def sum_of_sums(X):
    n = X.shape[0]
    return sum(sum(X[i, j] * X[j, i] for j in range(n)) for i in range(n))


def sums_of_rows(X):
    return sum([sum([v * v for v in row]) for row in X])


def rows_of_pairs(X):
    n = X.shape[0]
    return np.sum(np.array([(X[i, 0] * X[i, 1], X[i, 2] ** 2) for i in range(n)]) ** 2)


def rows_appended_as_arrays(X):
    n = X.shape[0]
    rows = []
    for i in range(n):
        row = []
        for j in range(n):
            row.append(X[i, j] * 2.0)
        rows.append(np.array(row))
    return np.sum(np.array(rows) ** 2)


def array_of_written_list(X):
    a, b = X[0, 0], X[1, 1]
    return np.sum(np.array([a, b * a, np.sin(b)]) ** 2) + np.sum(np.array([[a, b], [b * a, 1.0]]) @ X[:2, :2])


def array_of_written_tuple(X):
    v = np.asarray((X[0, 1], X[1, 0] * X[0, 1]))
    return np.sum(v * v) + np.sum(np.array([[1.0, -2.0], [0.5, 3.0]]) @ v)


def list_chosen_by_a_branch(X):
    if X[0, 0] > 0:
        xs = [X[0, 0], X[0, 1] * X[1, 1]]
    else:
        xs = [X[1, 0], X[0, 0]]
    return np.sum(np.stack(xs) ** 2) + np.sum(np.array(xs))


MATRICES = [np.array([[0.3, -1.2, 0.5], [0.9, -0.4, 1.1], [0.2, 0.5, -0.8]]),
            np.array([[-0.7, 0.2, 1.5], [0.4, 0.8, -0.3], [1.2, -0.5, 0.6]])]


@pytest.mark.parametrize("f", [matrix_of_products, filtered_rows, three_levels, rows_then_matmul,
                               stacked_row_arrays, sum_of_sums, sums_of_rows, rows_of_pairs,
                               rows_appended_as_arrays, array_of_written_list, array_of_written_tuple,
                               list_chosen_by_a_branch])
@pytest.mark.parametrize("X", MATRICES, ids=range(len(MATRICES)))
def test_nested_comprehensions_and_lists(f, X):
    _check(f, (X,))


def numpy_of_comprehensions(X):
    x = X[0]
    return np.sum([v * v for v in x]) + np.mean([np.sin(v) for v in X[1]]) + np.sum(np.exp([x[0], x[1] * x[2]]))


def numpy_of_a_built_list(X):
    hs = []
    for v in X[0]:
        hs.append(np.tanh(v) * X[1, 1])
    return np.max(hs) + np.dot(hs, X[2]) + np.sum(np.linalg.norm([X[0] * 2.0, X[1]], axis=1))


def numpy_of_nested_comprehension(X):
    n = X.shape[0]
    return np.sum([[X[i, j] * X[j, i] for j in range(n)] for i in range(n)]) + \
        np.mean([[np.sin(X[i, j]) for j in range(n)] for i in range(n)], axis=0)[1]


def first_row_of_a_ragged_comprehension(X):
    n = X.shape[0]
    return np.mean(np.asarray([[np.sin(X[i, j]) for j in range(n) if j >= i] for i in range(n)][0]))


@pytest.mark.parametrize("f", [numpy_of_comprehensions, numpy_of_a_built_list, numpy_of_nested_comprehension])
@pytest.mark.parametrize("X", MATRICES, ids=range(len(MATRICES)))
def test_a_list_given_to_numpy_is_the_array_numpy_makes(f, X):
    _check(f, (X,))


def test_a_comprehension_of_comprehensions_indexed_before_numpy_is_refused():
    # the outer list (of ragged rows) is indexed, not given to NumPy: its rows stay lists
    _refused(first_row_of_a_ragged_comprehension, (MATRICES[0],), "inside another list")


def slices_a_list(x):
    xs = [x[0], x[1] * 2.0, x[2]]
    ys = xs[1:]
    return ys[0] * 3.0 + ys[1] * xs[0]


def list_or_array_by_branch(x):
    if x[0] > 0.0:
        xs = [x[0], x[1]]
    else:
        xs = x[:2] * 2.0
    return np.sum(np.stack(xs))


def slices_a_list_from_a_computed_start(x, k=1):
    xs = [x[0], x[1] * 2.0, x[2]]
    ys = xs[k:]
    return ys[0] * 3.0 + ys[1] * xs[0]


def test_slicing_a_list_with_literal_bounds_is_its_items():
    # (list_joins.py: the comprehension of the items; its adjoint once went into the list's by
    # concatenation, a wrong gradient)
    _check(slices_a_list, (np.array([0.5, 1.5, -0.3]),))


def test_slicing_a_list_with_a_computed_bound_is_a_list_of_its_items():
    # (refused until wave 35a: the adjoint of the slice, a list, is added back item by item, list_add)
    _check(slices_a_list_from_a_computed_start, (np.array([0.5, 1.5, -0.3]),))


def test_a_list_on_one_side_of_a_branch_only_is_refused():
    _refused(list_or_array_by_branch, (np.array([0.5, 1.5]),), "xs is a list on one side of this branch")


def comprehension_over_a_comprehension(X):
    return sum([v * 2.0 for v in [w * w for w in X[0]]])


def two_generators(X):
    x = X[0]
    n = len(x)
    return np.sum(np.array([x[i] * x[j] for i in range(n) for j in range(n) if i != j]))


def conditional_rows(X):
    n = X.shape[0]
    A = np.array([[X[i, j] if X[i, j] > 0 else X[i, j] ** 2 if X[i, j] > -0.45 else 0.1 * X[i, j]
                   for j in range(n)] for i in range(n)])
    return np.sum(A ** 2)


def sums_of_comprehensions_in_a_comprehension(X):
    rows = [np.sum([X[i, j] ** 2 for j in range(X.shape[1])]) for i in range(X.shape[0])]
    return np.sum(np.array(rows) * X[:, 0])


def comprehension_in_a_loop(X):
    total = 0.0
    for i in range(X.shape[0]):
        row = np.array([X[i, j] * X[j, i] for j in range(X.shape[1])])
        total = total + np.sum(row ** 2)
    return total


def pairs_in_rows(X):
    n = X.shape[0]
    A = np.array([[[X[i, j], X[j, i]] for j in range(n)] for i in range(n)])
    return np.sum(A[:, :, 0] * A[:, :, 1] ** 2)


@pytest.mark.parametrize("f", [comprehension_over_a_comprehension, two_generators, conditional_rows,
                               sums_of_comprehensions_in_a_comprehension, comprehension_in_a_loop, pairs_in_rows])
@pytest.mark.parametrize("X", MATRICES, ids=range(len(MATRICES)))
def test_more_comprehensions(f, X):
    _check(f, (X,))


def rows_appended_as_lists(X):
    rows = []
    for i in range(X.shape[0]):
        row = []
        for j in range(X.shape[1]):
            row.append(X[i, j] * 2.0)
        rows.append(row)
    return np.sum(np.array(rows) ** 2)


def nested_comprehension_kept(X):
    n = X.shape[0]
    L = [[X[i, j] * 3.0 for j in range(n)] for i in range(n)]
    return np.sum(np.array(L))


def items_of_a_list_of_tuples(x, y):
    pairs = [(x, y), (y * x, x)]
    s = 0.0
    for a, b in pairs:
        s = s + a * b
    return s


def index_into_a_list_of_lists(x, y):
    L = [[x, y], [y * x, x]]
    return L[0][1] * L[1][0]


def test_lists_of_lists_built_by_append_are_refused_with_a_fix():
    X = MATRICES[0]
    error = _refused(rows_appended_as_lists, (X,), "inside another list", "np.array(row)")
    assert "rows.append(row)" in str(error)
    _refused(nested_comprehension_kept, (X,), "inside another list")


def test_reading_items_of_a_list_of_lists_is_refused_with_a_fix():
    _refused(index_into_a_list_of_lists, (0.5, 1.5), "list of lists (or of tuples)", "np.array([a, b])")


def test_a_list_of_tuples_is_differentiated_as_one_list_per_field():
    for k in (0, 1):
        assert_close(srcdiff.grad(items_of_a_list_of_tuples, wrt=k)(0.5, 1.5),
                     central_difference(items_of_a_list_of_tuples, (0.5, 1.5), k))


def growing_an_inner_list_after_storing_it(x):
    rows = []
    row = [x, 2.0 * x]
    rows.append(row)
    row.append(x * x)
    return np.sum(np.array(rows))


def test_a_list_stored_in_another_list_may_not_grow():
    # Python would change the stored row too
    _refused(growing_an_inner_list_after_storing_it, (0.5,), "appending to row after it was read")


# ---- 3. writes through repeated indices: refused at the user's line, with a fix that works ----

def add_messages_in_place(msg, agg, dst):
    agg = agg.copy()
    agg[dst] += msg
    return np.sum(agg ** 2)


def set_messages(msg, agg, dst):
    out = agg.copy()
    out[dst] = msg * 2.0
    return np.sum(out ** 2)


def write_into_an_int_array(msg, agg, dst):
    out = np.zeros(len(agg), dtype=int)
    out[0] = msg[0]
    return np.sum(out * agg)


def add_messages_by_one_hot(msg, agg, dst):  # the hint's first suggestion
    agg = agg + np.eye(len(agg))[dst].T @ msg
    return np.sum(agg ** 2)


def add_messages_in_a_loop(msg, agg, dst):  # the hint's second suggestion
    agg = agg.copy()
    for k in range(len(dst)):
        agg[dst[k]] += msg[k]
    return np.sum(agg ** 2)


def add_messages_reference(msg, agg, dst):
    agg = agg.copy()
    np.add.at(agg, dst, msg)
    return np.sum(agg ** 2)


GRAPH = [(np.array([0.3, -1.2, 2.5, 0.9, -0.4]), np.array([0.5, 1.5, -0.5])),
         (np.array([[0.3, 1.0], [-1.2, 0.2], [2.5, 0.7], [0.9, -1.1], [-0.4, 0.6]]),
          np.array([[0.5, 0.1], [1.5, -0.3], [-0.5, 0.8]]))]
DST = np.array([0, 2, 0, 1, 0])


@pytest.mark.parametrize("msg, agg", GRAPH, ids=["vectors", "rows"])
@pytest.mark.parametrize("f", [add_messages_in_place, set_messages])
def test_a_write_through_an_index_array_is_refused_at_the_line(f, msg, agg):
    error = _refused(f, (msg, agg, DST), "integer index array", "np.eye(len(out))[idx].T @ v")
    lines = open(__file__).read().splitlines()
    assert "agg[dst] += msg" in lines[error.location.line - 1] or "out[dst] = " in lines[error.location.line - 1]


def test_a_float_written_into_an_int_array_is_refused_at_the_line():
    msg, agg = GRAPH[0]
    _refused(write_into_an_int_array, (msg, agg, DST), "would truncate it")


@pytest.mark.parametrize("msg, agg", GRAPH, ids=["vectors", "rows"])
@pytest.mark.parametrize("f", [add_messages_by_one_hot, add_messages_in_a_loop])
def test_the_suggested_rewrites_work(f, msg, agg):
    assert_close(f(msg, agg, DST), add_messages_reference(msg, agg, DST))
    _check(f, (msg, agg, DST))
    _check(f, (msg, agg, DST), wrt=1)


# ---- 4. statements run for their effect: in the forward sweep, where the user wrote them ----

LOGGER = logging.getLogger("srcdiff.tests.language")


def prints_and_logs(x):
    """A docstring, then statements that only report."""
    y = np.sin(x)
    print("y is", y, f"sum={np.sum(y):.3f}")
    LOGGER.info("y=%s", y)
    logging.getLogger("srcdiff.tests.language").debug("never shown")
    logging.info("module-level logging %s", np.sum(x))
    label = f"total {np.sum(y):.2f}"
    note = "{} items".format(len(x)) + str(x.shape)
    if np.sum(x * x) > 100.0:
        warnings.warn(f"large: {label} {note}", stacklevel=2)
    return np.sum(y * x)


def checks_its_input(x):
    assert x.ndim == 1, f"expected a vector, got {x.ndim} dimensions"
    if x.ndim != 1:
        raise ValueError(f"x must be a vector, not {x.shape}")
    if len(x) < 2:
        msg = f"x needs two items, has {len(x)}"
        print(msg)
        raise ValueError(msg)
    return np.sum(np.tanh(x) * x[0])


def guard_in_a_loop(x):
    total = 0.0
    for i in range(len(x)):
        if x[i] > 10.0:
            raise ValueError(f"x[{i}] = {x[i]} is too large")
        total = total + x[i] ** 2
        print(i, total)
    return total


def raise_as_the_other_side(x):
    if x[0] > -5.0:
        y = np.sin(x) * x[1]
    else:
        raise ValueError("x[0] is too small")
    return np.sum(y * y)


def raise_in_an_elif(x):
    if x[0] > 0.0:
        y = x * 3.0
    elif x[0] < -10.0:
        detail = f"way too small: {x[0]}"
        raise ValueError(detail)
    else:
        y = x * x
    return np.sum(y * x)


def raise_after_a_return(x):
    if np.sum(x) > -10.0:
        return np.sum(x ** 3)
    raise ValueError("sum too small")


def print_on_one_side(x):
    if x[0] > 0.0:
        y = x * 2.0
    else:
        y = x * 3.0
        print("negative side", y)
    return np.sum(y * x)


def print_in_a_while_loop(x):
    s = 0.0
    k = 0
    while k < 3:
        if s > 1.0:
            t = s * x[0]
            print("big", t)
        else:
            t = s + x[1]
            print("small", t, [float(v) for v in x])
        s = t
        k = k + 1
    return s


def reporting_helper(v, scale):
    if v.ndim != 1:
        raise ValueError("a vector please")
    print("helper sees", v)
    LOGGER.warning("scale %s", scale)
    return np.tanh(v * scale)


def calls_a_reporting_helper(x):
    assert np.all(np.isfinite(x)), "finite input"
    y = reporting_helper(x, 2.0)
    return np.sum(y * x)


EFFECTS = [prints_and_logs, checks_its_input, guard_in_a_loop, raise_as_the_other_side, raise_in_an_elif,
           raise_after_a_return, print_on_one_side, print_in_a_while_loop, calls_a_reporting_helper]


@pytest.mark.parametrize("f", EFFECTS)
@pytest.mark.parametrize("x", VECTORS, ids=range(len(VECTORS)))
def test_statements_run_for_their_effect_do_not_change_the_gradient(f, x):
    _check(f, (x,))


def test_print_shows_the_forward_values(capsys):
    x = VECTORS[0]
    capsys.readouterr()
    srcdiff.grad(prints_and_logs)(x)
    printed = capsys.readouterr().out
    prints_and_logs(x)
    assert printed == capsys.readouterr().out
    assert printed.startswith("y is ")
    srcdiff.value_and_grad(guard_in_a_loop)(x)
    guard_in_a_loop(x)
    out = capsys.readouterr().out.splitlines()
    assert out[:len(x)] == out[len(x):] and len(out) == 2 * len(x)


def test_logging_and_warnings_run(caplog):
    x = VECTORS[0] * 100.0
    with caplog.at_level(logging.INFO, logger="srcdiff.tests.language"):
        with pytest.warns(UserWarning, match="large: total"):
            srcdiff.grad(prints_and_logs)(x)
    assert any(r.getMessage().startswith("y=[") for r in caplog.records)


def test_the_generated_code_shows_the_statements():
    source = srcdiff.grad(checks_its_input).source
    assert "assert x.ndim == 1" in source
    assert "raise ValueError(f'x must be a vector, not {x.shape}')" in source


@pytest.mark.parametrize("f, x, message", [
    (checks_its_input, np.ones((2, 2)), "expected a vector"),
    (checks_its_input, np.ones(1), "x needs two items, has 1"),
    (guard_in_a_loop, np.array([1.0, 20.0]), r"x\[1\] = 20.0 is too large"),
    (raise_as_the_other_side, np.array([-6.0, 1.0]), r"x\[0\] is too small"),
    (raise_in_an_elif, np.array([-11.0, 1.0]), "way too small: -11.0"),
    (raise_after_a_return, np.array([-11.0, -1.0]), "sum too small"),
    (calls_a_reporting_helper, np.array([1.0, np.inf]), "finite input"),
    (calls_a_reporting_helper, np.ones((2, 2)), "finite input|a vector please"),
])
def test_a_raise_that_is_taken_raises_the_users_exception(f, x, message):
    with pytest.raises(Exception) as expected:
        f(x)
    for run in (srcdiff.grad(f), srcdiff.value_and_grad(f)):
        run(VECTORS[1])  # compiled (and the fast path installed) on good input first
        with pytest.raises(type(expected.value), match=message) as got:
            run(x)
        assert not isinstance(got.value, srcdiff.SrcDiffError)
        if not isinstance(got.value, AssertionError):  # (pytest rewrites this file's asserts)
            assert str(got.value) == str(expected.value)


# ---- 5. refusals that say what to write instead ----

def sorts_in_place(x):
    y = x.copy()
    y.sort()
    return np.sum(y * np.arange(len(y)))


def sorted_by_argsort(x):  # what an array's in-place sort is read as (np.sort has a rule)
    y = x.copy()
    y = np.sort(y)
    return np.sum(y * np.arange(len(y)))


def test_an_array_the_function_made_sorted_in_place_is_np_sort():
    x = np.array([0.5, 1.5, -0.3])
    np.testing.assert_allclose(srcdiff.grad(sorts_in_place)(x), srcdiff.grad(sorted_by_argsort)(x))
    np.testing.assert_allclose(srcdiff.grad(sorts_in_place)(x), [1.0, 2.0, 0.0])


def tanh_into_out(x):
    y = x * 2.0
    np.tanh(y, out=y)
    return np.sum(y * x)


def dot_into_out(x):
    A = np.outer(x[:2], x[1:])
    y = np.empty((2, 2))
    np.dot(A, A, out=y)  # out= of np.dot: not rewritten (only ufuncs, cumsum, cumprod and clip)
    return np.sum(y * A)


def dot_assigned(x):
    A = np.outer(x[:2], x[1:])
    y = np.empty((2, 2))
    y = np.dot(A, A)
    return np.sum(y * A)


def adds_at_indices(x):
    y = np.zeros(2)
    np.add.at(y, np.array([0, 0, 1]), x)
    return np.sum(y ** 2)


def adds_by_one_hot(x):
    y = np.zeros(2)
    y = y + np.eye(len(y))[np.array([0, 0, 1])].T @ x
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [adds_at_indices, adds_by_one_hot])
def test_adds_at_indices_as_its_one_hot_rewrite(f):
    """Once refused: np.add.at into an array the function made is the scatter-add it means."""
    _check(f, (np.array([0.5, 1.5, -0.3]),))


def reverses_a_list(x):
    xs = sorted(np.sin(x) * 2.0)  # (a list the function writes, by a display, a comprehension, append or
    xs.reverse()                  # sorted, is reversed as a new list: tests/transforms/reach11a, reach12a)
    return xs[0] * 3.0 + xs[1] * xs[2] ** 2


def reversed_by_comprehension(x):
    xs = sorted(np.sin(x) * 2.0)
    xs = [xs[k] for k in range(len(xs) - 1, -1, -1)]
    return xs[0] * 3.0 + xs[1] * xs[2] ** 2


def fills(x):
    y = x.copy()
    y.fill(x[0])
    return np.sum(y * x)


def filled_by_addition(x):
    y = x.copy()
    y = np.zeros_like(y) + x[0]
    return np.sum(y * x)


def drops_a_value(x):
    np.sum(x)
    x * 2.0
    return np.sum(x)


def mutating_helper(v, k=0):  # a default: not written out where it is called
    v[k] = 0.0


def calls_a_helper_for_its_effect(x):
    y = x.copy()
    mutating_helper(y)
    return np.sum(y)


def _zeroes_first(v):
    v[0] = 0.0


def calls_a_plain_helper_for_its_effect(x):
    y = x.copy()
    _zeroes_first(y)
    return np.sum(y * x)


def test_a_ufunc_out_and_a_plain_helper_for_effect_are_differentiated():
    """``np.tanh(y, out=y)`` is the write ``y[:] = np.tanh(y)``, and a plain helper of the module
    called for its effect is its body on the caller's array (both were refused before)."""
    x = np.array([0.5, 1.5, -0.3])
    for f in (tanh_into_out, calls_a_plain_helper_for_its_effect):
        assert_close(srcdiff.grad(f)(x), central_difference(f, (x,), 0))


@pytest.mark.parametrize("f, words, fixed", [
    (dot_into_out, ["`np.dot(A, A, out=y)` changes y in place", "`y = np.dot(A, A)`"], dot_assigned),
    (fills, ["`y.fill(x[0])` changes y in place", "`y = np.zeros_like(y) + x[0]`"], filled_by_addition),
])
def test_a_change_in_place_is_refused_with_a_rewrite_that_works(f, words, fixed):
    x = np.array([0.5, 1.5, -0.3])
    error = _refused(f, (x,), *words)
    assert "remove it" not in str(error)
    assert_close(fixed(x), f(x))
    _check(fixed, (x,))


def test_a_sorted_list_reversed_in_place_is_the_reversed_list():
    x = np.array([0.5, 1.5, -0.3])  # (refused before sorted(...) was known to make a list)
    assert_close(reversed_by_comprehension(x), reverses_a_list(x))
    _check(reverses_a_list, (x,))


def test_a_value_thrown_away_is_refused_as_having_no_effect():
    _refused(drops_a_value, (np.ones(2),), "`np.sum(x)` is computed and thrown away", "remove it")


def test_a_user_function_called_for_its_effect_is_refused_without_remove_it():
    error = _refused(calls_a_helper_for_its_effect, (np.ones(2),), "mutating_helper(y)", "`x = f(x)`")
    assert "remove it" not in str(error)


def uses_math_atan2(x):
    return math.atan2(x[0], x[1]) * x[2]


def uses_math_asin(x):
    return math.asin(x[0] * 0.1) + math.fabs(x[1])


def uses_math_pow(x):
    return math.pow(x[0], 3.0) + pow(x[1], 2.0)


def uses_math_ulp(x):
    return math.ulp(x[0]) * x[1]


def uses_math_gamma(x):  # math.gamma, math.lgamma and math.copysign have rules since wave 11
    return math.gamma(x[0]) + math.lgamma(x[0]) * math.copysign(x[1], x[2])


def uses_numpy_equivalents(x):
    return np.arctan2(x[0], x[1]) * x[2] + np.arcsin(x[0] * 0.1) + np.absolute(x[1]) + np.power(x[0], 3.0)


def test_a_math_function_without_a_rule_points_to_numpys():
    x = np.array([0.5, 1.5, -0.3])
    error = _refused(uses_math_ulp, (x,), "math.ulp", "register_adjoint")
    assert "np." not in error.hint.split("register")[0]
    _check(uses_numpy_equivalents, (x,))


def test_the_rest_of_math_has_rules():
    x = np.array([0.5, 1.5, -0.3])
    _check(uses_math_atan2, (x,))
    _check(uses_math_asin, (x,))
    _check(uses_math_gamma, (x,))


def uses_builtin_pow(x):
    return pow(x[1], 2.0)


def test_builtin_pow_points_to_the_operator():
    _refused(uses_builtin_pow, (np.ones(2),), "write x ** y instead")


def pops_inside_print(x):
    xs = [x[0], x[1]]
    print(xs.pop())
    return np.sum(np.stack(xs))


def sorts_inside_assert(x):
    y = x.copy()
    assert y.sort() is None
    return np.sum(y * np.arange(len(y)))


def sorts_inside_a_condition(x):
    y = x.copy()
    if y.sort() is None:
        return np.sum(y * np.arange(len(y)))
    return 0.0


def walrus_inside_print(x):
    y = x * 2.0
    print(x[0] > 0 and (z := y * 3.0))  # noqa: F841  (after `and`: it may not run, so it is not hoisted)
    return np.sum(y)


def walrus_hoisted_from_print(x):
    y = x * 2.0
    print(z := y * 3.0)
    return np.sum(y * z)


def test_a_walrus_that_always_runs_is_an_assignment_before_its_statement():
    x = np.array([0.5, 1.5, -0.3])
    np.testing.assert_allclose(srcdiff.grad(walrus_hoisted_from_print)(x), 24.0 * x)


@pytest.mark.parametrize("f, words", [
    (pops_inside_print, ["`xs.pop()` changes xs in place inside an expression srcdiff runs as written"]),
    (sorts_inside_assert, ["`y.sort()` changes y in place", "`y = np.sort(y)`"]),
    (sorts_inside_a_condition, ["`y.sort()` changes y in place", "`y = np.sort(y)`"]),
    (walrus_inside_print, ["`:=` expressions are not supported"]),
])
def test_a_change_hidden_in_an_expression_run_as_written_is_refused(f, words):
    _refused(f, (np.array([0.5, 1.5, -0.3]),), *words)


def negative_literal_list_grows(x):
    ws = [-1.0, 2.0]
    ws.append(x[0])
    return np.sum(np.array(ws) * x[:3])


def constant_matrix_literal(x):
    M = [[1.0, -2.0, 0.5], [0.5, 3.0, -1.0]]
    return np.sum(np.array(M) @ x) + np.sum(np.array([[1.0, 2.0], [3.0, 4.0]]) @ x[:2])


def constant_index_pairs(x):
    pairs = [(0, 1), (1, 2)]
    s = 0.0
    for a, b in pairs:
        s = s + x[a] * x[b]
    return s


@pytest.mark.parametrize("f", [negative_literal_list_grows, constant_matrix_literal, constant_index_pairs])
def test_literal_lists(f):
    _check(f, (np.array([0.5, 1.5, -0.3]),))


def test_trace_and_graph_run_the_statements_and_do_not_show_them(capsys):
    x = VECTORS[0]
    table = str(srcdiff.trace(print_in_a_while_loop, x))
    assert "small" in capsys.readouterr().out  # the print ran while tracing
    assert "print(" not in table
    dot = srcdiff.graph(prints_and_logs).to_dot()
    assert "print(" not in dot and "sum of 2 gradients" in dot
    with pytest.raises(ValueError, match="x needs two items"):
        srcdiff.trace(checks_its_input, np.ones(1))
