"""Every rule in the table, checked against float64 central differences on random inputs.

A spec is ``(rule name, expression, inputs)``: the test writes ``def f(<inputs>, w): return
np.sum((<expression>) * w)`` into a module (srcdiff reads source from files), with `w` a
random weight shaped like the expression's value (computed by NumPy itself), and compares
srcdiff's gradient with respect to every input against central differences.  An input is
``name: (shape, domain)``; shape None means a Python float.
"""

import math

import numpy as np
import pytest
from modules import import_source
from numeric import assert_close
from rule_specs_calc import calc_specs
from rule_specs_linalg import linalg_specs
from rule_specs_more import more_specs
from rule_specs_shapes import shapes_specs
from rule_specs_signal import signal_specs

import srcdiff
from srcdiff.api.gradients import GradFunction
from srcdiff.rules import calculus_helpers, default_table, join_helpers, list_helpers, runtime


def sampler(low=None, high=None):
    def draw(rng, shape):
        if low is None:
            return rng.normal(size=shape)
        return rng.uniform(low, high, size=shape)
    return draw


def spd(rng, shape):
    a = rng.normal(size=shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


REAL, POS, UNIT, ABOVE1 = sampler(), sampler(0.5, 2.0), sampler(-0.9, 0.9), sampler(1.2, 3.0)
NONZERO = sampler(0.3, 1.5)  # keeps |x| away from the kinks (abs, sign) and from 0
SPD = spd


def well_conditioned(rng, shape):
    return rng.normal(size=shape) + 3.0 * np.eye(shape[-1])


class Spec:
    def __init__(self, rule, expr, tol=1e-6, **inputs):
        self.rule, self.expr, self.inputs, self.tol = rule, expr, inputs, tol

    def __repr__(self):
        return f"{self.rule}: {self.expr}"


S = Spec
RT = "srcdiff.rules.runtime"
LH = "srcdiff.rules.list_helpers"
SPECS = [
    # ---- Python operators ----
    S("operator.add", "x + y", x=((3, 1), REAL), y=((4,), REAL)),
    S("operator.sub", "x - y", x=((3, 4), REAL), y=(None, REAL)),
    S("operator.mul", "x * y", x=((2, 3), REAL), y=((2, 1), REAL)),
    S("operator.truediv", "x / y", x=((3,), REAL), y=((2, 3), POS)),
    S("operator.pow", "x ** y", x=((3,), POS), y=((3,), REAL)),
    S("operator.pow", "x ** 3", x=(None, REAL)),
    S("operator.neg", "-x", x=((3,), REAL)),
    S("operator.pos", "+x", x=((3,), REAL)),
    S("operator.matmul", "x @ y", x=((3, 4), REAL), y=((4, 2), REAL)),
    S("operator.matmul", "x @ y", x=((4,), REAL), y=((4, 2), REAL)),
    S("operator.matmul", "x @ y", x=((2, 3, 4), REAL), y=((4,), REAL)),
    S("ndarray.T", "x.T @ y", x=((3, 2), REAL), y=((3,), REAL)),
    # ---- math ----
    S("math.sin", "math.sin(x)", x=(None, REAL)),
    S("math.cos", "math.cos(x)", x=(None, REAL)),
    S("math.tan", "math.tan(x)", x=(None, UNIT)),
    S("math.exp", "math.exp(x)", x=(None, REAL)),
    S("math.log", "math.log(x)", x=(None, POS)),
    S("math.sqrt", "math.sqrt(x)", x=(None, POS)),
    S("math.tanh", "math.tanh(x)", x=(None, REAL)),
    *[S(f"math.{n}", f"math.{n}(x)", x=(None, domain)) for n, domain in [
        ("sinh", REAL), ("cosh", REAL), ("asin", UNIT), ("acos", UNIT), ("atan", REAL), ("asinh", REAL),
        ("acosh", ABOVE1), ("atanh", UNIT), ("log1p", POS), ("expm1", REAL), ("log2", POS), ("log10", POS),
        ("erf", REAL), ("erfc", REAL), ("fabs", NONZERO), ("degrees", REAL), ("radians", REAL)]],
    S("math.atan2", "math.atan2(x, y)", x=(None, REAL), y=(None, POS)),
    S("math.hypot", "math.hypot(x, y)", x=(None, POS), y=(None, REAL)),
    # ---- NumPy elementwise ----
    S("numpy.add", "np.add(x, y)", x=((3, 1), REAL), y=((1, 4), REAL)),
    S("numpy.subtract", "np.subtract(x, y)", x=((3, 4), REAL), y=((4,), REAL)),
    S("numpy.multiply", "np.multiply(x, y)", x=((2, 3), REAL), y=(None, REAL)),
    S("numpy.divide", "np.divide(x, y)", x=((2, 3), REAL), y=((3,), POS)),
    S("numpy.power", "np.power(x, y)", x=((2, 3), POS), y=((3,), REAL)),
    S("numpy.negative", "np.negative(x)", x=((3,), REAL)),
    S("numpy.reciprocal", "np.reciprocal(x)", x=((3,), POS)),
    S("numpy.square", "np.square(x)", x=((2, 2), REAL)),
    S("numpy.sqrt", "np.sqrt(x)", x=((3,), POS)),
    S("numpy.sqrt", "np.sqrt(x)", x=(None, POS)),
    S("numpy.cbrt", "np.cbrt(x)", x=((3,), POS)),
    S("numpy.exp", "np.exp(x)", x=((3,), REAL)),
    S("numpy.exp2", "np.exp2(x)", x=((3,), REAL)),
    S("numpy.expm1", "np.expm1(x)", x=((3,), REAL)),
    S("numpy.log", "np.log(x)", x=((3,), POS)),
    S("numpy.log2", "np.log2(x)", x=((3,), POS)),
    S("numpy.log10", "np.log10(x)", x=((3,), POS)),
    S("numpy.log1p", "np.log1p(x)", x=((3,), POS)),
    S("numpy.logaddexp", "np.logaddexp(x, y)", x=((2, 3), REAL), y=((3,), REAL)),
    S("numpy.sin", "np.sin(x)", x=((3,), REAL)),
    S("numpy.sin", "np.sin(x)", x=(None, REAL)),
    S("numpy.cos", "np.cos(x)", x=((3,), REAL)),
    S("numpy.tan", "np.tan(x)", x=((3,), UNIT)),
    S("numpy.arcsin", "np.arcsin(x)", x=((3,), UNIT)),
    S("numpy.arccos", "np.arccos(x)", x=((3,), UNIT)),
    S("numpy.arctan", "np.arctan(x)", x=((3,), REAL)),
    S("numpy.arctan2", "np.arctan2(x, y)", x=((2, 3), REAL), y=((3,), POS)),
    S("numpy.hypot", "np.hypot(x, y)", x=((3,), NONZERO), y=((2, 1), REAL)),
    S("numpy.sinh", "np.sinh(x)", x=((3,), REAL)),
    S("numpy.cosh", "np.cosh(x)", x=((3,), REAL)),
    S("numpy.tanh", "np.tanh(x)", x=((3,), REAL)),
    S("numpy.arcsinh", "np.arcsinh(x)", x=((3,), REAL)),
    S("numpy.arccosh", "np.arccosh(x)", x=((3,), ABOVE1)),
    S("numpy.arctanh", "np.arctanh(x)", x=((3,), UNIT)),
    S("numpy.absolute", "np.abs(x) * np.absolute(y)", x=((4,), REAL), y=(None, NONZERO)),
    S("numpy.real", "np.real(x) * np.sin(np.real(x))", x=((4,), REAL)),
    S("numpy.maximum", "np.maximum(x, y)", x=((3, 4), REAL), y=((4,), REAL)),
    S("numpy.maximum", "np.maximum(x, 0.0)", x=((5,), REAL)),
    S("numpy.minimum", "np.minimum(x, y)", x=((3, 4), REAL), y=((3, 1), REAL)),
    S("numpy.fmax", "np.fmax(x, y)", x=((3, 4), REAL), y=((4,), REAL)),
    S("numpy.fmin", "np.fmin(x, y)", x=((3, 4), REAL), y=(None, REAL)),
    S("numpy.clip", "np.clip(x, lo, hi)", x=((4, 3), REAL), lo=((3,), sampler(-1.0, -0.2)),
      hi=((4, 1), sampler(0.2, 1.0))),
    S("numpy.clip", "np.clip(x, -0.5, None)", x=((6,), REAL)),
    S("numpy.clip", "x.clip(0.0, 1.0)", x=((6,), sampler(-0.5, 1.5))),
    S("numpy.where", "np.where(np.greater(c, 0.0), x, y)", x=((3, 4), REAL), y=((4,), REAL), c=((3, 4), REAL)),
    # ---- reductions ----
    S("numpy.sum", "np.sum(x)", x=((3, 4), REAL)),
    S("numpy.sum", "np.sum(x, axis=0)", x=((3, 4), REAL)),
    S("numpy.sum", "x.sum(axis=-1, keepdims=True)", x=((3, 4), REAL)),
    S("numpy.sum", "np.sum(x, axis=(0, 2))", x=((2, 3, 4), REAL)),
    S("numpy.mean", "np.mean(x)", x=((3, 4), REAL)),
    S("numpy.mean", "x.mean(axis=1)", x=((3, 4), REAL)),
    S("numpy.mean", "np.mean(x, axis=0, keepdims=True)", x=((3, 4), REAL)),
    S("numpy.prod", "np.prod(x)", x=((5,), NONZERO)),
    S("numpy.prod", "x.prod(axis=1)", x=((3, 4), REAL)),
    S("numpy.prod", "np.prod(x, axis=0, keepdims=True)", x=((3, 2), REAL)),
    S("numpy.var", "np.var(x)", x=((6,), REAL)),
    S("numpy.var", "x.var(axis=0, ddof=1)", x=((5, 3), REAL)),
    S("numpy.std", "np.std(x, axis=1, keepdims=True)", x=((3, 5), REAL)),
    S("numpy.max", "np.max(x)", x=((3, 4), REAL)),
    S("numpy.max", "x.max(axis=0)", x=((3, 4), REAL)),
    S("numpy.min", "np.min(x, axis=1, keepdims=True)", x=((3, 4), REAL)),
    S("numpy.min", "x.min()", x=((5,), REAL)),
    S("numpy.amax", "np.amax(x, axis=-1)", x=((2, 3, 4), REAL)),
    S("numpy.amin", "np.amin(x)", x=((4,), REAL)),
    S("numpy.linalg.norm", "np.linalg.norm(x)", x=((3, 4), REAL)),
    S("numpy.linalg.norm", "np.linalg.norm(x, axis=1, keepdims=True)", x=((3, 4), REAL)),
    S("numpy.linalg.norm", "np.linalg.norm(x, ord=1)", x=((5,), NONZERO)),
    S("numpy.linalg.norm", "np.linalg.norm(x, ord=np.inf)", x=((5,), REAL)),
    S("numpy.cumsum", "np.cumsum(x)", x=((3, 4), REAL)),
    S("numpy.cumsum", "x.cumsum(axis=1)", x=((3, 4), REAL)),
    # ---- linear algebra ----
    S("numpy.matmul", "np.matmul(x, y)", x=((2, 3, 4), REAL), y=((4, 2), REAL)),
    S("numpy.dot", "np.dot(x, y)", x=((3, 4), REAL), y=((4,), REAL)),
    S("numpy.dot", "x.dot(y)", x=((4,), REAL), y=((4,), REAL)),
    S("numpy.dot", "np.dot(x, y)", x=(None, REAL), y=((3,), REAL)),
    S("numpy.inner", "np.inner(x, y)", x=((4,), REAL), y=((4,), REAL)),
    S("numpy.inner", "np.inner(x, y)", x=((2, 4), REAL), y=((3, 4), REAL)),
    S("numpy.outer", "np.outer(x, y)", x=((3,), REAL), y=((4,), REAL)),
    S("numpy.outer", "np.outer(x, y)", x=((2, 2), REAL), y=((3,), REAL)),
    S("numpy.tensordot", "np.tensordot(x, y)", x=((2, 3, 4), REAL), y=((3, 4, 5), REAL)),
    S("numpy.tensordot", "np.tensordot(x, y, axes=1)", x=((2, 3), REAL), y=((3, 4), REAL)),
    S("numpy.tensordot", "np.tensordot(x, y, axes=([0, 2], [2, 1]))", x=((2, 3, 4), REAL), y=((5, 4, 2), REAL)),
    S("numpy.einsum", "np.einsum('ij,jk->ik', x, y)", x=((2, 3), REAL), y=((3, 4), REAL)),
    S("numpy.einsum", "np.einsum('ij->i', x)", x=((2, 3), REAL)),
    S("numpy.einsum", "np.einsum('i,j,ij', x, y, z)", x=((2,), REAL), y=((3,), REAL), z=((2, 3), REAL)),
    S("numpy.trace", "np.trace(x)", x=((3, 3), REAL)),
    S("numpy.trace", "np.trace(x, offset=1)", x=((3, 4), REAL)),
    S("numpy.diag", "np.diag(x)", x=((4,), REAL)),
    S("numpy.diag", "np.diag(x)", x=((3, 4), REAL)),
    S("numpy.diag", "np.diag(x, k=-1)", x=((4, 3), REAL)),
    S("numpy.linalg.inv", "np.linalg.inv(x)", x=((3, 3), well_conditioned)),
    S("numpy.linalg.det", "np.linalg.det(x)", x=((3, 3), well_conditioned)),
    S("numpy.linalg.slogdet", "np.linalg.slogdet(x)[1]", x=((3, 3), well_conditioned)),
    S("numpy.linalg.slogdet", "np.linalg.slogdet(x)[0] * np.linalg.slogdet(x)[1]", x=((2, 3, 3), well_conditioned)),
    S("numpy.linalg.solve", "np.linalg.solve(x, y)", x=((3, 3), well_conditioned), y=((3,), REAL)),
    S("numpy.linalg.solve", "np.linalg.solve(x, y)", x=((3, 3), well_conditioned), y=((3, 2), REAL)),
    S("numpy.linalg.cholesky", "np.linalg.cholesky(x)", x=((3, 3), SPD), tol=1e-5),
    # ---- shape manipulation ----
    S("numpy.reshape", "np.reshape(x, (6, 2))", x=((3, 4), REAL)),
    S("numpy.reshape", "x.reshape(2, -1)", x=((3, 4), REAL)),
    S("numpy.ravel", "np.ravel(x)", x=((3, 4), REAL)),
    S("numpy.ravel", "x.flatten()", x=((3, 4), REAL)),
    S("numpy.expand_dims", "np.expand_dims(x, 1) * y", x=((3,), REAL), y=((3, 2), REAL)),
    S("numpy.squeeze", "np.squeeze(x)", x=((3, 1), REAL)),
    S("numpy.squeeze", "np.squeeze(x, axis=0) * y", x=((1, 3, 1), REAL), y=((3, 1), REAL)),
    S("numpy.atleast_1d", "np.atleast_1d(x) * y", x=((), REAL), y=((3,), REAL)),
    S("numpy.atleast_2d", "np.atleast_2d(x) * y", x=((3,), REAL), y=((2, 3), REAL)),
    S("numpy.atleast_3d", "np.atleast_3d(x) * y", x=((3,), REAL), y=((1, 3, 2), REAL)),
    S("numpy.atleast_3d", "np.atleast_3d(x)", x=((2, 3), REAL)),
    S("numpy.transpose", "np.transpose(x)", x=((3, 4), REAL)),
    S("numpy.transpose", "x.transpose(1, 2, 0)", x=((2, 3, 4), REAL)),
    S("numpy.swapaxes", "np.swapaxes(x, 0, 2)", x=((2, 3, 4), REAL)),
    S("numpy.moveaxis", "np.moveaxis(x, 0, -1)", x=((2, 3, 4), REAL)),
    S("numpy.flip", "np.flip(x, axis=1)", x=((3, 4), REAL)),
    S("numpy.broadcast_to", "np.broadcast_to(x, (3, 4))", x=((4,), REAL)),
    S("numpy.broadcast_to", "np.broadcast_to(x, (2, 3, 4))", x=((3, 1), REAL)),
    S("numpy.tile", "np.tile(x, (2, 3))", x=((3,), REAL)),
    S("numpy.tile", "np.tile(x, 2)", x=((2, 3), REAL)),
    S("numpy.repeat", "np.repeat(x, 3)", x=((2, 2), REAL)),
    S("numpy.repeat", "np.repeat(x, 2, axis=-1)", x=((2, 3), REAL)),
    S("numpy.repeat", "np.repeat(x, [1, 3], axis=0)", x=((2, 3), REAL)),
    S("numpy.concatenate", "np.concatenate([x, y], axis=1)", x=((2, 3), REAL), y=((2, 1), REAL)),
    S("numpy.concatenate", "np.concatenate([x, y, x])", x=((2,), REAL), y=((3,), REAL)),
    S("numpy.stack", "np.stack([x, y], axis=-1)", x=((2, 3), REAL), y=((2, 3), REAL)),
    S("numpy.hstack", "np.hstack([x, y])", x=((3,), REAL), y=((2,), REAL)),
    S("numpy.hstack", "np.hstack((x, y))", x=((2, 3), REAL), y=((2, 1), REAL)),
    S("numpy.vstack", "np.vstack([x, y])", x=((3,), REAL), y=((2, 3), REAL)),
    S("numpy.split", "np.split(x, 2)[1]", x=((4,), REAL)),
    S("numpy.split", "np.split(x, [1, 3], axis=1)[0] * np.split(x, [1, 3], axis=1)[2]", x=((2, 5), REAL)),
    # ---- conversions ----
    S("numpy.asarray", "np.asarray(x) * 2.0", x=((3,), REAL)),
    S("numpy.asarray", "np.asarray(x, dtype=np.float64)", x=((3,), REAL)),
    S("numpy.array", "np.array(x, dtype=float)", x=((3,), REAL)),
    S("numpy.asanyarray", "np.asanyarray(x)", x=((3,), REAL)),
    S("numpy.ascontiguousarray", "np.ascontiguousarray(x.T)", x=((3, 2), REAL)),
    S("ndarray.astype", "x.astype(float)", x=((3,), REAL)),
    S("ndarray.astype", "x.astype('float64')", x=((3,), REAL)),
    S("numpy.copy", "np.copy(x) + x.copy()", x=((3,), REAL)),
    *([S("numpy.astype", "np.astype(x, x.dtype) * np.astype(x > 0, float)", x=((3,), REAL))]
      if hasattr(np, "astype") else []),
    # ---- no gradient: the expression's gradient comes from the other factor only ----
    S("numpy.zeros", "x + np.zeros(3)", x=((3,), REAL)),
    S("numpy.ones", "x * np.ones((2, 3))", x=((3,), REAL)),
    S("numpy.empty", "x * np.size(np.empty(2))", x=((3,), REAL)),
    S("numpy.full", "x * np.full(x.shape, 2.0) + np.full((2, 3), y) + np.full(3, z)", x=((3,), REAL),
      y=(None, REAL), z=((3,), REAL)),
    S("numpy.eye", "x @ np.eye(3)", x=((3,), REAL)),
    S("numpy.identity", "np.identity(3) @ x", x=((3,), REAL)),
    S("numpy.arange", "x * np.arange(3)", x=((3,), REAL)),
    S("numpy.linspace", "x * np.linspace(0.0, 1.0, 3)", x=((3,), REAL)),
    S("numpy.zeros_like", "x + np.zeros_like(x)", x=((3,), REAL)),
    S("numpy.ones_like", "x * np.ones_like(x, dtype=float)", x=((3,), REAL)),
    S("numpy.empty_like", "x * np.size(np.empty_like(x))", x=((3,), REAL)),
    S("numpy.full_like", "x * np.full_like(x, 3.0)", x=((3,), REAL)),
    S("numpy.shape", "x * np.shape(x)", x=((3,), REAL)),
    S("numpy.ndim", "x * np.ndim(x)", x=((3,), REAL)),
    S("numpy.size", "x * np.size(x)", x=((3,), REAL)),
    S("numpy.issubdtype", "x * np.issubdtype(x.dtype, np.floating)", x=((3,), REAL)),
    S("numpy.sign", "np.sign(x) * x", x=((3,), NONZERO)),
    S("numpy.floor", "np.floor(x) * x", x=((3,), sampler(0.1, 0.9))),
    S("numpy.ceil", "np.ceil(x) * x", x=((3,), sampler(0.1, 0.9))),
    S("numpy.rint", "np.rint(x) * x", x=((3,), sampler(0.6, 0.9))),
    S("numpy.isnan", "np.isnan(x) + x", x=((3,), REAL)),
    S("numpy.isfinite", "np.isfinite(x) * x", x=((3,), REAL)),
    S("numpy.isinf", "np.isinf(x) + x", x=((3,), REAL)),
    S("numpy.greater", "np.where(np.greater(x, 0.1), x, 0.0)", x=((6,), REAL)),
    S("numpy.greater_equal", "np.greater_equal(x, 0.1) * x", x=((6,), REAL)),
    S("numpy.less", "np.less(x, y) * y", x=((6,), REAL), y=((6,), REAL)),
    S("numpy.less_equal", "np.less_equal(x, 0.1) * x", x=((6,), REAL)),
    S("numpy.equal", "np.equal(x, 0.1) + x", x=((6,), REAL)),
    S("numpy.not_equal", "np.not_equal(x, 0.1) * x", x=((6,), REAL)),
    S("numpy.logical_and", "np.logical_and(np.less(x, 1.0), np.greater(x, -1.0)) * x", x=((6,), REAL)),
    S("numpy.logical_or", "np.logical_or(np.less(x, -1.0), np.greater(x, 1.0)) * x", x=((6,), REAL)),
    S("numpy.logical_not", "np.logical_not(np.less(x, 0.1)) * x", x=((6,), REAL)),
    S("numpy.argmax", "x * np.argmax(x)", x=((4,), REAL)),
    S("numpy.argmin", "x * x.argmin()", x=((4,), REAL)),
    S("numpy.argsort", "x * np.argsort(x)", x=((4,), REAL)),
    # ---- constructors filled with a value that carries a gradient ----
    S("numpy.full", "np.full((2, 3), x) * y", x=(None, REAL), y=((2, 3), REAL)),
    S("numpy.full", "np.full((2, 3), x) * y", x=((3,), REAL), y=((2, 3), REAL)),
    S("numpy.full_like", "np.full_like(y, x) * y", x=(None, REAL), y=((3,), REAL)),
    # ---- srcdiff's own helpers (generated gradients differentiated again) ----
    S("srcdiff.rules.runtime.unbroadcast", "unbroadcast(x * y, y)", x=((3, 4), REAL), y=((4,), REAL)),
    S("srcdiff.rules.runtime.unbroadcast", "unbroadcast(x * y, y)", x=((3, 4), REAL), y=((3, 4), REAL)),
    S("srcdiff.rules.runtime.select", "select(np.greater(c, 0.0), x * y)", x=((5,), REAL), y=((5,), REAL),
      c=((5,), REAL)),
    S("srcdiff.rules.runtime.select_whole", "select_whole(np.greater(c, 0.0), x) + x", x=((3,), REAL),
      c=(None, REAL)),
    # a kink where the condition never holds is a select of its value (the NaN beyond a kink
    # that does hold is tested in tests/transforms/test_kinks.py)
    S("srcdiff.rules.kinks.kink", "kink(np.greater(c, 100.0), x * y, x)", x=((5,), REAL), y=((5,), REAL),
      c=((5,), REAL)),
    # a tie where the condition never holds is its value (the share at a tie: tests/transforms/test_ties.py)
    S("srcdiff.rules.kinks.tie", "tie(np.greater(c, 100.0), x * y, x)", x=((5,), REAL), y=((5,), REAL),
      c=((5,), REAL)),
    S("srcdiff.rules.kinks.kink_nan", "kink_nan(np.greater(c, 100.0), x) + x", x=((3,), REAL), c=((3,), REAL)),
    # forward mode's guard at an infinite slope: its value where everything is finite (the
    # selection at a clamp is tested in tests/transforms/test_redteam4_fixes.py)
    S("srcdiff.rules.kinks.held_still", "held_still(x * y, np.sign(c))", x=((4,), REAL), y=((4,), REAL),
      c=((4,), REAL)),
    S("srcdiff.rules.runtime.copy_array", "copy_array(x) * x", x=((3,), REAL)),
    S("srcdiff.rules.runtime.zeros_like", "zeros_like(x) + x", x=((3,), REAL)),
    # a value whose true derivative is zero too (floor), so central differences agree; the
    # zero derivative of a live value is tested in tests/transforms/test_stop_gradient.py
    S("srcdiff.rules.runtime.stop_gradient", "stop_gradient(np.floor(c)) * x", x=((3,), REAL), c=((3,), REAL)),
    S("srcdiff.rules.runtime.index_add", "index_add(x, (np.array([0, 2, 0]),), y * y)", x=((4,), REAL),
      y=((3,), REAL)),
    S("srcdiff.rules.runtime.index_add", "index_add(x * x, (slice(None, None, None), np.array([1, 1])), y)",
      x=((2, 3), REAL), y=(None, REAL)),
    S("srcdiff.rules.runtime.index_add", "index_add(x, (x > 0.0,), np.sin(y))", x=((5,), REAL), y=(None, REAL)),
    S("srcdiff.rules.runtime.index_read", "index_read(x, ([1, 1, 0],)) * y", x=((3,), REAL),
      y=((3,), REAL)),
    S("srcdiff.rules.runtime.index_read", "index_read(x, (np.array([0, 1, 1]), slice(None, None, -1))) * y",
      x=((2, 4), REAL), y=((3, 4), REAL)),
    S("builtins.slice", "index_read(x, (slice(3, 0, -2),)) * y", x=((5,), REAL), y=((2,), REAL)),
    S("srcdiff.rules.runtime.real_part", "real_part(x * x, c) * y", x=((3,), REAL), y=((3,), REAL), c=((3,), REAL)),
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
HELPERS = {name: getattr(runtime, name)
           for name in ("copy_array", "kink", "kink_nan", "select", "select_whole", "stop_gradient", "unbroadcast",
                        "zeros_like", "tie", "held_still",
                        "index_add", "index_read", "matmul_adjoint_x", "matmul_adjoint_y", "dot_adjoint_x",
                        "dot_adjoint_y", "solve_adjoint_x", "solve_adjoint_y", "prod_adjoint", "cholesky_adjoint",
                        "split_adjoint", "real_part")}
CALC_HELPERS = {name: getattr(calculus_helpers, name) for name in ("gradient_adjoint", "interp_adjoint", "interp_slope",
                                                                    "take_adjoint", "take_along_axis_adjoint",
                                                                    "cumprod_adjoint")}
LIST_HELPERS = list_helpers.LIST_HELPERS
JOIN_HELPERS = join_helpers.JOIN_HELPERS

SEED = 20261130


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """The specs written as functions in a module file (srcdiff reads their source)."""
    lines = ["import math", "import numpy as np", "import scipy.special as sc", "from scipy import signal, stats",
             "import scipy.linalg as sl",
             f"from srcdiff.rules.runtime import {', '.join(HELPERS)}",
             f"from srcdiff.rules.list_helpers import {', '.join(LIST_HELPERS)}",
             f"from srcdiff.rules.calculus_helpers import {', '.join(CALC_HELPERS)}",
             f"from srcdiff.rules.join_helpers import {', '.join(JOIN_HELPERS)}", ""]
    for i, spec in enumerate(SPECS):
        params = ", ".join([*spec.inputs, "w"])
        lines += [f"def case_{i}({params}):", f"    return np.sum(({spec.expr}) * w)", ""]
    return import_source(tmp_path_factory.mktemp("specs"), "\n".join(lines), "rule_specs")


def draw_inputs(spec, index):
    rng = np.random.default_rng(SEED + index)
    values = {}
    for name, (shape, domain) in spec.inputs.items():
        values[name] = float(domain(rng, ())) if shape is None else domain(rng, shape)
    import scipy.linalg as sl
    import scipy.special as sc
    from scipy import signal, stats
    names = {"np": np, "math": math, "sc": sc, "signal": signal, "stats": stats, "sl": sl,
             **HELPERS, **LIST_HELPERS, **CALC_HELPERS, **JOIN_HELPERS}
    out = eval(spec.expr, names, dict(values))
    weight = rng.normal(size=np.shape(out)) if np.ndim(out) else 1.0 + rng.uniform()
    return list(values.values()), weight


@pytest.mark.parametrize("index", range(len(SPECS)), ids=[f"{s.rule}:{s.expr}" for s in SPECS])
def test_rule_against_central_differences(cases, index, check_gradient):
    spec = SPECS[index]
    f = getattr(cases, f"case_{index}")
    args, weight = draw_inputs(spec, index)
    check_gradient(f, (*args, weight), tuple(range(len(args))), rtol=spec.tol, atol=spec.tol)


@pytest.mark.parametrize("index", range(len(SPECS)), ids=[f"{s.rule}:{s.expr}" for s in SPECS])
def test_spec_exercises_its_rule(cases, index):
    spec = SPECS[index]
    ir = GradFunction(getattr(cases, f"case_{index}")).lowered.ir
    assert spec.rule in {node.rule.name for node in ir.body.nodes}


def test_every_rule_has_a_spec():
    specified = {spec.rule for spec in SPECS}
    table = default_table()
    table.load_lazy()  # SciPy's rules too
    missing = sorted(r.name for r in table if r.name not in specified)
    assert not missing, f"rules without a spec in tests/test_numpy_rules.py: {missing}"


def arange_from_a_value(x):
    return np.sum(np.arange(x, x + 3.0))


def linspace_to_a_value(x):  # array endpoints (number endpoints have a rule)
    return np.sum(np.linspace(np.zeros(2), x * np.ones(2), 5))


@pytest.mark.parametrize("func, hint", [(arange_from_a_value, r"start \+ step \* np.arange\(n\)"),
                                        (linspace_to_a_value, r"np.linspace\(0.0, 1.0, n\)")])
def test_constructors_from_differentiated_values_are_refused(func, hint):
    # their values depend on start/stop, but they have no gradient rule: never a silent zero
    with pytest.raises(srcdiff.SrcDiffError, match=hint) as info:
        srcdiff.grad(func)(0.5)
    assert info.value.location.filename.endswith("test_numpy_rules.py")


def test_full_like_of_an_integer_array_truncates_so_has_no_gradient():
    def f(x):
        return np.sum(np.full_like(np.arange(3), x) * x)
    assert srcdiff.grad(f)(0.7) == 0.0  # np.full_like(int array, 0.7) is all zeros


# ---- conventions at non-differentiable points (documented in each rule's note) ----

def abs_sum(x):
    return np.sum(np.abs(x))


def maximum_sum(x, y):
    return np.sum(np.maximum(x, y))


def minimum_sum(x, y):
    return np.sum(np.minimum(x, y))


def max_all(x):
    return np.max(x)


ROW_WEIGHTS = np.array([1.0, 2.0])


def max_rows(x):
    return np.sum(x.max(axis=1) * ROW_WEIGHTS)


def clip_sum(x):
    return np.sum(np.clip(x, -1.0, 1.0))


def sign_product(x):
    return np.sum(np.sign(x) * 3.0)


def test_abs_at_zero_has_gradient_zero():
    assert_close(srcdiff.grad(abs_sum)(np.array([0.0, -2.0, 3.0])), np.array([0.0, -1.0, 1.0]))


@pytest.mark.parametrize("func", [maximum_sum, minimum_sum])
def test_elementwise_ties_share_the_gradient_equally(func):
    # was: ties went to the second argument (dx[0] == 0, dy[0] == 1); now half each, as JAX does
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 5.0])
    dx, dy = srcdiff.grad(func, wrt=(0, 1))(x, y)
    assert dx[0] == 0.5 and dy[0] == 0.5
    assert_close(dx + dy, np.ones(3))


