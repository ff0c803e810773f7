"""Higher derivatives through the constructs srcdiff's own gradient code uses.

Each program below uses one construct whose first-order adjoint the generated gradient
spells in a way of its own (a scatter-add for fancy indexing and masks, writes through
``x[::-1]`` and ``x[:, None]``, the eye of trace and diag, selects under ``np.where``, a
``while`` test with ``and``/``or``).  Every one goes through `hessian` (against second-order
central differences of f itself, float64), `hvp`, ``jacobian(grad(f))`` and, for a scalar
input, ``grad(grad(f))``.  No reference is computed by srcdiff.
"""

import inspect

import numpy as np
import pytest
from numeric import assert_close, hessian_difference

import srcdiff
from srcdiff.driver import higher

LABELS = np.array([1, 0, 3])
PICK = np.array([0, 0, 2, 3])
BASE = np.array([0.3, -0.4, 0.7, 1.1])
SLOPES = np.array([1.0, 200.0, -3.0])


# ---- programs over an array x (hessian, hvp, jacobian(grad)) ----

def fancy_pairs(x, labels):
    z = np.reshape(x, (3, 4))
    return np.sum(np.exp(z[np.arange(3), labels]) ** 2)


def cross_entropy(x, labels):
    z = x.reshape(3, 4)
    m = np.max(z, axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(z - m), axis=1))
    return np.mean(lse - z[np.arange(3), labels])


def repeated_indices(x):
    return np.sum(x[PICK] ** 3) + x[PICK[2]] * x[0]


def index_list(x):
    return np.sum(np.sin(x[[3, 1, 1]]) * x[:3])


def index_in_a_name(x):
    rows = [3, 1, 1]
    at = np.array([0, 2])
    return np.sum(np.sin(x[rows]) * x[:3]) + np.sum(x[at] ** 3)


def boolean_mask(x):
    m = x > 0.0
    return np.sum(x[m] ** 3) + np.sum(np.cos(x[~m]))


def mask_of_rows(x):
    A = x.reshape(2, 2)
    keep = np.array([True, False])
    return np.sum(A[keep] ** 2 * A[:, 0])


def new_axes(x):
    d = x[:, None] - x[None, :]
    return np.sum(np.sin(d) * d)


def reversed_slice(x):
    return np.sum(x * x[::-1] ** 2)


def strided(x):
    return np.sum(x[::2] ** 2 * x[1::2]) + x[-1] ** 3


def column_and_row(x):
    A = x.reshape(2, 2)
    return np.sum(A[:, 0] ** 2 * A[1, :] ** 3) + np.sum(A[..., 1] ** 3)


def trace_of_square(x):
    A = x.reshape(2, 2)
    return np.trace(A @ A) + np.trace(A) ** 2


def diagonal(x):
    return np.sum(np.diag(np.outer(x, x)) ** 2) + np.sum(np.diag(x) * x[:, None] ** 2)


def softplus(x):
    return np.sum(np.where(x < 30.0, np.log1p(np.exp(x)), x))


def where_chain(x):
    return np.sum(np.where(x > 0.0, np.sqrt(np.abs(x)) * x ** 2, np.exp(x) * x))


def squeezed(x):
    A = x.reshape(1, 4)
    return np.sum(np.squeeze(A) ** 3) + np.sum(np.sin(A.ravel()) * A.ravel())


def expanded(x):
    return np.sum(np.expand_dims(x, 0) * np.expand_dims(x, 1) ** 2)


def slice_write(x):
    y = np.zeros(4)
    y[1:3] = x[:2] ** 2
    y[0] = x[2] * x[3]
    return np.sum(y ** 2)


def loop_of_reads(x):
    s = 0.0
    for i in range(3):
        s = s + x[i] * x[i + 1] ** 2
    return s


