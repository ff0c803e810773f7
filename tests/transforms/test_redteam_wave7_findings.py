"""What the red team's seventh wave found (issue 23, closure), each a class with variants of its
own.  A class still open is a strict xfail naming it; references are float64 central
differences of the function (tests/numeric.py) or derivatives written by hand."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

HERE = "test_redteam_wave7_findings.py"


def open_class(name: str, cases, failing):
    """`cases` as pytest params, the ones in `failing` a strict xfail naming the class."""
    return [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=name)) if c in failing else c for c in cases]


def _located_here(exc: srcdiff.SrcDiffError) -> bool:
    return exc.location is not None and str(exc.location.filename).endswith(HERE)


def _right_or_refused_here(compute, want, rtol=1e-6, atol=1e-8):
    """`compute()` agrees with `want`, or raises a SrcDiffError naming a line of this file."""
    try:
        got = compute()
    except srcdiff.SrcDiffError as exc:
        assert _located_here(exc), f"refused, but not at the user's line: {exc}"
        return
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=rtol, atol=atol)


# ---- 1. forward mode differentiates `.tolist()` / `.item()` of a whole array as if it were one number ----
# The reverse rule refuses `.tolist()` of an array with more than one element; the tangent rule was
# ``np.sum(x_dot)`` whatever the shape, so ``np.array(x.tolist())`` got the SUM of the tangents as the
# tangent of every element: jvp returned a wrong number, silently (and an IndexError where it indexed it).


def array_of_tolist(x):
    return np.sum(np.array(x.tolist()) ** 2)


def asarray_of_tolist(x):
    return np.sum(np.sin(np.asarray(x.tolist())))


def generator_over_tolist(x):
    return sum(v * v for v in x.tolist())


def tolist_items(x):
    vals = x.tolist()
    return vals[0] * vals[1] + vals[2]


def rows_tolist(x):
    return np.sum(np.array(x.reshape(3, 1).tolist()) ** 3)


TOLIST = [array_of_tolist, asarray_of_tolist, generator_over_tolist, tolist_items, rows_tolist]


TOLIST_CASES = [(f, how) for f in TOLIST for how in ("jvp", "hvp", "jvp_of_grad")]
TOLIST_OPEN: set = set()


@pytest.mark.parametrize("case", open_class("tolist tangent", TOLIST_CASES, TOLIST_OPEN),
                         ids=lambda c: f"{c[0].__name__}-{c[1]}")
def test_tolist_of_an_array_is_right_or_refused_in_forward_mode(case):
    f, how = case
    x, v = np.array([0.37, 1.61, -0.83]), np.array([1.0, -2.0, 0.5])
    want = float(central_difference(f, (x,), 0) @ v)
    compute = {"jvp": lambda: srcdiff.jvp(f, (x,), (v,))[1],
               "hvp": lambda: srcdiff.hvp(f, x, v) @ v,
               "jvp_of_grad": lambda: srcdiff.jvp(srcdiff.grad(f), (x,), (v,))[1] @ v}[how]
    if how != "jvp":
        h = 1e-4
        want = float((central_difference(f, (x + h * v,), 0) - central_difference(f, (x - h * v,), 0)) @ v / (2 * h))
    _right_or_refused_here(compute, want, rtol=1e-4, atol=1e-6)


def _numeric_hessian(f, args, h=1e-4):
    """Central differences of the float64 central-difference gradient (no srcdiff in it)."""
    x = np.asarray(args[0], dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        hi = central_difference(f, ((x.ravel() + e).reshape(x.shape), *args[1:]), 0)
        lo = central_difference(f, ((x.ravel() - e).reshape(x.shape), *args[1:]), 0)
        cols.append(np.ravel(hi - lo) / (2 * h))
    return np.stack(cols, axis=-1)


# ---- 2. reverse over reverse: a list's zero adjoint item meets a matrix product ----
# ``for c in cs: r = y - X @ b; total += np.sum(np.where(r >= 0, c * r, (c - 1) * r))`` with `cs` a
# tuple parameter: jacobian(grad(f)) and vjp(grad(f)) crashed with "matmul: Input operand 1 does not
# have enough dimensions" in generated code — the pullback's list adjoints start as ``[0.0] * len``,
# an item no contribution reaches stays the number 0.0, and ``X.T @ 0.0`` fails (hessian: fine).


def quantile_columns(B, X, y, taus=(0.1, 0.5, 0.9)):
    total = 0.0
    for j, tau in enumerate(taus):
        r = y - X @ B[:, j]
        total = total + np.sum(np.where(r >= 0, tau * r, (tau - 1) * r))
    return total / len(y)


def pinball_over_constants(b, X, y, cs=(0.5, 1.5)):
    total = 0.0
    for c in cs:
        r = y - X @ b
        total = total + np.sum(np.where(r >= 0, c * r, (c - 1) * r))
    return total


def hinge_margins(b, X, y, margins=(0.5, 1.0)):
    total = 0.0
    for m in margins:
        s = X @ b
        total = total + np.sum(np.where(y * s < m, m - y * s, 0.0 * s))
    return total


def leaky_tuple_slopes(b, X, slopes=(0.1, 0.2)):
    total = 0.0
    for a in slopes:
        z = X @ b
        total = total + np.sum(np.where(z > 0, z, a * z)) + 0.5 * np.sum(b * b)
    return total


def _linear_loop_args(f):
    r = np.random.default_rng(3)
    X, y = r.normal(size=(6, 2)), np.sign(r.normal(size=6))
    first = r.normal(size=(2, 3)) if f is quantile_columns else r.normal(size=2)
    return (first, X, y) if f is not leaky_tuple_slopes else (first, X)


LINEAR_LOOPS = [quantile_columns, pinball_over_constants, hinge_margins, leaky_tuple_slopes]
SECOND_ORDER = [(f, how) for f in LINEAR_LOOPS for how in ("jacobian_of_grad", "vjp_of_grad", "hessian")]
SECOND_ORDER_OPEN: set = set()  # fixed: ad/regions.py gives a popped array adjoint its shape


@pytest.mark.parametrize("case", open_class("list adjoint zero meets a matmul", SECOND_ORDER, SECOND_ORDER_OPEN),
                         ids=lambda c: f"{c[0].__name__}-{c[1]}")
def test_second_order_of_piecewise_linear_loops_over_a_tuple(case):
    f, how = case
    args = _linear_loop_args(f)
    x = args[0]
    want = _numeric_hessian(f, args)
    if how == "vjp_of_grad":
        v = np.linspace(-1.0, 1.0, x.size).reshape(x.shape)
        got = srcdiff.vjp(srcdiff.grad(f), *args)[1](v)
        np.testing.assert_allclose(np.ravel(got), v.ravel() @ want, atol=1e-4)
        return
    got = (srcdiff.jacobian(srcdiff.grad(f)) if how == "jacobian_of_grad" else srcdiff.hessian(f))(*args)
    np.testing.assert_allclose(np.reshape(got, want.shape), want, atol=1e-4)


# ---- 3. an error raised while a derivative runs names generated code, or nothing ----
# ``np.linalg.det`` of a singular matrix (rank-deficient rows, a degenerate Jacobian at a start
# point): grad and jvp refuse at the user's line ("LinAlgError while computing the gradient of this
# line"); the pullback of vjp crashed with a bare LinAlgError, jacobian and hessian named only
# generated code (``det1_dot_grad:4``).


def det_of(A):
    return np.linalg.det(A)


def det_squared_plus(A):
    return np.linalg.det(A) ** 2 + np.sum(A)


def det_batched(A):
    return np.sum(np.linalg.det(np.stack([A, A + 1.0])))


SINGULAR = {det_of: np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
            det_squared_plus: np.array([[1.0, 2.0], [2.0, 4.0]]),
            det_batched: np.array([[1.0, 2.0], [2.0, 4.0]])}
RUNTIME_ERRORS = [(f, how) for f in SINGULAR for how in ("grad", "jvp", "vjp", "jacobian", "hessian")]
# vjp and hessian fixed (api/pullbacks.py locates the pullback's errors; backend/origins.py follows
# generated code differentiated again back to the user's line); jacobian's contracted wrapper
# (``np.sum(f(A) * cotangent)``) inlines f: it is compiled in f's file, so f's lines are named
RUNTIME_ERRORS_OPEN: set = set()


def _adjugate_transpose(A):
    """d det(A) / dA, the transposed adjugate: cofactors, finite for a singular A too."""
    n = A.shape[0]
    out = np.zeros_like(A)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(A, i, axis=0), j, axis=1)
            out[i, j] = (-1) ** (i + j) * (np.linalg.det(minor) if minor.size else 1.0)
    return out


@pytest.mark.parametrize("case", open_class("run-time error not located", RUNTIME_ERRORS, RUNTIME_ERRORS_OPEN),
                         ids=lambda c: f"{c[0].__name__}-{c[1]}")
def test_an_error_while_the_derivative_runs_names_the_users_line(case):
    f, how = case
    A = SINGULAR[f]
    cof = _adjugate_transpose(A)
    det = np.linalg.det(A)
    want_grad = {det_of: cof, det_squared_plus: 2 * det * cof + 1.0,
                 det_batched: cof + _adjugate_transpose(A + 1.0)}[f]
    compute = {"grad": lambda: srcdiff.grad(f)(A),
               "jvp": lambda: srcdiff.jvp(f, (A,), (np.ones_like(A),))[1],
               "vjp": lambda: srcdiff.vjp(f, A)[1](1.0),
               "jacobian": lambda: srcdiff.jacobian(f)(A),
               "hessian": lambda: srcdiff.hessian(f)(A)}[how]
    if how == "hessian":
        want = np.reshape(_numeric_hessian(f, (A,)), A.shape * 2)
        _right_or_refused_here(compute, want, rtol=1e-4, atol=1e-4)
        return
    want = np.sum(want_grad) if how == "jvp" else want_grad
    _right_or_refused_here(compute, want, rtol=1e-6, atol=1e-8)


# ---- 4. the second derivative of np.full_like(an integer array, x) ----
# ``np.full_like(np.arange(3), x[1])`` (an int template, a float fill: NumPy truncates, the
# derivative is 0): grad and jvp right; hessian refused naming only generated code ("IndexError:
# too many indices for array").  The Hessian batches the gradient's code over directions; the
# adjoint's ``... if np.issubdtype(...) else 0.0`` is an `if` whose taken side holds a value the
# same for every direction, and the join kept it without a batch axis (ad/batching.py).


def full_like_int_template(x):
    return np.sum(np.full_like(np.arange(3), x[1] * 2.5) * x)


def full_like_int_plain(x):
    return np.sum(np.full_like(np.arange(3), x[1]) * x)


def full_like_int_grid(x):
    return np.sum(np.full_like(np.ones((2, 3), dtype=int), x[0]) * x[None, :] ** 2)


FULL_LIKE = [(f, how) for f in (full_like_int_template, full_like_int_plain, full_like_int_grid)
             for how in ("hessian", "jacobian_of_grad", "hvp")]
FULL_LIKE_OPEN: set = set()  # fixed: ad/batching.py broadcasts the side of a join without rows


@pytest.mark.parametrize("case", open_class("full_like of an int array at second order", FULL_LIKE, FULL_LIKE_OPEN),
                         ids=lambda c: f"{c[0].__name__}-{c[1]}")
def test_second_order_through_full_like_of_an_integer_array(case):
    f, how = case
    x = np.array([0.37, 1.61, -0.83])
    want = _numeric_hessian(f, (x,))
    v = np.array([1.0, -0.5, 2.0])
    compute = {"hessian": lambda: srcdiff.hessian(f)(x),
               "jacobian_of_grad": lambda: srcdiff.jacobian(srcdiff.grad(f))(x),
               "hvp": lambda: srcdiff.hvp(f, x, v)}[how]
    _right_or_refused_here(compute, want @ v if how == "hvp" else want, rtol=1e-4, atol=1e-4)


# ---- 5. a Python float parameter next to float32 arrays gets a float32 gradient ----
# ``s * np.sum(x ** 2)`` with s = 1.5 and x float32 computes in float32 (NumPy 2 keeps a Python
# float weak); grad, value_and_grad, vjp, jacobian and a dict parameter returned np.float32 for s,
# hessian and hvp float64, grad(grad) and numba a Python float.  A gradient has its argument's
# floating dtype: a Python float's is float64, whatever the function computes in.


def scale_of_squares(s, x):
    return s * np.sum(x ** 2) + s ** 2


def scale_in_a_dict(p, x):
    return p["s"] * np.sum(p["w"] * x) + p["s"] ** 2


def scale_of_tanh(s, x):
    return np.sum(np.tanh(s * x)) / x.size


PY_FLOAT = [(f, how) for f in (scale_of_squares, scale_in_a_dict, scale_of_tanh)
            for how in ("grad", "value_and_grad", "vjp", "jacobian", "hessian", "hvp")]
# fixed in reverse mode (driver/compile.py rounds a Python float's gradient to float64 where a
# float32 argument is met); the dict's hvp was right too once its direction moved s alone
PY_FLOAT_OPEN: set = set()


def _float64_leaves(value):
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _float64_leaves(v)]
    return [value]


@pytest.mark.parametrize("case", open_class("Python float parameter, float32 gradient", PY_FLOAT, PY_FLOAT_OPEN),
                         ids=lambda c: f"{c[0].__name__}-{c[1]}")
def test_a_python_float_parameter_gets_a_float64_gradient(case):
    f, how = case
    x = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    s = {"s": 1.5, "w": np.array([0.3, 0.2, -0.1], dtype=np.float32)} if f is scale_in_a_dict else 1.5
    got = {"grad": lambda: srcdiff.grad(f)(s, x),
           "value_and_grad": lambda: srcdiff.value_and_grad(f)(s, x)[1],
           "vjp": lambda: srcdiff.vjp(f, s, x)[1](1.0),
           "jacobian": lambda: srcdiff.jacobian(f)(s, x),
           "hessian": lambda: srcdiff.hessian(f)(s, x),
           # along s alone, so the product is the second derivative in s the test compares
           "hvp": lambda: srcdiff.hvp(f, s, {"s": 1.0, "w": np.zeros(3, np.float32)} if isinstance(s, dict) else 1.0,
                                      x),
           }[how]()
    leaf = got["s"] if isinstance(got, dict) else got
    if how == "hessian" and isinstance(leaf, dict):
        leaf = leaf["s"]
    assert np.asarray(leaf).dtype == np.float64, f"{type(leaf).__name__} {np.asarray(leaf).dtype}"
    s0 = s["s"] if isinstance(s, dict) else s

    def of_s(v):
        return f({**s, "s": v} if isinstance(s, dict) else v, x.astype(np.float64))
    h = 1e-5
    if how in ("hessian", "hvp"):
        want = (of_s(s0 + h) - 2 * of_s(s0) + of_s(s0 - h)) / h ** 2
        np.testing.assert_allclose(float(leaf), want, rtol=1e-3)
    else:
        np.testing.assert_allclose(float(leaf), (of_s(s0 + h) - of_s(s0 - h)) / (2 * h), rtol=1e-5)


# ---- 6. vjp refuses an in-place update of a parameter that grad differentiates ----
# ``w *= 2.0`` / ``w -= lr * g`` on the caller's array: grad, jvp and hessian give the derivative of
# the function as written; vjp refused ("NumPy would change the caller's array too").


def doubled_in_place(w):
    w *= 2.0
    return np.sum(w ** 2)


def sgd_step_in_place(w, X, y, lr=0.1):
    g = X.T @ (X @ w - y) / len(y)
    w -= lr * g
    return 0.5 * np.mean((X @ w - y) ** 2)


def normalised_in_place(w):
    w /= np.sqrt(np.sum(w ** 2) + 1.0)
    return np.sum(np.sin(w))


IN_PLACE = [(f, how) for f in (doubled_in_place, sgd_step_in_place, normalised_in_place)
            for how in ("grad", "vjp", "jvp")]
IN_PLACE_OPEN: set = set()  # fixed: driver/compile.py refuses the caller's array only for helpers


@pytest.mark.parametrize("case", open_class("vjp refuses what grad accepts: in-place on a parameter", IN_PLACE,
                                            IN_PLACE_OPEN), ids=lambda c: f"{c[0].__name__}-{c[1]}")
def test_an_in_place_update_of_a_parameter_in_every_transformation(case):
    f, how = case
    r = np.random.default_rng(5)
    args = (r.normal(size=3),)
    if f is sgd_step_in_place:
        args = (*args, r.normal(size=(6, 3)), r.normal(size=6))
    want = central_difference(lambda w, *rest: f(w.copy(), *rest), args, 0)
    v = np.array([1.0, -2.0, 0.5])
    try:
        got = {"grad": lambda: srcdiff.grad(f)(args[0].copy(), *args[1:]),
               "vjp": lambda: srcdiff.vjp(f, args[0].copy(), *args[1:])[1](1.0),
               "jvp": lambda: srcdiff.jvp(f, (args[0].copy(), *args[1:]), (v,) + (None,) * (len(args) - 1))[1]}[how]()
    except srcdiff.SrcDiffError as exc:
        pytest.fail(f"{how} refuses what grad differentiates: {exc}")
    np.testing.assert_allclose(got, want @ v if how == "jvp" else want, rtol=1e-6, atol=1e-8)


# ---- 7. reverse over reverse loses the zero factor of a norm along an axis ----
# ``np.linalg.norm(np.stack([x, 0.0 * x]), axis=1)``: the second row is identically 0, its norm's
# derivative 0 (docs/guarantees.md, "a zero factor before a point of infinite slope", claimed for
# jacobian(grad) too).  hessian, hvp and jvp(grad) are exact; jacobian(grad) and vjp(grad) returned
# NaN in EVERY entry, the other row's too.


def norm_of_stacked_zero_row(x):
    return np.sum(np.linalg.norm(np.stack([x, 0.0 * x]), axis=1))


def norm_of_stacked_masked_row(x, m=0.0):
    return np.sum(np.linalg.norm(np.stack([x, x * m]), axis=1))


def norm_of_vstacked_zero_row(x):
    return np.sum(np.linalg.norm(np.vstack([x, 0.0 * x, 2.0 * x]), axis=1) ** 3)


def sqrt_of_stacked_zero_row(x):
    return np.sum(np.sqrt(np.sum(np.stack([0.0 * x, x]) ** 2, axis=1)))


ZERO_ROWS = [(f, how) for f in (norm_of_stacked_zero_row, norm_of_stacked_masked_row, norm_of_vstacked_zero_row,
                                sqrt_of_stacked_zero_row)
             for how in ("jacobian_of_grad", "vjp_of_grad", "hessian", "jvp_of_grad")]
ZERO_ROWS_OPEN: set = set()  # fixed: ad/zero_factors.py seeds the operands of generated kinks


@pytest.mark.parametrize("case", open_class("reverse over reverse: zero factor of a norm along an axis", ZERO_ROWS,
                                            ZERO_ROWS_OPEN), ids=lambda c: f"{c[0].__name__}-{c[1]}")
def test_second_order_through_a_zero_row_of_a_norm(case):
    f, how = case
    x = np.array([0.5, 0.7, 1.2])
    want = _numeric_hessian(f, (x,))
    got = {"jacobian_of_grad": lambda: srcdiff.jacobian(srcdiff.grad(f))(x),
           "vjp_of_grad": lambda: np.stack([srcdiff.vjp(srcdiff.grad(f), x)[1](e) for e in np.eye(3)]),
           "hessian": lambda: srcdiff.hessian(f)(x),
           "jvp_of_grad": lambda: np.stack([srcdiff.jvp(srcdiff.grad(f), (x,), (e,))[1] for e in np.eye(3)]).T}[how]()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)



# ---- 8. srcdiff.check reports MISMATCH where grad refuses ----
# ``u[idx] += w`` with a repeated index, a float written into an int array: grad refuses at the
# user's line, when it runs; check ran the same gradient, caught the refusal and reported
# "MISMATCH ... srcdiff's gradient raised SrcDiffError".  It refuses as grad does now.


def repeated_index_add(w, x):
    u = x.copy()
    u[np.array([0, 0, 2, 1, 2])] += w
    return np.sum(u ** 2)


def repeated_index_assign(w, x):
    u = x.copy()
    u[np.array([1, 1, 2])] = w
    return np.sum(np.sin(u))


def float_into_int_array(w, x):
    u = np.zeros(3, dtype=int)
    u[:] = w * 2.5
    return np.sum(u * w) + np.sum(x * w)


@pytest.mark.parametrize("f", [repeated_index_add, repeated_index_assign, float_into_int_array],
                         ids=lambda f: f.__name__)
def test_check_refuses_where_grad_refuses(f):
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0]) if f is repeated_index_add else np.array([0.4, 1.3, -0.6])
    x = np.array([0.5, -1.0, 2.0])
    with pytest.raises(srcdiff.SrcDiffError) as grad_refusal:
        srcdiff.grad(f)(w, x)
    with pytest.raises(srcdiff.SrcDiffError) as check_refusal:
        srcdiff.check(f, w, x, progress=False)
    assert _located_here(check_refusal.value)
    assert check_refusal.value.reason == grad_refusal.value.reason
