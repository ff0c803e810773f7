"""Library functions grad refused after the red team's twelfth and thirteenth waves, now rules of their own
(rules15_programs.py): np.fft.irfft / hfft, np.interp in its knots, np.histogram's weights, np.unique's
values, scipy.linalg.expm / lu / lu_factor / lu_solve, scipy.stats.weibull_min and np.cov(rowvar=False).
Every transformation agrees with central differences, numba included (np.fft's inverse transforms and
np.unique's adjoint run NumPy's code in object mode), or numba refuses at the user's line (a weighted histogram,
SciPy); float32 stays float32.  The conventions at the points with no derivative
are kept (np.unique's NaN at equal elements), and the forms with no rule are refused at their line."""

import numpy as np
import pytest
import scipy.linalg
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .rules15_programs import PROGRAMS

HERE = __file__.rsplit("/", 1)[-1]


def programs():
    return corpus.from_table(PROGRAMS, "rules15", "rules15_programs", 15)


def _name(p):
    return p.name.partition(":")[2]


_SCIPY = "numba compiles no SciPy"
#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED = {
    **dict.fromkeys(("histogram_entropy", "histogram_match", "histogram_range"),
                    "numba's np.histogram takes no weights"),
    **dict.fromkeys(("expm_rotation", "expm_transition", "expm_linear_ode", "expm_trace_weighted", "lu_solve_once",
                     "lu_solve_pivoted", "lu_factor_reused", "lu_factors_used", "lu_solve_many", "weibull_cdf_fit",
                     "weibull_density_in_x"), _SCIPY),
    "enkf_analysis": "numba has no np.column_stack of a list of a 2-D and a 1-D array",
}

#: first order in the default run (value_and_grad and vjp, which share grad's code, in the slow set)
FIRST = ("grad", "jvp", "tree")

#: one program of each function in the default run (the slow set runs every row): the default run stays short
DEFAULT_ROWS = {"irfft_zero_padded", "polyline_resample", "histogram_entropy", "unique_values_weighted",
                "expm_rotation", "lu_solve_pivoted", "weibull_survival", "enkf_analysis"}


def _one_per_function(programs: list) -> list:
    return [p if _name(p) in DEFAULT_ROWS else pytest.param(p, marks=pytest.mark.slow) for p in programs]


@pytest.mark.parametrize("program", _one_per_function(programs()), ids=_name)
def test_every_first_order_transformation(program):
    matrix.assert_ok(program, FIRST)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_value_and_grad_and_vjp(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp"))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    matrix.assert_ok(program, ("grad", "hessian", "check"))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_included(program):  # every transformation again, numba too (one in NUMBA_SAMPLE by default)
    matrix.assert_numba_included(program, NUMBA_REFUSED)


def _every_third_in_default_run(programs: list) -> list:
    return [p if i % 3 == 0 else pytest.param(p, marks=pytest.mark.slow) for i, p in enumerate(programs)]


@pytest.mark.parametrize("program", _every_third_in_default_run(matrix.with_array_argument(programs())), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


# ---- conventions at the points with no derivative ------------------------------------------------------


def unique_weighted(x):
    u = np.unique(x)
    return np.sum(u * np.arange(1.0, u.size + 1.0))


def test_unique_at_equal_elements_is_nan_there_and_exact_elsewhere():
    x = np.array([0.3, -1.0, 0.3, 2.0])  # 0.3 twice: one value fewer than nearby, no derivative
    got = srcdiff.grad(unique_weighted)(x)
    assert np.isnan(got[0]) and np.isnan(got[2]), got
    np.testing.assert_allclose(got[[1, 3]], [1.0, 3.0])  # -1.0 is the first value, 2.0 the third
    tangent = srcdiff.jvp(unique_weighted, (x,), (np.array([0.0, 1.0, 0.0, 0.0]),))[1]
    assert np.isnan(tangent)  # the equal elements' values stay in the sum, NaN times 0 (never a one-sided value)


def test_unique_away_from_ties_matches_central_differences():
    x = np.array([0.3, -1.0, 0.31, 2.0, -0.5])
    np.testing.assert_allclose(srcdiff.grad(unique_weighted)(x), central_difference(unique_weighted, (x,), 0),
                               rtol=1e-7)


def histogram_sum_of_squares(w, data):
    counts, _ = np.histogram(data, bins=np.linspace(-1.0, 1.0, 5), weights=w)
    return np.sum(counts ** 2)


def test_histogram_weights_outside_the_edges_and_on_the_last_edge():
    data = np.array([-1.5, -1.0, 0.2, 1.0, 3.0])  # outside, first edge, inside, the last edge (counted), outside
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    got = srcdiff.grad(histogram_sum_of_squares)(w, data)
    np.testing.assert_allclose(got, central_difference(histogram_sum_of_squares, (w, data), 0), atol=1e-7)
    assert got[0] == 0.0 and got[4] == 0.0
    assert np.all(srcdiff.grad(histogram_sum_of_squares, wrt=1)(w, data + 0.01) == 0.0)  # piecewise constant


def histogram_of_its_range(w, data):
    counts, edges = np.histogram(data, bins=3, weights=w)  # edges from data's min and max
    return np.sum(counts * edges[1:])


def histogram_density(w, data):
    return np.sum(np.histogram(data, bins=np.linspace(-1.0, 1.0, 4), weights=w, density=True)[0])


def unique_with_counts(x):
    u, counts = np.unique(x, return_counts=True)
    return np.sum(u * counts)


def lu_solve_transposed(A, b):
    return np.sum(scipy.linalg.lu_solve(scipy.linalg.lu_factor(A), b, trans=1))


@pytest.mark.parametrize("f, args, wrt", [
    (histogram_of_its_range, (np.ones(5), np.linspace(0.0, 1.0, 5)), 1),  # the edges move with data: refused
    (histogram_density, (np.ones(5), np.linspace(-0.9, 0.9, 5)), 0),
    (unique_with_counts, (np.array([0.3, 0.5, 0.3]),), 0),
    (lu_solve_transposed, (np.eye(3) * 2.0, np.ones(3)), 0),
], ids=lambda v: getattr(v, "__name__", ""))
def test_forms_without_a_rule_are_refused_at_the_users_line(f, args, wrt):
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(f, wrt=wrt)(*args)
    assert caught.value.location is not None and caught.value.location.filename.endswith(HERE), caught.value


def irfft_round_trip_of_a_real_spectrum(c):
    y = np.fft.irfft(c, n=8)
    return np.sum(np.fft.rfft(y).real[: len(c)] * c)  # rfft undoes irfft on the kept terms: sum(c ** 2)


def test_irfft_then_rfft_is_the_identity_on_its_terms():
    c = np.array([0.4, -1.2, 0.7, 0.3, 2.0])  # n = 8: c[0] and c[4] count once, the others twice
    np.testing.assert_allclose(srcdiff.grad(irfft_round_trip_of_a_real_spectrum)(c), 2.0 * c, rtol=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("f", [irfft_round_trip_of_a_real_spectrum, unique_weighted], ids=lambda f: f.__name__)
def test_numba_keeps_float32(f):
    x = np.array([0.4, -1.2, 0.7, 0.3, 2.0], dtype=np.float32)
    got = srcdiff.grad(f, jit="numba")(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, srcdiff.grad(f)(x.astype(np.float64)), rtol=1e-5)
