"""Promises the docs make that ordinary random inputs never exercise.

A mutation audit (deliberate bugs, one at a time; see docs/testing.md) found each of these
untested: NaN operands of ``np.fmax``/``np.fmin``, zeros in ``np.prod``, three-way ties of
``np.max``, and ``check``/``gradcheck`` fed a gradient that is wrong by a constant, by a factor,
or in one element among several.  Expected values are written out by hand.
"""

import math

import numpy as np
import pytest

import srcdiff
from srcdiff.rules import TABLE, binary, unary
from srcdiff.tools.check import MISMATCH, NUMERIC, PROVED, check
from srcdiff.tools.gradcheck import gradcheck

NAN = float("nan")


# ---- np.fmax / np.fmin ignore a NaN operand, and so does their gradient ----

def fmax_weighted(x, y, w):
    return np.sum(np.fmax(x, y) * w)


def fmin_weighted(x, y, w):
    return np.sum(np.fmin(x, y) * w)


X_NAN = np.array([NAN, 1.0, 2.0, -1.0])
Y_NAN = np.array([0.5, NAN, 3.0, -2.0])
W4 = np.array([2.0, 3.0, 5.0, 7.0])


@pytest.mark.parametrize("func, dx, dy", [
    # fmax: [0.5 (y), 1.0 (x), 3.0 (y), -1.0 (x)]; fmin: [0.5 (y), 1.0 (x), 2.0 (x), -2.0 (y)]
    (fmax_weighted, [0.0, 3.0, 0.0, 7.0], [2.0, 0.0, 5.0, 0.0]),
    (fmin_weighted, [0.0, 3.0, 5.0, 0.0], [2.0, 0.0, 0.0, 7.0]),
], ids=["fmax", "fmin"])
def test_a_nan_operand_gets_no_gradient_and_the_other_gets_all(func, dx, dy, check_gradient):
    args = (X_NAN.copy(), Y_NAN.copy(), W4)
    assert np.isfinite(func(*args))
    check_gradient(func, args, (0, 1), expected=(np.array(dx), np.array(dy)), rtol=0, atol=0)
    check_gradient(func, args, (0, 1))  # central differences agree: moving a NaN changes nothing


@pytest.mark.parametrize("func, expected", [(fmax_weighted, 2.0), (fmin_weighted, 2.0)], ids=["fmax", "fmin"])
def test_a_nan_number_operand_leaves_the_gradient_to_the_array(func, expected, check_gradient):
    x = np.array([1.0, -2.0])
    dx, dy = check_gradient(func, (x, NAN, 2.0), (0, 1))
    np.testing.assert_array_equal(dx, [expected, expected])
    assert dy == 0.0


# ---- np.prod is exact where x has zeros (the product of the other factors) ----

def product(x):
    return np.prod(x)


def row_products(X, w):
    return np.sum(np.prod(X, axis=1) * w)


@pytest.mark.parametrize("x, expected", [
    ([2.0, 0.0, 3.0, 4.0], [0.0, 24.0, 0.0, 0.0]),   # one zero: only it has a gradient
    ([2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0]),    # two zeros: no element has one
    ([0.0], [1.0]),
    ([2.0, -0.5, 3.0], [-1.5, 6.0, -1.0]),
], ids=["one zero", "two zeros", "only a zero", "no zero"])
def test_prod_gradient_at_zeros(x, expected, check_gradient):
    (g,) = check_gradient(product, (np.array(x),), expected=np.array(expected), rtol=1e-15, atol=0)
    assert np.all(np.isfinite(g))
    check_gradient(product, (np.array(x),))


def test_prod_along_an_axis_with_zeros(check_gradient):
    X = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [1.0, 2.0, 3.0]])
    w = np.array([5.0, 7.0, 11.0])
    expected = np.array([[0.0, 10.0, 0.0], [0.0, 0.0, 0.0], [66.0, 33.0, 22.0]])
    check_gradient(row_products, (X, w), expected=expected, rtol=1e-15, atol=0)
    check_gradient(row_products, (X, w))


# ---- ties of max/min with three members: central differences would say 1/2, not 1/3 ----

def max_squared_rows(X):
    return np.sum(np.max(X, axis=1) ** 2) + np.sum(X - np.max(X, axis=1, keepdims=True))


def min_of_all(x):
    return np.min(x) * 3.0


