"""Adversarial tests: code a user would write, checked against float64 central differences.

The first part documents bugs found by hunting for silent wrong gradients (one test each;
these fail until the bug is fixed, and each says which module is believed to be at fault).
The second part pins tricky cases that work, table-driven, so that they stay working.

Every gradient check also verifies what a user relies on without thinking about it: the
inputs are left untouched, a returned gradient has the parameter's shape and a float type,
shares memory with no input and no other returned gradient, and a second call (the fast
path) gives the same numbers.
"""

import copy
import functools
import math
import re
import sys

import numpy as np
import pytest

import srcdiff

THIS = sys.modules[__name__]


X3 = np.array([0.3, -1.2, 2.5])
Y3 = np.array([1.1, 0.4, -0.7])


# =====================================================================================
# Part 1: bugs (each test fails until its bug is fixed)
# =====================================================================================

# ---- augmented assignment on an array another name shares (lower_stmt.py, writes.py) ----
# Fixed: srcdiff lowers `y += c` to a new value `y = y + c`; NumPy updates the array in place,
# so every other name holding it (an alias, a view, the caller's argument) changes too.  Such
# an update is now refused, once the signature shows the value is an array (not a number).

def aug_alias_of_param(x):
    y = x
    y += 1.0
    return np.sum(x * y)


def aug_alias_of_local(x):
    y = x * 1.0
    z = y
    z += 1.0
    return np.sum(y * x)


def aug_slice_view(x):
    y = x[:2]
    y += 1.0
    return np.sum(x * x)


def aug_reshape_view(x):
    y = x.reshape(1, 3)
    y *= 2.0
    return np.sum(x * x)


def aug_list_element(x):
    a = [x]
    z = a[0]
    z += 1.0
    return np.sum(a[0] * x)


def _add_one_in_place(a):
    a += 1.0
    return np.sum(a)


def aug_in_helper(x):
    y = _add_one_in_place(x)
    return y * np.sum(x)


@pytest.mark.parametrize("f", [aug_alias_of_param, aug_alias_of_local, aug_slice_view,
                               aug_reshape_view, aug_list_element, aug_in_helper])
def test_augmented_assignment_on_shared_array_is_refused(f):
    """Was a silent wrong gradient (and value); NumPy's in-place semantics are now refused."""
    x = X3.copy()
    with pytest.raises(srcdiff.SrcDiffError, match="in-place"):
        srcdiff.grad(f)(x)
    np.testing.assert_array_equal(x, X3)


# ---- value_and_grad's value of a loop-carried variable (codegen.py / reverse.py) ----
# Fixed: the value was returned after the backward sweep, which has popped the loop stack back
# into the carried name (the value before the loop); codegen now keeps the forward sweep's.

def power_loop(x, n):
    s = x * 2.0
    for _ in range(n):
        s = s * x
    return s


def test_value_and_grad_value_of_loop_carried_variable_is_after_the_loop():
    value, _ = srcdiff.value_and_grad(power_loop)(1.7, 2)
    assert value == pytest.approx(power_loop(1.7, 2))


# ---- a `for v in xs` target read after the loop (lower_stmt.py) ----
# Fixed: after the loop v was taken to be its value from before the loop; a loop target read
# outside the body is now carried (the last item, or the old value after no iteration).

def loop_target_read_after(x):
    s = 0.0
    v = 0.0
    for v in x:
        s = s + v
    return s * v


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 4.0]), np.array([])], ids=["items", "empty"])
def test_loop_target_read_after_loop_is_the_last_item(x, check_gradient):
    check_gradient(loop_target_read_after, (x,))


# ---- free names read statically (srcdiff/depends.py) ----
# The generated forward pass reads the global when it runs; the adjoint is written for the
# value the global had when the function was transformed, so rebinding it must re-transform.

AXIS = 0
ACTIVATION = np.tanh


def sum_over_global_axis(X):
    return np.sum(np.sum(X, axis=AXIS) * np.array([1.0, 2.0, 3.0]))


def global_activation(x):
    return np.sum(ACTIVATION(x))


def _square(x):
    return x * x


def _cube(x):
    return x * x * x


HELPER = _square


def global_helper(x):
    return HELPER(x) + x


def test_global_static_argument_rebound_between_calls_retransforms(monkeypatch, check_gradient):
    monkeypatch.setattr(THIS, "AXIS", 0)
    gradient = srcdiff.grad(sum_over_global_axis)
    X = np.arange(9.0).reshape(3, 3) * 0.1
    check_gradient(sum_over_global_axis, (X,), gradient=gradient)
    monkeypatch.setattr(THIS, "AXIS", 1)
    check_gradient(sum_over_global_axis, (X,), gradient=gradient)


def _closure_with_axis():
    axis = 0

    def f(X):
        return np.sum(np.sum(X, axis=axis) * np.array([1.0, 2.0, 3.0]))

    def set_axis(value):
        nonlocal axis
        axis = value
    return f, set_axis


def test_closure_static_argument_rebound_between_calls_retransforms(check_gradient):
    f, set_axis = _closure_with_axis()
    gradient = srcdiff.grad(f)
    X = np.arange(9.0).reshape(3, 3) * 0.1
    check_gradient(f, (X,), gradient=gradient)
    set_axis(1)
    check_gradient(f, (X,), gradient=gradient)