def test_reduction_ties_share_the_gradient_equally():
    assert_close(srcdiff.grad(max_all)(np.array([3.0, 1.0, 3.0, 3.0])), np.array([1, 0, 1, 1]) / 3.0)
    x = np.array([[2.0, 2.0, 0.0], [1.0, 5.0, 5.0]])
    assert_close(srcdiff.grad(max_rows)(x), np.array([[0.5, 0.5, 0.0], [0.0, 1.0, 1.0]]))
    x = np.array([[2.0, 2.0, 2.0], [1.0, 5.0, 0.0]])  # three-way: 1/3 each (central differences say 1/2)
    assert_close(srcdiff.grad(max_rows)(x), np.array([[1 / 3, 1 / 3, 1 / 3], [0.0, 2.0, 0.0]]))


def test_clip_at_a_bound_shares_the_gradient_with_the_bound():
    # clip is minimum(maximum(x, a_min), a_max): x on a bound gets half (was: all of it)
    assert_close(srcdiff.grad(clip_sum)(np.array([-1.0, 1.0, 2.0, -3.0, 0.5])), np.array([0.5, 0.5, 0.0, 0.0, 1.0]))


def test_sign_carries_no_gradient_even_at_zero():
    assert_close(srcdiff.grad(sign_product)(np.array([0.0, -1.0, 2.0])), np.zeros(3))


# ---- the generated table of supported functions ----

def test_docs_table_matches_the_rule_table():
    from pathlib import Path

    from srcdiff.tools.docs_table import generate

    committed = Path(__file__).resolve().parents[1] / "docs" / "supported-numpy.md"
    assert committed.read_text() == generate(), \
        "regenerate: python -m srcdiff.tools.docs_table > docs/supported-numpy.md"


def test_docs_table_lists_every_rule():
    from srcdiff.tools.docs_table import generate

    text = generate()
    assert all(f"| `{r.name}` |" in text for r in default_table())


def fill_with_dtype(x):
    return np.sum(np.full(3, x, dtype=float) * x) + np.sum(np.full(2, 2.0, dtype=np.float64) * x)


def test_fill_with_a_floating_dtype(check_gradient):
    check_gradient(fill_with_dtype, (0.7,))
