"""A float written in the code, beside float32 values, as NumPy types it: float32.

NumPy (2, NEP 50) computes ``0.5 * dt`` of a ``np.float32`` `dt` and ``2.0 * q`` of a float32
array in float32: a Python float takes the other operand's dtype.  numba computes both in
float64, so a loop carrying float32 arrays (``p = p - 0.5 * dt * np.sin(q)``) makes its
variable float32 before the loop and float64 in it, and numba refuses ("Cannot unify
array(float32, 1d, C) and array(float64, 1d, C)").

On that refusal (`retried`) each float constant that is an operand of arithmetic (or a branch
of ``np.where``, beside a value: the adjoint's ``np.where(not t2, 0.0, g * t2)``) is written
``np.float32(c)`` where float32 holds `c` exactly (``0.5``, ``2.0``, ``-1.0``): beside a
float32 value that is NumPy's computation; beside a float64 one numba widens it back to the
same float64, so no value changes.  A constant float32 cannot hold (``0.9``) beside a name or
its item (``a``, ``s[0]``) is written ``weak_float(0.9, a)``: float32 beside a float32 value (NumPy's
rounding of the Python float), the float itself beside anything else; beside an expression it is
left, and numba's refusal stands, at its line.
The adjoints' zeros (``zeros_like(f)``, float64 in runtime.py's numba version) become
``zeros_kept(f)``: float32 zeros for a float32 value, as the Python gradient's; an adjoint's
copy written ``np.array(g, dtype=float)`` (the optimiser's zeroing copy of an adjoint not
known to be an array, in a loop) becomes ``floating_copy(g, copy)``, float32 kept: the
Python gradient carries that adjoint in float64 from there, numba in its float32 (the first
call's check compares the two at float32's tolerance).  Only on that refusal: a module numba
compiles as it is keeps its float64 zeros and copies.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

import numpy as np
from numba import types

from .missing import float_array
from .naming import overload
from .runtime import zeros_like

#: numba meeting float32 with float64: unifying them, or a function it has only for one dtype (``np.dot`` of
#: a float64 row and a float32 kernel: "no implementation of dot(array(float64, ...), array(float32, ...))")
MIXED = re.compile(r"Cannot unify .*float32.* and .*float64|Cannot unify .*float64.* and .*float32"
                   r"|No implementation of function[\s\S]*?>>> [\w.]+\((?:.*float32.*float64|.*float64.*float32)")
WRAP = "np.float32("
KEPT = "zeros_kept"
FLOATING = "floating_copy"
WEAK = "weak_float"
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv, ast.Mod)


def retried(built, refusal: str):
    """`built` (module.py's `NumbaModule`) with its exact float constants spelled float32 if
    numba's `refusal` is a float32 value meeting a float64 one; None otherwise (or if `built`
    is such a retry already)."""
    if not MIXED.search(refusal) or KEPT in built.imports:  # (imported by the retried module)
        return None
    lines = built.source.splitlines(keepends=True)
    module = ast.parse(built.source)
    spans = [(*_span(c), f"{WRAP}{{}})") for c in _constants(module)]
    spans += [(*_span(c), f"{WEAK}({{}}, {name})") for c, name in _inexact_constants(module)]
    spans += [(*_span(z.func), KEPT) for z in ast.walk(module) if isinstance(z, ast.Call)
              and isinstance(z.func, ast.Name) and z.func.id == "zeros_like"]
    spans += [(*_span(a.value.func), FLOATING) for a in ast.walk(module) if isinstance(a, ast.Assign)
              and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name) and a.targets[0].id.endswith("_bar")
              and isinstance(a.value, ast.Call) and isinstance(a.value.func, ast.Name)
              and a.value.func.id == "float_array"]
    changed = False
    for lineno, start, end, spelled in sorted(set(spans), reverse=True):  # from the end of each line:
        line = lines[lineno - 1]                                           # earlier offsets stay right
        if line.isascii():
            lines[lineno - 1] = line[:start] + spelled.format(line[start:end]) + line[end:]
            changed = True
    if not changed:
        return None
    return replace(built, source="".join(lines),
                   imports={**built.imports, "np": ("numpy", None), KEPT: (__name__, KEPT),
                            FLOATING: (__name__, FLOATING), WEAK: (__name__, WEAK)})


def _operands(node: ast.AST) -> tuple:
    """(operand, the other operand) pairs of arithmetic, or of a ``np.where``'s two branches (the
    adjoint's ``np.where(not t2, 0.0, g * t2)``: numba's where of 0.0 and a float32 array is
    float64, NumPy's float32)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        return (node.left, node.right), (node.right, node.left)
    if isinstance(node, ast.Call) and len(node.args) == 3 and not node.keywords and (
            isinstance(node.func, ast.Attribute) and node.func.attr == "where" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "np" or isinstance(node.func, ast.Name) and node.func.id == "where_of"):
        return (node.args[1], node.args[2]), (node.args[2], node.args[1])
    return ()


