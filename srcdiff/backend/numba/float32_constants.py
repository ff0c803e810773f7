"""A float written in the code, beside float32 values, as NumPy types it: float32.

NumPy (2, NEP 50) computes ``0.5 * dt`` of a ``np.float32`` `dt` and ``2.0 * q`` of a float32
array in float32: a Python float takes the other operand's dtype.  numba computes both in
float64, so a loop carrying float32 arrays (``p = p - 0.5 * dt * np.sin(q)``) makes its
variable float32 before the loop and float64 in it, and numba refuses ("Cannot unify
array(float32, 1d, C) and array(float64, 1d, C)").

On that refusal (`retried`) each float constant that is an operand of arithmetic is written
``np.float32(c)`` where float32 holds `c` exactly (``0.5``, ``2.0``, ``-1.0``): beside a
float32 value that is NumPy's computation; beside a float64 one numba widens it back to the
same float64, so no value changes.  A constant float32 cannot hold (``0.1``) is left: there
NumPy's float32 and float64 computations differ, and numba's refusal stands, at its line.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

import numpy as np

MIXED = re.compile(r"Cannot unify .*float32.* and .*float64|Cannot unify .*float64.* and .*float32")
WRAP = "np.float32("
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv, ast.Mod)


def retried(built, refusal: str):
    """`built` (module.py's `NumbaModule`) with its exact float constants spelled float32 if
    numba's `refusal` is a float32 value meeting a float64 one; None otherwise (or if they
    are already)."""
    if not MIXED.search(refusal) or WRAP in built.source:
        return None
    lines = built.source.splitlines(keepends=True)
    spans = sorted({_span(c) for c in _constants(ast.parse(built.source))}, reverse=True)
    changed = False
    for lineno, start, end in spans:  # from the end of each line: earlier offsets stay right
        line = lines[lineno - 1]
        if line.isascii():
            lines[lineno - 1] = f"{line[:start]}{WRAP}{line[start:end]}){line[end:]}"
            changed = True
    if not changed:
        return None
    return replace(built, source="".join(lines), imports={**built.imports, "np": ("numpy", None)})


def _constants(module: ast.Module):
    """The float constants (a negated one whole) that are operands of arithmetic with a value
    that is not constant, and that float32 holds exactly."""
    for node in ast.walk(module):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC)):
            continue
        for operand, other in ((node.left, node.right), (node.right, node.left)):
            value = _float(operand)
            if value is not None and _float(other) is None and float(np.float32(value)) == value \
                    and operand.lineno == operand.end_lineno:
                yield operand


def _float(node: ast.expr):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _float(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.Constant) and type(node.value) is float:
        return node.value
    return None


def _span(node: ast.expr) -> tuple[int, int, int]:
    return node.lineno, node.col_offset, node.end_col_offset


HELPERS = ()

__all__ = ["HELPERS", "retried"]
