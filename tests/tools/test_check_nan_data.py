"""`srcdiff.check` on data that holds NaN: np.isnan / isinf / isfinite of the data are decided,
np.nansum / np.nanmean skip NaN elements, on sympy's side as on NumPy's."""

import numpy as np
import pytest

import srcdiff

Y = np.array([0.5, np.nan, -1.0, 2.0, np.nan, 0.0])
Z = np.array([1.0, np.inf, -2.0, 0.5, -np.inf, 3.0])


def counted_mean(x, y):
    err = x - y
    return np.nansum(err ** 2) / np.sum(~np.isnan(y))


def masked_square(x, y):
    return np.sum(np.where(np.isnan(y), 0.0, (x - np.where(np.isnan(y), 0.0, y)) ** 2))


def finite_only(x, z):
    keep = np.isfinite(z)
    return np.sum(np.where(keep, x * np.where(keep, z, 0.0), 0.0)) + np.sum(np.isinf(z)) * np.sum(x)


def nan_mean_of_cubes(x, y):
    return np.nanmean(np.abs(x - y) ** 3) + 0.5 * np.nansum(np.sin(x * y))


def nan_rows(x, y):
    return np.sum(np.nanmean((x - y) ** 2, axis=1) * np.nansum(x * y, axis=1))


CASES = [(counted_mean, Y), (masked_square, Y), (finite_only, Z), (nan_mean_of_cubes, Y),
         (nan_rows, np.where(np.arange(6) % 4 == 1, np.nan, np.arange(6.0) - 2.5).reshape(2, 3))]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("func, data", CASES, ids=[c[0].__name__ for c in CASES])
def test_check_never_says_mismatch_on_nan_data(func, data):
    x = np.random.default_rng(1).normal(size=data.shape)
    report = srcdiff.check(func, x, data, wrt=0, timeout=30)
    assert not report.mismatches, str(report)
    assert report.status in ("proved", "agrees numerically"), str(report)
    assert np.all(np.isfinite(srcdiff.grad(func)(x, data)))


def test_decided_truths_count_like_numpy():
    from srcdiff.rules import sympy_forms as forms
    from srcdiff.tools.sympy_counterparts import elementwise

    isnan = elementwise(forms.isnan, "isnan")
    assert np.sum(~isnan(np.asarray(Y, dtype=object))) == 4
    assert list(elementwise(forms.isfinite, "isfinite")(np.asarray(Z, dtype=object))) == list(np.isfinite(Z))


def test_a_report_prints_an_expression_holding_nan():
    """A guard's NaN branch in srcdiff's derivative: printing it must not order NaN among the
    terms (sympy refuses to compare NaN)."""
    import sympy as sp

    from srcdiff.tools.check_report import show

    x = sp.Symbol("x", real=True)
    expr = sp.Piecewise((sp.nan, sp.Eq(x, 7)), (0, True)) + sp.Piecewise((0, sp.Eq(x, 7)), (x, True))
    assert "nan" in show(np.array([expr, x], dtype=object))
