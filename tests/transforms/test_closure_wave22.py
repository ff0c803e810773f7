"""Transformations other than `grad` closing on programs `grad` accepts.

Found and fixed, each class with variants here:

1. ``jit="numba"`` gave a jvp's tangent (and a Jacobian's, a Hessian's) the dtype of the first
   differentiated argument, as a gradient has: the float64 tangent of a float64 value computed
   from float32 arguments was rounded to float32.  Now every floating result of numba's code has
   the dtype the NumPy code's has (backend/numba/result_dtypes.py, read off the first call of each
   kind of arguments, which runs the NumPy code anyway).
2. numba refused, with "name 'np' is not defined", code whose only NumPy name was one numba's
   spellings wrote (``m.astype(float)`` as ``m.astype(np.float64)``: a mask's gradient whose
   arithmetic became plain operators).  numba's module now imports NumPy where its spellings
   read it (backend/numba/module.py).
3. ``from scipy.linalg import solve_triangular`` called by name was refused at its line while
   ``scipy.linalg.solve_triangular`` worked: SciPy's parameters are ``a, b``, the rule's ``x, y``,
   and the call was taken by the rule only where both bound by the same names
   (frontend/rewrites.py compares by place now).  ``scipy.linalg.cholesky`` (by name or dotted)
   was refused: it is NumPy's factor of the triangle SciPy reads (frontend/cholesky_factors.py).
4. ``scipy.linalg.cho_solve((L, True), b)`` of a factor not made by ``cho_factor`` was refused as
   "the list t1 cannot be used here: cho_solve does not take a list": it is two triangular solves
   of the triangle the flag names; a form still refused says what to write instead.
5. ``srcdiff.export`` failed on every program using ``scipy.linalg`` (the module its rules name,
   ``scipy_linalg``, was not imported), and on ``solve_triangular`` imported by name.
6. numba refused ``np.diagonal(a)`` (numba has no np.diagonal): of a matrix it is ``np.diag(a)``
   (backend/numba/diagonals.py); test_spellings16's two Gaussian processes compile now.

References are float64 central differences (tests/numeric.py, matrix.py), never the code under test.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .closure_wave22_dotted import DOTTED, REFUSED
from .closure_wave22_programs import BY_NAME, W64


def scipy_programs():
    return corpus.from_table(BY_NAME, "c22", "closure_wave22_programs", 22) + \
        corpus.from_table(DOTTED, "c22", "closure_wave22_dotted", 22)


#: the rows the default run keeps (each a few seconds): one of each kind; the slow set runs every row
KEPT = {"c22:triangular_by_name", "c22:cholesky_by_name_upper", "c22:cho_solve_of_a_triangle",
        "c22:cho_solve_pair_written", "c22:logdet_and_solve"}


def _kept(rows, name=lambda row: row.name):
    return [row if name(row) in KEPT else pytest.param(row, marks=pytest.mark.slow) for row in rows]


@pytest.mark.parametrize("program", _kept(scipy_programs()), ids=lambda p: p.name)
def test_scipy_by_name_and_dotted_first_order(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.parametrize("program", scipy_programs(), ids=lambda p: p.name)
def test_scipy_by_name_and_dotted_hessian(program):
    matrix.assert_ok(program, ("hessian",))


@pytest.mark.parametrize("program", scipy_programs(), ids=lambda p: p.name)
def test_scipy_by_name_and_dotted_under_numba(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("name, f, make, words", REFUSED, ids=[row[0] for row in REFUSED])
def test_cholesky_forms_left_say_what_to_write(name, f, make, words):
    args = make(np.random.default_rng(22))
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(f)(*args)
    text = str(caught.value)
    assert "closure_wave22_dotted.py:" in text.splitlines()[0], text
    assert words in text, text
    assert "does not take a list" not in text and "wrapped by" not in text, text


@pytest.mark.parametrize("name", ["triangular_by_name", "cho_solve_of_numpy_factor", "cho_factor_by_name",
                                  "cholesky_by_name_upper", "cho_solve_pair_written", "logdet_and_solve",
                                  "logsumexp_by_name"])
def test_export_of_scipy_programs(name, tmp_path):
    program = next(p for p in scipy_programs() if p.name == f"c22:{name}")
    path = srcdiff.export(program.func, *program.args, wrt=program.wrt, path=tmp_path / f"{name}_grad.py")
    text = path.read_text()
    assert "import srcdiff" not in text and "from srcdiff" not in text, text  # NumPy (and SciPy) only
    spec = importlib.util.spec_from_file_location(f"{name}_grad", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    got = getattr(module, f"{program.func.__name__}_grad")(*program.args)
    np.testing.assert_allclose(got, central_difference(program.func, program.args, program.wrt),
                               rtol=1e-6, atol=1e-8)


# ---- numba's results in NumPy's dtypes ----

def float_of_an_item(u, k):
    return np.sin(k * float(u[1]) * 1.1)


def float64_global(u, k):
    return np.sum(np.sin(k * u * W64))


def made_float64(u, k):
    return np.sum(np.sin(k * u) * np.linspace(0.0, 1.0, 3))


def widened(u, k):
    return np.sum(u.astype(np.float64) * k) ** 2


def stays_float32(u, k):
    return np.sum(np.sin(k * u) * 1.1)


def k_meets_float64_first(u, k):
    return np.sum(np.sin(k * W64 * u))


DTYPES = [float_of_an_item, float64_global, made_float64, widened, stays_float32, k_meets_float64_first]
#: where k meets float64 values first: f is a float64 function of k, its differences exact to 1e-9
K_FLOAT64 = (float_of_an_item, widened, k_meets_float64_first)


def _f32():
    return np.array([0.31, -0.52, 0.77], dtype=np.float32), 1.37


def _k_derivative(f, u, k):
    """Fourth-order central differences in k (float64 k; u left float32, as f computes with it)."""
    eps = 1e-4
    return (8.0 * (f(u, k + eps) - f(u, k - eps)) - (f(u, k + 2 * eps) - f(u, k - 2 * eps))) / (12 * eps)


def _dtypes(result):
    return [np.result_type(leaf) for leaf in (result if isinstance(result, tuple) else (result,))]


@pytest.mark.parametrize("f", DTYPES, ids=lambda f: f.__name__)
def test_numba_jvp_tangent_has_numpys_dtype_and_precision(f):
    u, k = _f32()
    value, tangent = srcdiff.jvp(f, (u, k), (np.zeros_like(u), 1.0), jit="numba")
    numpy_value, numpy_tangent = srcdiff.jvp(f, (u, k), (np.zeros_like(u), 1.0))
    assert _dtypes((value, tangent)) == _dtypes((numpy_value, numpy_tangent))
    assert np.result_type(f(u, k)) == np.result_type(tangent)  # a tangent has its value's dtype
    if f in K_FLOAT64:
        want = _k_derivative(f, u, k)
        assert abs(float(tangent) - want) <= 1e-9 * max(1.0, abs(want)), (float(tangent), want)
    else:  # (f rounds k * u to float32 itself: numba's tangent, of k * u in float64, is the closer one)
        np.testing.assert_allclose(float(tangent), float(numpy_tangent), rtol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("f", DTYPES, ids=lambda f: f.__name__)
def test_numba_derivatives_of_float32_arguments_have_numpys_dtypes(f):
    """The gradient of a float32 argument is float32 (its argument's dtype), the value and the
    Hessian are what the NumPy code gives."""
    u, k = _f32()
    for how in (lambda jit: srcdiff.value_and_grad(f, jit=jit)(u, k),
                lambda jit: srcdiff.hessian(f, jit=jit)(u, k),
                lambda jit: srcdiff.vjp(f, u, k, jit=jit)[1](1.0)):
        got, want = how("numba"), how(None)
        assert _dtypes(got) == _dtypes(want)
        for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=2e-5, atol=2e-6)


# ---- numba's spellings reading NumPy in code that did not ----

def mask_as_float(w, X, y):
    r = X @ w - y
    above = (r > 0.0).astype(float)
    return (above * r) @ r + ((1.0 - above) * r) @ r * 0.5


def mask_as_int_weights(w, X, y):
    r = X @ w - y
    n = (r < 0.2).astype(int)
    return (n * r) @ r


def mask_as_bool_product(w, X, y):
    r = X @ w - y
    keep = (r > -0.5).astype(bool) * 1.0
    return (keep * r) @ (keep * r)


def _rows(rng):
    return rng.standard_normal(3), rng.standard_normal((8, 3)), rng.standard_normal(8)


def diagonal_of_a_product(w, X, y):
    """np.diagonal, which numba lacks, of a matrix made in the function."""
    r = X @ w - y
    return np.sum(np.diagonal(np.outer(r[:3], w)) * w) + r @ r


MASKS = [("mask_as_float", mask_as_float, _rows, 0), ("mask_as_int_weights", mask_as_int_weights, _rows, 0),
         ("mask_as_bool_product", mask_as_bool_product, _rows, 0),
         ("diagonal_of_a_product", diagonal_of_a_product, _rows, 0)]


@pytest.mark.parametrize("program", corpus.from_table(MASKS, "c22", "test_closure_wave22", 22),
                         ids=lambda p: p.name)
def test_masks_spelled_for_numba_every_transformation(program):
    matrix.assert_ok(program, ("numba",) + matrix.FIRST_ORDER)
    u = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in program.args)
    tangent = srcdiff.jvp(program.func, program.args, (np.ones(3), None, None), jit="numba")[1]
    want = srcdiff.jvp(program.func, program.args, (np.ones(3), None, None))[1]
    np.testing.assert_allclose(tangent, want, rtol=1e-12)
    assert srcdiff.grad(program.func, jit="numba")(*u).dtype == np.float32
