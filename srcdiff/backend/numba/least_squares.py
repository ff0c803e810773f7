"""numba versions of ``np.linalg.lstsq``'s adjoint helpers (rules/decomposition_helpers.py's
``lstsq_adjoint_x`` and ``lstsq_adjoint_y``) and of the call itself with ``rcond=None``.

The gradient hands the helpers the adjoint of lstsq's tuple ``(solution, residuals, rank,
singular values)`` as a tuple of parts (tuple_adjoints.py), each an array or the 0.0 of a part
the program never read.  Which parts are arrays is known from their types, so the code of each
call holds only the terms of the parts that were read: through the solution ``pinv(x) @ y``
(pinv's adjoint at constant rank), the residuals ``sum((y - x sol)^2)`` and the singular values,
as the Python helpers compute them.  One matrix only (a stack of them is refused at the line),
computed in float64 and given back in the operand's float32 where it is float32.

``rcond=None`` (NumPy's machine precision times the larger dimension) is spelled
``lstsq_of(a, b)``: numba's lstsq takes a number only, and operands of one dtype (a float32
operand beside a float64 one is solved in float64, as NumPy does).
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from ...rules import decomposition_helpers
from .decompositions import singular_values_adjoint
from .naming import made, overload


def spell(node: ast.Call) -> tuple[str, list] | None:
    """``np.linalg.lstsq(a, b, rcond=None)`` as ``lstsq_of(a, b)``; any other call kept."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "lstsq" and isinstance(func.value, ast.Attribute) \
            and func.value.attr == "linalg" and isinstance(func.value.value, ast.Name) \
            and func.value.value.id in ("np", "numpy") and len(node.args) == 2 \
            and [(k.arg, getattr(k.value, "value", 0)) for k in node.keywords] == [("rcond", None)]:
        return "lstsq_of", list(node.args)
    return None


def lstsq_of(a, b):
    return np.linalg.lstsq(a, b, rcond=None)


@overload(lstsq_of)
def _lstsq_of(a, b):
    if not (isinstance(a, types.Array) and a.ndim == 2 and isinstance(b, types.Array)):
        return None
    dtype = np.float32 if a.dtype == b.dtype == types.float32 else np.float64  # (numba's takes one dtype)
    eps = float(np.finfo(dtype).eps)
    return made("def impl(a, b):\n"
                "    a_of, b_of = np.ascontiguousarray(a).astype(DTYPE), np.ascontiguousarray(b).astype(DTYPE)\n"
                "    return np.linalg.lstsq(a_of, b_of, EPS * max(a.shape[0], a.shape[1]))\n", EPS=eps, DTYPE=dtype)


def _read(part) -> bool:
    """Whether a part of the tuple adjoint is an array (the 0.0 of a part never read is not)."""
    return isinstance(part, types.Array)


def _applies(g, x, ans) -> bool:
    return isinstance(g, types.BaseTuple) and len(g) == 4 and isinstance(ans, types.BaseTuple) and len(ans) == 4 \
        and isinstance(x, types.Array) and x.ndim == 2 and isinstance(x.dtype, types.Float)


def _dtype(t) -> type:
    return np.float32 if t.dtype == types.float32 else np.float64


def _column(name: str, t) -> str:
    """`name` of type `t` in float64 as a matrix: a vector as a column, as _column does."""
    made64 = f"np.ascontiguousarray({name}).astype(np.float64)"
    return f"{made64}.reshape((-1, 1))" if t.ndim == 1 else made64


_PRELUDE = ("    a = np.ascontiguousarray(x).astype(np.float64)\n"
            "    yc = {y}\n"
            "    sol = {sol}\n"
            "    p = np.linalg.pinv(a)\n")
_RESIDUALS = "    if ans[1].size:\n        g1 = np.ascontiguousarray(g[1]).astype(np.float64).reshape((1, -1))\n"


def lstsq_adjoint_x(g, x, y, ans):
    return decomposition_helpers.lstsq_adjoint_x(g, x, y, ans)


@overload(lstsq_adjoint_x)
def _lstsq_adjoint_x(g, x, y, ans):
    if not (_applies(g, x, ans) and isinstance(y, types.Array)):
        return None
    text = "def impl(g, x, y, ans):\n" + _PRELUDE.format(y=_column("y", y), sol=_column("ans[0]", ans[0])) \
        + "    out = np.zeros(a.shape)\n"
    if _read(g[0]):  # pinv's adjoint (constant rank) of h = g0 y^T
        text += (f"    h = {_column('g[0]', g[0])} @ yc.T\n"
                 "    pt = np.ascontiguousarray(p.T)\n"
                 "    inner = -p @ np.ascontiguousarray(h.T) @ p + p @ pt @ h - p @ pt @ h @ a @ p + h @ pt @ p \\\n"
                 "        - p @ a @ h @ pt @ p\n"
                 "    out = out + inner.T\n")
    if _read(g[1]):
        text += _RESIDUALS + "        out = out - 2.0 * ((yc - a @ sol) * g1) @ sol.T\n"
    if _read(g[3]):
        text += "    out = out + singular_values_adjoint(g[3], a)\n"
    text += "    return out.astype(DTYPE)\n"
    return made(text, DTYPE=_dtype(x), singular_values_adjoint=singular_values_adjoint)


def lstsq_adjoint_y(g, x, y, ans):
    return decomposition_helpers.lstsq_adjoint_y(g, x, y, ans)


@overload(lstsq_adjoint_y)
def _lstsq_adjoint_y(g, x, y, ans):
    if not (_applies(g, x, ans) and isinstance(y, types.Array) and isinstance(y.dtype, types.Float)):
        return None
    text = "def impl(g, x, y, ans):\n" + _PRELUDE.format(y=_column("y", y), sol=_column("ans[0]", ans[0])) \
        + "    out = np.zeros(yc.shape)\n"
    if _read(g[0]):
        text += f"    out = out + np.ascontiguousarray(p.T) @ {_column('g[0]', g[0])}\n"
    if _read(g[1]):
        text += _RESIDUALS + "        out = out + 2.0 * (yc - a @ sol) * g1\n"
    text += "    return out.reshape(y.shape).astype(DTYPE)\n"
    return made(text, DTYPE=_dtype(y))


HELPERS = ("lstsq_of", "lstsq_adjoint_x", "lstsq_adjoint_y")

__all__ = ["HELPERS", "lstsq_adjoint_x", "lstsq_adjoint_y", "lstsq_of", "spell"]