def test_three_way_tie_along_an_axis_shares_the_gradient_in_thirds(check_gradient):
    X = np.array([[3.0, 3.0, 3.0, 1.0], [2.5, 2.5, 1.0, 0.5]])  # a three-way and a two-way tie
    # d/dX = 1 + (2 m - 4) t / k for the k tied maxima t of a row of 4 with maximum m
    expected = np.array([[1 + 2 / 3, 1 + 2 / 3, 1 + 2 / 3, 1.0], [1.5, 1.5, 1.0, 1.0]])
    check_gradient(max_squared_rows, (X,), expected=expected, rtol=1e-14, atol=1e-14)


def test_three_way_tie_of_a_minimum_over_everything(check_gradient):
    x = np.array([[0.5, -1.0, 2.0], [-1.0, -1.0, 4.0]])
    check_gradient(min_of_all, (x,), expected=np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]), rtol=1e-15, atol=0)


# ---- check and gradcheck catch a gradient wrong by a constant or by a factor ----

def sine_weighted(x, y):
    return np.sum(np.sin(x) * y)


def relu_weighted(x, y):
    return np.sum(np.maximum(x, y) * x)


def relu_weighted_long(x, y):
    return np.sum(np.maximum(x, y) * x * np.cos(y) * np.exp(x))


@pytest.fixture
def replaced_rule():
    """Replace a built-in rule for the test's duration; the original comes back afterwards."""
    originals = []

    def replace(rule):
        originals.append(TABLE.register(rule, replace=True))

    yield replace
    for original in reversed(originals):
        TABLE.register(original, replace=True)
    srcdiff.clear_cache()


SINE_ARGS = (np.array([0.3, 1.1, -0.4]), np.array([1.5, -0.5, 2.0]))


@pytest.mark.parametrize("template", [
    "g * np.cos(x) + 0.25",          # wrong by a constant (per element, whatever g is)
    "g * np.cos(x) + 1e-6",          # by a small constant: far beyond check's 50 digits
    "1.5 * g * np.cos(x)",           # by a factor
    "g * np.cos(x) * 1.001",         # by a factor close to 1
], ids=["constant", "small constant", "factor", "factor near 1"])
def test_check_reports_a_wrong_sine_rule(template, replaced_rule):
    assert check(sine_weighted, *SINE_ARGS, wrt=(0, 1)).status == PROVED
    replaced_rule(unary(np.sin, x=template))
    report = check(sine_weighted, *SINE_ARGS, wrt=(0, 1))
    assert report.status == MISMATCH and not report, str(report)
    assert report.mismatches == ["x"]
    assert [i.verdict for i in report.inputs] == [MISMATCH, PROVED]
    assert "at element [0]" in report.inputs[0].detail


@pytest.mark.parametrize("template", ["g * np.cos(x) + 0.25", "1.5 * g * np.cos(x)", "g * np.cos(x) * 1.001"],
                         ids=["constant", "factor", "factor near 1"])
def test_gradcheck_reports_a_wrong_sine_rule(template, replaced_rule):
    assert gradcheck(sine_weighted, *SINE_ARGS, wrt=(0, 1))
    replaced_rule(unary(np.sin, x=template))
    report = gradcheck(sine_weighted, *SINE_ARGS, wrt=(0, 1))
    assert not report and report.mismatches == ["x"], str(report)
    assert report.inputs[0].failing == 3 and report.inputs[1].ok


@pytest.mark.parametrize("template", ["g * (x > y) + 0.01", "1.001 * g * (x > y)"], ids=["constant", "factor"])
def test_check_reports_a_wrong_rule_numerically(template, replaced_rule):
    # sympy's derivative of max is a Piecewise that no simplification equates with srcdiff's
    # comparison: only the comparison at sample points (50 digits) can tell them apart.
    args = (np.array([0.3, -0.2]), np.array([0.1, 0.4]))
    assert check(relu_weighted, *args, wrt=(0, 1)).status == NUMERIC
    replaced_rule(binary(np.maximum, x=template, y="g * (x <= y)"))
    report = check(relu_weighted, *args, wrt=(0, 1))
    assert report.status == MISMATCH and report.mismatches == ["x"], str(report)
    assert "sympy gives" in report.inputs[0].detail


# ---- gradcheck's report names the worst element among several wrong ones ----

def weighted_sines(x):
    return np.sum(np.sin(x) * np.array([10.0, 1.0, 7.0, 0.5]))


