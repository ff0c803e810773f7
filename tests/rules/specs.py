"""The rule spec table: one row per test case of a rule (`spec_kinds.Spec`), driving every
per-rule test: the gradient against central differences (tests/rules/test_numpy_rules.py),
the tangent (tests/ad/test_jvp.py), the symbolic check (tests/tools/test_check.py), and the
transformation matrix's corpus (tests/transforms/corpus.py).  The rows of some families are in
rule_specs_*.py beside this file; `SPECS` is all of them.  Adding a rule adds its rows here.
"""

import math

import numpy as np
from modules import import_source

from rules.rule_specs_calc import calc_specs
from rules.rule_specs_linalg import linalg_specs
from rules.rule_specs_more import more_specs
from rules.rule_specs_shapes import insert_delete_specs, shapes_specs
from rules.rule_specs_signal import signal_specs
from rules.spec_kinds import (
    ABOVE1,
    EITHER,
    EXACT,
    NONZERO,
    NUMERIC_ONLY,
    POS,
    REAL,
    REFUSED,
    SPD,
    UNIT,
    NoSym,
    S,
    Sym,
    sampler,
    well_conditioned,
)
from srcdiff.rules import (
    bin_helpers,
    calculus_helpers,
    decomposition_helpers,
    fft_helpers,
    guard_helpers,
    join_helpers,
    list_edits,
    list_helpers,
    lu_helpers,
    runtime,
    scan_helpers,
    write_helpers,
)