def test_global_numpy_function_alias_rebound_between_calls_retransforms(monkeypatch, check_gradient):
    monkeypatch.setattr(THIS, "ACTIVATION", np.tanh)
    gradient = srcdiff.grad(global_activation)
    check_gradient(global_activation, (X3.copy(),), gradient=gradient)
    monkeypatch.setattr(THIS, "ACTIVATION", np.sin)
    check_gradient(global_activation, (X3.copy(),), gradient=gradient)


def test_global_helper_alias_rebound_between_calls_retransforms(monkeypatch, check_gradient):
    monkeypatch.setattr(THIS, "HELPER", _square)
    gradient = srcdiff.grad(global_helper)
    check_gradient(global_helper, (1.3,), gradient=gradient)
    monkeypatch.setattr(THIS, "HELPER", _cube)
    check_gradient(global_helper, (1.3,), gradient=gradient)


# ---- a functools.wraps decorator that changes the result (parse.py: unwrap) ----

def _doubled(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)
    return wrapper


@_doubled
def decorated_square(x):
    return x * x


def calls_decorated_helper(x):
    return decorated_square(x) + x


@pytest.mark.parametrize("f", [decorated_square, calls_decorated_helper])
def test_decorator_that_changes_the_result_is_differentiated(f, check_gradient):
    """The wrapper the user calls is differentiated, not its __wrapped__."""
    check_gradient(f, (1.3,))


# ---- a user helper returning a tuple (reverse.py / runtime.zeros_like) ----

def _product_and_sum(x, y):
    return x * y, x + y


def unpacks_helper_tuple(x):
    a, b = _product_and_sum(x, 2.0)
    return a * b


def test_helper_returning_a_tuple_unpacked(check_gradient):
    """Was a TypeError: the tuple's adjoint was zeros_like(tuple) = 0.0; now a list of zeros."""
    check_gradient(unpacks_helper_tuple, (1.3,))


# ---- np.sum of a user helper's result (sameshape.py: earliest_shape_reads) ----

def _times(a, b):
    return a * b


def sums_helper_result(x, w):
    return np.sum(_times(x, w))


def test_sum_of_helper_result(check_gradient):
    """Was an UnboundLocalError, ``t1_bar = np.full(np.shape(t1_bar), 1.0)``: the helper's result
    is assigned by tuple unpacking, and ShapeClasses.earliest picked the adjoint itself."""
    check_gradient(sums_helper_result, (X3.copy(), Y3.copy()), wrt=(0, 1))


# ---- list.append in straight-line code broke graph/trace/debug (ir.topological_order) ----

def appends_twice(x):
    a = []
    a.append(x)
    a.append(x * x)
    return sum(a)


def test_debug_mode_with_list_append():
    """Was ValueError('the graph has a cycle'): debug mode works; graph and trace refuse by name."""
    assert srcdiff.grad(appends_twice, debug=True)(1.3) == pytest.approx(1.0 + 2 * 1.3)
    for show in (srcdiff.graph, lambda f: srcdiff.trace(f, 1.3)):
        with pytest.raises(srcdiff.SrcDiffError, match=r"a\.append\(x\) changes a in place"):
            show(appends_twice)


# =====================================================================================
# Part 2: tricky cases that work
# =====================================================================================

# ---- aliasing, copies, and the optimizer's rewrites (straight-line: debug must agree) ----

def rebinds_alias(x):
    y = x
    y = y * 2.0
    return np.sum(y * x)


def sum_of_product(x, y):
    return np.sum(x * y)


def sum_of_sum(x, y):
    return np.sum(x + y)


def matmul_vectors(x, y):
    return x @ y


def scalar_times_array(a, x):
    return np.sum(a * x)


def copy_chain(x):
    a = x
    b = a
    a = b * 2.0
    c = b
    return np.sum(a * c + b)


def copy_swap(x, y):
    a = x
    x = y
    y = a
    return np.sum(x * 2.0 + y * 3.0)


def reuse_after_rebind(x):
    y = x * 2.0
    z = y
    y = y * y
    return np.sum(z * y)


def slice_before_rebind(x):
    a = x[1:]
    x = x * 2.0
    b = x[1:]
    return np.sum(a * b)


def same_slice_twice(x):
    a = x[:-1]
    b = x[:-1]
    return np.sum(a * b)


def same_call_before_and_after_rebind(x):
    y = np.exp(x)
    s = np.sum(y)
    x = x * 2.0
    y = np.exp(x)
    return s + np.sum(y)


def overlapping_slices(x):
    y = x[1:] + x[:-1]
    z = x[1:] * 3.0
    return np.sum(y * z)


def shape_and_len(x):
    return np.sum(x) / x.shape[0] + np.sum(x * x) / len(x)


def x_minus_x(x):
    return np.sum(x - x + x * x)


def negated_other(x, y):
    return np.sum(-y * x)


def unit_factors(x, y):
    return np.sum(1.0 * x * y / 1.0)


def seed_times_one(x, y):
    return np.sum(x) * 1.0 + np.sum(y)


def scalar_alias_then_add(x, y):
    a = x * y
    b = a
    a = a + 1.0
    return a * b


def scalar_aug_chain(x):
    x *= 3.0
    x /= 2.0
    x -= 1.0
    return x * x


def int_exponents(x):
    return x ** 2 + x ** 3 + x ** -1 + x ** 0 + x ** 1 + x ** 0.5 + x ** -2


def int_divisions(x):
    return x / 2 + 3 / x + x / 3 * 2


