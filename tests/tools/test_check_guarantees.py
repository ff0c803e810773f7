"""What `srcdiff.check` promises beyond the symbolic proof.

* A proof is about formulas, but the gradient that runs is float64 code: it is run at your
  arguments and at the sample points, and NaN, an exception, or a value off sympy's
  derivative there is a mismatch whatever sympy proved.
* Calls of your own functions are followed: their code runs on the symbols, and so do
  srcdiff's adjoints of them.
* Each symbolic stage has a time limit; past it the check gives up symbolically and
  central differences give the verdict.

* A gradient of the wrong shape is a mismatch, and the report prints numbers in short form.

Wrong rules are registered for one test at a time and put back afterwards.
"""

import math
import threading
import time

import numpy as np
import pytest
import sympy as sp

import srcdiff
from srcdiff.rules import TABLE, unary
from srcdiff.rules.python_math import scalar
from srcdiff.rules.sympy_comparisons import Truth
from srcdiff.tools import symbolic
from srcdiff.tools.check import GAVE_UP, MISMATCH, NOT_SYMBOLIC, PROVED, GradientMismatch, check
from srcdiff.tools.gradcheck import gradcheck

# ---- functions under test (module level: srcdiff reads their source) ----

SCALE = 2.0


def wave(x, y):
    return np.sum(np.sin(x) * y)


def scalar_wave(x, y):
    return math.sin(x) * y


def power_sum(x, k):
    return np.sum(x ** k)


def power(x, k):
    return x ** k


def square(a):
    return a * a


def scaled_sin(x, k=SCALE):  # a default read from a module constant
    return k * np.sin(x)


def inner(x, y):
    return np.sum(scaled_sin(x) * square(y))


def nested_helpers(x, y):  # helpers calling helpers, arrays and numbers
    return inner(x, y) + square(np.sum(x))


def keywords(x, y):
    return scaled_sin(y, k=x) + square(a=x)


def recursive_power(x, n):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def uses_recursion(x):
    return recursive_power(x, 3) + math.exp(x)


def floors(x):
    return np.sum(np.floor(x) * x)


def calls_floors(x):
    return 2.0 * floors(x)


def deep(x, n):
    if n == 0:
        return x
    return 1.0 * deep(x, n - 1)


def rk4(y0, k, h, steps=3):  # a small ODE, integrated with the steps written out
    y = y0
    for _ in range(steps):
        k1 = -k * y * y + np.sin(y)
        a = y + 0.5 * h * k1
        k2 = -k * a * a + np.sin(a)
        b = y + 0.5 * h * k2
        k3 = -k * b * b + np.sin(b)
        c = y + h * k3
        k4 = -k * c * c + np.sin(c)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


RK4_ARGS = (np.array([0.5, 1.0]), 0.3, 0.1)

X, Y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)


@pytest.fixture
def rule():
    """Replace a rule for the test's duration; the original comes back afterwards."""
    replaced = []

    def register(new):
        replaced.append(TABLE.register(new, replace=True))

    yield register
    for old in reversed(replaced):
        TABLE.register(old, replace=True)


def _quiet_check(*args, **kwargs):
    return check(*args, progress=False, **kwargs)


# ---- the float64 gradient at your arguments and at the sample points ----

#: Right as a formula (sympy makes x / x into 1), NaN in float64 where x == 0.
NAN_AT_ZERO = "g * np.cos(x) * (x / x)"


def test_nan_at_your_arguments_is_a_mismatch_though_sympy_proves_the_formula(rule):
    rule(unary(np.sin, x=NAN_AT_ZERO))
    x, y = np.array([0.3, 0.0]), np.array([1.5, -0.5])
    report = _quiet_check(wave, x, y, wrt=(0, 1))
    assert report.status == MISMATCH and not report and report.mismatches == ["x"], str(report)
    detail = report.inputs[0].detail
    assert "at element [1], at your arguments (x[0]=0.3, x[1]=0.0, y[0]=1.5, y[1]=-0.5)" in detail
    assert "srcdiff's float64 gradient is nan where wave is finite (sympy's derivative there: -0.5" in detail
    assert "the formula is proved equal to sympy's" in detail
    assert report.inputs[1].verdict == PROVED  # y's gradient is fine
    with pytest.raises(GradientMismatch, match="is nan where wave is finite"):
        _quiet_check(wave, x, y, wrt=(0, 1), raise_on_mismatch=True)