RT = "srcdiff.rules.runtime"
LH = "srcdiff.rules.list_helpers"
SPECS = [
    # ---- Python operators ----
    S("operator.add", "x + y", x=((3, 1), REAL), y=((4,), REAL), sym=Sym("(x + y) * x", "0.7, 1.3")),
    S("operator.sub", "x - y", x=((3, 4), REAL), y=(None, REAL), sym=Sym("(x - y) * x", "0.7, 1.3")),
    S("operator.mul", "x * y", x=((2, 3), REAL), y=((2, 1), REAL), sym=Sym("x * y", "0.7, 1.3")),
    S("operator.truediv", "x / y", x=((3,), REAL), y=((2, 3), POS), sym=Sym("x / y", "0.7, 1.3")),
    S("operator.pow", "x ** y", x=((3,), POS), y=((3,), REAL), sym=Sym("x ** y", "0.7, 1.3", EITHER)),
    S("operator.pow", "x ** 3", x=(None, REAL)),
    S("operator.neg", "-x", x=((3,), REAL), sym=Sym("-x * y", "0.7, 1.3")),
    S("operator.pos", "+x", x=((3,), REAL), sym=Sym("+x * y", "0.7, 1.3")),
    S("operator.matmul", "x @ y", x=((3, 4), REAL), y=((4, 2), REAL), sym=Sym("np.sum(np.sin(x @ y))", "A, V")),
    S("operator.matmul", "x @ y", x=((4,), REAL), y=((4, 2), REAL)),
    S("operator.matmul", "x @ y", x=((2, 3, 4), REAL), y=((4,), REAL)),
    S("ndarray.T", "x.T @ y", x=((3, 2), REAL), y=((3,), REAL),
      sym=Sym("np.sum(np.sin(x.T @ y))", "A, np.array([0.2, -0.7])")),
    # ---- math ----
    S("math.sin", "math.sin(x)", x=(None, REAL), sym=Sym("math.sin(x) * y", "0.7, 1.3")),
    S("math.cos", "math.cos(x)", x=(None, REAL), sym=Sym("math.cos(x) * y", "0.7, 1.3")),
    S("math.tan", "math.tan(x)", x=(None, UNIT), sym=Sym("math.tan(x) * y", "0.7, 1.3")),
    S("math.exp", "math.exp(x)", x=(None, REAL), sym=Sym("math.exp(x) * y", "0.7, 1.3")),
    S("math.log", "math.log(x)", x=(None, POS), sym=Sym("math.log(x) * y", "0.7, 1.3")),
    S("math.sqrt", "math.sqrt(x)", x=(None, POS), sym=Sym("math.sqrt(x) * y", "0.7, 1.3")),
    S("math.tanh", "math.tanh(x)", x=(None, REAL), sym=Sym("math.tanh(x) * y", "0.7, 1.3")),
    # the symbolic check multiplies by y; constants written as floats (pi, log 2) may leave a proof to numbers
    *[S(f"math.{n}", f"math.{n}(x)", x=(None, domain), sym=Sym(f"math.{n}({arg}) * y", "0.7, 1.3", verdict))
      for n, domain, verdict, arg in [
        ("sinh", REAL, EXACT, "x"), ("cosh", REAL, EXACT, "x"), ("asin", UNIT, EXACT, "x"), ("acos", UNIT, EXACT, "x"),
        ("atan", REAL, EXACT, "x"), ("asinh", REAL, EXACT, "x"), ("acosh", ABOVE1, EITHER, "x + 1.0"),
        ("atanh", UNIT, EXACT, "x"), ("log1p", POS, EXACT, "x"), ("expm1", REAL, EXACT, "x"),
        ("log2", POS, EITHER, "x"), ("log10", POS, EITHER, "x"), ("erf", REAL, EITHER, "x"),
        ("erfc", REAL, EITHER, "x"), ("fabs", NONZERO, EITHER, "x"), ("degrees", REAL, EITHER, "x"),
        ("radians", REAL, EITHER, "x")]],
    S("math.atan2", "math.atan2(x, y)", x=(None, REAL), y=(None, POS), sym=Sym("math.atan2(x, y)", "0.7, 1.3")),
    S("math.hypot", "math.hypot(x, y)", x=(None, POS), y=(None, REAL), sym=Sym("math.hypot(x, y)", "0.7, 1.3")),
    S("math.lgamma", "math.lgamma(x)", x=(None, POS), sym=Sym("math.lgamma(x) * y", "0.7, 1.3", EITHER)),
    S("math.gamma", "math.gamma(x)", x=(None, POS), sym=Sym("math.gamma(x) * y", "0.7, 1.3", EITHER)),
    S("math.copysign", "math.copysign(x, y)", x=(None, NONZERO), y=(None, NONZERO)),
    # ---- NumPy elementwise ----
    S("numpy.add", "np.add(x, y)", x=((3, 1), REAL), y=((1, 4), REAL),
      sym=Sym("np.sum(np.add(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])")),
    S("numpy.subtract", "np.subtract(x, y)", x=((3, 4), REAL), y=((4,), REAL),
      sym=Sym("np.sum(np.subtract(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])")),
    S("numpy.multiply", "np.multiply(x, y)", x=((2, 3), REAL), y=(None, REAL),
      sym=Sym("np.sum(np.multiply(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])")),
    S("numpy.divide", "np.divide(x, y)", x=((2, 3), REAL), y=((3,), POS),
      sym=Sym("np.sum(np.divide(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])")),
    S("numpy.power", "np.power(x, y)", x=((2, 3), POS), y=((3,), REAL),
      sym=Sym("np.sum(np.power(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])", EITHER)),
    S("numpy.negative", "np.negative(x)", x=((3,), REAL), sym=Sym("np.sum(np.negative(x) * y)", "V, W")),
    S("numpy.reciprocal", "np.reciprocal(x)", x=((3,), POS), sym=Sym("np.sum(np.reciprocal(x) * y)", "V, W")),
    S("numpy.square", "np.square(x)", x=((2, 2), REAL), sym=Sym("np.sum(np.square(x) * y)", "V, W")),
    S("numpy.sqrt", "np.sqrt(x)", x=((3,), POS), sym=Sym("np.sum(np.sqrt(x) * y)", "V, W")),
    S("numpy.sqrt", "np.sqrt(x)", x=(None, POS)),
    S("numpy.cbrt", "np.cbrt(x)", x=((3,), POS), sym=Sym("np.sum(np.cbrt(x) * y)", "V, W")),
    S("numpy.exp", "np.exp(x)", x=((3,), REAL), sym=Sym("np.sum(np.exp(x) * y)", "V, W")),
    S("numpy.exp2", "np.exp2(x)", x=((3,), REAL), sym=Sym("np.sum(np.exp2(x) * y)", "V, W", EITHER)),
    S("numpy.expm1", "np.expm1(x)", x=((3,), REAL), sym=Sym("np.sum(np.expm1(x) * y)", "V, W")),
    S("numpy.log", "np.log(x)", x=((3,), POS), sym=Sym("np.sum(np.log(x) * y)", "V, W")),
    S("numpy.log2", "np.log2(x)", x=((3,), POS), sym=Sym("np.sum(np.log2(x) * y)", "V, W", EITHER)),
    S("numpy.log10", "np.log10(x)", x=((3,), POS), sym=Sym("np.sum(np.log10(x) * y)", "V, W", EITHER)),
    S("numpy.log1p", "np.log1p(x)", x=((3,), POS), sym=Sym("np.sum(np.log1p(x) * y)", "V, W")),
    S("numpy.logaddexp", "np.logaddexp(x, y)", x=((2, 3), REAL), y=((3,), REAL),
      sym=Sym("np.sum(np.logaddexp(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])", EITHER)),
    S("numpy.sin", "np.sin(x)", x=((3,), REAL), sym=Sym("np.sum(np.sin(x) * y)", "V, W")),
    S("numpy.sin", "np.sin(x)", x=(None, REAL)),
    S("numpy.cos", "np.cos(x)", x=((3,), REAL), sym=Sym("np.sum(np.cos(x) * y)", "V, W")),
    S("numpy.tan", "np.tan(x)", x=((3,), UNIT), sym=Sym("np.sum(np.tan(x) * y)", "V, W")),
    S("numpy.arcsin", "np.arcsin(x)", x=((3,), UNIT), sym=Sym("np.sum(np.arcsin(x) * y)", "V, W")),
    S("numpy.arccos", "np.arccos(x)", x=((3,), UNIT), sym=Sym("np.sum(np.arccos(x) * y)", "V, W")),
    S("numpy.arctan", "np.arctan(x)", x=((3,), REAL), sym=Sym("np.sum(np.arctan(x) * y)", "V, W")),
    S("numpy.arctan2", "np.arctan2(x, y)", x=((2, 3), REAL), y=((3,), POS),
      sym=Sym("np.sum(np.arctan2(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])")),
    S("numpy.hypot", "np.hypot(x, y)", x=((3,), NONZERO), y=((2, 1), REAL),
      sym=Sym("np.sum(np.hypot(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])")),
    S("numpy.sinh", "np.sinh(x)", x=((3,), REAL), sym=Sym("np.sum(np.sinh(x) * y)", "V, W")),
    S("numpy.cosh", "np.cosh(x)", x=((3,), REAL), sym=Sym("np.sum(np.cosh(x) * y)", "V, W")),
    S("numpy.tanh", "np.tanh(x)", x=((3,), REAL), sym=Sym("np.sum(np.tanh(x) * y)", "V, W")),
    S("numpy.arcsinh", "np.arcsinh(x)", x=((3,), REAL), sym=Sym("np.sum(np.arcsinh(x) * y)", "V, W")),
    S("numpy.arccosh", "np.arccosh(x)", x=((3,), ABOVE1), sym=Sym("np.sum(np.arccosh(x) * y)", "V + 1.0, W", EITHER)),
    S("numpy.arctanh", "np.arctanh(x)", x=((3,), UNIT), sym=Sym("np.sum(np.arctanh(x) * y)", "V, W")),
    S("numpy.absolute", "np.abs(x) * np.absolute(y)", x=((4,), REAL), y=(None, NONZERO),
      sym=Sym("np.sum(np.absolute(x) * y)", "V, W")),
    S("numpy.real", "np.real(x) * np.sin(np.real(x))", x=((4,), REAL),
      sym=Sym("np.sum(np.sin(np.real(x)) * y)", "V, W", EITHER)),
    S("numpy.maximum", "np.maximum(x, y)", x=((3, 4), REAL), y=((4,), REAL),
      sym=Sym("np.sum(np.maximum(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])", NUMERIC_ONLY)),
    S("numpy.maximum", "np.maximum(x, 0.0)", x=((5,), REAL)),
    S("numpy.minimum", "np.minimum(x, y)", x=((3, 4), REAL), y=((3, 1), REAL),
      sym=Sym("np.sum(np.minimum(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])", NUMERIC_ONLY)),
    S("numpy.fmax", "np.fmax(x, y)", x=((3, 4), REAL), y=((4,), REAL),
      sym=Sym("np.sum(np.fmax(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])", NUMERIC_ONLY)),
    S("numpy.fmin", "np.fmin(x, y)", x=((3, 4), REAL), y=(None, REAL),
      sym=Sym("np.sum(np.fmin(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])", NUMERIC_ONLY)),
    S("numpy.clip", "np.clip(x, lo, hi)", x=((4, 3), REAL), lo=((3,), sampler(-1.0, -0.2)),
      hi=((4, 1), sampler(0.2, 1.0)), sym=Sym("np.sum(np.clip(x, 0.4, 0.7) * y)", "V, W", EITHER)),
    S("numpy.clip", "np.clip(x, -0.5, None)", x=((6,), REAL)),
    S("numpy.clip", "x.clip(0.0, 1.0)", x=((6,), sampler(-0.5, 1.5))),
    S("numpy.where", "np.where(np.greater(c, 0.0), x, y)", x=((3, 4), REAL), y=((4,), REAL), c=((3, 4), REAL),
      sym=Sym("np.sum(np.where(c, x * y, y * y))", "V, W, np.array([True, False, True])", params='x, y, c')),
    # ---- reductions ----
    S("numpy.sum", "np.sum(x)", x=((3, 4), REAL), sym=Sym("np.sum(np.sin(np.sum(x * y, axis=0)))", "A, B")),
    S("numpy.sum", "np.sum(x, axis=0)", x=((3, 4), REAL)),
    S("numpy.sum", "x.sum(axis=-1, keepdims=True)", x=((3, 4), REAL)),
    S("numpy.sum", "np.sum(x, axis=(0, 2))", x=((2, 3, 4), REAL)),
    S("numpy.mean", "np.mean(x)", x=((3, 4), REAL), sym=Sym("np.sum(np.sin(np.mean(x * y, axis=1)))", "A, B")),
    S("numpy.mean", "x.mean(axis=1)", x=((3, 4), REAL)),
    S("numpy.mean", "np.mean(x, axis=0, keepdims=True)", x=((3, 4), REAL)),
    S("numpy.prod", "np.prod(x)", x=((5,), NONZERO), sym=Sym("np.sum(np.prod(x * y, axis=0))", "A, B")),
    S("numpy.prod", "x.prod(axis=1)", x=((3, 4), REAL)),
    S("numpy.prod", "np.prod(x, axis=0, keepdims=True)", x=((3, 2), REAL)),
    S("numpy.var", "np.var(x)", x=((6,), REAL), sym=Sym("np.var(x * y)", "A, B")),
    S("numpy.var", "x.var(axis=0, ddof=1)", x=((5, 3), REAL)),
    S("numpy.std", "np.std(x, axis=1, keepdims=True)", x=((3, 5), REAL),
      sym=Sym("np.sum(np.std(x * y, axis=0))", "A, B")),
    S("numpy.max", "np.max(x)", x=((3, 4), REAL), sym=Sym("np.max(x * y)", "V[:2], W[:2]", EITHER)),
    S("numpy.max", "x.max(axis=0)", x=((3, 4), REAL)),
    S("numpy.min", "np.min(x, axis=1, keepdims=True)", x=((3, 4), REAL),
      sym=Sym("np.min(x * y)", "V[:2], W[:2]", EITHER)),
    S("numpy.min", "x.min()", x=((5,), REAL)),
    S("numpy.amax", "np.amax(x, axis=-1)", x=((2, 3, 4), REAL), sym=Sym("np.amax(x * y)", "V[:2], W[:2]", EITHER)),
    S("numpy.amin", "np.amin(x)", x=((4,), REAL), sym=Sym("np.amin(x * y)", "V[:2], W[:2]", EITHER)),
    S("numpy.linalg.norm", "np.linalg.norm(x)", x=((3, 4), REAL), sym=Sym("np.linalg.norm(x * y)", "A, B")),
    S("numpy.linalg.norm", "np.linalg.norm(x, axis=1, keepdims=True)", x=((3, 4), REAL)),
    S("numpy.linalg.norm", "np.linalg.norm(x, ord=1)", x=((5,), NONZERO)),
    S("numpy.linalg.norm", "np.linalg.norm(x, ord=np.inf)", x=((5,), REAL)),
    S("numpy.cumsum", "np.cumsum(x)", x=((3, 4), REAL), sym=Sym("np.sum(np.sin(np.cumsum(x * y)))", "V, W")),
    S("numpy.cumsum", "x.cumsum(axis=1)", x=((3, 4), REAL)),
    # ---- linear algebra ----
    S("numpy.matmul", "np.matmul(x, y)", x=((2, 3, 4), REAL), y=((4, 2), REAL),
      sym=Sym("np.sum(np.sin(np.matmul(x, y)))", "A, V")),
    S("numpy.dot", "np.dot(x, y)", x=((3, 4), REAL), y=((4,), REAL), sym=Sym("np.sum(np.sin(np.dot(x, y)))", "A, V")),
    S("numpy.dot", "x.dot(y)", x=((4,), REAL), y=((4,), REAL)),
    S("numpy.dot", "np.dot(x, y)", x=(None, REAL), y=((3,), REAL)),
    S("numpy.inner", "np.inner(x, y)", x=((4,), REAL), y=((4,), REAL), sym=Sym("np.sin(np.inner(x, y))", "V, W")),
    S("numpy.inner", "np.inner(x, y)", x=((2, 4), REAL), y=((3, 4), REAL)),
    S("numpy.outer", "np.outer(x, y)", x=((3,), REAL), y=((4,), REAL),
      sym=Sym("np.sum(np.sin(np.outer(x, y)))", "V, W")),
    S("numpy.outer", "np.outer(x, y)", x=((2, 2), REAL), y=((3,), REAL)),
    S("numpy.tensordot", "np.tensordot(x, y)", x=((2, 3, 4), REAL), y=((3, 4, 5), REAL),
      sym=Sym("np.sum(np.sin(np.tensordot(x, y, axes=1)))", "A, V")),
    S("numpy.tensordot", "np.tensordot(x, y, axes=1)", x=((2, 3), REAL), y=((3, 4), REAL)),
    S("numpy.tensordot", "np.tensordot(x, y, axes=([0, 2], [2, 1]))", x=((2, 3, 4), REAL), y=((5, 4, 2), REAL)),
    S("numpy.einsum", "np.einsum('ij,jk->ik', x, y)", x=((2, 3), REAL), y=((3, 4), REAL),
      sym=Sym("np.sin(np.einsum('i,i->', x, y))", 'V, W')),
    S("numpy.einsum", "np.einsum('ij->i', x)", x=((2, 3), REAL)),
    S("numpy.einsum", "np.einsum('i,j,ij', x, y, z)", x=((2,), REAL), y=((3,), REAL), z=((2, 3), REAL)),
    S("numpy.trace", "np.trace(x)", x=((3, 3), REAL), sym=Sym("np.sin(np.trace(x @ y))", "A, B.T")),
    S("numpy.trace", "np.trace(x, offset=1)", x=((3, 4), REAL)),
    S("numpy.diag", "np.diag(x)", x=((4,), REAL), sym=Sym("np.sum(np.sin(np.diag(x @ y)))", "A, B.T")),
    S("numpy.diag", "np.diag(x)", x=((3, 4), REAL)),
    S("numpy.diag", "np.diag(x, k=-1)", x=((4, 3), REAL)),
    S("numpy.linalg.inv", "np.linalg.inv(x)", x=((3, 3), well_conditioned),
      sym=Sym("np.sum(np.linalg.inv(x) * y)", "SQ, SQ2")),
    S("numpy.linalg.det", "np.linalg.det(x)", x=((3, 3), well_conditioned), sym=Sym("np.linalg.det(x * y)", "SQ, SQ2")),
    # a singular matrix (rank 2 of 3, rank 1 of 2): the cofactor matrix, exact there
    S("numpy.linalg.det", "np.linalg.det(x @ np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]]))",
      x=((3, 3), REAL)),
    S("numpy.linalg.det", "np.linalg.det(np.outer(x, y))", x=((2,), REAL), y=((2,), REAL)),
    S("srcdiff.rules.decomposition_helpers.cofactor", "cofactor(x * y)", x=((3, 3), REAL), y=((3, 3), REAL),
      sym=NoSym("its adjoint, cofactor_derivative, is computed from the SVD: checked numerically")),
    S("srcdiff.rules.decomposition_helpers.cofactor_derivative",
      "cofactor_derivative(np.array([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.0, 1.0, 3.0]]), x * y)", x=((3, 3), REAL),
      y=((3, 3), REAL)),
    S("numpy.linalg.slogdet", "np.linalg.slogdet(x)[1]", x=((3, 3), well_conditioned),
      sym=Sym("np.linalg.slogdet(x * y)[1]", "SQ, SQ2", EITHER)),
    S("numpy.linalg.slogdet", "np.linalg.slogdet(x)[0] * np.linalg.slogdet(x)[1]", x=((2, 3, 3), well_conditioned)),
    S("numpy.linalg.solve", "np.linalg.solve(x, y)", x=((3, 3), well_conditioned), y=((3,), REAL),
      sym=Sym("np.sum(np.linalg.solve(x, y))", "SQ, np.array([0.3, -1.2])")),
    S("numpy.linalg.solve", "np.linalg.solve(x, y)", x=((3, 3), well_conditioned), y=((3, 2), REAL)),
    S("numpy.linalg.cholesky", "np.linalg.cholesky(x)", x=((3, 3), SPD), tol=1e-5),
    # ---- shape manipulation ----
    S("numpy.reshape", "np.reshape(x, (6, 2))", x=((3, 4), REAL),
      sym=Sym("np.sum(np.sin(np.reshape(x, (3, 2))) * np.reshape(y, (3, 2)))", "A, B")),
    S("numpy.reshape", "x.reshape(2, -1)", x=((3, 4), REAL)),
    S("numpy.ravel", "np.ravel(x)", x=((3, 4), REAL), sym=Sym("np.sum(np.sin(np.ravel(x)) * np.ravel(y))", "A, B")),
    S("numpy.ravel", "x.flatten()", x=((3, 4), REAL)),
    S("numpy.expand_dims", "np.expand_dims(x, 1) * y", x=((3,), REAL), y=((3, 2), REAL),
      sym=Sym("np.sum(np.sin(np.expand_dims(x, 0)) * y)", "V, W")),
    S("numpy.squeeze", "np.squeeze(x)", x=((3, 1), REAL),
      sym=Sym("np.sum(np.sin(np.squeeze(x)) * y)", "V.reshape(1, 3), W")),
    S("numpy.squeeze", "np.squeeze(x, axis=0) * y", x=((1, 3, 1), REAL), y=((3, 1), REAL)),
    S("numpy.atleast_1d", "np.atleast_1d(x) * y", x=((), REAL), y=((3,), REAL),
      sym=Sym("np.sum(np.sin(np.atleast_1d(x)) * y)", "V, W")),
    S("numpy.atleast_2d", "np.atleast_2d(x) * y", x=((3,), REAL), y=((2, 3), REAL),
      sym=Sym("np.sum(np.sin(np.atleast_2d(x)) * y)", "V, W")),
    S("numpy.atleast_3d", "np.atleast_3d(x) * y", x=((3,), REAL), y=((1, 3, 2), REAL),
      sym=Sym("np.sum(np.sin(np.atleast_3d(x)) * y)", "V, W")),
    S("numpy.atleast_3d", "np.atleast_3d(x)", x=((2, 3), REAL)),
    S("numpy.transpose", "np.transpose(x)", x=((3, 4), REAL),
      sym=Sym("np.sum(np.sin(np.transpose(x)) @ y)", "A, np.array([0.2, -0.7])")),
    S("numpy.transpose", "x.transpose(1, 2, 0)", x=((2, 3, 4), REAL)),
    S("numpy.swapaxes", "np.swapaxes(x, 0, 2)", x=((2, 3, 4), REAL),
      sym=Sym("np.sum(np.sin(np.swapaxes(x, 0, 1)) @ y)", "A, np.array([0.2, -0.7])")),
    S("numpy.moveaxis", "np.moveaxis(x, 0, -1)", x=((2, 3, 4), REAL),
      sym=Sym("np.sum(np.sin(np.moveaxis(x, 0, 1)) @ y)", "A, np.array([0.2, -0.7])")),
    S("numpy.flip", "np.flip(x, axis=1)", x=((3, 4), REAL), sym=Sym("np.sum(np.sin(np.flip(x)) * y)", "V, W")),
    S("numpy.broadcast_to", "np.broadcast_to(x, (3, 4))", x=((4,), REAL),
      sym=Sym("np.sum(np.sin(np.broadcast_to(x, (2, 3))) * y)", "V, B")),
    S("numpy.broadcast_to", "np.broadcast_to(x, (2, 3, 4))", x=((3, 1), REAL)),
    S("numpy.tile", "np.tile(x, (2, 3))", x=((3,), REAL),
      sym=Sym("np.sum(np.sin(np.tile(x, 2)) * y)", "V, np.arange(1.0, 7.0)")),
    S("numpy.tile", "np.tile(x, 2)", x=((2, 3), REAL)),
    S("numpy.repeat", "np.repeat(x, 3)", x=((2, 2), REAL),
      sym=Sym("np.sum(np.sin(np.repeat(x, 2)) * y)", "V, np.arange(1.0, 7.0)")),
    S("numpy.repeat", "np.repeat(x, 2, axis=-1)", x=((2, 3), REAL)),
    S("numpy.repeat", "np.repeat(x, [1, 3], axis=0)", x=((2, 3), REAL)),
    S("numpy.add.reduceat", "np.add.reduceat(x, [0, 2, 3])", x=((5,), REAL)),
    S("numpy.add.reduceat", "np.add.reduceat(x, [0, 1], axis=1)", x=((2, 4), REAL)),
    S("numpy.concatenate", "np.concatenate([x, y], axis=1)", x=((2, 3), REAL), y=((2, 1), REAL),
      sym=Sym("np.sum(np.sin(np.concatenate([x, y])) * np.concatenate([y, x]))", "V, W")),
    S("numpy.concatenate", "np.concatenate([x, y, x])", x=((2,), REAL), y=((3,), REAL)),
    S("numpy.stack", "np.stack([x, y], axis=-1)", x=((2, 3), REAL), y=((2, 3), REAL),
      sym=Sym("np.sum(np.sin(np.stack([x, y])) * np.stack([y, x]))", "V, W")),
    S("numpy.hstack", "np.hstack([x, y])", x=((3,), REAL), y=((2,), REAL),
      sym=Sym("np.sum(np.sin(np.hstack([x, y])) * np.hstack([y, x]))", "V, W")),
    S("numpy.hstack", "np.hstack((x, y))", x=((2, 3), REAL), y=((2, 1), REAL)),
    S("numpy.vstack", "np.vstack([x, y])", x=((3,), REAL), y=((2, 3), REAL),
      sym=Sym("np.sum(np.sin(np.vstack([x, y])) * np.vstack([y, x]))", "V, W")),
    S("numpy.split", "np.split(x, 2)[1]", x=((4,), REAL),
      sym=Sym("np.sum(np.sin(np.split(x * y, [1])[0])) * np.sum(np.split(x, [1])[1] * y[1:])", "V, W")),
    S("numpy.split", "np.split(x, [1, 3], axis=1)[0] * np.split(x, [1, 3], axis=1)[2]", x=((2, 5), REAL)),
    # ---- conversions ----
    S("numpy.asarray", "np.asarray(x) * 2.0", x=((3,), REAL),
      sym=Sym("np.sum(np.sin(np.asarray(x, dtype=float)) * y)", "V, W")),
    S("numpy.asarray", "np.asarray(x, dtype=np.float64)", x=((3,), REAL)),
    S("numpy.array", "np.array(x, dtype=float)", x=((3,), REAL),
      sym=Sym("np.sum(np.sin(np.array(x, dtype=float)) * y)", "V, W")),
    S("numpy.asanyarray", "np.asanyarray(x)", x=((3,), REAL),
      sym=Sym("np.sum(np.sin(np.asanyarray(x, dtype=float)) * y)", "V, W")),
    S("numpy.ascontiguousarray", "np.ascontiguousarray(x.T)", x=((3, 2), REAL),
      sym=Sym("np.sum(np.sin(np.ascontiguousarray(x, dtype=float)) * y)", "V, W")),
    S("ndarray.astype", "x.astype(float)", x=((3,), REAL),
      sym=NoSym("user code's methods run on object arrays, which cannot astype(float) symbols")),
    S("ndarray.astype", "x.astype('float64')", x=((3,), REAL)),
    S("numpy.copy", "np.copy(x) + x.copy()", x=((3,), REAL), sym=Sym("np.sum(np.copy(x) * y)", "V, W")),
    *([S("numpy.astype", "np.astype(x, x.dtype) * np.astype(x > 0, float)", x=((3,), REAL),
        sym=NoSym("object arrays of symbols cannot astype(float)"))]
      if hasattr(np, "astype") else []),
    # ---- no gradient: the expression's gradient comes from the other factor only ----
    S("numpy.zeros", "x + np.zeros(3)", x=((3,), REAL), sym=Sym("np.sum((x + np.zeros(3)) * y)", "V, W")),
    S("numpy.ones", "x * np.ones((2, 3))", x=((3,), REAL), sym=Sym("np.sum(x * np.ones(3) * y)", "V, W")),
    S("numpy.empty", "x * np.size(np.empty(2))", x=((3,), REAL), sym=NoSym("its values are uninitialised")),
    S("numpy.full", "x * np.full(x.shape, 2.0) + np.full((2, 3), y) + np.full(3, z)", x=((3,), REAL),
      y=(None, REAL), z=((3,), REAL), sym=Sym("np.sum(x * np.full(3, 2.0) * y)", "V, W")),
    S("numpy.eye", "x @ np.eye(3)", x=((3,), REAL), sym=Sym("np.sum((np.eye(3) @ x) * y)", "V, W")),
    S("numpy.identity", "np.identity(3) @ x", x=((3,), REAL), sym=Sym("np.sum((np.identity(3) @ x) * y)", "V, W")),
    S("numpy.arange", "x * np.arange(3)", x=((3,), REAL), sym=Sym("np.sum(x * np.arange(3.0) * y)", "V, W")),
    S("numpy.linspace", "x * np.linspace(0.0, 1.0, 3)", x=((3,), REAL)),
    S("numpy.zeros_like", "x + np.zeros_like(x)", x=((3,), REAL),
      sym=Sym("np.sum((x + np.zeros_like(x)) * y)", "V, W")),
    S("numpy.ones_like", "x * np.ones_like(x, dtype=float)", x=((3,), REAL),
      sym=Sym("np.sum(x * np.ones_like(x) * y)", "V, W")),
    S("numpy.empty_like", "x * np.size(np.empty_like(x))", x=((3,), REAL), sym=NoSym("its values are uninitialised")),
    S("numpy.full_like", "x * np.full_like(x, 3.0)", x=((3,), REAL),
      sym=Sym("np.sum(x * np.full_like(x, 2.0) * y)", "V, W")),
    S("numpy.shape", "x * np.shape(x)", x=((3,), REAL), sym=Sym("np.sum(x * np.full(np.shape(x), 2.0) * y)", "A, B")),
    S("numpy.ndim", "x * np.ndim(x)", x=((3,), REAL), sym=Sym("np.sum(x * y) * np.ndim(x)", "V, W")),
    S("numpy.size", "x * np.size(x)", x=((3,), REAL), sym=Sym("np.sum(x * y) * np.size(x)", "V, W")),
    S("numpy.issubdtype", "x * np.issubdtype(x.dtype, np.floating)", x=((3,), REAL),
      sym=NoSym("a dtype query with no place in a differentiable expression")),
    S("numpy.sign", "np.sign(x) * x", x=((3,), NONZERO), sym=Sym("np.sum(np.sign(x) * x * y)", "V, W", EITHER)),
    S("numpy.floor", "np.floor(x) * x", x=((3,), sampler(0.1, 0.9))),
    S("numpy.ceil", "np.ceil(x) * x", x=((3,), sampler(0.1, 0.9))),
    S("numpy.rint", "np.rint(x) * x", x=((3,), sampler(0.6, 0.9))),
    S("numpy.isnan", "np.isnan(x) + x", x=((3,), REAL), sym=Sym("np.sum(np.where(np.isnan(x), 0.0, x * y))", "V, W")),
    S("numpy.isfinite", "np.isfinite(x) * x", x=((3,), REAL),
      sym=Sym("np.sum(np.where(np.isfinite(x), x * y, 0.0))", "V, W")),
    S("numpy.isinf", "np.isinf(x) + x", x=((3,), REAL), sym=Sym("np.sum(np.where(np.isinf(x), 0.0, x * y))", "V, W")),
    S("numpy.greater", "np.where(np.greater(x, 0.1), x, 0.0)", x=((6,), REAL),
      sym=Sym("np.sum(np.greater(x, y) * x * y)", "V, W", EITHER)),
    S("numpy.greater_equal", "np.greater_equal(x, 0.1) * x", x=((6,), REAL),
      sym=Sym("np.sum(np.greater_equal(x, y) * x * y)", "V, W", EITHER)),
    S("numpy.less", "np.less(x, y) * y", x=((6,), REAL), y=((6,), REAL),
      sym=Sym("np.sum(np.less(x, y) * x * y)", "V, W", EITHER)),
    S("numpy.less_equal", "np.less_equal(x, 0.1) * x", x=((6,), REAL),
      sym=Sym("np.sum(np.less_equal(x, y) * x * y)", "V, W", EITHER)),
    S("numpy.equal", "np.equal(x, 0.1) + x", x=((6,), REAL)),
    S("numpy.not_equal", "np.not_equal(x, 0.1) * x", x=((6,), REAL)),
    S("numpy.logical_and", "np.logical_and(np.less(x, 1.0), np.greater(x, -1.0)) * x", x=((6,), REAL)),
    S("numpy.logical_or", "np.logical_or(np.less(x, -1.0), np.greater(x, 1.0)) * x", x=((6,), REAL)),
    S("numpy.logical_not", "np.logical_not(np.less(x, 0.1)) * x", x=((6,), REAL)),
    S("numpy.argmax", "x * np.argmax(x)", x=((4,), REAL)),
    S("numpy.argmin", "x * x.argmin()", x=((4,), REAL)),
    S("numpy.argsort", "x * np.argsort(x)", x=((4,), REAL)),
    # positions among sorted values (a piecewise hazard's interval, a histogram's bin): no gradient
    S("numpy.searchsorted", "x * np.searchsorted(np.array([-1.0, 0.0, 1.0]), x)", x=((4,), REAL)),
    S("numpy.digitize", "x * np.digitize(x, np.array([-1.0, 0.0, 1.0]))", x=((4,), REAL)),
    # ---- constructors filled with a value that carries a gradient ----
    S("numpy.full", "np.full((2, 3), x) * y", x=(None, REAL), y=((2, 3), REAL)),
    S("numpy.full", "np.full((2, 3), x) * y", x=((3,), REAL), y=((2, 3), REAL)),
    S("numpy.full_like", "np.full_like(y, x) * y", x=(None, REAL), y=((3,), REAL)),
    # ---- srcdiff's own helpers (generated gradients differentiated again) ----
    S("srcdiff.rules.runtime.unbroadcast", "unbroadcast(x * y, y)", x=((3, 4), REAL), y=((4,), REAL),
      sym=Sym("np.sum(unbroadcast(np.outer(x, y), y) * y)", "V, W")),
    S("srcdiff.rules.runtime.unbroadcast", "unbroadcast(x * y, y)", x=((3, 4), REAL), y=((3, 4), REAL)),
    S("srcdiff.rules.runtime.select", "select(np.greater(c, 0.0), x * y)", x=((5,), REAL), y=((5,), REAL),
      c=((5,), REAL), sym=Sym("np.sum(select(np.arange(np.size(x)) % 2 == 0, x * y))", "V, W")),
    S("srcdiff.rules.runtime.select_whole", "select_whole(np.greater(c, 0.0), x) + x", x=((3,), REAL),
      c=(None, REAL), sym=Sym("np.sum(select_whole(np.size(x) > 1, x * y))", "V, W")),
    # a kink where the condition never holds is a select of its value (the NaN beyond a kink
    # that does hold is tested in tests/transforms/test_kinks.py)
    S("srcdiff.rules.kinks.kink", "kink(np.greater(c, 100.0), x * y, x)", x=((5,), REAL), y=((5,), REAL),
      c=((5,), REAL)),
    # a tie where the condition never holds is its value (the share at a tie: tests/transforms/test_ties.py)
    S("srcdiff.rules.kinks.tie", "tie(np.greater(c, 100.0), x * y, x)", x=((5,), REAL), y=((5,), REAL),
      c=((5,), REAL)),
    S("srcdiff.rules.kinks.kink_nan", "kink_nan(np.greater(c, 100.0), x) + x", x=((3,), REAL), c=((3,), REAL)),
    S("srcdiff.rules.kinks.tie_nan", "tie_nan(np.greater(c, 100.0), False, x) + x", x=((3,), REAL), c=((3,), REAL)),
    S("srcdiff.rules.kinks.tie_still_nan", "tie_still_nan(np.greater(c, 100.0), False, x, c) + x", x=((3,), REAL),
      c=((3,), REAL)),
    # a sigmoid written out (lower/logistic_forms.py), saturated too (tests/transforms/test_reach29_sigmoid.py)
    S("srcdiff.rules.logistic.logistic", "logistic(x * y)", x=((4,), REAL), y=((4,), REAL),
      sym=Sym("logistic(x * y)", "0.7, 1.3")),
    S("srcdiff.rules.runtime.copy_array", "copy_array(x) * x", x=((3,), REAL),
      sym=Sym("np.sum(copy_array(x) * y)", "V, W")),
    S("srcdiff.rules.runtime.zeros_like", "zeros_like(x) + x", x=((3,), REAL),
      sym=Sym("np.sum((x + zeros_like(x)) * y)", "V, W")),
    # a value whose true derivative is zero too (floor), so central differences agree; the
    # zero derivative of a live value is tested in tests/transforms/test_stop_gradient.py
    S("srcdiff.rules.runtime.stop_gradient", "stop_gradient(np.floor(c)) * x", x=((3,), REAL), c=((3,), REAL)),
    S("srcdiff.rules.runtime.index_add", "index_add(x, (np.array([0, 2, 0]),), y * y)", x=((4,), REAL),
      y=((3,), REAL), sym=Sym("np.sum(index_add(x, (np.array([0, 2, 0]),), y * x) * y)", "V, W")),
    S("srcdiff.rules.runtime.index_add", "index_add(x * x, (slice(None, None, None), np.array([1, 1])), y)",
      x=((2, 3), REAL), y=(None, REAL)),
    S("srcdiff.rules.runtime.index_add", "index_add(x, (x > 0.0,), np.sin(y))", x=((5,), REAL), y=(None, REAL)),
    S("srcdiff.rules.runtime.index_read", "index_read(x, ([1, 1, 0],)) * y", x=((3,), REAL),
      y=((3,), REAL), sym=Sym("np.sum(index_read(x * y, (np.array([1, 1]),)) * y[:2])", "V, W")),
    S("srcdiff.rules.runtime.index_read", "index_read(x, (np.array([0, 1, 1]), slice(None, None, -1))) * y",
      x=((2, 4), REAL), y=((3, 4), REAL)),
    S("builtins.slice", "index_read(x, (slice(3, 0, -2),)) * y", x=((5,), REAL), y=((2,), REAL),
      sym=Sym("np.sum(index_read(x, (slice(2, None, -1),)) * y)", "V, W")),
    S("srcdiff.rules.runtime.real_part", "real_part(x * x, c) * y", x=((3,), REAL), y=((3,), REAL), c=((3,), REAL),
      sym=Sym("np.sum(real_part(x * x, y) * y)", "V, W")),
    # the adjoints of products and linear algebra, as a gradient's code calls them (c: read
    # for its shape only, so its derivative is zero)
    S(f"{RT}.matmul_adjoint_x", "matmul_adjoint_x(x, c, y)", x=((2, 3), REAL), c=((2, 4), REAL), y=((4, 3), REAL)),
    S(f"{RT}.matmul_adjoint_x", "matmul_adjoint_x(x, c, y)", x=((3, 2, 2), REAL), c=((1, 2, 4), REAL),
      y=((3, 4, 2), REAL)),
    S(f"{RT}.matmul_adjoint_x", "matmul_adjoint_x(x, c, y)", x=((2,), REAL), c=((2, 4), REAL), y=((4,), REAL)),
    S(f"{RT}.matmul_adjoint_y", "matmul_adjoint_y(x, y, c)", x=((2, 3), REAL), y=((2, 4), REAL), c=((4, 3), REAL)),
    S(f"{RT}.matmul_adjoint_y", "matmul_adjoint_y(x, y, c)", x=((3,), REAL), y=((4,), REAL), c=((4, 3), REAL)),
    S(f"{RT}.dot_adjoint_x", "dot_adjoint_x(x, c, y)", x=((3,), REAL), c=((3, 4), REAL), y=((4,), REAL)),
    S(f"{RT}.dot_adjoint_y", "dot_adjoint_y(x, y, c)", x=((3, 2), REAL), y=((3, 4), REAL), c=((4, 2), REAL)),
    S(f"{RT}.solve_adjoint_y", "solve_adjoint_y(x, y, c)", x=((3,), REAL), y=((3, 3), well_conditioned),
      c=((3,), REAL)),
    S(f"{RT}.solve_adjoint_x", "solve_adjoint_x(x, y, c, z)", x=((3,), REAL), y=((3, 3), well_conditioned),
      c=((3,), REAL), z=((3,), REAL)),
    S(f"{RT}.solve_adjoint_x", "solve_adjoint_x(x, y, c, z)", x=((3, 2), REAL), y=((3, 3), well_conditioned),
      c=((3, 2), REAL), z=((3, 2), REAL)),
    S(f"{RT}.prod_adjoint", "prod_adjoint(x, y, None, False)", x=(None, REAL), y=((2, 3), REAL)),
    S(f"{RT}.prod_adjoint", "prod_adjoint(x, y, 1, False)", x=((2,), REAL), y=((2, 3), REAL)),
    S(f"{RT}.prod_adjoint", "prod_adjoint(x, y, 0, True)", x=((1, 3), REAL), y=((4, 3), REAL)),
    S(f"{RT}.cholesky_adjoint", "cholesky_adjoint(x, np.linalg.cholesky(y))", x=((3, 3), REAL), y=((3, 3), SPD)),
    # a derivable gradient's list adjoints, new lists each (rules/list_helpers.py); list values
    # are made arrays again (rows_adjoint, list_total, split_adjoint) for the weighted sum
    S(f"{LH}.zeros_list", "rows_adjoint(list_add(zeros_list(list_rows(x)), 1, y), x)", x=((3, 2), REAL),
      y=((2,), REAL)),
    S(f"{LH}.list_add", "rows_adjoint(list_add(list_rows(x * x), 2, np.sin(y)), x)", x=((3, 2), REAL),
      y=((2,), REAL)),
    S(f"{LH}.list_add", "list_total(list_add(list_rows(x), 0, y * x[1]), y)", x=((3, 2), REAL), y=((2,), REAL)),
    S(f"{LH}.lists_add", "rows_adjoint(lists_add(list_rows(x), list_rows(x * y)), x)", x=((3, 2), REAL),
      y=((3, 2), REAL)),
    S(f"{LH}.list_rows", "rows_adjoint(list_rows(x * y), x) * y", x=((3, 2), REAL), y=((3, 2), REAL)),
    S(f"{LH}.rows_adjoint", "rows_adjoint(list_rows(np.exp(x)), y)", x=((2, 3), REAL), y=((2, 3), REAL)),
    S(f"{LH}.list_repeat", "rows_adjoint(list_repeat(x * x, list_rows(y)), y) * y", x=((2,), REAL),
      y=((3, 2), REAL)),
    S(f"{LH}.list_total", "list_total(list_rows(x * y), x[0])", x=((3, 2), REAL), y=((3, 2), REAL)),
    S(f"{LH}.list_total", "list_total(list_rows(x * y), 0.5)", x=((3,), REAL), y=((3,), REAL)),
    S(f"{LH}.list_drop", "rows_adjoint(list_drop(list_rows(x ** 3)), y)", x=((3, 2), REAL), y=((2, 2), REAL)),
    S(f"{LH}.list_grow", "rows_adjoint(list_grow(list_rows(np.sin(x))), y)", x=((2, 2), REAL), y=((3, 2), REAL)),
    S(f"{LH}.split_like", "split_adjoint(split_like(x * y, np.split(y, 2), 0), np.split(y, 2), 0)",
      x=((4,), REAL), y=((4,), REAL)),
    S(f"{RT}.split_adjoint", "split_adjoint(np.split(np.sin(x), 2), np.split(y, 2), 0) * y", x=((4,), REAL),
      y=((4,), REAL)),
    S(f"{RT}.split_adjoint", "split_adjoint(np.split(x, 3, axis=1), np.split(y, 3, axis=1), 1)",
      x=((2, 3), REAL), y=((2, 3), REAL)),
]
SPECS += more_specs(S, REAL, POS, UNIT, ABOVE1, NONZERO, sampler, SPD)
SPECS += linalg_specs(S, REAL, well_conditioned)
SPECS += signal_specs(S, REAL)
SPECS += calc_specs(S, REAL, POS, UNIT, NONZERO, sampler)
SPECS += shapes_specs(S, REAL)
SPECS += [  # a point an equality singles out (rules/point_guards.py): the identity, NaN where the guard holds
    S("srcdiff.rules.guard_helpers.point_guard", "point_guard(x * x, c, 100.0)", x=((3,), REAL), c=((3,), REAL),
      # the guard's NaN holds where x == 7, a set of measure zero the comparison leaves to numbers
      sym=Sym("np.sum(np.where(x == 7.0, 0.0, x * y) * y)", "V, W", EITHER)),
    S("srcdiff.rules.guard_helpers.guard_nan", "guard_nan(np.greater(c, 100.0), x) + x", x=((3,), REAL),
      c=((3,), REAL)),
]
SPECS += insert_delete_specs(S, REAL, Sym)
SPECS += [
    # forward mode's guard at an infinite slope: its value where everything is finite (the
    # selection at a clamp is tested in tests/transforms/test_redteam4_fixes.py)
    S("srcdiff.rules.kinks.held_still", "held_still(x * y, np.sign(c))", x=((4,), REAL), y=((4,), REAL),
      c=((4,), REAL)),
    S("srcdiff.rules.calculus_helpers.cumprod_adjoint", "cumprod_adjoint(x * y, y, 0)", x=((4,), REAL),
      y=((4,), REAL)),
    S("srcdiff.rules.calculus_helpers.cumprod_adjoint",
      "cumprod_adjoint(x, y * np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]), 1)", x=((2, 3), REAL),
      y=((2, 3), REAL)),  # zeros
]
SPECS += [  # rounding (piecewise constant) and the reductions that skip NaN (a NaN where c > 0.5)
    S("numpy.round", "np.round(x) * x", x=((3,), sampler(0.6, 0.9))),
    S("numpy.round", "np.round(x, 1) * x + x.round()", x=((3,), sampler(0.61, 0.64))),
    S("numpy.around", "np.around(x) * x", x=((3,), sampler(0.6, 0.9))),
    S("numpy.trunc", "np.trunc(x) * x", x=((3,), sampler(1.1, 1.9))),
    S("numpy.fix", "np.fix(x) * x", x=((3,), sampler(1.1, 1.9))),
    S("numpy.nansum", "np.nansum(np.where(c > 0.5, np.nan, x * y))", x=((3, 4), REAL), y=((3, 4), REAL),
      c=((3, 4), REAL), sym=Sym("np.nansum(np.sin(x) * y)", "V, W")),
    S("numpy.nansum", "np.nansum(np.where(c > 0.5, np.nan, x), axis=0, keepdims=True)", x=((3, 4), REAL),
      c=((3, 4), REAL)),
    S("numpy.nanmean", "np.nanmean(np.where(c > 0.5, np.nan, x * y), axis=1)", x=((3, 4), REAL), y=((3, 4), REAL),
      c=((3, 4), REAL), sym=Sym("np.nanmean(np.sin(x) * y)", "V, W")),
    S("numpy.nanmean", "np.nanmean(np.where(c > 0.5, np.nan, x))", x=((2, 3), REAL), c=((2, 3), REAL)),
    S("numpy.nanmax", "np.nanmax(np.where(c > 0.5, np.nan, x * y), axis=1)", x=((3, 4), REAL), y=((3, 4), REAL),
      c=((3, 4), REAL), sym=Sym("np.nanmax(np.sin(x) * y)", "V, W")),
    S("numpy.nanmin", "np.nanmin(np.where(c > 0.5, np.nan, x), axis=0, keepdims=True)", x=((3, 4), REAL),
      c=((3, 4), REAL), sym=Sym("np.nanmin(np.sin(x) * y)", "V, W")),
    S("numpy.nanvar", "np.nanvar(np.where(c > 0.5, np.nan, x * y), axis=1)", x=((3, 4), REAL), y=((3, 4), REAL),
      c=((3, 4), REAL), sym=Sym("np.nanvar(np.sin(x) * y)", "V, W")),
    S("numpy.nanstd", "np.nanstd(np.where(c > 0.5, np.nan, x), ddof=1)", x=((2, 3), REAL), c=((2, 3), REAL),
      sym=Sym("np.nanstd(np.sin(x) * y)", "V, W")),
    # order statistics: the selected elements (distinct draws: no ties), and their weights
    S("numpy.median", "np.median(x * y)", x=((5,), REAL), y=((5,), REAL)),
    S("numpy.median", "np.median(x, axis=1, keepdims=True)", x=((3, 4), REAL)),
    S("numpy.percentile", "np.percentile(x, 30.0, axis=0)", x=((4, 3), REAL)),
    S("numpy.quantile", "np.quantile(x * y, 0.85)", x=((2, 3), REAL), y=((2, 3), REAL)),
    S("srcdiff.rules.calculus_helpers.order_weights", "order_weights(c, 40.0, 0) * x", x=((4, 2), REAL),
      c=((4, 2), REAL)),
    # several levels (stacked first), the NaN-skipping forms (NaN where c > 0.7)
    S("numpy.quantile", "np.quantile(x * y, [0.2, 0.5, 0.9], axis=1)", x=((3, 5), REAL), y=((3, 5), REAL)),
    S("numpy.percentile", "np.percentile(x, (10.0, 75.0), axis=0, keepdims=True)", x=((4, 3), REAL)),
    S("numpy.nanquantile", "np.nanquantile(np.where(c > 0.7, np.nan, x), [0.3, 0.8])", x=((6,), REAL),
      c=((6,), REAL)),
    S("numpy.nanpercentile", "np.nanpercentile(np.where(c > 0.7, np.nan, x), 40.0, axis=1)", x=((3, 5), REAL),
      c=((3, 5), REAL)),
    S("numpy.nanmedian", "np.nanmedian(np.where(c > 0.7, np.nan, x * y), axis=0)", x=((5, 2), REAL),
      y=((5, 2), REAL), c=((5, 2), REAL)),
    S("srcdiff.rules.calculus_helpers.nan_order_weights",
      "nan_order_weights(np.where(c > 0.7, np.nan, c), 40.0, 0) * x", x=((4, 2), REAL), c=((4, 2), REAL)),
]
SPECS += [  # piecewise functions (rules/numpy_piecewise.py, python_math.py): steps, parts, ranges, running extrema
    S("math.floor", "math.floor(x) * x", x=(None, sampler(1.1, 1.9))),
    S("math.ceil", "math.ceil(x) * x", x=(None, sampler(1.1, 1.9))),
    S("math.trunc", "math.trunc(x) * x", x=(None, sampler(-1.9, -1.1))),
    S("math.fmod", "math.fmod(x, y)", x=(None, sampler(2.1, 2.9)), y=(None, sampler(1.1, 1.3)),
      sym=Sym("math.fmod(x, y) * x", "2.5, 1.2", REFUSED)),
    S("numpy.heaviside", "np.heaviside(x, y) * x + np.heaviside(x * 0.0, y)", x=((3,), REAL), y=((3,), REAL)),
    S("numpy.copysign", "np.copysign(x, y)", x=((2, 3), NONZERO), y=((3,), NONZERO)),
    S("numpy.copysign", "np.copysign(x * x + 1.0, -1.0)", x=((3,), REAL)),
    S("numpy.float_power", "np.float_power(x, y)", x=((2, 3), POS), y=((3,), REAL),
      sym=Sym("np.sum(np.float_power(x, y) * x)", "V, W", EITHER)),
    S("numpy.modf", "np.modf(x)[0] * x + np.modf(x)[1]", x=((3,), sampler(1.1, 1.9))),
    S("numpy.frexp", "np.frexp(x)[0] * np.frexp(x)[1]", x=((2, 3), sampler(1.1, 3.9))),
    S("numpy.ptp", "np.ptp(x)", x=((3, 4), REAL), sym=Sym("np.ptp(x * y)", "V, W", EITHER)),
    S("numpy.ptp", "np.ptp(x, axis=1, keepdims=True)", x=((3, 4), REAL)),
    S("numpy.maximum.accumulate", "np.maximum.accumulate(x)", x=((6,), REAL),
      sym=Sym("np.sum(np.maximum.accumulate(x * y))", "V[:2], W[:2]", REFUSED)),  # a selection by comparison
    S("numpy.maximum.accumulate", "np.maximum.accumulate(x, axis=1)", x=((3, 5), REAL)),
    S("numpy.minimum.accumulate", "np.minimum.accumulate(x)", x=((6,), REAL),
      sym=Sym("np.sum(np.minimum.accumulate(x * y))", "V[:2], W[:2]", REFUSED)),  # a selection by comparison
    S("numpy.minimum.accumulate", "np.minimum.accumulate(x, axis=0)", x=((4, 2), REAL)),
    S("srcdiff.rules.scan_helpers.extremum_scan_adjoint", "extremum_scan_adjoint(x * y, y, 0, 'max')",
      x=((5,), REAL), y=((5,), REAL)),
    S("srcdiff.rules.scan_helpers.extremum_scan_tangent", "extremum_scan_tangent(x, y, 1, 'min') * y",
      x=((2, 5), REAL), y=((2, 5), REAL)),
    S("numpy.logaddexp.reduce", "np.logaddexp.reduce(x)", x=((4,), REAL),
      sym=Sym("np.logaddexp.reduce(x * y)", "V, W", EITHER)),
    S("numpy.logaddexp.reduce", "np.logaddexp.reduce(x, axis=1)", x=((3, 4), REAL)),
    # np.fill_diagonal's positions (lower/in_place_calls.py): integers, no gradient
    S("srcdiff.rules.write_helpers.diagonal_range", "x * diagonal_range(c) + diagonal_range(c, True)[:3]",
      x=((3,), REAL), c=((4, 3), REAL)),
    # the parts of the Fourier transform of a real array (lower/fft_parts.py): real linear maps
    S("srcdiff.rules.fft_helpers.fft_part", "fft_part(x, 'rfft', 'real', -1)", x=((2, 5), REAL)),
    S("srcdiff.rules.fft_helpers.fft_part", "fft_part(x * y, 'fft', 'imag', 0)", x=((4, 3), REAL), y=((4, 3), REAL)),
    S("srcdiff.rules.fft_helpers.rfft_part_adjoint", "rfft_part_adjoint(x, 6, 'imag', -1)", x=((2, 4), REAL)),
    S("srcdiff.rules.fft_helpers.rfft_part_adjoint", "rfft_part_adjoint(x, 5, 'real', 0)", x=((3, 2), REAL)),
]
SPECS += [  # np.trace's adjoint where the operand's number of axes is known only when run (c: its shape only)
    S(f"{RT}.trace_adjoint", "trace_adjoint(x, c, 0)", x=(None, REAL), c=((3, 3), REAL)),
    S(f"{RT}.trace_adjoint", "trace_adjoint(x, c, 1) * y", x=((2,), REAL), c=((3, 4, 2), REAL),
      y=((3, 4, 2), REAL)),
]
# New rows go last: the suite's recorded programs name rows by their place (case_N, recorded_programs.json)
SPECS += [
    # a value broadcast into the rows it adds to (np.add.at(A, rows, v), v one row): summed back
    S("srcdiff.rules.runtime.index_add", "index_add(x * x, (np.array([0, 2, 2]),), np.sin(y))", x=((3, 2), REAL),
      y=((2,), REAL)),
    # a guard n > 0 of a measure of several values d (lower/measure_guards.py): the identity away from it
    S("srcdiff.rules.guard_helpers.measure_guard", "measure_guard(x * x, np.greater(c, 100.0), y, True)",
      x=((3,), REAL), c=((3,), REAL), y=((3,), REAL)),
    S("srcdiff.rules.guard_helpers.measure_nan", "measure_nan(np.greater(c, 100.0), x, False) + x",
      x=((3,), REAL), c=((3,), REAL)),
    S("srcdiff.rules.guard_helpers.measure_nan_dot", "measure_nan_dot(np.greater(c, 100.0), x, x, True) + x",
      x=((3,), REAL), c=((3,), REAL)),
    # a list of indices changed in place, in a gradient differentiated again (rules/list_edits.py): no gradient
    S("srcdiff.rules.list_edits.list_removed", "x[list_removed([0, 1, 2], 1)] * y", x=((3,), REAL), y=((2,), REAL)),
    S("srcdiff.rules.list_edits.list_popped", "x[list_popped([0, 1, 2], 0)] * y", x=((3,), REAL), y=((2,), REAL)),
    S("srcdiff.rules.list_edits.list_inserted", "x[list_inserted([0, 1], 0, 2)] * y", x=((3,), REAL),
      y=((3,), REAL)),
    # positions: np.ix_'s mesh, read through (its rule: no gradient, so a loop may make it)
    S("numpy.ix_", "x[np.ix_(np.array([0, 2]), np.array([1, 0]))] * y", x=((3, 2), REAL), y=((2, 2), REAL)),
]
HELPERS = {name: getattr(runtime, name)
           for name in ("copy_array", "kink", "kink_nan", "select", "select_whole", "stop_gradient", "unbroadcast",
                        "zeros_like", "tie", "tie_nan", "tie_still_nan", "held_still",
                        "index_add", "index_read", "matmul_adjoint_x", "matmul_adjoint_y", "dot_adjoint_x",
                        "dot_adjoint_y", "solve_adjoint_x", "solve_adjoint_y", "prod_adjoint", "cholesky_adjoint",
                        "trace_adjoint", "split_adjoint", "real_part", "logistic")}