def builtin_min_max(x, y):
    return max(x, y) * min(x, y) + max(x * 2.0, y)


STRAIGHT = [
    (rebinds_alias, (X3,), 0),
    (sum_of_product, (X3, Y3), (0, 1)),
    (sum_of_product, (X3, X3), (0, 1)),  # the same array object twice
    (sum_of_sum, (X3, Y3), (0, 1)),
    (sum_of_sum, (X3, Y3), 1),
    (matmul_vectors, (X3, Y3), (0, 1)),
    (scalar_times_array, (1.5, X3), (0, 1)),
    (copy_chain, (X3,), 0),
    (copy_swap, (X3, Y3), (0, 1)),
    (reuse_after_rebind, (X3,), 0),
    (slice_before_rebind, (X3,), 0),
    (same_slice_twice, (X3,), 0),
    (same_call_before_and_after_rebind, (X3,), 0),
    (overlapping_slices, (X3,), 0),
    (shape_and_len, (X3,), 0),
    (x_minus_x, (X3,), 0),
    (negated_other, (X3, Y3), (0, 1)),
    (unit_factors, (X3, Y3), (0, 1)),
    (seed_times_one, (X3, Y3), (0, 1)),
    (scalar_alias_then_add, (1.3, 0.7), (0, 1)),
    (scalar_aug_chain, (1.3,), 0),
    (int_exponents, (1.3,), 0),
    (int_divisions, (1.3,), 0),
    (builtin_min_max, (1.3, 0.7), (0, 1)),
    (builtin_min_max, (0.7, 1.3), (0, 1)),
]


@pytest.mark.parametrize("f, args, wrt", STRAIGHT, ids=lambda v: getattr(v, "__name__", None))
def test_straight_line(f, args, wrt, check_gradient):
    args = copy.deepcopy(args)
    check_gradient(f, args, wrt, debug=True)


def test_views_of_one_base_array(check_gradient):
    base = np.arange(6.0) * 0.2 + 0.1
    check_gradient(sum_of_product, (base[:3], base[3:]), (0, 1))


# ---- subscripts ----

def negative_indices(x):
    return x[-1] * x[-2] + x[0]


def stepped_slices(x):
    return np.sum(x[::2] * x[1::2])


def reversed_slice(x):
    return np.sum(x[::-1] * x) + np.sum(x[-1:0:-2] ** 2)


def repeated_index_array(x):
    return np.sum(x[np.array([0, 0, 2, 1, 0])] ** 2)


def repeated_index_list(x):
    return np.sum(x[[0, 0, 1]] * 3.0)


def boolean_mask(x):
    return np.sum(x[x > 0] ** 2)


def outer_by_newaxis(x):
    return np.sum(x[:, None] * x[None, :])


def matrix_entries(X):
    return X[0, 1] * X[1, 0] + X[-1, -1] ** 2 + X[1][0] * X[0][1]


def matrix_columns(X):
    return np.sum(X[:, 0] * X[:, 1]) + np.sum(X[1:, ::2] ** 2)


def paired_index_arrays(X):
    return np.sum(X[np.array([0, 1, 1]), np.array([1, 0, 0])] ** 2)


def row_by_argument(X, i):
    return np.sum(X[i] ** 2)


def slice_by_arguments(x, a, b):
    return np.sum(x[a:b] ** 2)


X6 = np.array([0.3, -1.2, 2.5, 0.9, -0.4, 1.7])
M3 = np.array([[0.3, -1.2, 2.5], [0.9, -0.4, 1.1], [0.2, 0.5, -0.8]])

SUBSCRIPTS = [
    (negative_indices, (X6,)),
    (stepped_slices, (X6,)),
    (reversed_slice, (X6,)),
    (repeated_index_array, (X6,)),
    (repeated_index_list, (X6,)),
    (boolean_mask, (X6,)),
    (outer_by_newaxis, (X6,)),
    (matrix_entries, (M3,)),
    (matrix_columns, (M3,)),
    (paired_index_arrays, (M3,)),
    (row_by_argument, (M3, -1)),
    (slice_by_arguments, (X6, -3, -1)),
    (slice_by_arguments, (X6, 4, 1)),  # empty
    (slice_by_arguments, (X6, None, 2)),
]


@pytest.mark.parametrize("f, args", SUBSCRIPTS, ids=lambda v: getattr(v, "__name__", None))
def test_subscripts(f, args, check_gradient):
    check_gradient(f, copy.deepcopy(args), debug=True)


# ---- broadcasting: length-1 axes, 0-d arrays, NumPy and Python scalars ----

def broadcast_mix(x, y):
    return np.sum((x * y - x / y) ** 2 + np.maximum(x, y) * np.exp(x - y))


SHAPE_PAIRS = [((3,), (1,)), ((1,), (3,)), ((3, 1), (3,)), ((3,), (3, 1)), ((1, 1), (2, 3)),
               ((2, 3), (1, 1)), ((), (3,)), ((3,), ()), ((2, 1, 3), (4, 1)), ((1,), ()), ((), ())]


@pytest.mark.parametrize("sx, sy", SHAPE_PAIRS, ids=str)
def test_broadcasting_shapes(sx, sy, check_gradient):
    rng = np.random.default_rng(11)
    check_gradient(broadcast_mix, (rng.uniform(0.5, 1.5, sx), rng.uniform(0.5, 1.5, sy)), (0, 1), debug=True)