def _constants(module: ast.Module):
    """The float constants (a negated one whole) that are operands of arithmetic (or branches of
    a ``np.where``) with a value that is not constant, and that float32 holds exactly."""
    for node in ast.walk(module):
        for operand, other in _operands(node):
            value = _float(operand)
            if value is not None and _float(other) is None and float(np.float32(value)) == value \
                    and operand.lineno == operand.end_lineno:
                yield operand


def _inexact_constants(module: ast.Module):
    """(constant, the other operand's text) of the float constants float32 does not hold exactly, operands
    of arithmetic beside a name or a name's item at a constant (``a * 0.9``, ``0.1 * s[0]``: read twice,
    as cheap as once): its dtype decides the constant's, as NumPy's promotion does."""
    for node in ast.walk(module):
        for operand, other in _operands(node):
            value = _float(operand)
            plain = isinstance(other, ast.Name) or isinstance(other, ast.Subscript) \
                and isinstance(other.value, ast.Name) and isinstance(other.slice, ast.Constant)
            if value is not None and plain and float(np.float32(value)) != value \
                    and operand.lineno == operand.end_lineno:
                yield operand, ast.unparse(other)


def _float(node: ast.expr):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _float(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.Constant) and type(node.value) is float:
        return node.value
    return None


def _span(node: ast.expr) -> tuple[int, int, int]:
    return node.lineno, node.col_offset, node.end_col_offset


def zeros_kept(x):
    return zeros_like(x)


@overload(zeros_kept)
def _zeros_kept(x):
    """runtime.py's ``zeros_like``, float32 for a float32 value (the Python gradient's dtype)."""
    if isinstance(x, types.Array) and x.dtype == types.float32:
        return lambda x: np.zeros(x.shape, np.float32)
    if x == types.float32:
        return lambda x: np.float32(0.0)
    return lambda x: zeros_like(x)


def floating_copy(x, copy):
    return float_array(x, copy)


@overload(floating_copy, prefer_literal=True)
def _floating_copy(x, copy):
    """missing.py's ``float_array``, a float32 array kept float32 (copied if asked)."""
    if isinstance(x, types.Array) and x.dtype == types.float32:
        if getattr(copy, "literal_value", True):
            return lambda x, copy: x.copy()
        return lambda x, copy: x
    return lambda x, copy: float_array(x, copy)


def weak_float(c, x):
    return c


@overload(weak_float)
def _weak_float(c, x):
    """The Python float `c` beside `x` as NumPy 2 computes it: float32 beside a float32 array or number."""
    if isinstance(x, types.Array) and x.dtype == types.float32 or x == types.float32:
        return lambda c, x: np.float32(c)
    return lambda c, x: c


HELPERS = ("zeros_kept", "floating_copy", "weak_float")

__all__ = [*HELPERS, "retried"]
