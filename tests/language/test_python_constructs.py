"""Everyday Python inside differentiated code: subscripts, lists, comprehensions, lambdas,
builtins, and the constructs srcdiff refuses (with the user's line)."""

import numpy as np
import pytest

import srcdiff


def subscripts(x, A):
    a, b = x[0], x[1:]
    return a * np.sum(b[::2]) + np.sum(A[:, 0] * A[1]) + np.sum(x[np.array([0, 0, 2])])


def augmented(x, y):
    z = x
    z += y
    z *= x
    z -= 1.0
    z /= y
    return z


def list_by_append(x, w):
    hs = []
    for i in range(len(x)):
        hs.append(x[i] * w)
    return sum(hs) + hs[-1] * hs[0] + np.sum(np.stack(hs) ** 2) + np.sum(np.array(hs))


def list_and_loop_stack(x, w):
    hs = []
    for i in range(len(x)):
        hs.append((x[i] * w) ** 2)
    return sum(hs)


def comprehensions(w, x):
    n = len(x)
    dot = sum(w[i] * x[i] for i in range(n))
    squares = [v * v for v in x if v > -10.0]
    return dot + sum(squares)


def local_lambda(x, w):
    f = lambda a: np.tanh(a * w)  # noqa: E731
    return np.sum(f(x) + f(2.0 * x))


def builtins_on_values(x, y):
    return float(x) * abs(y) + max(x, y) - min(x * 2.0, y)


def shape_constants(x):
    n = len(x)
    m = x.shape[0]
    return np.sum(x * x) / n + m * x[0]


def tuple_unpacking(x, y):
    a, b = x * y, x + y
    b, a = a, b
    return a * b


CASES = [
    ("subscripts, slices, index arrays", subscripts, lambda rng: (rng.normal(size=5), rng.normal(size=(3, 3))), (0, 1)),
    ("augmented assignment", augmented, (1.3, 0.7), (0, 1)),
    ("list built by append", list_by_append, lambda rng: (rng.normal(size=4), 0.6), (0, 1)),
    ("list next to a loop stack", list_and_loop_stack, lambda rng: (rng.normal(size=4), 0.7), (0, 1)),
    ("comprehension and generator", comprehensions, lambda rng: (rng.normal(size=4), rng.normal(size=4)), (0, 1)),
    ("local lambda", local_lambda, lambda rng: (rng.normal(size=3), 0.8), (0, 1)),
    ("float/abs/min/max", builtins_on_values, (0.7, -1.2), (0, 1)),
    ("len and shape as constants", shape_constants, lambda rng: (rng.normal(size=4),), (0,)),
    ("tuple packing and unpacking", tuple_unpacking, (0.5, 1.5), (0, 1)),
]


@pytest.mark.parametrize("label, func, args, wrt", CASES, ids=[c[0] for c in CASES])
def test_constructs_match_central_differences(label, func, args, wrt, rng, check_gradient):
    check_gradient(func, args(rng) if callable(args) else args, wrt)


def test_index_array_with_repeats_scatter_adds(rng):
    df = srcdiff.grad(subscripts)
    x = rng.normal(size=5)
    df(x, np.eye(3))
    assert "np.add.at(" in df.source


# ---- refused constructs: SrcDiffError naming the line and the construct ----

def uses_try(x):  # a try is a branch taken at run time (try_blocks.py); a `finally` is refused
    try:
        y = x * 2.0
    except ValueError:
        y = x
    finally:
        x = 0.0
    return y


def uses_with(x):
    with open("f") as f:  # noqa: F841
        y = x
    return y


COUNTER = 0.0


def uses_global(x):
    global COUNTER
    COUNTER = x
    return x


def uses_nonlocal_maker():
    total = 0.0

    def uses_nonlocal(x):
        nonlocal total
        total = x
        return x

    return uses_nonlocal


uses_nonlocal = uses_nonlocal_maker()