@pytest.mark.parametrize("x, y", [(np.float64(0.7), X3 + 2.0), (0.7, X3 + 2.0), (X3 + 2.0, 0.7),
                                  (np.array(0.7), 1.3), (np.float64(0.7), 1.3)],
                         ids=["npfloat-array", "float-array", "array-float", "0d-float", "npfloat-float"])
def test_broadcasting_scalar_kinds(x, y, check_gradient):
    check_gradient(broadcast_mix, (x, y), (0, 1), debug=True)


# ---- the signature cache and its fast-path guard: one gradient, many kinds of argument ----

def sine_weighted(x):
    return np.sum(np.sin(x) * x)


def squared_misfit(x, y):
    return np.sum((x * y - 1.0) ** 2)


def column_means(X):
    return np.sum(np.mean(X, axis=0) ** 2)


def _arrays(*shapes):
    rng = np.random.default_rng(5)
    return [rng.uniform(0.5, 1.5, s) if s is not None else 0.5 for s in shapes]


SEQUENCES = [
    (sine_weighted, [(a,) for a in _arrays((3,), (1,), (3, 1), (3,), (1, 3), (1,), (5,), (), (3,))]),
    (sine_weighted, [(1.5,), (np.float64(1.5),), (np.array(1.5),), (1.5,), (np.array([1.5]),), (1.5,)]),
    (column_means, [(a,) for a in _arrays((3,), (1,), (3, 1), (1, 3), (3, 2), (3,))]),
    (squared_misfit, [tuple(p) for p in (_arrays((3,), (3,)), _arrays((3,), (1,)), _arrays((1,), (3,)),
                                           _arrays((3, 1), (3,)), _arrays(None, (3,)), _arrays((3,), (3,)),
                                           [np.float64(0.5), X3], [np.array(0.5), X3], _arrays((1, 1), (2, 3)),
                                           _arrays((3,), (3,)))]),
]


@pytest.mark.parametrize("f, calls", SEQUENCES, ids=lambda v: getattr(v, "__name__", None))
def test_one_gradient_called_with_alternating_signatures(f, calls, check_gradient):
    wrt = tuple(range(f.__code__.co_argcount))
    wrt = wrt if len(wrt) > 1 else 0
    gradient = srcdiff.grad(f, wrt=wrt)
    for args in calls:
        check_gradient(f, args, wrt, gradient=gradient)


def keyword_defaults(x, y=2.0, z=3.0):
    return x * y + z * x * x


def test_keyword_and_default_call_styles_alternate():
    gradient = srcdiff.grad(keyword_defaults, wrt=(0, 1))
    expected = (2.0 + 2 * 3.0 * 1.3, 1.3)
    for call in (lambda: gradient(1.3), lambda: gradient(1.3, 2.0), lambda: gradient(x=1.3),
                 lambda: gradient(1.3, z=3.0), lambda: gradient(y=2.0, x=1.3), lambda: gradient(1.3, 2.0, 3.0)):
        assert call() == pytest.approx(expected)
    assert gradient(1.3, z=5.0) == pytest.approx((2.0 + 2 * 5.0 * 1.3, 1.3))
    assert gradient(1.3, y=5.0) == pytest.approx((5.0 + 2 * 3.0 * 1.3, 1.3))


# ---- globals and closures whose values change between calls (non-static uses) ----

SCALE = 2.0
WEIGHTS = np.array([1.0, 2.0, 3.0])
FLAG = True
COUNT = 3


def uses_scale(x):
    return x * SCALE + x ** 2 * SCALE


def uses_weights(x):
    return np.sum(x * WEIGHTS)


def uses_flag(x):
    if FLAG:
        return x * x
    return x * 3.0


def uses_count(x):
    s = 0.0
    for i in range(COUNT):
        s = s + x ** i
    return s


@pytest.mark.parametrize("f, name, values, arg", [
    (uses_scale, "SCALE", [2.0, 5.0, -1.0], 1.3),
    (uses_weights, "WEIGHTS", [np.array([1.0, 2.0, 3.0]), np.array([5.0, -1.0, 0.5]), np.array([5.0]), 4.0], X3),
    (uses_flag, "FLAG", [True, False, True], 1.3),
    (uses_count, "COUNT", [3, 0, 5, 1], 1.3),
], ids=lambda v: getattr(v, "__name__", None))
def test_global_changes_between_calls(monkeypatch, f, name, values, arg, check_gradient):
    gradient = srcdiff.grad(f)
    for value in values:
        monkeypatch.setattr(THIS, name, value)
        check_gradient(f, (copy.deepcopy(arg),), gradient=gradient)


def _closure_with_scale():
    k = 2.0

    def f(x):
        return x * k + k * k * x * x

    def set_k(value):
        nonlocal k
        k = value
    return f, set_k


def test_closure_cell_changes_between_calls(check_gradient):
    f, set_k = _closure_with_scale()
    gradient = srcdiff.grad(f)
    for k in (2.0, 7.0, -0.5):
        set_k(k)
        check_gradient(f, (1.3,), gradient=gradient)


def power(x, n):
    return x ** n


def test_int_exponent_argument_alternates(check_gradient):
    gradient = srcdiff.grad(power)
    for n in (2, 0, 1, 3, -1, 2, 0.5, 2):
        check_gradient(power, (1.3, n), gradient=gradient)


# ---- control flow (debug mode refuses control flow, so not compared here) ----

def branch_on_data(x):
    if x > 0:
        y = x * x
    else:
        y = -x * 3.0
    return y * x


