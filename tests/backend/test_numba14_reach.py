"""jit="numba" on the classes it refused while grad differentiated them (red team waves 12 and
13; numba14_programs.py): ``np.diff`` along an axis with ``prepend``/``append``, swaps through
index lists, NaN-skipping reductions along an axis, running extrema (``np.maximum.accumulate``)
beside reductions along axes, ``np.ix_`` blocks, ``int()``/``float()`` of strings and
``numpy.polynomial``'s Gauss nodes.

Every program goes through the numba cell (float64 central differences) and every other
transformation of the matrix; value_and_grad, jvp, vjp and hessian with ``jit="numba"`` agree
with central differences too.  numba compiles for seconds a program: the default run takes a
few programs, the slow set (``-m slow``) every one.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference, hessian_difference
from transforms import corpus, matrix

import srcdiff

from .numba14_programs import PROGRAMS

pytest.importorskip("numba")

#: run by default (numba compiles for seconds each): cheap programs of three classes
SAMPLE = {"indexed_by_names"}  # one compile in the default run; the slow set compiles every program


def programs():
    return corpus.from_table(PROGRAMS, "numba14", "numba14_programs", 14)


def _name(p):
    return p.name.partition(":")[2].partition("[")[0]


def _sampled(items):
    return [pytest.param(p, id=_name(p), marks=() if _name(p) in SAMPLE else pytest.mark.slow) for p in items]


@pytest.mark.parametrize("program", _sampled(programs()))
def test_numba_agrees_with_central_differences(program):
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome == matrix.OK, cell.message


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_other_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_value_and_grad_jvp_vjp_under_numba(program):
    f, args, wrt = program.func, list(program.args), program.wrt
    want = central_difference(f, args, wrt)
    close = {"rtol": 1e-5, "atol": 1e-6}
    value, grad = srcdiff.value_and_grad(f, wrt=wrt, jit="numba")(*args)
    np.testing.assert_allclose(value, f(*args), **close)
    np.testing.assert_allclose(grad, want, **close)
    v = np.linspace(-1.0, 1.0, want.size).reshape(want.shape)
    tangents = tuple(v if k == wrt else np.zeros_like(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                     else None for k, a in enumerate(args))
    if all(t is not None for t in tangents):
        _, tangent = srcdiff.jvp(f, tuple(args), tangents, jit="numba")
        np.testing.assert_allclose(tangent, np.sum(want * v), **close)
    _, pullback = srcdiff.vjp(f, *args, wrt=wrt, jit="numba")
    np.testing.assert_allclose(pullback(np.ones(())), want, **close)


#: the Hessians run (second order compiles for tens of seconds): programs of each class
HESSIANS = {"closed_polyline_length", "column_steps_from_zero", "swap_two_rows", "permute_columns",
            "nan_row_sums", "drawdown_of_returns", "running_minimum_rows", "spring_chain_block", "masked_block",
            "indexed_by_names", "weights_from_config", "legendre_quadrature", "logistic_regression_logcdf",
            "expon_survival", "poisson_rates"}


#: refused at the user's line by numba's forward mode over the gradient (docs/jit.md): the norm's
#: kink helper along an axis, and a configuration's float that is a number on one path of the
#: loop and an array on the other
HESSIAN_REFUSES = {"closed_polyline_length", "weights_from_config"}


@pytest.mark.slow
@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in HESSIANS], ids=_name)
def test_hessian_under_numba(program):
    f, args = program.func, list(program.args)
    if _name(program) in HESSIAN_REFUSES:
        with pytest.raises(srcdiff.SrcDiffError, match=r"numba14_programs\.py:\d+: hessian"):
            srcdiff.hessian(f, jit="numba")(*args)
        return
    got = srcdiff.hessian(f, jit="numba")(*args)
    np.testing.assert_allclose(got, hessian_difference(f, args), rtol=1e-4, atol=1e-5)


#: float32 arguments under numba, a program of each class: a float32 gradient equal to the float64 one
FLOAT32 = {"closed_polyline_length", "second_differences_padded", "swap_two_rows", "permute_columns",
           "nan_row_sums", "drawdown_per_asset", "running_maximum_tensor", "hermite_beam", "block_of_three_axes",
           "indexed_by_names", "hermite_expectation", "laplace_and_logistic_fit"}


@pytest.mark.slow
@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in FLOAT32], ids=_name)
def test_float32_under_numba(program):
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a for a in program.args]
    got = srcdiff.grad(program.func, wrt=program.wrt, jit="numba")(*args)
    want = central_difference(program.func, list(program.args), program.wrt)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=3e-3, atol=3e-3 * max(1.0, float(np.max(np.abs(want)))))


def _compiled(helper, axis: int, kind: str):
    """``helper(g, x, axis, kind)`` compiled with numba, `axis` and `kind` constants in it."""
    from numba import njit

    return njit(lambda g, x: helper(g, x, axis, kind))


def _compiled_scan(axis: int, kind: str):
    """The running extremum itself, compiled as `_compiled` compiles the helpers (g unused)."""
    from numba import njit

    from srcdiff.backend.numba.extremum_rows import extremum_scan

    return njit(lambda g, x: extremum_scan(x, axis, kind))


def _tied(rng, shape):
    """Values with runs of ties: a running extremum held by several elements at once."""
    return rng.integers(0, 3, size=shape).astype(np.float64)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["max", "min"])
def test_extremum_rows_share_ties_as_the_python_helpers(kind):
    """The numba helpers split a tied running extremum's gradient as rules/scan_helpers.py does
    (k holders get g / k each): the two agree on arrays full of ties, along every axis."""
    from srcdiff.backend.numba.extremum_rows import extremum_scan_adjoint, extremum_scan_tangent
    from srcdiff.rules import scan_helpers

    rng = np.random.default_rng(14)
    for shape in ((7,), (3, 6), (2, 3, 5)):
        x, g = _tied(rng, shape), rng.normal(size=shape)
        for axis in range(-len(shape), len(shape)):
            ufunc = np.maximum if kind == "max" else np.minimum
            np.testing.assert_array_equal(_compiled_scan(axis, kind)(g, x), ufunc.accumulate(x, axis=axis))
            for numba_helper, python_helper in ((extremum_scan_adjoint, scan_helpers.extremum_scan_adjoint),
                                                (extremum_scan_tangent, scan_helpers.extremum_scan_tangent)):
                compiled = _compiled(numba_helper, axis, kind)
                np.testing.assert_allclose(compiled(g, x), python_helper(g, x, axis, kind), rtol=1e-12, atol=1e-12)


def _repeated_swap(A):
    B = A.copy()
    B[[0, 0]] = B[[1, 2]]
    return np.sum(B ** 2)


@pytest.mark.slow  # (a numba compile)
def test_a_write_through_a_repeated_index_is_refused_at_its_line():
    """NumPy keeps one of two values written to one place: refused under numba as in Python."""
    with pytest.raises(srcdiff.SrcDiffError, match=r"test_numba14_reach\.py:\d+"):
        srcdiff.grad(_repeated_swap, jit="numba")(np.arange(6.0).reshape(3, 2))


def _bad_key(x, names=("x0", "y?")):
    total = 0.0
    for name in names:
        total = total + x[int(name[1:])]
    return total


@pytest.mark.slow
def test_an_invalid_number_string_raises_python_s_error():
    """Python's own parse decides: its ValueError, at the user's line."""
    with pytest.raises(srcdiff.SrcDiffError, match=r"test_numba14_reach\.py:\d+: ValueError.*invalid literal for int"):
        srcdiff.grad(_bad_key, jit="numba")(np.ones(3))


@pytest.mark.slow
@pytest.mark.parametrize("law", ["laplace", "logistic", "cauchy", "expon"])
def test_location_laws_are_scipy_s(law):
    """Each method of the law's numba version equals SciPy's, in both tails, at a scale that
    is not positive (NaN) and outside expon's support."""
    import scipy.stats

    from srcdiff.backend.numba import stats_location_laws

    x = np.array([-800.0, -40.0, -3.0, -0.5, 0.0, 1e-9, 0.7, 5.0, 40.0, 800.0])
    for method in stats_location_laws.METHODS:
        numba_method = getattr(stats_location_laws, f"stats_{law}_{method}")
        want = getattr(getattr(scipy.stats, law), method)
        with np.errstate(all="ignore"):
            for loc, scale in ((0.0, 1.0), (0.3, 2.5), (-1.0, 0.4)):
                np.testing.assert_allclose(numba_method(x, loc, scale), want(x, loc, scale), rtol=1e-12,
                                           atol=1e-15, err_msg=f"{law}.{method}")
                assert np.isclose(numba_method(0.7, loc, scale), want(0.7, loc, scale), rtol=1e-12)
            assert np.isnan(numba_method(0.7, 0.0, -1.0)) and np.isnan(want(0.7, 0.0, -1.0))