ARRAY_PROGRAMS = {
    "fancy index pairs": (fancy_pairs, lambda rng: (rng.normal(size=12) * 0.5, LABELS)),
    "cross-entropy": (cross_entropy, lambda rng: (rng.normal(size=12), LABELS)),
    "repeated indices": (repeated_indices, lambda rng: (BASE + 0.1 * rng.normal(size=4),)),
    "index list": (index_list, lambda rng: (rng.normal(size=4),)),
    "index held in a name": (index_in_a_name, lambda rng: (rng.normal(size=4),)),
    "boolean mask": (boolean_mask, lambda rng: (BASE + 0.1 * rng.normal(size=4),)),
    "mask of rows": (mask_of_rows, lambda rng: (rng.normal(size=4),)),
    "x[:, None]": (new_axes, lambda rng: (rng.normal(size=4),)),
    "x[::-1]": (reversed_slice, lambda rng: (rng.normal(size=4),)),
    "strided slices": (strided, lambda rng: (rng.normal(size=4),)),
    "column and row": (column_and_row, lambda rng: (rng.normal(size=4),)),
    "trace": (trace_of_square, lambda rng: (rng.normal(size=4),)),
    "diag": (diagonal, lambda rng: (rng.normal(size=3),)),
    "softplus": (softplus, lambda rng: (rng.normal(size=3) * 3.0,)),
    "where chain": (where_chain, lambda rng: (BASE + 0.1 * rng.normal(size=4),)),
    "squeeze, ravel": (squeezed, lambda rng: (rng.normal(size=4),)),
    "expand_dims": (expanded, lambda rng: (rng.normal(size=3),)),
    "slice write": (slice_write, lambda rng: (rng.normal(size=4),)),
    "loop of reads": (loop_of_reads, lambda rng: (rng.normal(size=4),)),
}


def second_by_differences(f, t, h=1e-4):
    return (f(t + h) - 2.0 * f(t) + f(t - h)) / (h * h)


@pytest.mark.parametrize("name", sorted(ARRAY_PROGRAMS))
def test_hessian(name, rng):
    f, make = ARRAY_PROGRAMS[name]
    args = make(rng)
    assert_close(srcdiff.hessian(f)(*args), hessian_difference(f, args), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(ARRAY_PROGRAMS))
def test_hvp(name, rng):
    f, make = ARRAY_PROGRAMS[name]
    args = make(rng)
    v = rng.normal(size=np.shape(args[0]))
    expected = hessian_difference(f, args).reshape(v.size, v.size) @ v
    assert_close(srcdiff.hvp(f, args[0], v, *args[1:]), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(ARRAY_PROGRAMS))
def test_jacobian_of_the_gradient(name, rng):
    f, make = ARRAY_PROGRAMS[name]
    args = make(rng)
    assert_close(srcdiff.jacobian(srcdiff.grad(f))(*args), hessian_difference(f, args), rtol=1e-5, atol=1e-5)


# ---- programs of one number t (grad(grad(f))) ----

def scalar_fancy(t):
    x = np.sin(t * BASE)
    return np.sum(x[PICK] ** 3)


def scalar_mask(t):
    x = t * BASE
    return np.sum(np.exp(x[x > 0.0]))


def scalar_new_axes(t):
    x = np.cos(t * BASE)
    d = x[:, None] * x[None, :]
    return np.sum(d ** 2)


def scalar_reversed(t):
    x = t * BASE + 1.0
    return np.sum(x * x[::-1] ** 2)


def scalar_trace(t):
    A = np.reshape(np.sin(t * BASE), (2, 2))
    return np.trace(A @ A.T) * np.trace(A)


def scalar_softplus(t):
    x = t * SLOPES
    return np.sum(np.where(x < 30.0, np.log1p(np.exp(x)), x))


def newton_or(t):
    y = t
    err = 1.0
    it = 0
    while err > 1e-12 and it < 30:
        y_new = y - (y * y - t - 2.0) / (2.0 * y)
        err = abs(y_new - y)
        y = y_new
        it = it + 1
    return y * t


def newton_cap_or_tolerance(t):
    y = 1.0
    it = 0
    while it < 5 or abs(y * y - t) > 1e-13:
        y = 0.5 * (y + t / y)
        it = it + 1
        if it > 40 or y > 1e6:
            break
    return y ** 3


SCALAR_PROGRAMS = {
    "fancy index": (scalar_fancy, 0.7),
    "mask": (scalar_mask, 0.9),
    "x[:, None]": (scalar_new_axes, 0.4),
    "x[::-1]": (scalar_reversed, -0.6),
    "trace": (scalar_trace, 1.3),
    "softplus": (scalar_softplus, 0.5),
    "while with and": (newton_or, 1.3),
    "while with or, break with or": (newton_cap_or_tolerance, 1.7),
}


@pytest.mark.parametrize("name", sorted(SCALAR_PROGRAMS))
def test_grad_of_grad(name):
    f, t = SCALAR_PROGRAMS[name]
    second = srcdiff.grad(srcdiff.grad(f))(t)
    assert second == pytest.approx(second_by_differences(f, t), rel=1e-5, abs=1e-5)


# ---- exact where the derivative exists ----

