"""Forward mode and second order through user functions that stay calls.

A helper that cannot be copied into its caller (recursive, mutually recursive, a closure, a
decorated function, library code such as SciPy's ``logsumexp``) is differentiated by its own
tangent function in forward mode (``t, t_dot = helper_jvp(x_dot, x, n)``), and by its own
seeded gradient in a gradient srcdiff differentiates again (``x_bar = helper_vjp(t_bar, x,
n)``), so jvp, hvp, hessian, grad(grad) and the Jacobian of the gradient go through it.  Every
result is compared with central differences of f (or second differences of f), never with
srcdiff's own output; a second set of checks compares hvp with central differences of the
gradient, itself checked against central differences of f first.
"""

import functools

import numpy as np
import pytest
from numeric import SECOND_ORDER, assert_close, central_difference, hessian_difference, second_order
from scipy.special import logsumexp

import srcdiff

# ---- recursive helpers ----------------------------------------------------------------


def _depth(x, n):
    """A recursion on a depth argument."""
    if n == 0:
        return x
    return np.sin(_depth(x, n - 1)) * x + 0.5


def depth_argument(x):
    return np.sum(_depth(x, 3) ** 2)


def _even(x, n):
    if n <= 0:
        return x
    return _odd(x * 1.2, n - 1) + np.cos(x)


def _odd(x, n):
    return _even(x * x, n - 1) - 0.3 * x


def mutual_recursion(x):
    return np.sum(_even(x, 4))


def _power(x, n):
    if n == 0:
        return 1.0
    return x * _power(x, n - 1)


def recursive_power(x):
    return np.sum(_power(x, 3) + 2.0 * _power(x, 2))


def _loop_then_recurse(x, n):
    """Recursion whose body also loops: the tangent function keeps both."""
    if n == 0:
        return x
    y = x
    for _ in range(2):
        y = np.tanh(y) + 0.1 * x
    return _loop_then_recurse(y, n - 1) * 1.5


def recursion_with_loop(x):
    return np.sum(_loop_then_recurse(x, 2) ** 2)


# ---- decorated helpers and closures ---------------------------------------------------


def _doubling(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)
    return wrapper


@_doubling
def _decorated_cube(x):
    return x ** 3


def decorated_helper(x):
    return np.sum(_decorated_cube(x) * np.sin(x))


def _make_scaled_exp(c):
    def scaled(x):
        return np.exp(c * x)
    return scaled


_scaled_exp = _make_scaled_exp(0.7)


def closure_helper(x):
    return np.sum(_scaled_exp(x) / (1.0 + x * x))


# ---- SciPy's logsumexp (a decorated library function) ----------------------------------

_DATA = np.array([-1.1, 0.3, 0.9, 2.2, -0.4])


def mixture_model(locs):
    comps = -0.5 * (_DATA[:, None] - locs[None, :]) ** 2
    return np.sum(logsumexp(comps, axis=1))


def softmax_entropy(logits):
    z = logits / 1.7
    p = np.exp(z - logsumexp(z))
    return -np.sum(p * np.log(p))


# ---- np.linalg.solve where the shapes are known only when it runs -----------------------


def _stiffness(n, k):
    K = np.zeros((n, n))
    for i in range(n):
        K[i, i] = 2 * k + 1.0
        if i > 0:
            K[i, i - 1] = -k
            K[i - 1, i] = -k
    return K


def solve_runtime_vector(loads):
    K = _stiffness(loads.shape[0], 2.0)
    u = np.linalg.solve(K, loads)
    return 0.5 * u @ K @ u + np.sum(u ** 3)


def solve_runtime_matrix(a):
    K = _stiffness(a.shape[0], 1.5) + np.diag(a * a)
    U = np.linalg.solve(K, np.outer(a, np.ones(2)) + 1.0)
    return np.sum(U ** 2)


def solve_both_differentiated(a):
    K = _stiffness(a.shape[0], 1.0) + np.outer(a, a)
    return np.sum(np.sin(np.linalg.solve(K, a + 1.0)))


def solve_rhs_vector_unknown(a):
    K = _stiffness(a.shape[0], 1.0) + np.outer(a, a)
    b = np.squeeze(np.tile(_stiffness(a.shape[0], 0.5) @ a, (1, 1)).T)  # neither ndim known when compiling
    return np.sum(np.linalg.solve(K, b) ** 2)


def solve_rhs_matrix_unknown(a):
    K = _stiffness(a.shape[0], 1.0) + np.outer(a, a)
    B = np.squeeze(np.tile(_stiffness(a.shape[0], 0.5) * a, (1, 1, 1)))
    return np.sum(np.linalg.solve(K, B) ** 2)