SCAN_HELPERS = {**scan_helpers.SCAN_HELPERS, **write_helpers.WRITE_HELPERS, **fft_helpers.FFT_HELPERS}
CALC_HELPERS = {name: getattr(calculus_helpers, name) for name in ("gradient_adjoint", "interp_adjoint", "interp_slope",
                                                                    "take_adjoint", "take_along_axis_adjoint",
                                                                    "cumprod_adjoint", "order_weights",
                                                                    "nan_order_weights")}
LIST_HELPERS = {**list_helpers.LIST_HELPERS, **list_edits.LIST_EDIT_HELPERS}
LIST_EDIT_NAMES = list_edits.LIST_EDIT_HELPERS
JOIN_HELPERS = join_helpers.JOIN_HELPERS
GUARD_HELPERS = guard_helpers.GUARD_HELPERS
COFACTOR_HELPERS = {"cofactor": decomposition_helpers.cofactor,
                    "cofactor_derivative": decomposition_helpers.cofactor_derivative}

SEED = 20261130

SPECS += [  # (rules15) np.fft.irfft, np.interp in its knots, np.histogram's weights, np.unique, expm, weibull_min
    S("numpy.fft.irfft", "np.fft.irfft(x, n=10)", x=((4,), REAL)),
    S("numpy.fft.irfft", "np.fft.irfft(x)", x=((5,), REAL)),
    S("numpy.fft.irfft", "np.fft.irfft(x, n=6, axis=0, norm='ortho')", x=((5, 2), REAL)),
    S("srcdiff.rules.fft_helpers.irfft_adjoint", "irfft_adjoint(x, 4, 10)", x=((10,), REAL)),
    S("numpy.interp", "np.interp(y, np.cumsum(x), c)", x=((4,), POS), y=((5,), sampler(0.6, 4.0)), c=((4,), REAL)),
    S("srcdiff.rules.calculus_helpers.interp_adjoint", "interp_adjoint(y, c, np.cumsum(x), 4)", x=((4,), POS),
      y=((5,), REAL), c=((5,), sampler(0.6, 4.0))),
    S("srcdiff.rules.calculus_helpers.interp_slope", "interp_slope(c, np.cumsum(x), y)", x=((4,), POS),
      y=((4,), REAL), c=((5,), sampler(0.6, 4.0))),
    S("numpy.histogram", "np.histogram(c, bins=np.linspace(-2.0, 2.0, 5), weights=x)[0]", x=((8,), REAL),
      c=((8,), REAL)),
    S("numpy.histogram", "np.histogram(c, 4, (-2.0, 2.0), False, x)[0]", x=((8,), REAL),  # NumPy's positions
      c=((8,), REAL)),
    S("srcdiff.rules.bin_helpers.histogram_weights_adjoint",
      "histogram_weights_adjoint(x, c, np.linspace(-2.0, 2.0, 5))", x=((4,), REAL), c=((8,), REAL)),
    S("numpy.unique", "np.unique(x)", x=((6,), REAL)),
    S("srcdiff.rules.bin_helpers.unique_adjoint", "unique_adjoint(y, x)", y=((5,), REAL), x=((5,), REAL)),
    S("srcdiff.rules.bin_helpers.unique_gather", "unique_gather(y, x)", y=((5,), REAL), x=((5,), REAL)),
    S("scipy.linalg.expm", "sl.expm(0.5 * x)", x=((3, 3), REAL)),
    *[S(f"scipy.stats.weibull_min.{m}", f"stats.weibull_min.{m}(x, c, 0.0, s)", x=((3,), POS),
        c=(None, sampler(0.8, 2.5)), s=(None, POS)) for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")],
    S("numpy.fft.hfft", "np.fft.hfft(x, 7)", x=((4,), REAL)),
    S("scipy.linalg.lu", "sl.lu(x)[1] + 2.0 * sl.lu(x)[2]", x=((3, 3), REAL)),  # (pivots: a normal matrix)
    S("scipy.linalg.lu_factor", "sl.lu_factor(x)[0]", x=((3, 3), REAL)),
    S("scipy.linalg.lu_solve", "sl.lu_solve(sl.lu_factor(x), y)", x=((3, 3), well_conditioned), y=((3, 2), REAL)),
    S("srcdiff.rules.lu_helpers.lu_rows", "x * lu_rows(sl.lu_factor(c)[1])", x=((3,), REAL), c=((3, 3), REAL)),
    S("numpy.cov", "np.cov(np.column_stack([x, y]), rowvar=False)", x=((5, 2), REAL), y=((5,), REAL)),
    S("srcdiff.rules.fft_helpers.irfft_imag", "irfft_imag(x, 8)", x=((5,), REAL)),
    S("srcdiff.rules.fft_helpers.irfft_imag", "irfft_imag(x, 5, 0, 'ortho')", x=((3, 2), REAL)),
    S("srcdiff.rules.fft_helpers.irfft_adjoint", "irfft_adjoint(x, 4, 7, -1, None, 'imag')", x=((7,), REAL)),
    # the adjoints of copies counted when the function runs (rules/copies_when_run.py, join_helpers.py)
    S("srcdiff.rules.join_helpers.tiles_summed", "tiles_summed(x * x, y, (2, 1))", x=((4, 3), REAL),
      y=((2, 3), REAL)),
    S("srcdiff.rules.join_helpers.tiles_summed", "tiles_summed(np.sin(x), y, 3)", x=((6,), REAL), y=((2,), REAL)),
    S("srcdiff.rules.join_helpers.repeats_summed", "repeats_summed(np.sin(x), y, 2, 0)", x=((4, 3), REAL),
      y=((2, 3), REAL)),
    S("srcdiff.rules.join_helpers.repeats_summed", "repeats_summed(x * x, y, np.array([1, 0, 2]))",
      x=((3,), REAL), y=((3,), REAL)),
]
BIN_HELPERS = {**bin_helpers.BIN_HELPERS, "lu_rows": lu_helpers.lu_rows}

HEADER = ["import math", "import numpy as np", "import scipy.special as sc", "from scipy import signal, stats",
          "import scipy.linalg as sl",
          f"from srcdiff.rules.runtime import {', '.join(HELPERS)}",
          f"from srcdiff.rules.list_helpers import {', '.join(list_helpers.LIST_HELPERS)}",
          f"from srcdiff.rules.list_edits import {', '.join(LIST_EDIT_NAMES)}",
          f"from srcdiff.rules.calculus_helpers import {', '.join(CALC_HELPERS)}",
          f"from srcdiff.rules.join_helpers import {', '.join(JOIN_HELPERS)}",
          f"from srcdiff.rules.guard_helpers import {', '.join(GUARD_HELPERS)}",
          f"from srcdiff.rules.decomposition_helpers import {', '.join(COFACTOR_HELPERS)}",
          f"from srcdiff.rules.scan_helpers import {', '.join(scan_helpers.SCAN_HELPERS)}",
          f"from srcdiff.rules.write_helpers import {', '.join(write_helpers.WRITE_HELPERS)}",
          f"from srcdiff.rules.fft_helpers import {', '.join(fft_helpers.FFT_HELPERS)}",
          f"from srcdiff.rules.bin_helpers import {', '.join(bin_helpers.BIN_HELPERS)}",
          "from srcdiff.rules.lu_helpers import lu_rows", ""]


def spec_module(folder, weighted: bool = True, **options):
    """Every row as a function ``case_<index>`` in a module file (srcdiff reads their source):
    ``np.sum((<expression>) * w)`` with a weight `w` when `weighted`, else the expression."""
    lines = list(HEADER)
    for i, spec in enumerate(SPECS):
        if weighted:
            lines += [f"def case_{i}({', '.join([*spec.inputs, 'w'])}):", f"    return np.sum(({spec.expr}) * w)", ""]
        else:
            lines += [f"def case_{i}({', '.join(spec.inputs)}):", f"    return {spec.expr}", ""]
    return import_source(folder, "\n".join(lines), "rule_specs" if weighted else "rule_values", **options)


def draw_inputs(spec, index):
    """Row `index`'s inputs drawn from their domains, and a random weight shaped like its value."""
    rng = np.random.default_rng(SEED + index)
    values = {}
    for name, (shape, domain) in spec.inputs.items():
        values[name] = float(domain(rng, ())) if shape is None else domain(rng, shape)
    import scipy.linalg as sl
    import scipy.special as sc
    from scipy import signal, stats
    names = {"np": np, "math": math, "sc": sc, "signal": signal, "stats": stats, "sl": sl,
             **HELPERS, **LIST_HELPERS, **CALC_HELPERS, **JOIN_HELPERS, **GUARD_HELPERS, **SCAN_HELPERS,
             **COFACTOR_HELPERS, **BIN_HELPERS}
    out = eval(spec.expr, names, dict(values))
    weight = rng.normal(size=np.shape(out)) if np.ndim(out) else 1.0 + rng.uniform()
    return list(values.values()), weight
