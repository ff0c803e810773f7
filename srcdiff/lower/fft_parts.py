"""The Fourier transform of a real array, where the code takes real values of it at once:

    np.fft.fft(x).real, np.real(np.fft.rfft(x))   ->  fft_part(x, 'fft', 'real', -1)
    np.fft.rfft(x, axis=0).imag, np.imag(...)      ->  fft_part(x, 'rfft', 'imag', 0)
    np.abs(np.fft.rfft(x))                         ->  np.hypot(fft_part(x, ...'real'...), fft_part(x, ...'imag'...))

srcdiff differentiates real values only; these are real linear maps of x (and |X| the hypot
of two of them, NumPy's own definition of the complex modulus, whose square smooth_squares.py
lowers as re ** 2 + im ** 2: a power spectrum is exact at every order).  The transform
written apart (``X = np.fft.rfft(x)``) is taken apart into its real and imaginary parts by
frontend/complex_split.py, which writes its inverse ``np.fft.irfft(X, n)`` as
``np.fft.irfft(X_re, n) + np.fft.irfft(1j * X_im, n)``: the second lowers here onto
``irfft_imag(X_im, n)``, the real linear map of the imaginary parts.
"""

from __future__ import annotations

import ast

import numpy as np

from ..frontend.depends import MISSING
from ..ir.nodes import Operand
from ..rules.fft_helpers import fft_part, irfft_imag
from .expressions import ExpressionLowerer
from .rule_calls import lower_rule_call
from .static_values import constant, static_value

_TRANSFORMS = {np.fft.fft: "fft", np.fft.rfft: "rfft"}
_PARTS = {np.real: "real", np.imag: "imag"}
_MODULI = (np.abs, np.absolute)


def _transform(lower: ExpressionLowerer, node: ast.expr):
    """(kind, x, axis) of ``np.fft.fft(x)`` / ``np.fft.rfft(x, axis=...)``, or None."""
    if not isinstance(node, ast.Call):
        return None
    kind = _TRANSFORMS.get(static_value(lower.state, node.func, record=False))
    if kind is None:
        return None
    state = lower.state
    axis = next((k.value for k in node.keywords if k.arg == "axis"), None)
    if len(node.args) != 1 or any(k.arg != "axis" for k in node.keywords) or isinstance(node.args[0], ast.Starred):
        raise state.error(node, f"`{ast.unparse(node)}`: srcdiff differentiates np.fft.{kind}(x) and "
                          f"np.fft.{kind}(x, axis=...) of a real x", "pad or crop x yourself instead of passing n")
    axis = -1 if axis is None else constant(state, axis)
    if not isinstance(axis, int):
        raise state.error(node, f"`{ast.unparse(node)}`: the axis must be an integer written in the code")
    return kind, node.args[0], axis


def _part(lower: ExpressionLowerer, node: ast.expr, kind: str, x: ast.expr, axis: int, part: str, target) -> Operand:
    helper = ast.Name("fft_part", ast.Load())
    call = ast.Call(helper, [x, ast.Constant(kind), ast.Constant(part), ast.Constant(axis)], [])
    call = ast.fix_missing_locations(ast.copy_location(call, node))
    return lower_rule_call(lower, call, fft_part, lower.state.table.lookup(fft_part), helper, target)


def fft_attribute(lower: ExpressionLowerer, node: ast.Attribute, target) -> Operand | None:
    """``np.fft.rfft(x).real`` / ``.imag``; None for any other attribute."""
    if node.attr not in ("real", "imag"):
        return None
    found = _transform(lower, node.value)
    return None if found is None else _part(lower, node, *found, node.attr, target)


def _imaginary(node: ast.expr) -> ast.expr | None:
    """b of ``1j * b``, or None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and isinstance(node.left, ast.Constant) \
            and node.left.value == 1j:
        return node.right
    return None


def inverse_of_imaginary_parts(lower: ExpressionLowerer, node: ast.Call, target) -> Operand | None:
    """``np.fft.irfft(1j * b, ...)`` of a real b (as complex_split.py writes a complex spectrum's
    inverse): ``irfft_imag(b, ...)``; None for other calls."""
    if not node.args or _imaginary(node.args[0]) is None or \
            static_value(lower.state, node.func, record=False) is not np.fft.irfft:
        return None
    helper = ast.Name("irfft_imag", ast.Load())
    call = ast.Call(helper, [_imaginary(node.args[0]), *node.args[1:]], node.keywords)
    call = ast.fix_missing_locations(ast.copy_location(call, node))
    return lower_rule_call(lower, call, irfft_imag, lower.state.table.lookup(irfft_imag), helper, target)


def fft_call(lower: ExpressionLowerer, node: ast.Call, target) -> Operand | None:
    """``np.real`` / ``np.imag`` / ``np.abs`` of ``np.fft.fft(x)`` (or rfft), ``np.fft.irfft(1j * b)``;
    None for other calls."""
    inverse = inverse_of_imaginary_parts(lower, node, target)
    if inverse is not None:
        return inverse
    if len(node.args) != 1 or node.keywords:
        return None
    func = static_value(lower.state, node.func, record=False)
    if func is MISSING or not (func in _PARTS or func in _MODULI):
        return None
    found = _transform(lower, node.args[0])
    if found is None:
        return None
    if func in _PARTS:
        return _part(lower, node, *found, _PARTS[func], target)
    kind, x, axis = found
    names = []
    state = lower.state
    for part in ("real", "imag"):
        operand = _part(lower, node, kind, x, axis, part, None)
        names.append(operand)
    bound = {v.name: v for v in names}
    state.env.update(bound)  # lowering's temporaries, read by name in the hypot (never the function's names)
    try:
        numpy = node.func.value if isinstance(node.func, ast.Attribute) else ast.Name("np", ast.Load())
        hypot = ast.Call(ast.Attribute(numpy, "hypot", ast.Load()), [ast.Name(v.name, ast.Load()) for v in names], [])
        return lower.expr(ast.fix_missing_locations(ast.copy_location(hypot, node)), target)
    finally:
        for key in bound:
            state.env.pop(key, None)


__all__ = ["fft_attribute", "fft_call"]
