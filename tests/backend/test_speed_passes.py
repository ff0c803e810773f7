"""Speed passes: inlined helpers and loop accumulations, checked against central differences."""

import math

import numpy as np
import pytest

import srcdiff


def central(f, args, index, eps=1e-6):
    args = list(args)
    x = args[index]
    if isinstance(x, float):
        args[index] = x + eps
        up = f(*args)
        args[index] = x - eps
        return (up - f(*args)) / (2 * eps)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        args[index] = xp
        up = f(*args)
        args[index] = xm
        g[i] = (up - f(*args)) / (2 * eps)
    return g


def check(f, args, wrt):
    grads = srcdiff.grad(f, wrt=wrt)(*args)
    for k, index in enumerate(wrt):
        np.testing.assert_allclose(grads[k], central(f, args, index), rtol=1e-5, atol=1e-7)


# ---- helpers ----

def rhs(y, k):
    return k * np.sin(y) - 0.5 * y * y


def rk4(y0, k, dt, steps):
    y = y0
    for _ in range(steps):
        k1 = rhs(y, k)
        k2 = rhs(y + 0.5 * dt * k1, k)
        k3 = rhs(y + 0.5 * dt * k2, k)
        k4 = rhs(y + dt * k3, k)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


def scaled(x, c=2.0):
    """A docstring is fine."""
    t = x * c
    return math.sin(t) + t


def uses_defaults(x, y):
    return scaled(x) + scaled(y, c=0.5) * scaled(x * y)


def pair(x, y):
    return x * y, x - y


def uses_pair(x, y):
    a, b = pair(x, y)
    return np.sum(a * b) + np.sum(np.exp(a))


def identity(x):
    return x


def uses_identity(x):
    return np.sum(identity(x) * x)


def twice(x):
    return rhs(x, 2.0) * x


def nested(x):
    return np.sum(twice(x) + twice(2.0 * x))


def in_branch(x, flag):
    if flag > 0:
        z = scaled(x)
    else:
        z = scaled(x, 3.0)
    return z * z


def broadcasting(x, w):
    return np.sum(rhs(x[:, None], w))


def test_rk4_with_a_helper_is_inlined_and_right():
    rng = np.random.default_rng(0)
    args = (rng.uniform(-1, 1, 5), rng.uniform(0.5, 1.5, 5), 0.1, 3)
    check(rk4, args, (0, 1))
    df = srcdiff.grad(rk4, wrt=(0, 1))
    assert "_vjp" not in df.source_for(*args) and "pullback" not in df.source_for(*args)


@pytest.mark.parametrize("f, args, wrt", [
    (uses_defaults, (0.3, -0.7), (0, 1)),
    (uses_pair, (np.array([0.3, 0.2]), np.array([-0.7, 1.1])), (0, 1)),
    (uses_identity, (np.array([0.3, 0.2]),), (0,)),
    (nested, (np.array([0.3, 0.2, -0.4]),), (0,)),
    (in_branch, (0.4, 1.0), (0,)),
    (in_branch, (0.4, -1.0), (0,)),
    (broadcasting, (np.array([0.3, 0.2, -0.4]), np.array([1.0, 2.0])), (0, 1)),
])
def test_inlined_helpers_match_central_differences(f, args, wrt):
    check(f, args, wrt)


def test_helper_with_a_loop_is_inlined():
    def power(x, n):
        y = 1.0
        for _ in range(n):
            y = y * x
        return y

    def caller(x):
        return power(x, 3) + x

    df = srcdiff.grad(caller)
    assert df(2.0) == pytest.approx(13.0)
    assert "power_vjp" not in df.source and "pullback" not in df.source


# ---- loop accumulations batched after the loop ----

def rnn_seq(Wx, Wh, b, xs, h0, target):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.mean((h - target) ** 2)


def outer_sum(A, vs):
    total = 0.0
    for i in range(vs.shape[0]):
        total = total + np.sum(np.outer(vs[i], vs[i]) * A)
    return total


def outer_with_break(W, xs):
    h = np.zeros(W.shape[1])
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ W + 0.5 * h)
        if np.sum(h) > 1.5:
            break
    return np.sum(h * h)


def nested_loops(W, xs):
    h = np.zeros(W.shape[1])
    for _ in range(2):
        for t in range(xs.shape[0]):
            h = np.sin(xs[t] @ W + h)
    return np.sum(h ** 2)


def while_loop(W, xs):
    h = np.zeros(W.shape[1])
    t = 0
    while t < xs.shape[0]:
        h = np.tanh(xs[t] @ W + h)
        t = t + 1
    return np.sum(h)


def scalar_recurrence(x, a, n):
    s = x
    total = 0.0
    for _ in range(n):
        s = 0.9 * s + a * math.sin(s)
        total = total + s * s
    return total


def zero_trips(W, xs):
    h = np.ones(W.shape[1])
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ W + h)
    return np.sum(h * h) + np.sum(W * W)


RNG = np.random.default_rng(1)
LOOP_CASES = [
    ("rnn_seq", rnn_seq, (RNG.normal(size=(3, 4)) / 2, RNG.normal(size=(4, 4)) / 2, RNG.normal(size=4),
                          RNG.normal(size=(5, 3)), np.zeros(4), RNG.normal(size=4)), (0, 1, 2)),
    ("outer_sum", outer_sum, (RNG.normal(size=(3, 3)), RNG.normal(size=(4, 3))), (0, 1)),
    ("break", outer_with_break, (RNG.normal(size=(3, 4)), RNG.normal(size=(6, 3))), (0,)),
    ("nested", nested_loops, (RNG.normal(size=(3, 4)) / 3, RNG.normal(size=(3, 3))), (0,)),
    ("while", while_loop, (RNG.normal(size=(3, 4)) / 2, RNG.normal(size=(4, 3))), (0,)),
    ("scalar", scalar_recurrence, (0.4, 0.6, 9), (0, 1)),
    ("zero trips", zero_trips, (RNG.normal(size=(3, 4)), np.zeros((0, 3))), (0,)),
]