def uses_class(x):
    class Box:
        pass
    return x


def uses_generator_expression_badly(x):
    g = (v for v in x)
    return next(g)


def generator_function(x):
    yield x


async def async_function(x):
    return x


def writes_argument(x):
    x[0] = 1.0
    return np.sum(x)


def inplace_augmented_subscript(x):
    x[0] += 1.0
    return np.sum(x)


def nested_def(x):
    def g(v, k=np.ones(3) * x[0]):  # noqa: B008  a call: computed once, when the def runs: refused
        return v * k
    return g(x)


REFUSED = [
    (uses_try, "it has a `finally`", 1),
    (uses_with, "`with` blocks", 1),
    (uses_global, "`global` declarations", 1),
    (uses_nonlocal, "`nonlocal` declarations", 1),
    (uses_class, "class definitions", 1),
    (writes_argument, "writing into x[0]", 1),
    (inplace_augmented_subscript, "writing into x[0]", 1),
    (nested_def, "the nested function g is supported with plain positional parameters", 1),
]


@pytest.mark.parametrize("func, construct, offset", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_refused_construct_names_line_and_construct(func, construct, offset):
    line = func.__code__.co_firstlineno + offset
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(func)(np.ones(3))
    message = str(info.value)
    assert construct in message
    assert f"test_python_constructs.py:{line}" in message


@pytest.mark.parametrize("func, construct", [(generator_function, "generator"), (async_function, "async")])
def test_generator_and_async_functions_are_refused(func, construct):
    with pytest.raises(srcdiff.SrcDiffError, match=construct):
        srcdiff.grad(func)(1.0)


# ---- a loop's target after the loop: its last item, or its old value after no iteration ----

def item_after_loop(x):
    s = 0.0
    v = 0.0
    for v in x:
        s = s + v
    return s * v


def index_after_range(x, n):
    i = 0
    for i in range(n):  # noqa: B007 (read after the loop)
        x = x * 1.5
    return x * i


def index_and_item_after_enumerate(x):
    s = 0.0
    i, v = 0, 0.0
    for i, v in enumerate(x):
        s = s + v * i
    return s * (i + 1) * v


def pair_after_zip(x, y):
    s = 0.0
    a, b = 0.0, 0.0
    for a, b in zip(x, y):
        s = s + a * b
    return s * a * b


def item_after_nested_loop(x):
    s = 0.0
    v = 0.0
    for _ in range(2):
        for v in x:
            s = s + v
    return s * v


def index_after_nested_range(x, n):
    i = 0
    for _ in range(n):
        for i in range(3):  # noqa: B007 (read after the loop)
            x = x * 1.5
    return x * i


def item_after_loop_in_a_branch(x, c):
    s = 0.0
    v = 1.0
    if c > 0:
        for v in x:
            s = s + v
    return (s + 1.0) * v


def item_reassigned_in_body(x):
    s = 0.0
    v = 0.0
    for v in x:
        v = v * v
        s = s + v
    return s * v


X4 = np.array([1.0, -2.0, 4.0, 0.5])
TARGETS = [
    (item_after_loop, (X4,)),
    (item_after_loop, (X4[:0],)),
    (index_after_range, (1.3, 3)),
    (index_after_range, (1.3, 0)),
    (index_and_item_after_enumerate, (X4,)),
    (pair_after_zip, (X4, X4[::-1] * 2.0)),
    (item_after_nested_loop, (X4,)),
    (index_after_nested_range, (1.3, 2)),
    (index_after_nested_range, (1.3, 0)),
    (item_after_loop_in_a_branch, (X4, 1.0)),
    (item_after_loop_in_a_branch, (X4, -1.0)),
    (item_reassigned_in_body, (X4,)),
]


@pytest.mark.parametrize("func, args", TARGETS,
                         ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(TARGETS)])
def test_loop_target_read_after_the_loop(func, args, check_gradient):
    check_gradient(func, args)