def test_softplus_hessian_at_800_is_zero_not_nan():
    x = np.array([800.0, 1.0, -2.0])
    with np.errstate(over="ignore", invalid="ignore"):  # exp(800) overflows where it is not selected
        H = srcdiff.hessian(softplus)(x)
        product = srcdiff.hvp(softplus, x, np.ones(3))
    sigmoid = 1.0 / (1.0 + np.exp(-x[1:]))
    assert_close(H, np.diag([0.0, *(sigmoid * (1.0 - sigmoid))]), rtol=1e-12, atol=0)
    assert_close(product, np.diag(H), rtol=1e-12, atol=0)


def test_where_of_an_overflowing_branch_second_order():
    x = np.array([-1000.0, 0.5])
    H = srcdiff.hessian(where_chain)(x)
    assert not np.isnan(H).any()
    assert H[0, 0] == 0.0 and H[0, 1] == 0.0


def outside_unit(x):
    far = x > 1.0 or x < -1.0
    return x ** 3 if far else x * 2.0


@pytest.mark.parametrize("x", [-1.5, 0.3, 2.0])
def test_a_bool_of_comparisons_is_a_value(x):
    expected = 6.0 * x if abs(x) > 1.0 else 0.0
    assert srcdiff.grad(srcdiff.grad(outside_unit))(x) == pytest.approx(expected, rel=1e-12)


# ---- the derivable gradient is read back as generated ----

def test_no_text_editing():
    assert not hasattr(higher, "_derivable_source")
    gradient = srcdiff.grad(cross_entropy)
    args = (np.linspace(-1.0, 1.0, 12), LABELS)
    func = gradient.generated_for(args)
    _, made = gradient._derivable(args)
    assert inspect.getsource(func) == made.source  # the very source compiled, line for line
    assert "del " not in made.source and "np.add.at" not in made.source
    assert "index_add(" in made.source
    assert made.source.rstrip().splitlines()[-1].strip() == "return x_bar"


def test_the_first_order_gradient_is_unchanged_by_derivable_mode(rng):
    x = rng.normal(size=12)
    source = srcdiff.grad(cross_entropy).source_for(x, LABELS)
    assert "np.add.at(" in source and "index_add" not in source


# ---- lists: read back since the list adjoints have rules (test_higher_lists.py has more) ----

def stacked(x):
    return np.sum(np.stack([x, x ** 2, np.cos(x)]) ** 3)


def summed_list(x):
    return sum([x[i] ** 2 * x[i + 1] for i in range(2)])


def pair_of_values(x):
    t = [x[0] * x[1], np.exp(x[2])]
    return t[0] * t[1]


def split_in_two(x):
    a, b = np.split(x[:2], 2)
    return np.sum(a * b ** 2)


# (joins, products and linear algebra are read back: tests/transforms/test_higher_joins_linalg.py)
@pytest.mark.parametrize("f", [stacked, summed_list, pair_of_values, split_in_two])
def test_lists_once_refused_are_read_back(f):
    x = np.array([0.3, 0.5, 0.9])
    assert_close(srcdiff.hessian(f)(x), hessian_difference(f, (x,)), rtol=2e-5, atol=2e-5)


# ---- nested loops are read back (test_higher_closure.py has more); what is refused says where ----

def nested_loops(x):
    s = 0.0
    for i in range(2):
        for j in range(2):
            s = s + np.sin(x[i] * s) * x[j]
    return s


def test_nested_loops_are_read_back():
    x = np.array([0.3, 0.5, 0.9])
    assert_close(srcdiff.hessian(nested_loops)(x), hessian_difference(nested_loops, (x,)), rtol=2e-5, atol=2e-5)


def power(x, n):
    return 1.0 if n == 0 else x * power(x, n - 1)


def through_recursion(x):
    return np.sum(power(x, 3))


def pair(x, n):
    if n == 0:
        return x, x * x
    a, b = pair(x * 0.9, n - 1)
    return a + b, a * b


def through_recursion_of_a_tuple(x):
    a, b = pair(x, 2)
    return np.sum(a * b)


def test_recursion_is_read_back():
    x = np.array([0.3, 0.5, 0.9])
    assert_close(srcdiff.hessian(through_recursion)(x), np.diag(6.0 * x), rtol=1e-12, atol=1e-12)  # sum(x**3)''


def test_refusals_name_the_users_line():
    with pytest.raises(srcdiff.SrcDiffError, match="list") as info:
        srcdiff.hessian(through_recursion_of_a_tuple)(np.array([0.3, 0.5, 0.9]))
    where = info.value.location
    assert where.filename == __file__
    assert where.code.strip() in inspect.getsource(through_recursion_of_a_tuple)  # a line of the function itself