@pytest.mark.parametrize("label, f, args, wrt", LOOP_CASES, ids=[c[0] for c in LOOP_CASES])
def test_loops_match_central_differences(label, f, args, wrt):
    check(f, args, wrt)


def test_outer_products_become_one_matmul_after_the_loop():
    args = LOOP_CASES[0][2]
    source = srcdiff.grad(rnn_seq, wrt=(0, 1, 2)).source_for(*args)
    assert "np.outer" not in source
    assert ".T @ " in source and "np.array(" in source


def test_a_loop_that_writes_in_place_keeps_its_accumulations():
    def scatter(W, xs):
        g = np.zeros(W.shape[1])
        for t in range(xs.shape[0]):
            g[t] = np.sum(xs[t] @ W) * g[t - 1]
        return np.sum(g * g)
    args = (RNG.normal(size=(3, 4)), RNG.normal(size=(3, 3)))
    check(scatter, args, (0,))


# ---- carried values and stacks read in reverse ----

def loop_in_branch(x, n):
    s = x
    if x > 0.0:
        for _ in range(n):
            s = s * math.cos(s) + x
    return s * s


def swapping(x, y, n):
    a, b = x, y
    for _ in range(n):
        a, b = b * math.sin(a), a + b
    return a * b


def two_loops(x, n):
    s = x
    for _ in range(n):
        s = math.sin(s) + s * x
    for _ in range(n):
        s = s * s * 0.5 + x
    return s


def while_break(x):
    s = x
    k = 0
    while k < 20:
        s = math.sin(s) * 1.5 + x
        k = k + 1
        if s > 1.2:
            break
    return s * s


@pytest.mark.parametrize("f, args, wrt", [
    (loop_in_branch, (0.7, 4), (0,)),
    (loop_in_branch, (-0.7, 4), (0,)),
    (swapping, (0.3, 0.5, 5), (0, 1)),
    (two_loops, (0.3, 4), (0,)),
    (two_loops, (0.3, 0), (0,)),
    (while_break, (0.4,), (0,)),
    (while_break, (0.05,), (0,)),
])
def test_carried_values_and_reversed_stacks_match_central_differences(f, args, wrt):
    check(f, args, wrt)


def test_a_scalar_loop_saves_one_value_per_iteration_and_reads_it_back():
    source = srcdiff.grad(scalar_recurrence, wrt=(0, 1)).source_for(0.4, 0.6, 9)
    # the sine is computed again from s rather than saved with it in a tuple (ad/invariants.py)
    assert "stack.append(s)" in source
    assert "in reversed(stack):" in source and ".pop()" not in source


# ---- common factors of adjoint sums ----

def test_common_factors_are_taken_out_of_backward_sums_only():
    import ast

    from srcdiff.backend.optimize.factor import factor_backward
    func = ast.parse(
        "def f_grad(x, y, g):\n"
        "    __srcdiff_comment__('forward')\n"
        "    v = x * y + x * 2.0\n"
        "    __srcdiff_comment__('backward')\n"
        "    a = g * x * y + g * 3.0 - g * y\n"
        "    b = x * y + 2.0 * (y * y) - y\n"
        "    return v, a, b\n").body[0]
    assert factor_backward(func)
    text = ast.unparse(func)
    assert "v = x * y + x * 2.0" in text  # the forward sweep is the user's computation
    assert "a = g * (x * y + 3.0 - y)" in text
    assert "b = 2.0 * (y * y) - y + y * x" in text or "b = y * x + 2.0 * (y * y) - y" in text \
        or "y * (" in text
    namespace = {"__srcdiff_comment__": lambda *a: None}
    exec(compile(ast.fix_missing_locations(ast.Module([func], [])), "<f>", "exec"), namespace)
    x, y, g = 0.3, -1.7, 2.5
    got = namespace["f_grad"](x, y, g)
    assert got[1] == pytest.approx(g * x * y + g * 3.0 - g * y)
    assert got[2] == pytest.approx(x * y + 2.0 * (y * y) - y)


def test_factored_polynomial_matches_central_differences():
    def poly(x, y):
        return x * x * y + 3.0 * math.sin(x) * y - math.exp(x * y) + 2.0 * y ** 3
    check(poly, (0.4, -0.8), (0, 1))


def test_first_scatter_into_fresh_zeros_is_an_assignment():
    import ast

    from srcdiff.backend.optimize.memory import first_scatter_assigns
    func = ast.parse(
        "def f(x, g):\n"
        "    a = np.zeros(x.shape)\n"
        "    a[:-1] += g\n"
        "    a[1:] += g\n"
        "    b = np.zeros(x.shape)\n"
        "    c = b.sum()\n"
        "    b[1:] += g\n"
        "    return a, b, c\n").body[0]
    assert first_scatter_assigns(func.body)
    text = ast.unparse(func)
    assert "a[:-1] = g" in text and "a[1:] += g" in text  # only the first
    assert "b[1:] += g" in text  # b was read in between


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def test_rosenbrock_matches_central_differences():
    check(rosenbrock, (np.array([0.3, -1.2, 0.8, 1.1, 0.05]),), (0,))