def elif_chain(x):
    if x > 2.0:
        y = x
    elif x > 1.0:
        y = x * x
    elif x > 0.0:
        y = x * x * x
    else:
        y = 0.0
    return y + x


def conditional_expressions(x):
    y = x * x if x > 1.0 else x * 3.0
    return y * (x if y > 2.0 else 1.0)


def loop_with_break(x, n):
    s = x
    for _ in range(n):
        s = s * x
        if s > 10.0:
            break
    return s


def loop_with_continue(x, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s + x ** i
    return s


def nested_loops(x, n):
    s = 0.0
    for i in range(n):
        for j in range(i):
            s = s + x ** j * i
    return s


def nested_break(x, n):
    s = 0.0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            s = s + x ** (i + j)
    return s


def carried_tuple(x, n):
    a, b = x, 1.0
    for _ in range(n):
        a, b = b * x, a + b
    return a * b


def swapping_loop(x, y, n):
    for _ in range(n):
        x, y = y, x * y
    return x + 2.0 * y


def return_inside_loop(x, n):
    s = x
    for _ in range(n):
        s = s * x
        if s > 5.0:
            return s * 2.0
    return s


def reversed_range(x, n):
    s = x
    for i in range(n - 1, -1, -1):
        s = s * x + i
    return s


def stepped_range(x, n):
    s = 1.0
    for i in range(1, n, 3):
        s = s * x ** i
    return s


def counting_while(x, n):
    i = 0
    s = x
    while i < n:
        s = s * x
        i = i + 1
    return s


def appends_in_loop(x, n):
    out = [x]
    v = x
    for _ in range(n):
        v = v * x
        out.append(v)
    return sum(out)


def array_loop_carry(x, n):
    y = x
    for _ in range(n):
        y = np.tanh(y * x) + y
    return np.sum(y)


def shrinking_slices(x, n):
    y = x
    for _ in range(n):
        y = y[1:] * y[:-1]
    return np.sum(y)


def rnn(W, xs, n):
    h = np.zeros(2)
    for t in range(n):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def relu_layers(X, b, n):
    h = X
    for _ in range(n):
        h = np.maximum(h + b, 0.0) * 0.9
    return np.sum(h)


def while_true_break(x):
    s = x
    while True:
        s = s * s
        if s > 50.0:
            break
    return s


def over_array_rows(X):
    s = 0.0
    for row in X:
        s = s + np.sum(row) ** 2
    return s


def over_enumerate_and_zip(x, y):
    s = 0.0
    for i, v in enumerate(x):
        s = s + v * i
    for a, b in zip(x, y):
        s = s + a * b * a
    return s


_W2 = np.array([[0.3, -0.2], [0.1, 0.4]])
_XS = np.array([[0.5, -1.0], [0.2, 0.3], [-0.4, 0.8]])

CONTROL = [(f, (x,), 0) for f in (branch_on_data, elif_chain, conditional_expressions) for x in (0.7, -0.7, 1.5, 2.5)]
CONTROL += [(f, (1.2, n), 0) for n in (0, 1, 2, 5) for f in (
    loop_with_break, loop_with_continue, nested_loops, nested_break, carried_tuple, return_inside_loop,
    reversed_range, stepped_range, counting_while, appends_in_loop)]
CONTROL += [(swapping_loop, (1.2, 0.8, n), (0, 1)) for n in (0, 1, 3)]
CONTROL += [(array_loop_carry, (X3 * 0.3, n), 0) for n in (0, 1, 3)]
CONTROL += [(shrinking_slices, (X6, n), 0) for n in (0, 1, 3)]
CONTROL += [(rnn, (_W2, _XS, n), (0, 1)) for n in (0, 1, 3)]
CONTROL += [(relu_layers, (M3, np.array([[0.1, -0.2, 0.3]]), n), (0, 1)) for n in (0, 1, 3)]
CONTROL += [(relu_layers, (M3, 0.3, 2), (0, 1)), (while_true_break, (1.3,), 0),
            (over_array_rows, (M3,), 0), (over_enumerate_and_zip, (X3, Y3), (0, 1))]


@pytest.mark.parametrize("f, args, wrt", CONTROL, ids=lambda v: getattr(v, "__name__", None))
def test_control_flow(f, args, wrt, check_gradient):
    check_gradient(f, copy.deepcopy(args), wrt)


# ---- reductions, ties, matmul, linear algebra ----

def centered_rows(X):
    return np.sum((X - np.sum(X, axis=1, keepdims=True)) ** 2) + np.sum(np.sum(X, axis=(0, 1), keepdims=True) * X)


def spread(X):
    return np.sum(np.var(X, axis=0)) + np.std(X) + np.sum(np.std(X, axis=1, ddof=1))


def row_max(X):
    return np.sum(np.max(X, axis=1) ** 2) + np.sum(X - np.max(X, axis=1, keepdims=True))


def logsumexp(X):
    m = np.max(X, axis=1, keepdims=True)
    return np.sum(m + np.log(np.sum(np.exp(X - m), axis=1, keepdims=True)))


def softmax_cross_entropy(X):
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return -np.sum(np.log(p[:, 0]))


def matmul_squared(A, B):
    return np.sum(np.matmul(A, B) ** 2)


def cumulative(X):
    return np.sum(np.cumsum(X, axis=0) ** 2) + np.sum(np.cumsum(X) ** 2)


def _uniform(*shapes, seed=3):
    """Arrays drawn from their own generator: the same whatever ran before."""
    rng = np.random.default_rng(seed)
    return tuple(rng.uniform(size=shape) for shape in shapes)


_M34 = 0.2 + 1.3 * _uniform((3, 4))[0]

REDUCTIONS = [
    (centered_rows, (_M34,), 0),
    (spread, (_M34,), 0),
    (row_max, (_M34,), 0),
    # ties: central differences give 1/2 at any tie, so test_promises.py checks three-way
    # ties against hand-written values instead
    (logsumexp, (_M34,), 0),
    (softmax_cross_entropy, (_M34,), 0),
    (cumulative, (_M34,), 0),
    (matmul_squared, _uniform((2, 3, 4), (4, 2), seed=4), (0, 1)),
    (matmul_squared, _uniform((2, 3, 4), (1, 4, 2), seed=5), (0, 1)),
    (matmul_squared, _uniform((3, 4), (2, 4, 2), seed=6), (0, 1)),
    (matmul_squared, _uniform(4, (2, 4, 2), seed=7), (0, 1)),
    (matmul_squared, _uniform((2, 3, 4), 4, seed=8), (0, 1)),
    (matmul_squared, (_M34, _M34.T.copy()), (0, 1)),
]


@pytest.mark.parametrize("f, args, wrt", REDUCTIONS, ids=lambda v: getattr(v, "__name__", None))
def test_reductions_and_products(f, args, wrt, check_gradient):
    check_gradient(f, copy.deepcopy(args), wrt, debug=True)


# ---- user helpers ----

def _half_square_loop(x, n):
    s = x
    for _ in range(n):
        s = _square(s) * 0.5
    return s


def _recursive(x, n):
    if n == 0:
        return x
    return _recursive(x * x, n - 1) + x


def _scaled(x, k=2.0):
    return x * k


def _mutual_a(x, n):
    if n <= 0:
        return x
    return _mutual_b(x * 1.5, n - 1)


def _mutual_b(x, n):
    return _mutual_a(x * x, n - 1) + x


def _early_exit(x):
    for _ in range(5):
        if x > 3.0:
            return x
        x = x * 2.0
    return x


def _layer(w, x):
    return np.tanh(x @ w)


def helper_twice_nested(x):
    return _square(x) + _square(_square(x))


def helper_recursive(x):
    return _recursive(x, 3)


def helper_with_loop(x):
    return _half_square_loop(x, 3)


def helper_defaults_and_keywords(x):
    return _scaled(x) + _scaled(x, 3.0) + _scaled(k=x, x=x)


def helpers_mutually_recursive(x):
    return _mutual_a(x, 4)


def helper_returning_early(x):
    return _early_exit(x) + _early_exit(x * 0.5)


def helper_layers(W, x):
    return np.sum(_layer(W, _layer(W, x)) ** 2)


def local_lambda(x):
    f = lambda t: t * t + x  # noqa: E731
    return f(x) * f(2.0)


HELPERS = [
    (helper_twice_nested, (1.3,), 0),
    (helper_recursive, (1.1,), 0),
    (helper_with_loop, (1.1,), 0),
    (helper_defaults_and_keywords, (1.3,), 0),
    (helpers_mutually_recursive, (1.1,), 0),
    (helper_returning_early, (1.0,), 0),
    (helper_returning_early, (0.05,), 0),
    (helper_layers, (_W2, np.array([0.5, -1.0])), (0, 1)),
    (local_lambda, (1.3,), 0),
]


@pytest.mark.parametrize("f, args, wrt", HELPERS, ids=lambda v: getattr(v, "__name__", None))
def test_user_helpers(f, args, wrt, check_gradient):
    check_gradient(f, copy.deepcopy(args), wrt)


# ---- refusals that keep the user safe ----

def writes_into_slice(x):
    y = x * 1.0
    y[:] = 2.0
    return np.sum(y * x)


def sorts_in_place(x):
    y = x * 1.0
    y.sort()
    return y[0] * 3.0 + y[-1]


def sorts_an_argument(x):
    x.sort()  # the caller's array: refused, and left as it was
    return x[0] * 3.0 + x[-1]


def test_an_array_sorted_in_place_is_np_sort():
    x = X3.copy()
    want = np.zeros_like(x)
    want[np.argmin(x)], want[np.argmax(x)] = 3.0, 1.0
    np.testing.assert_allclose(srcdiff.grad(sorts_in_place)(x), want)
    np.testing.assert_array_equal(x, X3)


def ufunc_with_out(x):
    y = x * 1.0
    np.multiply(y, 2.0, out=y)
    return np.sum(y * x)


def loop_index_after_loop(x, n):
    i = 0
    for i in range(n):  # noqa: B007
        x = x * 1.5
    return x * i


@pytest.mark.parametrize("n", [0, 1, 3])
def test_loop_index_after_loop_is_its_last_value(n, check_gradient):
    """Once refused; the index is now carried out of the loop (its old value after no iteration)."""
    check_gradient(loop_index_after_loop, (1.3, n))


def test_a_write_into_a_product_is_differentiated(check_gradient):
    """Once refused: ``x * 1.0`` is a new array (a ufunc never returns its operand), so writing
    into it changes nothing anyone else sees."""
    check_gradient(writes_into_slice, (X3.copy(),))


@pytest.mark.parametrize("f, args", [
    (sorts_an_argument, (X3,)),
], ids=lambda v: getattr(v, "__name__", None))
def test_refused_with_an_error(f, args):
    before = copy.deepcopy(args)
    with pytest.raises(srcdiff.SrcDiffError):
        srcdiff.grad(f)(*args)
    for arg, old in zip(args, before):
        np.testing.assert_array_equal(arg, old)


def test_ufunc_with_out_writes_into_out():
    """``np.multiply(y, 2.0, out=y)`` of an array the function made is the write ``y[:] = y * 2.0``
    (it was refused before): the gradient of what NumPy computes, the argument left alone."""
    x = X3.copy()
    np.testing.assert_allclose(srcdiff.grad(ufunc_with_out)(x), 4.0 * X3)
    np.testing.assert_array_equal(x, X3)


def test_math_path_for_python_floats():
    def_grad = srcdiff.grad(builtin_min_max, wrt=(0, 1))(1.3, 0.7)
    assert all(type(g) is float for g in def_grad)
    assert math.isclose(def_grad[0], 0.7 + 2.0) and math.isclose(def_grad[1], 1.3)


# =====================================================================================
# Round 2: bugs found by a second hunt (fixed; each test failed before its fix)
# =====================================================================================

# ---- np.array(x, copy=False) is x itself, not a new array (writes.py: Sharing.note) ----

def array_without_copy_updated(x):
    a = x * 2.0
    y = np.array(a, copy=False)
    y += 1.0
    return np.sum(a * x)


def array_without_copy_written(x):
    a = x * 2.0
    y = np.array(a, copy=None)
    y[0] = 5.0
    return np.sum(a * x)


def argument_without_copy_written(x):
    y = np.array(x, copy=False)
    y[0] = 5.0
    return np.sum(y * x)


@pytest.mark.parametrize("f", [array_without_copy_updated, array_without_copy_written,
                               argument_without_copy_written])
def test_array_without_copy_shares_its_operand(f):
    """Was a silent wrong gradient and value: np.array(a, copy=False) counted as a new array,
    so `y += 1.0` / `y[0] = ...` were taken not to change `a` (or the caller's x)."""
    x = X3.copy()
    with pytest.raises(srcdiff.SrcDiffError, match=r"shares its memory|not known to be a new array"):
        srcdiff.grad(f)(x)
    np.testing.assert_array_equal(x, X3)


def array_with_copy_written(x):
    y = np.array(x, copy=True)
    y[0] = x[1] * x[2]
    return np.sum(y * x)


def test_array_with_explicit_copy_is_still_written(check_gradient):
    check_gradient(array_with_copy_written, (X3.copy(),))


# ---- writes by several integer indices (structural.py: the setitem rule) ----

def writes_one_entry_of_a_copy(X):
    out = X.copy()
    out[0, 1] = X[1, 2] * 5.0
    return np.sum(out * X)


def writes_entries_in_nested_loops(X):
    out = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            out[i, j] = X[i, j] * X[2 - i, 2 - j]
    return np.sum(out * out)


def writes_zero_dimensional(x):
    out = np.zeros(())
    out[()] = x[0] * 3.0
    return out * x[1]


@pytest.mark.parametrize("f, args", [(writes_one_entry_of_a_copy, (M3,)), (writes_entries_in_nested_loops, (M3,)),
                                     (writes_zero_dimensional, (X3,))], ids=lambda v: getattr(v, "__name__", None))
def test_write_by_several_indices(f, args, check_gradient):
    """Was a TypeError, zero_item(g, i, j) for out[i, j] = v (and a refusal naming a broken
    template, g[], for out[()] = v)."""
    check_gradient(f, copy.deepcopy(args), debug=f is not writes_entries_in_nested_loops)


# ---- a loop whose backward sweep folds away entirely (statements.py: drop_empty) ----

def adds_in_loop(x, n):
    for _ in range(n):
        x = x + 1.0
    return np.sum(x * x)


@pytest.mark.parametrize("x", [1.3, X3], ids=["float", "array"])
@pytest.mark.parametrize("n", [0, 2])
def test_loop_with_nothing_left_to_do_backward(x, n, check_gradient):
    """Was an IndentationError compiling the gradient: the backward loop's body was empty."""
    check_gradient(adds_in_loop, (copy.deepcopy(x), n))


# ---- a decorator that rebinds a global the function reads (parse.py: unwrap) ----

POWER = 2


def _sets_power(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        global POWER
        POWER = 3
        return fn(*args, **kwargs)
    return wrapper


def _counts_calls(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        global CALLS_SEEN
        CALLS_SEEN = CALLS_SEEN + 1
        return fn(*args, **kwargs)
    return wrapper


CALLS_SEEN = 0


def _power_of(x):
    return x ** POWER


@_sets_power
def powered_after_wrapper(x):
    return _power_of(x) + x


@_counts_calls
def counted_square(x):
    return x * x


def test_decorator_rebinding_a_global_the_function_reads_is_refused(monkeypatch):
    """Was a silent wrong gradient: the wrapper (global POWER; POWER = 3) was looked through as
    if it only logged, so the gradient used POWER = 2 on the first call."""
    monkeypatch.setattr(THIS, "POWER", 2)
    with pytest.raises(srcdiff.SrcDiffError, match="may change its result"):
        srcdiff.grad(powered_after_wrapper)(1.3)


def test_decorator_counting_calls_is_still_looked_through(check_gradient):
    check_gradient(counted_square, (1.3,))


# ---- a loop that writes into an array and appends it to a list (lower_stmt.py) ----

def appends_written_array(x, n):
    out = np.zeros(3)
    xs = []
    for i in range(n):
        out[i] = x[i]
        xs.append(out)
    return np.sum(xs[0] * x)


def test_loop_writing_into_an_array_a_list_holds_is_refused():
    """Was a silent wrong gradient and value: the list kept the array as it was when appended,
    but NumPy's later writes change the array the list holds."""
    with pytest.raises(srcdiff.SrcDiffError, match="xs also refers to"):
        srcdiff.grad(appends_written_array)(X3.copy(), 2)


# =====================================================================================
# Round 3: bugs found by a third hunt (fixed; each test failed before its fix)
# =====================================================================================

# ---- np.transpose with negative axes (rules/numpy_shape.py) ----
# Was a silent wrong gradient: the inverse permutation was argsort of the axes as written,
# so (-1, 0, 1) gave the gradient of shape (4, 2, 3) for an x of shape (2, 3, 4).

_W234 = np.arange(24.0).reshape(4, 2, 3)


def transpose_negative_axes(x):
    return np.sum(np.transpose(x, (-1, 0, 1)) * _W234)


def transpose_method_negative_axes(x):
    return np.sum(x.transpose(1, -1, 0) * np.arange(24.0).reshape(3, 4, 2))


@pytest.mark.parametrize("f", [transpose_negative_axes, transpose_method_negative_axes])
def test_transpose_with_negative_axes(f, check_gradient):
    check_gradient(f, (np.random.default_rng(5).normal(size=(2, 3, 4)),), debug=True)


# ---- np.clip with a_min > a_max (rules/numpy_elementwise.py) ----
# Was a silent wrong gradient: NumPy returns a_max everywhere then, but a_min was given the
# gradient wherever x < a_min, and a_max only where x > a_max.

def clip_weighted(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) * np.array([1.0, 2.0, 3.0]))


def clip_scaled(x, lo, hi):
    return np.clip(x, lo, hi) * 3.0


@pytest.mark.parametrize("f, args", [
    (clip_weighted, (np.array([0.0, 1.5, 3.0]), 2.0, 1.0)),
    (clip_weighted, (np.array([0.0, 1.5, 3.0]), np.array([2.0, 0.5, 2.5]), np.array([1.0, 1.0, 3.5]))),
    (clip_scaled, (0.5, 2.0, 1.0)),
    (clip_scaled, (1.5, 2.0, 1.0)),
    (clip_scaled, (0.5, 0.2, 1.0)),
], ids=["crossed-floats", "crossed-some-elements", "below-both", "between", "ordinary"])
def test_clip_with_crossed_bounds(f, args, check_gradient):
    check_gradient(f, args, wrt=(0, 1, 2), debug=True)


# ---- np.inner and .T of 0-d operands (rules/numpy_linalg.py, rules/operators.py) ----
# Were crashes in the gradient (ValueError from tensordot; 'float' has no attribute 'T').

def inner_with_number(x, s):
    return np.sum(np.inner(s, x) ** 2)


def transpose_attribute_of_0d(x):
    return x.T * 3.0 + x


@pytest.mark.parametrize("f, args, wrt", [
    (inner_with_number, (M3, 2.0), (0, 1)),
    (inner_with_number, (M3, np.array(2.0)), (0, 1)),
    (transpose_attribute_of_0d, (np.array(0.7),), 0),
], ids=lambda v: getattr(v, "__name__", None))
def test_zero_dimensional_operands(f, args, wrt, check_gradient):
    check_gradient(f, args, wrt)


# ---- np.prod of an empty array (runtime.prod_adjoint) ----
# Was a crash: "cannot reshape array of size 1 into shape (0, 3)".

def prod_plus_sum(x):
    return np.prod(x) * 2.0 + np.sum(x)


@pytest.mark.parametrize("shape", [(0,), (0, 3)])
def test_prod_of_an_empty_array(shape):
    x = np.zeros(shape)
    result = srcdiff.grad(prod_plus_sum)(x)
    assert isinstance(result, np.ndarray) and result.shape == shape


# ---- the command line on a file that does not import (cli.py) ----
# Was a traceback; now one line naming the file (and the line of a syntax error).

@pytest.mark.parametrize("text, expected", [
    ("def f(x:\n    return x\n", r"broken\.py:1: '\(' was never closed"),
    ("raise RuntimeError('no data')\ndef f(x):\n    return x\n",
     r"importing .*broken\.py raised RuntimeError: no data"),
], ids=["syntax-error", "raises-on-import"])
def test_command_line_on_a_file_that_does_not_import(tmp_path, capsys, text, expected):
    from srcdiff.tools import cli

    path = tmp_path / "broken.py"
    path.write_text(text)
    assert cli.main(["show", f"{path}:f"]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert re.search(r"srcdiff: error: .*" + expected, err)


def mean_of_rows_of_empty(E):
    return np.sum(np.mean(E, axis=-1, keepdims=True) * E)


def var_of_columns(E):
    return np.sum(np.var(E, axis=0))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("func, shape", [(mean_of_rows_of_empty, (0, 3)), (mean_of_rows_of_empty, (2, 0)),
                                         (var_of_columns, (0, 3))])
def test_reduction_over_an_empty_axis_has_an_empty_gradient(func, shape):
    g = srcdiff.grad(func)(np.ones(shape))
    assert g.shape == shape and g.dtype == np.float64
