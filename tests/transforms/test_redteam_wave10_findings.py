"""What the red team's tenth wave found and fixed, each a class with variants of its own, through
every transformation.  References are float64 central differences of the function (the matrix's
own through `matrix.run`, tests/numeric.py for values written out here)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special
from numeric import central_difference

import srcdiff

from .corpus import Program
from .matrix import OK, assert_every_transformation, assert_numba_agrees_or_refuses, run

HERE = "test_redteam_wave10_findings.py"


def _program(f, *args) -> Program:
    return Program(f"w10_findings:{f.__name__}", f, args, 0, HERE)


# ---- 1. a list written at a negative index wrote nothing (a silent wrong value and gradient) --------
# ``acc = [0.0] * 3; acc[-1] = x * x``: the write into a list the function built is `set_item`, which
# compared each position with the raw index, so -1 matched none and the list kept its 0.0: the value
# of value_and_grad / jvp / vjp and the gradient were wrong, with no error.  FIXED:
# rules/list_helpers.list_position reads the index as Python does (``xs[-1]`` is the last item, out
# of range raises), for set_item, index_add (``acc[-1] += v``) and zero_item.


def last_slot(x):
    vals = [0.0] * 3
    vals[-1] = x * x
    vals[0] = np.sin(x)
    return vals[0] * 2.0 + vals[2] * 3.0 + sum(vals)


def iadd_negative(x):
    acc = [0.0] * 3
    acc[-1] += x * x
    acc[-2] += np.sin(x)
    acc[0] += acc[-1] * 2.0
    return acc[0] * acc[1] + acc[2]


def loop_negative(w):
    acc = [0.0] * 4
    for k in range(1, 5):
        acc[-k] = w * k + (acc[-k + 1] if k > 1 else 0.0)
    return sum(a * a for a in acc)


def history_ring(w):
    hist = [0.0] * 5
    for t in range(5):
        hist[t - 5] = w * (t + 1) + (hist[t - 6] if t > 0 else 0.0)
    return sum(h * h for h in hist)


def rows_from_the_end(W, x):
    rows = [0.0] * W.shape[0]
    for i in range(1, W.shape[0] + 1):
        rows[-i] = np.tanh(W[-i] @ x)
    return sum(r * (k + 1) for k, r in enumerate(rows))


NEGATIVE = [(last_slot, 0.7), (iadd_negative, 0.7), (loop_negative, 0.3), (history_ring, -0.4),
            (rows_from_the_end, np.array([[0.3, -0.5], [1.1, 0.2], [-0.7, 0.9]]))]


@pytest.mark.parametrize("f, x", NEGATIVE, ids=lambda v: getattr(v, "__name__", ""))
def test_a_list_written_at_a_negative_index(f, x):
    args = (x, np.array([0.4, -1.2])) if f is rows_from_the_end else (x,)
    assert_every_transformation(_program(f, *args))


@pytest.mark.parametrize("f, x", NEGATIVE[:2], ids=lambda v: getattr(v, "__name__", ""))
def test_a_list_written_at_a_negative_index_numba_agrees_or_refuses(f, x):
    assert_numba_agrees_or_refuses(_program(f, x))


def test_a_list_written_at_a_negative_index_has_the_functions_value():
    for f, x in NEGATIVE[:4]:
        value, _ = srcdiff.value_and_grad(f)(x)
        assert value == pytest.approx(f(x), rel=1e-12), f.__name__


def out_of_range(x):
    vals = [0.0] * 2
    vals[-3] = x
    return sum(vals)


def test_a_list_written_out_of_range_raises_as_python_does():
    with pytest.raises((IndexError, srcdiff.SrcDiffError)):
        srcdiff.grad(out_of_range)(0.5)


def float32_last_slot(x):
    vals = [0.0] * 2
    vals[-1] = x * x
    return vals[-1] * 3.0 + vals[0]


def test_a_list_written_at_a_negative_index_in_float32():
    x = np.array([0.7, -1.5], dtype=np.float32)
    value, got = srcdiff.value_and_grad(lambda_free_sum)(x)
    assert value == pytest.approx(3 * (0.49 + 2.25), rel=1e-6)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, 6 * x, rtol=1e-6)


def lambda_free_sum(x):
    return np.sum(float32_last_slot(x))


# ---- 2. a list's adjoint zeroed at a written position crashed vjp and a tree-wrapped call ------------
# ``preds = [0.0] * n; preds[k] = expit(...)`` in a loop: grad (whose code is tidied into plain NumPy)
# was right, but vjp and the tree-wrapped call ran the run-time helper zero_item, which made an array
# of a list holding 0-d arrays and raised "TypeError: Field elements must be 2- or 3-tuples" (reported
# at the user's line, as if the code were wrong); so did jacobian(grad) and vjp(grad) of every list
# written by index.  FIXED: rules/runtime.zero_item makes the list's adjoint an array, as the tidied
# code of grad does (a list only when its items differ in shape).


def classifier_chain(W, x):
    preds = [0.0] * W.shape[0]
    carry = 0.0
    for k in reversed(range(W.shape[0])):
        preds[k] = scipy.special.expit(W[k] @ x + carry)
        carry = carry + preds[k]
    return sum(p * p for p in preds)


def slots_by_index(a, b):
    vals = [0.0] * 3
    vals[0] = a * b
    vals[2] = np.sin(a)
    vals[1] = vals[0] + vals[2]
    return vals[0] * vals[1] + vals[2] ** 2


def arrays_by_index(W, x):
    rows = [0.0] * W.shape[0]
    for i in range(W.shape[0]):
        rows[i] = np.tanh(W[i] * x)
    return np.sum(np.stack(rows) ** 2) + np.sum(rows[0] * rows[-1])


ZEROED = [(classifier_chain, (np.array([[0.3, -0.5], [1.1, 0.2], [-0.7, 0.9]]), np.array([0.4, -1.2]))),
          (slots_by_index, (0.7, -0.4)),
          (arrays_by_index, (np.array([[0.3, -0.5], [1.1, 0.2]]), np.array([0.4, -1.2])))]


@pytest.mark.parametrize("f, args", ZEROED, ids=lambda v: getattr(v, "__name__", ""))
def test_a_lists_adjoint_zeroed_by_index(f, args):
    assert_every_transformation(_program(f, *args))


@pytest.mark.parametrize("f, args", ZEROED, ids=lambda v: getattr(v, "__name__", ""))
def test_a_lists_adjoint_zeroed_by_index_with_respect_to_the_data(f, args):
    row = run(Program(f"w10_findings:{f.__name__}[1]", f, args, 1, HERE), ("grad", "vjp", "tree"))
    bad = {name: cell.message for name, cell in row.cells.items() if cell.outcome != OK}
    assert not row.excluded and not bad, (row.excluded, bad)


def list_read_back_in_a_branch(w):
    acc = [0.0] * 4
    for k in range(4):
        acc[k] = w * (k + 1) + (acc[k - 1] if k > 0 else 0.0)
    return sum(a * a for a in acc)


def list_read_back_from_the_end(w):
    acc = [0.0] * 4
    for k in range(1, 5):
        acc[-k] = w * k + (acc[-k + 1] if k > 1 else 0.0)
    return sum(a * a for a in acc)


@pytest.mark.parametrize("f", [list_read_back_in_a_branch, list_read_back_from_the_end, last_slot, iadd_negative],
                         ids=lambda f: f.__name__)
def test_reverse_over_reverse_of_a_list_written_by_index(f):
    # the zeroed adjoint is an array, as tidied code makes it: a list's adjoint added to it adds (a list
    # would have concatenated, and np.add.at into it raised a TypeError)
    gradient = srcdiff.grad(f)
    want = central_difference(gradient, (0.3,), 0)
    assert float(np.squeeze(srcdiff.jacobian(gradient)(0.3))) == pytest.approx(want, rel=1e-6)
    assert float(srcdiff.vjp(gradient, 0.3)[1](1.0)) == pytest.approx(want, rel=1e-6)
    assert float(srcdiff.hessian(f)(0.3)) == pytest.approx(want, rel=1e-6)


def test_a_lists_adjoint_zeroed_by_index_pullback_called_twice():
    W, x = ZEROED[0][1]
    value, pullback = srcdiff.vjp(classifier_chain, W, x)
    want = central_difference(classifier_chain, (W, x), 0)
    np.testing.assert_allclose(pullback(1.0), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(pullback(-2.0), -2.0 * want, rtol=1e-6, atol=1e-9)


# ---- 3. reverse over reverse through an untaken np.where branch: NaN where the truth is 0 -----------
# ``np.where(np.abs(x) < 1, np.arcsin(x), 1.0)`` at |x| > 1: grad, hessian (forward over reverse) and
# jvp(grad) were exact, but jacobian(grad) and vjp(grad) gave NaN there.  The gradient's own code
# zeroes arcsin's adjoint with a run-time ``select(t1, g / np.sqrt(1 - x * x))``; differentiating it
# again, select's adjoint was zero where t1 fails, but the chain below it (``/ np.sqrt(...)`` of a
# negative number, NaN) multiplied that zero by NaN.  FIXED: ad/masks.runtime_select_mask keeps the
# select's zero down its operand's chain, as a branch of np.where's is (a select at run time).


def asin_or_one(x):
    return np.sum(np.where(np.abs(x) < 1.0, np.arcsin(x), 1.0))


def acos_squared(x):
    return np.sum(np.where(np.abs(x) < 1.0, np.arccos(x) ** 2, 0.0))


def sqrt_of_a_disc(x):
    return np.sum(np.where(np.abs(x) < 2.0, np.sqrt(4.0 - x * x), 0.0))


def _safe_asin(v):
    return np.where(np.abs(v) < 1.0, np.arcsin(v), np.sign(v) * 1.5)


def helper_asin_squared(x):
    return np.sum(_safe_asin(0.8 * x) ** 2)


def acosh_above_one(x):
    return np.sum(np.where(x > 1.0, np.arccosh(x), 0.0) * x)


UNTAKEN = [asin_or_one, acos_squared, sqrt_of_a_disc, helper_asin_squared, acosh_above_one]
OUTSIDE = np.array([0.3, 1.7, -0.5, -2.5])


def _hessian_by_differences(f, x):
    gradient = srcdiff.grad(f)
    return np.stack([central_difference(lambda y, k=k: np.asarray(gradient(y), dtype=float)[k], (x,), 0)
                     for k in range(x.size)])


@pytest.mark.parametrize("f", UNTAKEN, ids=lambda f: f.__name__)
def test_reverse_over_reverse_through_an_untaken_branch(f):
    want = _hessian_by_differences(f, OUTSIDE)
    gradient = srcdiff.grad(f)
    np.testing.assert_allclose(srcdiff.jacobian(gradient)(OUTSIDE), want, rtol=1e-5, atol=1e-6)
    _, pullback = srcdiff.vjp(gradient, OUTSIDE)
    np.testing.assert_allclose(np.stack([pullback(e) for e in np.eye(OUTSIDE.size)]), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(srcdiff.hessian(f)(OUTSIDE), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", UNTAKEN[:3], ids=lambda f: f.__name__)
def test_an_untaken_branch_through_every_transformation(f):
    assert_every_transformation(_program(f, OUTSIDE))


def test_reverse_over_reverse_through_an_untaken_branch_in_float32():
    x = OUTSIDE.astype(np.float32)
    got = srcdiff.jacobian(srcdiff.grad(asin_or_one))(x)
    assert np.all(np.isfinite(got)) and got.dtype == np.float32
    np.testing.assert_allclose(got, _hessian_by_differences(asin_or_one, OUTSIDE), rtol=1e-4, atol=1e-5)


def asin_or_one_in_a_dict(params):
    return asin_or_one(params["x"])


def test_reverse_over_reverse_through_an_untaken_branch_of_a_tree():
    got = srcdiff.jacobian(srcdiff.grad(asin_or_one_in_a_dict, wrt="params['x']"))({"x": OUTSIDE})
    got = got["x"] if isinstance(got, dict) else got
    np.testing.assert_allclose(np.reshape(got, (4, 4)), _hessian_by_differences(asin_or_one, OUTSIDE), atol=1e-6)


# ---- 4. an array passed where a rule takes a setting: the refusal told the user to pass an int ------
# ``np.corrcoef(X @ w, y)`` with y a parameter: srcdiff's rule takes np.corrcoef's y as a setting, and
# the refusal printed the whole array and said "pass y as a Python int or tuple, e.g. y=1", which no
# user could follow.  FIXED: frontend/statics.py says an array is passed where the rule takes a setting,
# and what to write for data (the computation written out) or a setting.  (np.corrcoef(np.stack([a, y]))
# is refused too: test_redteam_wave10_open.py, 3.)


def corrcoef_of_two(w, X, y):
    return 1.0 - np.corrcoef(X @ w, y)[0, 1]


def cov_of_two(w, X, y):
    return np.sum(np.cov(X @ w, y))


def roll_by_an_array(w, X, shifts):
    return np.sum(np.roll(X * w, shifts, axis=(0, 1)) * X)


def tile_by_an_array(w, X, reps):
    return np.sum(np.tile(X * w, reps) * np.tile(X, reps))


def test_roll_by_an_array_of_shifts_is_differentiated():
    # np.roll's shift is an operand with no gradient since reach15 (rules/numpy_pad.py): an array of shifts too
    rng = np.random.default_rng(4)
    args = (rng.normal(size=3), rng.normal(size=(6, 3)), np.array([1, 2]))
    np.testing.assert_allclose(srcdiff.grad(roll_by_an_array)(*args), central_difference(roll_by_an_array, args, 0),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [corrcoef_of_two, cov_of_two], ids=lambda f: f.__name__)
def test_a_covariance_of_two_arrays_is_differentiated(f):
    # np.cov(a, y) is read as np.cov(np.vstack([a, y])) (frontend/variable_pairs.py)
    rng = np.random.default_rng(4)
    args = (rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6))
    np.testing.assert_allclose(srcdiff.grad(f)(*args), central_difference(f, args, 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [tile_by_an_array], ids=lambda f: f.__name__)
def test_an_array_where_a_rule_takes_a_setting_is_refused_with_a_usable_hint(f):
    rng = np.random.default_rng(4)
    args = (rng.normal(size=3), rng.normal(size=(6, 3)), np.array([1, 2]))
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(*args)
    first = str(info.value).splitlines()[0]
    assert info.value.location is not None and str(info.value.location.filename).endswith(HERE), first
    assert "not an array it differentiates" in first and "array([" not in first, first
    assert "write the computation out" in (info.value.hint or ""), info.value.hint


def correlation_written_out(w, X, y):
    a, b = X @ w - np.mean(X @ w), y - np.mean(y)
    return 1.0 - np.sum(a * b) / np.sqrt(np.sum(a ** 2) * np.sum(b ** 2))


def test_the_hints_correlation_written_out_is_differentiated():
    rng = np.random.default_rng(4)
    assert_every_transformation(_program(correlation_written_out, rng.normal(size=3), rng.normal(size=(6, 3)),
                                         rng.normal(size=6)))


# ---- 5. vjp / jacobian of a function returning values of different shapes: a raw ValueError --------
# ``return np.sum(x ** 2), np.cumsum(np.sin(x))``: jvp takes the tuple, but vjp and jacobian read the
# value's shape with NumPy, which raised "setting an array element with a sequence" from srcdiff's own
# code.  FIXED: api/pullbacks.value_shape refuses it at the function's def line, saying what to write.
# A tuple of values of one shape is read as their stack, as before.


def loss_and_path(x):
    return np.sum(x ** 2), np.cumsum(np.sin(x))


def state_and_matrix(x):
    return np.tanh(x), np.outer(x, x)


def listed_outputs(x):
    return [x[0] * x[1], x * 2.0]


@pytest.mark.parametrize("f", [loss_and_path, state_and_matrix, listed_outputs], ids=lambda f: f.__name__)
def test_values_of_different_shapes_are_refused_at_the_def_line(f):
    x = np.array([0.3, -1.2, 0.5])
    for attempt in (lambda: srcdiff.vjp(f, x), lambda: srcdiff.jacobian(f)(x)):
        with pytest.raises(srcdiff.SrcDiffError) as info:
            attempt()
        assert str(info.value.location.filename).endswith(HERE), str(info.value)
        assert info.value.location.line == f.__code__.co_firstlineno
    value, tangent = srcdiff.jvp(f, (x,), (np.ones(3),))
    want = [(a - b) / 2e-6 for a, b in zip(f(x + 1e-6), f(x - 1e-6))]
    for got, expected in zip(tangent, want):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def pair_of_one_shape(x):
    return np.sin(x) * x[0], x ** 2


def test_values_of_one_shape_are_read_as_their_stack():
    x = np.array([0.3, -1.2, 0.5])
    stacked = lambda y: np.stack(pair_of_one_shape(y))  # noqa: E731  the reference only
    want = np.stack([central_difference(lambda y, k=k: stacked(y).ravel()[k], (x,), 0) for k in range(6)])
    np.testing.assert_allclose(srcdiff.jacobian(pair_of_one_shape)(x).reshape(6, 3), want, rtol=1e-6, atol=1e-8)
    _, pullback = srcdiff.vjp(pair_of_one_shape, x)
    u = np.array([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1]])
    np.testing.assert_allclose(pullback(u), u.ravel() @ want, rtol=1e-6, atol=1e-8)