def test_gradcheck_worst_element_is_the_worst_error_not_the_largest_value(replaced_rule):
    x = np.array([0.1, 0.5, 0.2, 0.9])
    replaced_rule(unary(np.sin, x="g * np.cos(x) + x * (x > 0.45)"))  # wrong at elements 1 and 3
    item = gradcheck(weighted_sines, x).inputs[0]
    w = np.array([10.0, 1.0, 7.0, 0.5])
    np.testing.assert_allclose(item.numeric, w * np.cos(x), rtol=1e-8)
    np.testing.assert_allclose(item.srcdiff, w * np.cos(x) + x * (x > 0.45), rtol=1e-12)
    # errors 0.5 and 0.9 against values 0.88 and 0.31: element 3 is worst relative to its
    # tolerance; element 0 has the largest value and element 1 is wrong too.
    assert item.failing == 2
    assert item.worst_index == (3,)
    assert item.abs_error == pytest.approx(0.9, rel=1e-6)
    numeric = 0.5 * math.cos(0.9)
    assert item.rel_error == pytest.approx(0.9 / (numeric + 0.9), rel=1e-6)
    assert "worst element x[3]" in str(gradcheck(weighted_sines, x))
    assert "MISMATCH (2 element(s) outside tolerance)" in str(gradcheck(weighted_sines, x))


# ---- the reports' text says exactly what was found ----

def sine_and_product(x, y):
    return x * y + np.sin(x)


def two_sines(x, y):
    return np.sin(x) + np.sin(y)


def tanh_sum(x):
    return np.sum(np.tanh(x))


def squares(x):
    return np.sum(x * x)


def test_check_report_first_line_and_numeric_verdict_text():
    proved = str(check(sine_weighted, *SINE_ARGS, wrt=(0, 1))).splitlines()
    assert proved[0] == "srcdiff.check sine_weighted wrt x, y: proved equal to sympy's derivative"
    report = check(relu_weighted, np.array([0.3, -0.2]), np.array([0.1, 0.4]), wrt=(0, 1))
    lines = str(report).splitlines()
    assert lines[0] == ("srcdiff.check relu_weighted wrt x, y: agrees with sympy's derivative numerically "
                        "(5 points, 50 digits); not proved")
    verdict = "    agree numerically (5 points, 50 digits); sympy could not simplify the difference to 0"
    assert lines.count(verdict) == 2
    long = str(check(relu_weighted_long, np.array([0.3, -0.2]), np.array([0.1, 0.4]), wrt=(0, 1))).splitlines()
    shown = long[long.index("  x") + 2].removeprefix("    srcdiff: shape (2,): [").removesuffix("]")
    first = shown.split(", x[1]")[0]
    assert len(first) == 60 and first.endswith("...")  # a long element is cut to 60 characters


def test_check_mismatch_detail_gives_both_numbers(replaced_rule):
    replaced_rule(unary(np.sin, x="g * np.cos(x) + 0.25"))
    detail = check(sine_weighted, *SINE_ARGS, wrt=(0, 1)).inputs[0].detail
    theirs = 1.5 * math.cos(0.3)
    assert f"sympy gives {theirs:.11f}"[:-1] in detail and f"srcdiff {theirs + 0.25:.11f}"[:-1] in detail, detail


def test_gradcheck_report_lines_per_input():
    lines = str(gradcheck(sine_and_product, 0.3, 0.5, wrt=(0, 1))).splitlines()
    assert lines[0] == ("srcdiff.gradcheck sine_and_product: agrees with float64 central differences "
                        "(rtol=1e-05, atol=1e-07)")
    assert lines[1].startswith(f"  x: srcdiff {0.5 + math.cos(0.3):.10g}, numeric 1.4553364")
    assert lines[1].endswith("  ok") and lines[2].startswith("  y: srcdiff 0.3, numeric 0.3")


def test_gradcheck_names_every_wrong_input(replaced_rule):
    replaced_rule(unary(np.sin, x="-g * np.cos(x)"))
    report = gradcheck(two_sines, 0.3, 0.5, wrt=(0, 1))
    assert report.mismatches == ["x", "y"]
    assert str(report).startswith("srcdiff.gradcheck two_sines: MISMATCH in x, y against")


def test_gradcheck_reports_a_gradient_of_the_wrong_shape(replaced_rule):
    replaced_rule(unary(np.tanh, x="np.sum(g * (1.0 - ans * ans))"))  # a number for an array
    report = gradcheck(tanh_sum, np.array([0.1, 0.2]))
    item = report.inputs[0]
    assert not report and not item.ok
    assert (item.worst_index, item.abs_error, item.rel_error, item.failing) == (None, np.inf, np.inf, 1)
    assert item.shape_error == "srcdiff's gradient has shape (), the input (2,)"
    assert str(report).splitlines()[1] == "  x: MISMATCH srcdiff's gradient has shape (), the input (2,)"


def test_gradcheck_of_an_empty_input_agrees():
    report = gradcheck(squares, np.zeros(0))
    assert report and report.inputs[0].failing == 0