def test_the_same_rule_passes_where_its_float_evaluation_is_finite(rule):
    rule(unary(np.sin, x=NAN_AT_ZERO))
    report = _quiet_check(wave, np.array([0.3, 1.1]), np.array([1.5, -0.5]), wrt=(0, 1))
    assert report.status == PROVED, str(report)


def test_nan_at_a_sample_point_is_a_mismatch(rule):
    # exp(1000 x) / exp(1000 x) is 1 to sympy, and inf / inf = NaN in float64 for x > 0.7098;
    # your argument 0.65 is below that, some of the points near it (within ~20%) are above
    rule(unary(np.sin, x="g * np.cos(x) * (np.exp(1000.0 * x) / np.exp(1000.0 * x))"))
    report = _quiet_check(wave, np.array([0.65, 0.65]), np.array([1.5, -0.5]), wrt=(0, 1))
    assert report.status == MISMATCH, str(report)
    detail = report.inputs[0].detail
    assert "at sample point" in detail and "srcdiff's float64 gradient is nan where wave is finite" in detail


def test_a_gradient_that_raises_at_your_arguments_is_a_mismatch(rule):
    rule(scalar(math.sin, x=NAN_AT_ZERO.replace("np.", "math.")))  # 0.0 / 0.0 raises in Python
    report = _quiet_check(scalar_wave, 0.0, 1.5, wrt=(0, 1))
    assert report.status == MISMATCH and set(report.mismatches) == {"x", "y"}, str(report)
    detail = report.inputs[0].detail  # (the ZeroDivisionError itself, or a SrcDiffError naming it)
    assert detail.startswith("at your arguments (x=0.0, y=1.5): srcdiff's float64 gradient raised ")
    assert "ZeroDivisionError" in detail and "\n" not in detail
    numeric = gradcheck(scalar_wave, 0.0, 1.5, wrt=(0, 1))  # gradcheck says so too, without raising
    assert not numeric and numeric.mismatches == ["x", "y"]
    assert "srcdiff's gradient raised " in str(numeric) and "ZeroDivisionError" in str(numeric)


def test_float_rounding_sympy_cannot_see_is_a_mismatch(rule):
    # (x + 1e16) - 1e16 - x is 0 to sympy; in float64 it is -x (x is lost next to 1e16)
    rule(unary(np.sin, x="g * np.cos(x) + ((x + 1e16) - 1e16 - x)"))
    report = _quiet_check(wave, np.array([0.3, 1.1]), np.array([1.5, -0.5]), wrt=(0, 1))
    assert report.status == MISMATCH and report.mismatches == ["x"], str(report)
    assert ("at element [0], at your arguments (x[0]=0.3, x[1]=1.1, y[0]=1.5, y[1]=-0.5): srcdiff's float64 "
            "gradient is 1.13300473369, sympy's derivative there 1.43300473369") in report.inputs[0].detail


def test_a_constant_offset_is_a_mismatch(rule):
    rule(unary(np.sin, x="g * np.cos(x) + 0.5"))
    report = _quiet_check(wave, np.array([0.3, 1.1]), np.array([1.5, -0.5]), wrt=(0, 1))
    assert report.status == MISMATCH and report.mismatches == ["x"], str(report)
    assert ("MISMATCH at element [0]: at x[0]=0.3, x[1]=1.1, y[0]=1.5, y[1]=-0.5: sympy gives 1.43300473369, "
            "srcdiff 1.93300473369") in str(report)
    assert not gradcheck(wave, np.array([0.3, 1.1]), np.array([1.5, -0.5]), wrt=(0, 1))


def test_check_certifies_x_to_the_k_only_where_its_float_gradient_is_right():
    # d/dx x**k at k = 0 is 0 everywhere; whatever srcdiff's rule for ** does at x = 0,
    # check may only say so if the float64 gradient there is 0 too
    x = np.array([0.0, 1.0])
    with np.errstate(all="ignore"):
        got = srcdiff.grad(power_sum)(x, 0.0)
    report = _quiet_check(power_sum, x, 0.0)
    assert bool(report) == bool(np.all(got == 0.0)), str(report)
    if not report:
        assert "at element [0], at your arguments" in str(report)
    try:
        right = srcdiff.grad(power)(0.0, 0.0) == 0.0
    except ArithmeticError:
        right = False
    report = _quiet_check(power, 0.0, 0.0)
    assert bool(report) == right, str(report)


