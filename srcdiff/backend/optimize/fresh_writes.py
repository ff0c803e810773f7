"""A fresh zero array's first write made without the zeros under it nor a temporary:
``x = np.zeros(s)`` then ``x[:-1] = a * b`` becomes ``x = np.empty(s)``, ``x[-1:] = 0.0``,
``np.multiply(a, b, out=x[:-1])``.

On large arrays each NumPy statement is a pass over memory: the zeros are one (``calloc``
clears a block it reuses), the product's temporary and its copy into ``x`` two more.  Written
so, the product goes straight into ``x`` and only the part it does not cover is cleared (an
hvp's sweep over the gradient's ``x_bar[:-1] += t7_bar`` writes its tangent this way).

Only for code no one reads (an hvp's sweep, batched code): the ufunc call with ``out=`` says
less than ``x[:-1] = a * b``.  The value is the same bit for bit: the same ufunc runs on the
same operands (its result broadcast into the part as the assignment broadcasts it, never
with more axes than the part, where ``out=`` would refuse what assignment allows).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable

from .liveness import assigned_name, bodies, is_pure, mentions, nodes, writes, written_into

UFUNCS = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "true_divide", ast.USub: "negative"}


def write_first_results(func: ast.FunctionDef, ndim_of: Callable[[str], int | None],
                        is_float: Callable[[ast.expr], bool]) -> bool:
    """Rewrite each ``x = np.zeros(s)`` whose first use is ``x[slices] = a op b`` (module
    docstring).  `ndim_of` gives a name's number of axes (None: not known); `is_float` whether
    an expression is certainly float (a complex value into float zeros is refused by ``out=``)."""
    loads = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    changed = False
    for body in bodies(func.body):
        index = 0
        while index < len(body):
            changed |= _rewrite_at(body, index, ndim_of, is_float, loads, stores)
            index += 1
    return changed


def _rewrite_at(body, i: int, ndim_of, is_float, loads: Counter, stores: Counter) -> bool:
    name = assigned_name(body[i])
    shape = _zeros_shape(body[i].value) if name is not None else None
    if shape is None:
        return False
    j = next((j for j in range(i + 1, len(body)) if name in mentions(body[j])), None)
    if j is None or not isinstance(body[j], ast.Assign) or len(body[j].targets) != 1:
        return False
    target, value = body[j].targets[0], body[j].value
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name):
        return False
    slices = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    if not all(isinstance(s, ast.Slice) for s in slices) or name in mentions(target.slice):
        return False  # (only slices: the part is a view ``out=`` can write)
    moved = _temporary(body, value, j, loads, stores)
    computed = body[moved].value if moved is not None else value
    ndim = _ndim_of_shape(shape, ndim_of)
    if ndim is None:
        ndim = ndim_of(name)
    if not _ufunc_value(computed, ndim, ndim_of) or not is_float(computed) or name in mentions(computed):
        return False
    operands = [computed.operand] if isinstance(computed, ast.UnaryOp) else [computed.left, computed.right]
    call = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), UFUNCS[type(computed.op)], ast.Load()), operands,
                    [ast.keyword("out", ast.Subscript(ast.Name(name, ast.Load()), target.slice, ast.Load()))])
    body[j] = ast.copy_location(ast.Expr(call), body[j])
    if moved is not None:  # its operands live on to `j` now (memory.release frees them after it)
        read = mentions(computed)
        for stmt in body[moved + 1:j]:
            if isinstance(stmt, ast.Delete):
                stmt.targets = [t for t in stmt.targets if not (isinstance(t, ast.Name) and t.id in read)]
        _forget(body, body[moved].targets[0].id)
        body[moved] = ast.Pass()  # (the indices stay; the pass goes below)
    rest = _rest(slices)
    if rest is not None:
        clears = [ast.copy_location(ast.Assign([ast.Subscript(ast.Name(name, ast.Load()), index, ast.Store())],
                                               ast.Constant(0.0)), body[i]) for index in rest]
        body[i].value = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "empty", ast.Load()), [shape], [])
        body[i + 1:i + 1] = clears
    body[:] = [s for s in body if not isinstance(s, ast.Pass) and not (isinstance(s, ast.Delete) and not s.targets)]
    return True


def _forget(body: list[ast.stmt], name: str) -> None:
    """The ``del`` of a temporary no longer made (memory.release frees what the code makes)."""
    for stmt in body:
        if isinstance(stmt, ast.Delete):
            stmt.targets = [t for t in stmt.targets if not (isinstance(t, ast.Name) and t.id == name)]


def _zeros_shape(expr: ast.expr) -> ast.expr | None:
    """`s` of ``np.zeros(s)`` (float64, a new array), else None."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "zeros" \
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np" \
            and len(expr.args) == 1 and not expr.keywords:
        return expr.args[0]
    return None


