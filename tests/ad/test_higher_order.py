"""Higher derivatives: srcdiff differentiates the gradients it generates.

Hessians are checked against second-order central differences of the function itself (no
srcdiff code in the reference), against SciPy's hand-written Rosenbrock Hessian, and against
sympy; Jacobians and pullbacks against first-order central differences.
"""

import math

import numpy as np
import pytest
import scipy.optimize
from numeric import assert_close, hessian_difference
from scipy.linalg import sqrtm

import srcdiff

# ---- functions ----


def sin_of(x):
    return math.sin(x)


def np_sin_times(x):
    return np.sin(x) * x


def quartic(x):
    return np.sum(x ** 4) - 2.0 * x[0] * x[1]


def tanh_layer(w, X):
    W = w.reshape(3, 2)
    h = np.tanh(X @ W)
    return np.mean(h ** 2) + 0.1 * np.sum(w * w)


def log_sum_exp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def where_cubic(x):
    return np.sum(np.where(x > 0, x ** 3, -x))


def where_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(np.abs(x)) * x, x * x))


def power_zero(x):
    return np.sum(x ** 2 * x[0] ** 0) + x[1] ** 3


def logistic_loss(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.05 * (w @ w)


def three_outputs(x):
    return np.array([x[0] * x[1], np.sin(x[2]), x[0] ** 2 + x[2]])


def matrix_output(x, A):
    return np.outer(x, x) + A * x[0]


def softmax(z, W):
    e = np.exp(W @ z - np.max(W @ z))
    return e / np.sum(e)


def looping(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.sin(x * s + i))
    return s


def tanh_recurrence(x, W):
    h = x
    for _ in range(4):
        h = np.tanh(W @ h)
    return np.sum(h * h)


def stops_early(x):
    s = 0.0
    for _ in range(10):
        s = s + np.sum(x ** 2) * 0.1
        if s > 1.0:
            break
    return s * np.sum(x)


def grows_until_large(x):
    s = x
    while np.sum(s * s) < 10.0:
        s = s * 1.5 + 0.1
    return np.sum(np.sin(s))


def returns_from_loop(x):
    for _ in range(5):
        if np.sum(x) > 3.0:
            return np.sum(x ** 3)
        x = x * 1.5
    return np.sum(x ** 2)


def rk4_with_helper(y, h):
    def rhs(y):
        return -y ** 3 + np.sin(y)
    for _ in range(4):
        k1 = rhs(y)
        k2 = rhs(y + h / 2 * k1)
        k3 = rhs(y + h / 2 * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(y ** 2)


def scalar_recurrence(x, n):
    s = x
    for _ in range(n):
        s = s * np.sin(s) + 0.1
    return s


def nested_loops(x):
    s = 0.0
    for i in range(2):
        for j in range(2):
            s = s + np.sum(np.sin(x * (i + j + s)))
    return s


def filled(x):
    return np.sum(np.full((2, 3), np.sum(x ** 2)) * x)


# ---- references (no srcdiff code) ----

def jacobian_by_differences(f, args, index=0, eps=1e-6):
    x = np.array(args[index], dtype=float)
    columns = []
    for k in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[k] = eps
        moved = list(args)
        moved[index] = x + step
        up = np.asarray(f(*moved), dtype=float)
        moved[index] = x - step
        columns.append((up - np.asarray(f(*moved), dtype=float)) / (2 * eps))
    out = np.stack(columns, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


# ---- Hessians against second-order central differences ----

HESSIAN_SPECS = {  # name: (function, argument maker)
    "quartic": (quartic, lambda rng: (rng.normal(size=4),)),
    "tanh layer": (tanh_layer, lambda rng: (rng.normal(size=6), rng.normal(size=(5, 3)))),
    "log-sum-exp": (log_sum_exp, lambda rng: (rng.normal(size=4),)),
    "where, cubic": (where_cubic, lambda rng: (rng.normal(size=5),)),
    "power 0": (power_zero, lambda rng: (rng.normal(size=3),)),
    "logistic loss": (logistic_loss, lambda rng: (rng.normal(size=3), rng.normal(size=(6, 3)),
                                                  np.sign(rng.normal(size=6)))),
    "loop": (looping, lambda rng: (rng.normal(size=3),)),
    "tanh recurrence": (tanh_recurrence, lambda rng: (rng.normal(size=3), rng.normal(size=(3, 3)))),
    "loop with break": (stops_early, lambda rng: (rng.normal(size=3),)),
    "while loop": (grows_until_large, lambda rng: (rng.uniform(0.5, 1.0, size=2),)),
    "return from a loop": (returns_from_loop, lambda rng: (rng.uniform(0.1, 0.5, size=2),)),
    "RK4 with a helper": (rk4_with_helper, lambda rng: (rng.normal(size=2), 0.1)),
    "np.full of a value": (filled, lambda rng: (rng.normal(size=3),)),
}


@pytest.mark.parametrize("name", sorted(HESSIAN_SPECS))
def test_hessian_against_second_differences(name, rng):
    f, make = HESSIAN_SPECS[name]
    args = make(rng)
    before = [np.copy(a) for a in args]
    H = srcdiff.hessian(f)(*args)
    assert_close(H, hessian_difference(f, args), rtol=1e-5, atol=1e-6)
    for a, b in zip(args, before):
        assert np.array_equal(a, b), "hessian changed its arguments"


@pytest.mark.parametrize("name", sorted(HESSIAN_SPECS))
def test_hvp_is_the_hessian_times_the_vector(name, rng):
    f, make = HESSIAN_SPECS[name]
    args = make(rng)
    v = rng.normal(size=np.shape(args[0]))
    expected = hessian_difference(f, args).reshape(v.size, v.size) @ v.ravel()
    assert_close(np.ravel(srcdiff.hvp(f, args[0], v, *args[1:])), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [2, 5, 30])
def test_hessian_of_scipy_rosen_is_rosen_hess(n, rng):
    for _ in range(3):
        x = rng.uniform(-2.0, 2.0, size=n)
        assert_close(srcdiff.hessian(scipy.optimize.rosen)(x), scipy.optimize.rosen_hess(x), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("n", [2, 7, 100])
def test_hvp_of_scipy_rosen_is_rosen_hess_prod(n, rng):
    x, v = rng.uniform(-2.0, 2.0, size=n), rng.normal(size=n)
    assert_close(srcdiff.hvp(scipy.optimize.rosen, x, v), scipy.optimize.rosen_hess_prod(x, v), rtol=1e-12, atol=1e-9)


# ---- grad of grad ----

@pytest.mark.parametrize("x", [-1.3, 0.0, 0.4, 2.5])
def test_third_derivative_of_sin_is_minus_cos(x):
    third = srcdiff.grad(srcdiff.grad(srcdiff.grad(sin_of)))
    assert third(x) == pytest.approx(-math.cos(x), rel=1e-14, abs=1e-15)
    fourth = srcdiff.grad(third)
    assert fourth(x) == pytest.approx(math.sin(x), rel=1e-14, abs=1e-15)


def test_second_derivative_of_numpy_code(rng):
    second = srcdiff.grad(srcdiff.grad(np_sin_times))
    for x in rng.normal(size=4):
        assert second(x) == pytest.approx(2 * np.cos(x) - x * np.sin(x), rel=1e-12)


def test_grad_of_grad_prints_its_own_source():
    second = srcdiff.grad(srcdiff.grad(np_sin_times))
    second(0.5)
    assert second.source == '''\
def np_sin_times_grad_grad(x):
    # backward
    # adjoint of np_sin_times_grad:4  x_bar = np.sin(x) + x * np.cos(x)
    x_bar_1 = np.cos(x) - x * np.sin(x) + np.cos(x)
    return x_bar_1
'''


def test_exact_at_special_points():
    # x ** 0 and the untaken side of np.where: the true second derivative, never NaN
    x = np.array([0.0, 0.0, -1.0])
    H = srcdiff.hessian(power_zero)(x)
    assert_close(H, np.diag([2.0, 2.0, 2.0]))
    H = srcdiff.hessian(where_sqrt)(np.array([-0.5, -2.0]))
    assert not np.isnan(H).any()
    assert_close(H, 2.0 * np.eye(2))


# ---- Jacobians and pullbacks ----

def test_jacobian_of_three_outputs(rng):
    x = rng.normal(size=3)
    J = srcdiff.jacobian(three_outputs)(x)
    assert J.shape == (3, 3)
    assert_close(J, jacobian_by_differences(three_outputs, (x,)), rtol=1e-6, atol=1e-8)


def test_jacobian_of_a_matrix_valued_function_and_another_parameter(rng):
    x, A = rng.normal(size=3), rng.normal(size=(3, 3))
    J = srcdiff.jacobian(matrix_output)(x, A)
    assert J.shape == (3, 3, 3)
    assert_close(J, jacobian_by_differences(matrix_output, (x, A)), rtol=1e-6, atol=1e-8)
    JA = srcdiff.jacobian(matrix_output, wrt="A")(x, A)
    assert JA.shape == (3, 3, 3, 3)
    assert_close(JA, jacobian_by_differences(matrix_output, (x, A), index=1), rtol=1e-6, atol=1e-8)


def test_vjp_gives_the_value_and_the_transposed_jacobian(rng):
    z, W = rng.normal(size=3), rng.normal(size=(4, 3))
    value, pullback = srcdiff.vjp(softmax, z, W)
    assert_close(value, softmax(z, W), rtol=1e-14, atol=0)
    g = rng.normal(size=4)
    J = jacobian_by_differences(softmax, (z, W))
    assert_close(pullback(g), g @ J, rtol=1e-6, atol=1e-8)
    _, pullback_w = srcdiff.vjp(softmax, z, W, wrt=1)
    assert_close(pullback_w(g), np.tensordot(g, jacobian_by_differences(softmax, (z, W), index=1), 1),
                 rtol=1e-6, atol=1e-8)


def test_jacobian_source_is_the_pullback():
    jac = srcdiff.jacobian(three_outputs)
    jac(np.ones(3))
    # all rows in one batched pullback since wave 26 (the list the array is made of is a list of rows)
    assert "def three_outputs_dot_grad_batched(x, cotangent):" in jac.source
    rows = srcdiff.jacobian(three_outputs)
    rows.batched.enabled = False  # one pullback per row: the pullback's own source
    np.testing.assert_allclose(rows(np.ones(3)), jac(np.ones(3)), rtol=1e-12)
    assert "def three_outputs_vjp(x):" in rows.source
    assert "def three_outputs_vjp_pullback(three_outputs_bar):" in rows.source


# ---- the checks, on second derivatives ----

def test_check_proves_a_second_derivative_with_sympy():
    report = srcdiff.check(srcdiff.grad(srcdiff.grad(np_sin_times)), 0.7)
    assert report.status == "proved", str(report)


def test_gradcheck_of_a_second_derivative():
    report = srcdiff.gradcheck(srcdiff.grad(srcdiff.grad(np_sin_times)), 0.7)
    assert report, str(report)
    assert report.inputs[0].srcdiff == pytest.approx(2 * np.cos(0.7) - 0.7 * np.sin(0.7), rel=1e-12)


# ---- refusals ----

def test_grad_of_a_vector_gradient_says_use_hessian():
    with pytest.raises(srcdiff.SrcDiffError, match=r"grad\(grad\(quartic\)\): the gradient of quartic with "
                       "respect to x is an array") as info:
        srcdiff.grad(srcdiff.grad(quartic))(np.ones(3))
    assert "srcdiff.hessian(f)" in info.value.hint
    with pytest.raises(srcdiff.SrcDiffError, match="is an array"):
        srcdiff.gradcheck(srcdiff.grad(srcdiff.grad(quartic)), np.ones(3))


def test_second_derivative_through_a_loop_with_a_static_trip_count():
    second = srcdiff.grad(srcdiff.grad(scalar_recurrence))
    step = 1e-5
    first = srcdiff.grad(scalar_recurrence)
    for x in (0.3, -0.8):
        expected = (first(x + step, 4) - first(x - step, 4)) / (2 * step)
        assert second(x, 4) == pytest.approx(expected, rel=1e-7)


def test_a_nested_loop_has_a_hessian():  # once refused; its stacks are read back now
    x = np.array([0.4, -0.3])
    assert_close(srcdiff.hessian(nested_loops)(x), hessian_difference(nested_loops, (x,)), rtol=2e-5, atol=2e-5)


def test_a_pullback_can_be_called_again_after_a_loop_consumed_its_stack(rng):
    x, W = rng.normal(size=3), rng.normal(size=(3, 3))
    _, pullback = srcdiff.vjp(tanh_recurrence, x, W)
    first, again = pullback(1.0), pullback(1.0)
    assert_close(first, again, rtol=0, atol=0)
    assert_close(first, srcdiff.grad(tanh_recurrence)(x, W), rtol=1e-13, atol=1e-15)


def test_only_plain_gradients_are_differentiated_again():
    with pytest.raises(srcdiff.SrcDiffError, match="one gradient at a time"):
        srcdiff.grad(srcdiff.grad(logistic_loss, wrt=(0, 1)))(np.ones(3), np.ones((2, 3)), np.ones(2))
    with pytest.raises(srcdiff.SrcDiffError, match="only a plain gradient"):
        srcdiff.grad(srcdiff.value_and_grad(sin_of))(0.3)


def test_jacobian_needs_float_inputs():
    with pytest.raises(srcdiff.SrcDiffError, match="not a float"):
        srcdiff.jacobian(three_outputs)(np.array([1, 2, 3]))


def stacks_a_list(x):
    vals = []
    for i in range(3):
        vals.append(x * (i + 1.0))
    return np.sum(np.stack(vals) ** 3)


def test_a_list_built_by_append_has_a_hessian():
    x = np.array([0.4, -0.7])
    expected = np.diag(6.0 * x * sum((i + 1.0) ** 3 for i in range(3)))  # sum_i (c_i x)^3 by hand
    assert_close(srcdiff.hessian(stacks_a_list)(x), expected, rtol=1e-12, atol=1e-12)


SPLIT_WEIGHTS = np.array([0.3, -0.4, 0.7, 1.1])


def split_twice(t):
    a, b = np.split(np.sin(t * SPLIT_WEIGHTS), 2)
    return np.sum(a * b) + np.sum(a ** 3)


def test_a_third_derivative_through_split():  # once refused: its pieces' shapes are now read back
    third = srcdiff.grad(srcdiff.grad(srcdiff.grad(split_twice)))
    t, h = 0.6, 1e-2
    expected = (split_twice(t + 2 * h) - 2 * split_twice(t + h) + 2 * split_twice(t - h)
                - split_twice(t - 2 * h)) / (2 * h ** 3)
    assert third(t) == pytest.approx(expected, rel=1e-3)


def rooted(x):
    return np.sum(sqrtm(ROOTED * x[0] + np.eye(2) * x[1]) ** 3)


ROOTED = np.array([[2.0, 0.3], [0.3, 1.5]])


def test_a_refusal_inside_generated_code_names_the_users_line():
    # sqrtm's adjoint solves a Sylvester equation through a helper with no rule of its own
    with pytest.raises(srcdiff.SrcDiffError, match=r"rooted_grad:\d+ \(the adjoint of this line\)") as info:
        srcdiff.hessian(rooted)(np.array([0.8, 1.3]))
    assert info.value.location.filename.endswith("test_higher_order.py")
    assert info.value.location.code.strip() == "return np.sum(sqrtm(ROOTED * x[0] + np.eye(2) * x[1]) ** 3)"
    assert "not of your code" in info.value.hint


def test_a_pullback_shows_its_source(rng):
    _, pullback = srcdiff.vjp(three_outputs, rng.normal(size=3))
    assert "def three_outputs_vjp_pullback(three_outputs_bar):" in pullback.source


@pytest.mark.parametrize("func, make", [
    (three_outputs, lambda rng: (rng.normal(size=3),)),
    (softmax, lambda rng: (rng.normal(size=3), rng.normal(size=(4, 3)))),
    (matrix_output, lambda rng: (rng.normal(size=3), rng.normal(size=(3, 3)))),
])
def test_jvp_is_the_jacobian_times_the_tangent(func, make, rng):
    args = make(rng)
    t = rng.normal(size=args[0].shape)
    J = srcdiff.jacobian(func)(*args)
    tangents = (t,) + tuple(np.zeros_like(a) for a in args[1:])
    value, tangent = srcdiff.jvp(func, args, tangents)
    assert_close(value, func(*args), rtol=1e-14, atol=0)
    assert_close(tangent, np.tensordot(J, t, axes=t.ndim), rtol=1e-10, atol=1e-12)


def test_hvp_through_a_loop_and_with_keywords(rng):
    x, W = rng.normal(size=3), rng.normal(size=(3, 3))
    v = rng.normal(size=3)
    H = hessian_difference(tanh_recurrence, (x, W))
    assert_close(srcdiff.hvp(tanh_recurrence, x, v, W=W), H @ v, rtol=1e-5, atol=1e-6)