# ---- calls of your own functions ----

def test_check_proves_functions_that_call_helpers():
    x, y = np.array([0.3, 0.7]), np.array([1.1, -0.4])
    report = _quiet_check(nested_helpers, x, y, wrt=(0, 1))
    assert report.status == PROVED, str(report)
    xs = [sp.Symbol(f"x[{i}]", real=True) for i in range(2)]
    ys = [sp.Symbol(f"y[{i}]", real=True) for i in range(2)]
    for i in range(2):  # by hand: d/dx_i = 2 cos(x_i) y_i^2 + 2 (x_0 + x_1); d/dy_i = 4 sin(x_i) y_i
        by_hand = 2 * sp.cos(xs[i]) * ys[i] ** 2 + 2 * (xs[0] + xs[1])
        assert sp.simplify(symbolic.exact(report.inputs[0].srcdiff[i] - by_hand)) == 0
        assert sp.simplify(symbolic.exact(report.inputs[1].srcdiff[i] - 4 * sp.sin(xs[i]) * ys[i])) == 0


def test_check_proves_helpers_called_with_keywords_and_recursively():
    report = _quiet_check(keywords, 0.5, 1.5, wrt=(0, 1))
    assert report.status == PROVED, str(report)
    assert sp.simplify(symbolic.exact(report.inputs[0].srcdiff - (sp.sin(Y) + 2 * X))) == 0
    report = _quiet_check(uses_recursion, 0.7)
    assert report.status == PROVED, str(report)
    assert sp.simplify(symbolic.exact(report.inputs[0].srcdiff - (3 * X ** 2 + sp.exp(X)))) == 0


def test_a_wrong_rule_inside_a_helper_is_a_mismatch(rule):
    rule(unary(np.sin, x="-g * np.cos(x)"))
    report = _quiet_check(nested_helpers, np.array([0.3, 0.7]), np.array([1.1, -0.4]), wrt=(0, 1))
    assert report.status == MISMATCH and report.mismatches == ["x"], str(report)


def test_helpers_are_held_to_the_same_rules():
    report = _quiet_check(calls_floors, np.array([0.3, 1.7]))
    assert report.status == NOT_SYMBOLIC and not report, str(report)
    assert "numpy.floor has no sympy counterpart" in str(report)
    assert report.numeric and "agrees with float64 central differences" in str(report)
    report = _quiet_check(deep, 0.5, 60)  # calls nest 61 deep
    assert report.status == NOT_SYMBOLIC and "nest more than 50 deep" in str(report), str(report)
    assert _quiet_check(deep, 0.5, 10).status == PROVED


# ---- a time limit for each symbolic stage ----

def test_a_long_symbolic_check_gives_up_within_its_timeout_and_checks_numerically():
    threads = threading.active_count()
    heard = []
    start = time.monotonic()
    report = check(rk4, *RK4_ARGS, wrt=(0, 1), timeout=2, progress=heard.append)
    assert time.monotonic() - start < 10
    assert report.status == GAVE_UP and not report and report.inputs == [], str(report)
    assert report.numeric and not report.mismatches
    text = str(report)
    assert text.startswith("srcdiff.check rk4 wrt y0, k: gave up symbolically after 2 s, checked numerically\n")
    assert "took longer than timeout=2 s (pass a larger timeout to wait longer)" in text
    assert "srcdiff.gradcheck rk4: agrees with float64 central differences" in text
    assert any("(over 1 s; limit 2 s)" in h for h in heard), heard
    assert any("gave up symbolically after 2 s" in h for h in heard), heard
    assert threading.active_count() == threads  # no watchdog is left running
    report.raise_on_mismatch()  # nothing disagrees