PROGRAMS = {
    "depth_argument": depth_argument,
    "mutual_recursion": mutual_recursion,
    "recursive_power": recursive_power,
    "recursion_with_loop": recursion_with_loop,
    "decorated_helper": decorated_helper,
    "closure_helper": closure_helper,
    "mixture_model": mixture_model,
    "softmax_entropy": softmax_entropy,
    "solve_runtime_vector": solve_runtime_vector,
    "solve_runtime_matrix": solve_runtime_matrix,
    "solve_both_differentiated": solve_both_differentiated,
    "solve_rhs_vector_unknown": solve_rhs_vector_unknown,
    "solve_rhs_matrix_unknown": solve_rhs_matrix_unknown,
}

#: programs whose helpers take a single number as well: grad(grad(f)) needs one
SCALAR = ["depth_argument", "mutual_recursion", "recursive_power", "recursion_with_loop", "decorated_helper",
          "closure_helper"]


def _point(name: str) -> np.ndarray:
    rng = np.random.default_rng(sum(map(ord, name)))
    return rng.uniform(0.2, 0.9, size=4)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_jvp_against_central_differences(name):
    f, x = PROGRAMS[name], _point(name)
    v = np.linspace(0.5, -1.5, x.size)
    value, tangent = srcdiff.jvp(f, (x,), (v,))
    eps = 1e-6
    assert value == pytest.approx(f(x), rel=1e-12)
    assert_close(tangent, (f(x + eps * v) - f(x - eps * v)) / (2 * eps), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("transform", SECOND_ORDER)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_second_order_against_second_differences(name, transform):
    f, x = PROGRAMS[name], _point(name)
    got, expected = second_order(transform, f, x, np.random.default_rng(3))
    assert_close(np.asarray(got, dtype=float), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_hvp_against_differences_of_the_checked_gradient(name):
    f, x = PROGRAMS[name], _point(name)
    gradient = srcdiff.grad(f)
    assert_close(gradient(x), central_difference(f, (x,), 0), rtol=1e-6, atol=1e-7)  # checked first
    v = np.linspace(-1.0, 1.0, x.size)
    eps = 1e-6
    expected = (gradient(x + eps * v) - gradient(x - eps * v)) / (2 * eps)
    assert_close(srcdiff.hvp(f, x, v), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", SCALAR)
def test_grad_of_grad_of_a_number(name):
    f, x = PROGRAMS[name], 0.63
    expected = hessian_difference(lambda y: f(float(y)), (np.array(x),))
    assert srcdiff.grad(srcdiff.grad(f))(x) == pytest.approx(float(expected), rel=1e-4, abs=1e-6)


# ---- what the generated code looks like --------------------------------------------------


def test_a_recursive_helper_has_one_tangent_function_that_calls_itself():
    x, v = _point("p"), np.ones(4)
    jvp = srcdiff.jvp_function(recursive_power)
    jvp((x,), (v,))
    listing = srcdiff.driver.full_source(jvp._last)
    assert "= _power_jvp(x_dot, x, 3)" in listing
    defined = [line for line in listing.splitlines() if line.startswith("def ")]
    assert defined == ["def recursive_power_jvp(x, x_dot):", "def _power_jvp(x_dot, x, n):"]


def test_mutually_recursive_helpers_get_a_tangent_function_each():
    jvp = srcdiff.jvp_function(mutual_recursion)
    jvp((_point("m"),), (np.ones(4),))
    listing = srcdiff.driver.full_source(jvp._last)
    names = sorted(line.split("(")[0] for line in listing.splitlines() if line.startswith("def "))
    assert len(names) == 3 and names[0] == "def _even_jvp" and names[1].startswith("def _odd_jvp")
    assert names[2] == "def mutual_recursion_jvp"


def test_the_value_of_a_jvp_through_a_recursive_helper_is_the_function_value():
    x = _point("value")
    for f in (depth_argument, mutual_recursion, recursive_power):
        value, _ = srcdiff.jvp(f, (x,), (np.zeros(4),))
        assert value == f(x)


def test_a_tangent_of_none_leaves_a_helper_argument_constant():
    def two_arguments(x, y):
        return np.sum(_power(x, 2) * _power(y, 3))

    x, y = _point("x"), _point("y")
    v = np.linspace(0.1, 0.4, 4)
    _, tangent = srcdiff.jvp(two_arguments, (x, y), (v, None))
    eps = 1e-6
    expected = (two_arguments(x + eps * v, y) - two_arguments(x - eps * v, y)) / (2 * eps)
    assert tangent == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("f", [solve_rhs_vector_unknown, solve_rhs_matrix_unknown])
def test_the_tangent_of_solve_decides_vector_or_matrices_when_it_runs(f):
    jvp = srcdiff.jvp_function(f)
    jvp((_point("s"),), (np.ones(4),))
    assert "if np.ndim(" in jvp.source  # the right-hand side's ndim was not known when compiling


# ---- a Hessian of a tree whose gradients are not all batched -----------------------------


def linear_in_a_tree(params, x):
    (a, b), c = params
    return np.sum(a * x ** 2 + b * x) + c * np.sum(np.cos(x))


def quadratic_in_one_leaf(params, x):
    (a, b), c = params
    return np.sum(a * a * x + b * x) + c * np.sum(np.cos(x))


def test_hessian_of_a_nested_tuple_whose_second_derivatives_are_constants():
    """Every block is a constant (zero, or 2 diag(x)): the batched code returns gradients no
    row changes, a tuple of them copied row by row."""
    a, b, x = np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0]), np.array([0.5, -0.2, 0.9])
    params = ((a, b), 0.7)
    H = srcdiff.hessian(linear_in_a_tree)(params, x)
    for block in (H[0][0][0][0], H[0][0][0][1], H[0][1][1][1], H[1][1]):
        assert np.all(np.asarray(block) == 0.0)
    H = srcdiff.hessian(quadratic_in_one_leaf)(params, x)
    assert_close(np.asarray(H[0][0][0][0]), np.diag(2.0 * x))  # d2/da2 of sum(a*a*x), by hand
    assert np.all(np.asarray(H[0][1][0][1]) == 0.0) and float(H[1][1]) == 0.0


# ---- a helper too large to copy: an RK4 step calling its right-hand side four times --------


def _rhs(y, k):
    return np.array([y[1], -k * np.sin(y[0]) - 0.1 * y[1]])


def _rk4_step(y, k, h):
    a = _rhs(y, k)
    b = _rhs(y + 0.5 * h * a, k)
    c = _rhs(y + 0.5 * h * b, k)
    d = _rhs(y + h * c, k)
    return y + h / 6.0 * (a + 2.0 * b + 2.0 * c + d)


def pendulum_energy(y0):
    y = y0
    for _ in range(3):
        y = _rk4_step(y, 2.0, 0.1)
    return 0.5 * y[1] ** 2 + 2.0 * (1.0 - np.cos(y[0]))


@pytest.mark.parametrize("transform", ["jvp", *SECOND_ORDER])
def test_a_helper_over_the_size_cap_goes_through_its_own_functions(monkeypatch, transform):
    from srcdiff.ad import inline

    srcdiff.clear_cache()
    monkeypatch.setattr(inline, "MAX_NODES", 8)  # the step stays a call; its right-hand side is copied
    try:
        y0 = np.array([0.4, -0.3])
        if transform == "jvp":
            jvp = srcdiff.jvp_function(pendulum_energy)
            v = np.array([1.0, 0.5])
            _, tangent = jvp((y0,), (v,))
            assert "_rk4_step_jvp(" in srcdiff.driver.full_source(jvp._last)  # the call was kept
            eps = 1e-6
            assert tangent == pytest.approx((pendulum_energy(y0 + eps * v) - pendulum_energy(y0 - eps * v))
                                            / (2 * eps), rel=1e-6)
        else:
            got, expected = second_order(transform, pendulum_energy, y0, np.random.default_rng(5))
            assert_close(np.asarray(got, dtype=float), expected, rtol=1e-4, atol=1e-5)
    finally:
        srcdiff.clear_cache()


# ---- what is still refused, at the user's line ------------------------------------------


def _pair(x, n):
    if n == 0:
        return x, x * x
    a, b = _pair(x * 0.9, n - 1)
    return a + b, a * b


def tuple_from_recursion(x):
    a, b = _pair(x, 2)
    return np.sum(a * b)


def test_a_recursive_helper_returning_a_tuple_works_in_forward_mode_and_is_refused_at_second_order():
    x, v = _point("t"), np.linspace(1.0, 2.0, 4)
    _, tangent = srcdiff.jvp(tuple_from_recursion, (x,), (v,))
    eps = 1e-6
    assert tangent == pytest.approx((tuple_from_recursion(x + eps * v) - tuple_from_recursion(x - eps * v))
                                    / (2 * eps), rel=1e-6)
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.hessian(tuple_from_recursion)(x)
    message = str(caught.value)
    line = tuple_from_recursion.__code__.co_firstlineno + 1
    assert f"test_forward_callees.py:{line}:" in message and "a, b = _pair(x, 2)" in message, message
    assert "hint:" in message and "is a closure" not in message
