"""NumPy calls with ``out=``, read as a write of their value into that array (desugar.py).

``np.multiply(x, x, out=y)`` computes ``x * x`` and stores it into ``y``'s memory: every other
name that shares ``y`` (a view, a second name) sees the new values, and the call returns ``y``
itself.  That is exactly the write by index ``y[:] = np.multiply(x, x)``, which is rewritten
here, right after parsing, so that lowering checks it as any other write (``y`` must be an
array the function made that nothing else holds, or a view view_writes.py reads through)::

    np.maximum(h, 0.0, out=h)          ==>    h[:] = np.maximum(h, 0.0)
    z = np.cumsum(y, out=y)            ==>    y[:] = np.cumsum(y); z = y

The value is computed in full before it is stored, which is NumPy's meaning even when ``out``
is also an input (NumPy copies an operand that overlaps the output first, and a cumulative sum
reads each element before it writes it).  Rewritten: a NumPy ufunc (elementwise: its inputs
broadcast to ``out``'s shape, as a write by index broadcasts them), ``np.cumsum``,
``np.cumprod`` and ``np.clip``, with ``out`` one name (or a tuple of one) and no ``where=``
(which leaves the places it does not select as they were).  Any other ``out=`` is left for
lowering to refuse at its line.  (``y[:]`` is ``y[...]`` for an array of one axis or more, and
the numba backend compiles it; a 0-d ``out`` fails as NumPy's ``y[:]`` does.)

An ``out=`` that is a new array made in the call (``np.zeros_like(a)``, ``np.full(shape, c)``) holds the
ufunc's value where ``where=`` selects and its own elsewhere: the safe division ``np.divide(a, b,
out=np.zeros_like(a), where=b > 0)`` is ``np.where(b > 0, np.divide(a, b), np.zeros_like(a))`` (without
``where=``, the ufunc's value), rewritten wherever the call is.  (Not ``np.empty_like``: its unselected
places hold whatever the memory held.)
"""

from __future__ import annotations

import ast

import numpy as np

from .views import statement_blocks

_WITH_OUT = {np.cumsum, np.cumprod, np.clip}
#: arrays made with known values: an ``out=`` of one of them is a new array, which no name holds
_FILLED = {np.zeros_like, np.ones_like, np.full_like, np.zeros, np.ones, np.full}


def rewrite_out_arguments(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, each statement of `tree` that is (or assigns) a call with ``out=``."""
    if names.resolve(ast.Name("np", ast.Load())) is np:  # (np.where is written: np must be NumPy here)
        _NewOut(names).visit(tree)
    for block in statement_blocks(tree):
        block[:] = [t for s in block for t in _rewritten(s, names)]
    ast.fix_missing_locations(tree)


def has_out_arguments(tree: ast.FunctionDef) -> bool:
    """A cheap test: some call passes ``out=``."""
    return any(isinstance(n, ast.keyword) and n.arg == "out" for n in ast.walk(tree))


def _rewritten(stmt: ast.stmt, names) -> list[ast.stmt]:
    if isinstance(stmt, ast.Expr):
        call, target = stmt.value, None
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        call, target = stmt.value, stmt.targets[0]
    else:
        return [stmt]
    out = _out_of(call, names)
    if out is None:
        return [stmt]
    plain = ast.Call(call.func, call.args, [k for k in call.keywords if k.arg != "out"])
    write = ast.Assign([ast.Subscript(ast.Name(out.id, ast.Load()), ast.Slice(), ast.Store())], plain)
    made = [ast.copy_location(write, stmt)]
    if target is not None and target.id != out.id:  # the call's value is `out` itself
        made.append(ast.copy_location(ast.Assign([target], ast.Name(out.id, ast.Load())), stmt))
    return made


def _out_of(call: ast.expr, names) -> ast.Name | None:
    """The name ``out=`` names in a call this module rewrites, else None."""
    if not isinstance(call, ast.Call) or any(k.arg in (None, "where") for k in call.keywords) \
            or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    out = [k.value for k in call.keywords if k.arg == "out"]
    if len(out) != 1:
        return None
    out = out[0]
    if isinstance(out, ast.Tuple) and len(out.elts) == 1:
        out = out.elts[0]
    if not isinstance(out, ast.Name):
        return None
    func = names.resolve(call.func)
    if isinstance(func, np.ufunc):
        if func.nout != 1 or len(call.args) != func.nin:  # (an output given positionally too)
            return None
        return out
    return out if func in _WITH_OUT else None


class _NewOut(ast.NodeTransformer):
    """``ufunc(a, b, out=np.zeros_like(a), where=c)`` as ``np.where(c, ufunc(a, b), np.zeros_like(a))``."""

    def __init__(self, names):
        self.names = names

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        given = {k.arg: k.value for k in node.keywords}
        out, where = given.get("out"), given.get("where")
        if out is None or set(given) - {"out", "where"} or any(isinstance(a, ast.Starred) for a in node.args) \
                or not (isinstance(out, ast.Call) and self.resolved(out.func) in _FILLED):
            return node
        func = self.resolved(node.func)
        if not (isinstance(func, np.ufunc) and func.nout == 1 and len(node.args) == func.nin):
            return node
        value = ast.copy_location(ast.Call(node.func, node.args, []), node)
        if where is None:
            return value
        np_where = ast.Attribute(ast.Name("np", ast.Load()), "where", ast.Load())
        return ast.copy_location(ast.Call(np_where, [where, value, out], []), node)

    def resolved(self, func):
        try:
            return self.names.resolve(func)
        except Exception:  # noqa: BLE001  an attribute a module does not have
            return None


__all__ = ["has_out_arguments", "rewrite_out_arguments"]