def test_giving_up_does_not_hide_a_wrong_gradient(rule):
    rule(unary(np.sin, x="-g * np.cos(x)"))
    report = _quiet_check(rk4, *RK4_ARGS, wrt=(0, 1), timeout=1)
    assert report.status == MISMATCH and not report and report.mismatches == ["y0", "k"], str(report)
    assert "gave up symbolically" in str(report) and "MISMATCH in y0, k" in str(report)
    with pytest.raises(GradientMismatch):
        report.raise_on_mismatch()


def test_the_time_limit_works_in_any_thread():
    found = []
    worker = threading.Thread(target=lambda: found.append(_quiet_check(rk4, *RK4_ARGS, wrt=(0, 1), timeout=1)))
    start = time.monotonic()
    worker.start()
    worker.join(30)
    assert not worker.is_alive() and time.monotonic() - start < 10
    assert found[0].status == GAVE_UP, str(found[0])


def test_sympy_works_normally_after_an_interruption():
    _quiet_check(rk4, *RK4_ARGS, wrt=(0, 1), timeout=0.5)
    assert sp.simplify(sp.sin(X) ** 2 + sp.cos(X) ** 2) == 1
    assert _quiet_check(wave, np.array([0.3, 1.1]), np.array([1.5, -0.5]), wrt=(0, 1)).status == PROVED


def test_a_quick_check_prints_no_progress(capsys):
    assert check(wave, np.array([0.3, 1.1]), np.array([1.5, -0.5]), wrt=(0, 1))  # progress to stderr
    assert capsys.readouterr().err == ""


# ---- a gradient of the wrong shape (a deliberately wrong built-in rule), numbers in the report ----

@pytest.fixture
def replaced_tanh():
    original = TABLE.lookup(np.tanh)
    TABLE.register(unary(np.tanh, x="np.sum(g * (1.0 - ans * ans))"), replace=True)  # a number for an array
    yield
    TABLE.register(original, replace=True)
    srcdiff.clear_cache()


def tanh_sum(x):
    return np.sum(np.tanh(x))


def quarter_square(x):
    return 0.25 * x * x


def test_check_refuses_a_gradient_of_the_wrong_shape(replaced_tanh):
    report = srcdiff.check(tanh_sum, np.array([0.1, 0.2]))
    assert not report and report.mismatches == ["x"]
    assert report.inputs[0].verdict == "MISMATCH"
    assert str(report).splitlines() == [
        "srcdiff.check tanh_sum wrt x: MISMATCH with sympy's derivative in x",
        "  x",
        "    sympy:   shape (2,): [1 - tanh(x[0])**2, 1 - tanh(x[1])**2]",
        "    srcdiff: -tanh(x[0])**2 - tanh(x[1])**2 + 2",
        "    MISMATCH srcdiff's gradient has shape (), the input (2,)",
    ]
    with pytest.raises(srcdiff.SrcDiffError, match="MISMATCH"):
        report.raise_on_mismatch()


def test_check_report_prints_floats_in_short_form():
    lines = str(srcdiff.check(quarter_square, 0.3)).splitlines()
    assert lines[2:4] == ["    sympy:   0.5*x", "    srcdiff: 0.5*x"]


def test_sympy_recursing_too_deep_is_a_limit_not_a_crash(monkeypatch):
    def too_deep(*args):
        raise RecursionError("maximum recursion depth exceeded in comparison")
    monkeypatch.setattr("srcdiff.tools.check._symbolic_check", too_deep)
    report = _quiet_check(wave, np.array([0.3, 0.7]), np.array([1.1, -0.4]))
    assert report.status == NOT_SYMBOLIC and "recursion" in str(report), str(report)
    assert report.numeric is not None and report.numeric, str(report)


def test_a_selection_on_an_equation_of_floats_is_symbolic():
    """sympy 1.14 recurses without end canonicalising ``Eq(0.3*r, -0.7*r)`` inside a
    ``Piecewise`` (the tie of a pinball loss's two sides); the selection compares the
    difference with 0 instead, the same condition."""
    r = sp.Symbol("r", real=True)
    picked = Truth(sp.Eq(0.3 * r, -0.7 * r)).select(0.5 * r, r)
    assert picked.subs(r, 0) == 0 and picked.subs(r, 2) == 2
    assert sp.diff(picked, r).subs(r, 0) == 0.5 and sp.diff(picked, r).subs(r, 1) == 1
