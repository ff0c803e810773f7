"""`srcdiff.check`'s verdict and report on a gradient of the wrong shape, and how the report
prints numbers in expressions.  The wrong gradient comes from a deliberately wrong built-in
rule, restored afterwards.
"""

import numpy as np
import pytest

import srcdiff
from srcdiff.rules import TABLE
from srcdiff.rules.table import unary


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