def _ndim_of_shape(shape: ast.expr, ndim_of) -> int | None:
    """The number of axes of ``t.shape`` (`t` a name), else None."""
    if isinstance(shape, ast.Attribute) and shape.attr == "shape" and isinstance(shape.value, ast.Name):
        return ndim_of(shape.value.id)
    if isinstance(shape, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in shape.elts):
        return len(shape.elts)
    return None


def _ufunc_value(expr: ast.expr, ndim: int | None, ndim_of) -> bool:
    """Whether `expr` is ``a op b`` (op one of `UFUNCS`) of at least one array, every operand of
    at most `ndim` axes (elementwise arithmetic of names and numbers)."""
    if ndim is None or not _is_ufunc_expr(expr) or not is_pure(expr):
        return False
    found = _operand_ndims(expr, ndim_of)
    return found is not None and any(d > 0 for d in found) and max(found) <= ndim


def _is_ufunc_expr(expr: ast.expr) -> bool:
    """``a op b`` or ``-a``: one ufunc's call (op one of `UFUNCS`)."""
    return isinstance(expr, (ast.BinOp, ast.UnaryOp)) and type(expr.op) in UFUNCS


def _operand_ndims(expr: ast.expr, ndim_of) -> list[int] | None:
    if isinstance(expr, ast.Constant) and type(expr.value) in (int, float):
        return [0]
    if isinstance(expr, ast.Name):
        found = ndim_of(expr.id)
        return None if found is None else [found]
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _operand_ndims(expr.operand, ndim_of)
    if isinstance(expr, ast.BinOp) and type(expr.op) in UFUNCS and not isinstance(expr.op, ast.USub):
        left, right = _operand_ndims(expr.left, ndim_of), _operand_ndims(expr.right, ndim_of)
        return None if left is None or right is None else left + right
    return None


def _temporary(body, value: ast.expr, j: int, loads: Counter, stores: Counter) -> int | None:
    """The index of ``t = a op b`` when `value` is a name `t` assigned once (there) and read
    once (at `j`), and nothing between changes what it reads: its value can move to `j`."""
    if not isinstance(value, ast.Name) or loads[value.id] != 1 or stores[value.id] != 1:
        return None
    k = next((k for k in range(j - 1, -1, -1) if assigned_name(body[k]) == value.id), None)
    if k is None or not _is_ufunc_expr(body[k].value) or not is_pure(body[k].value):
        return None
    read = mentions(body[k].value)
    between = [s for s in body[k + 1:j] if not isinstance(s, ast.Delete)]  # (a ``del`` it drops)
    if any(read & (writes(s) | written_into(s)) for s in between):
        return None
    return k


def _rest(slices: list[ast.Slice]) -> list[ast.expr] | None:
    """The index expressions of what ``x[slices]`` leaves out, when one slice (with bounds that
    are integers or None, no step) limits one axis and the others are whole: ``[:-1]`` leaves
    ``[-1:]``; None when not so simple (the zeros stay)."""
    whole = [s.lower is None and s.upper is None and s.step is None for s in slices]
    if all(whole):
        return []
    if whole.count(False) != 1:
        return None
    axis = whole.index(False)
    part = slices[axis]
    if part.step is not None or not all(b is None or _is_int(b) for b in (part.lower, part.upper)):
        return None
    pieces = []
    if part.lower is not None:
        pieces.append(ast.Slice(None, part.lower, None))
    if part.upper is not None:
        pieces.append(ast.Slice(part.upper, None, None))
    out = []
    for piece in pieces:
        index = [ast.Slice(None, None, None)] * axis + [piece]
        out.append(index[0] if len(index) == 1 else ast.Tuple(index, ast.Load()))
    return out


def _is_int(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


__all__ = ["write_first_results"]
