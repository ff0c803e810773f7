"""Tests kept whole in batched code (ad/batching.py): ``x > 0.5 * y``, ``np.abs(r) <= c``, and the
tests a gradient writes, ``t1 == np.expand_dims(t2, 1)`` (the maximum's adjoint along an axis),
``np.expand_dims(s, 1) == 0`` (the standard deviation's), ``x > np.mean(x)``.

Such a test is one node whose expression NumPy evaluates at once, so its batched names are read as
whole batches.  That is right for operators and elementwise ufuncs (each row meets its own row),
silently wrong for a call that reads across axes (``np.mean(x)`` would average the batch).  The calls
NumPy spells with an axis, ``np.expand_dims`` and the reductions (``np.max(x, axis=1)``,
``x.mean()``), are rewritten for rows as their own rules do (the axis moved past the batch axis; None
becomes every axis of a row); any other call or index of a batched value is refused where the test is
read (`Batching.wrong_rows`).  A part that reads no batched value is computed once, as written.
"""

from __future__ import annotations

import ast
import copy

import numpy as np

from ..ir.nodes import Var
from .batching_rules import elementwise, literal

_OPERATORS = (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp)
#: reductions a test may hold (``x > np.mean(x)``), with the keywords they take here
_REDUCTIONS = {"sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "all", "any", "ptp"}


class _NotRows(Exception):
    """A part of the test that cannot be read for rows."""


def kept_test(expr: ast.expr) -> bool:
    """Whether `expr`, a value with no gradient kept whole, is a test written in the code: a comparison,
    ``and``/``or``/``not``, ``&``/``|``/``^``, or ``np.all``/``np.any`` of one (``if np.all(x > -1.5):``)."""
    if isinstance(expr, ast.BinOp):
        return isinstance(expr.op, (ast.BitAnd, ast.BitOr, ast.BitXor))
    if _astype(expr):  # (``(x > 0.2).astype(int)``: a mask of numbers, row by row as the test)
        return kept_test(expr.func.value)
    if isinstance(expr, ast.Call):
        return isinstance(expr.func, ast.Attribute) and expr.func.attr in ("all", "any") \
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np"
    return isinstance(expr, (ast.Compare, ast.BoolOp, ast.UnaryOp))


def whole_kind(node, state) -> str:
    """How a test kept whole is batched: ``"elementwise"`` (operators and ufuncs of names, the
    batching rule of arithmetic) or ``"whole_test"`` (it holds reductions or ``np.expand_dims`` of
    batched values, `whole_test`).  Any other is recorded in `state.wrong_rows`, refused where read."""
    try:
        if _plain(node.expr):
            return "elementwise"
        _rows(node.expr, _batched(node, state), state, node)
    except _NotRows:
        state.wrong_rows[node.out.name] = (
            node, f"the test `{ast.unparse(node.expr)}` computes a value inside it (a call or an index), "
            "which batching would compute over the whole batch",
            "assign that value to a name on a line of its own before the test")
        return "elementwise"
    return "whole_test"


def whole_test(node, state):
    """The test for rows (`_rows`): each reduction or ``np.expand_dims`` of a batched value with its
    axis moved past the batch axis, each batched operand of an operator given axes of length one after
    its batch axis up to the operator's axes a row, so that NumPy lines rows up with rows as it does
    without the batch axis."""
    expr, _ = _rows(node.expr, _batched(node, state), state, node)
    return expr, True


def _batched(node, state) -> set[str]:
    return {v.name for v in node.inputs if isinstance(v, Var) and state.batched(v)}


def _plain(expr: ast.expr) -> bool:
    """Whether `expr` is operators and elementwise ufuncs of names and constants (the batching rule of
    arithmetic reads it right)."""
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in ("np", "math"):
            continue  # a constant or a function of a module (np.pi, np.abs)
        if isinstance(sub, ast.Call) and not sub.keywords and _ufunc(sub.func):
            continue  # np.abs(r) <= c, abs(r) <= c: elementwise, the same over rows as over one
        if isinstance(sub, (ast.MatMult, ast.Not, ast.BoolOp)):  # (a product reads across a row's axes:
            # `_product`; Python's `not`, `and`, `or` ask an array for one truth value: `_logical`)
            return False
        if isinstance(sub, (*_OPERATORS, ast.Name, ast.Constant, ast.Load, ast.cmpop, ast.boolop, ast.unaryop,
                            ast.operator)):
            continue
        return False
    return True


def _ufunc(func: ast.expr) -> bool:
    if isinstance(func, ast.Name) and func.id == "abs":  # (Python's abs of an array is np.abs)
        return True
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np" \
        and isinstance(getattr(np, func.attr, None), np.ufunc)


def _reads(expr: ast.expr, batched: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in batched for n in ast.walk(expr))


#: the operands of an elementwise node, by its kind
_OPERANDS = {ast.BinOp: ("left", "right"), ast.Compare: ("left", "comparators"), ast.BoolOp: ("values",),
             ast.UnaryOp: ("operand",), ast.Call: ("args",)}


def _rows(sub: ast.expr, batched: set[str], state, node) -> tuple[ast.expr, int | None]:
    """(`sub` for rows, a row's number of axes), or (`sub`, None) for a part that reads no batched value
    (computed once, as written).  A new expression: the IR's is left as it is.  Raises `_NotRows` for a
    part that reads one and is neither a name, an operator or ufunc of such parts, nor `_call`'s."""
    if not _reads(sub, batched):
        return sub, None
    if isinstance(sub, ast.Name):
        return copy.deepcopy(sub), _rank_of(sub.id, node, state)
    if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.MatMult):
        return _product(sub.left, sub.right, batched, state, node)
    if isinstance(sub, ast.Call) and _is_np(sub.func, "dot") and len(sub.args) == 2 and not sub.keywords:
        return _product(sub.args[0], sub.args[1], batched, state, node, dot=True)
    if isinstance(sub, ast.Subscript):
        return _index(sub, batched, state, node)
    if _astype(sub) and not _reads(sub.args[0], batched):  # elementwise: each row's as its own
        inner, rank = _rows(sub.func.value, batched, state, node)
        return ast.Call(ast.Attribute(inner, "astype", ast.Load()), copy.deepcopy(sub.args), []), rank
    elementwise = isinstance(sub, _OPERATORS) or (isinstance(sub, ast.Call) and not sub.keywords and _ufunc(sub.func))
    if not elementwise:
        if isinstance(sub, ast.Call):
            return _call(sub, batched, state, node)
        raise _NotRows
    fields = _OPERANDS[type(sub)]
    operands = [o for f in fields for o in _listed(getattr(sub, f))]
    done = [_rows(o, batched, state, node) for o in operands]
    ranks = [r if r is not None else _plain_rank(o, node, state) for o, (_, r) in zip(operands, done)]
    if None in ranks:  # a part without rows whose axes are not known: rows cannot be lined up with it
        raise _NotRows
    rank = max(ranks)
    lined = iter([e if r is None or r >= rank else _expanded(e, r, rank) for e, r in done])
    new = copy.copy(sub)
    for f in fields:
        value = getattr(sub, f)
        setattr(new, f, [next(lined) for _ in value] if isinstance(value, list) else next(lined))
    return _logical(new, sub), rank


def _logical(sub: ast.expr, written: ast.expr) -> ast.expr:
    """``not a``, ``a and b``, ``a or b`` of rows as NumPy's elementwise logic (Python's ask an array for
    one truth value: a ValueError, or for a batch of one, that row's alone).  ``and``/``or`` only of
    truth values (`written`'s operands tests): of numbers Python's give an operand, not a truth value."""
    if isinstance(written, ast.BoolOp) and not all(
            isinstance(v, (ast.Compare, ast.BoolOp)) or (isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.Not))
            for v in written.values):
        raise _NotRows
    def np_(name, *args):
        return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), list(args), [])
    if isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.Not):
        return np_("logical_not", sub.operand)
    if isinstance(sub, ast.BoolOp):
        name = "logical_and" if isinstance(sub.op, ast.And) else "logical_or"
        out = sub.values[0]
        for v in sub.values[1:]:
            out = np_(name, out, v)
        return out
    return sub


def _astype(expr: ast.expr) -> bool:
    """Whether `expr` is ``<value>.astype(<dtype>)`` (one argument, no keywords)."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "astype" \
        and len(expr.args) == 1 and not expr.keywords


def _listed(value) -> list:
    return value if isinstance(value, list) else [value]


def _expanded(expr: ast.expr, own: int, rank: int) -> ast.expr:
    """Rows of `own` axes with axes of length one after the batch axis, up to `rank` a row."""
    if not isinstance(expr, (ast.Name, ast.Call, ast.Subscript, ast.Attribute)):  # (``(s / 2)[:, None]``: the
        # rendered code would lose the parentheses)
        return ast.Call(ast.Name("expand_rows", ast.Load()), [expr, ast.Constant(rank)], [])
    parts = [ast.Slice(None, None, None)] + [ast.Constant(None)] * (rank - own)
    return ast.Subscript(expr, ast.Tuple(parts, ast.Load()), ast.Load())


def _rank_of(name: str, node, state) -> int:
    rank = state.ndim(Var(name), node, required=False)
    if rank is None:
        raise _NotRows
    return rank


def _plain_rank(sub: ast.expr, node, state) -> int | None:
    """A row's axes of a part of a test without rows: a constant's, a name's; None where unknown."""
    if isinstance(sub, ast.Constant):
        return int(np.ndim(sub.value))
    if isinstance(sub, ast.UnaryOp) and isinstance(sub.operand, ast.Constant):  # (``x > -1.5``)
        return int(np.ndim(sub.operand.value))
    if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in ("np", "math"):
        return 0
    if isinstance(sub, ast.Name):
        try:
            return _rank_of(sub.id, node, state)
        except _NotRows:
            return None
    if isinstance(sub, ast.Subscript):  # ``A[0]``: its numbers drop axes, its slices keep them
        rank = _plain_rank(sub.value, node, state)
        parts = list(sub.slice.elts) if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        if rank is None or len(parts) > rank or not all(
                isinstance(p, ast.Slice) or type(_constant(p)) is int for p in parts):
            return None
        return rank - sum(not isinstance(p, ast.Slice) for p in parts)
    return None


def _is_np(func: ast.expr, name: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name) \
        and func.value.id in ("np", "numpy")


def _product(left: ast.expr, right: ast.expr, batched: set[str], state, node, dot: bool = False):
    """``a @ b`` (``np.dot(a, b)``) in a test, an operand batched: each row's product
    (rules/batching_linalg_helpers.py's `matmul_rows`), and a row's axes."""
    (a, ra), (b, rb) = _rows(left, batched, state, node), _rows(right, batched, state, node)
    ra_ = ra if ra is not None else _plain_rank(left, node, state)
    rb_ = rb if rb is not None else _plain_rank(right, node, state)
    if ra_ is None or rb_ is None or 0 in (ra_, rb_) or (dot and (ra_ > 2 or rb_ > 2)):
        raise _NotRows
    rank = 0 if ra_ == rb_ == 1 else ra_ - 1 if rb_ == 1 else rb_ - 1 if ra_ == 1 else max(ra_, rb_)
    call = ast.Call(ast.Name("matmul_rows", ast.Load()), [a, b, ast.Constant(ra is not None),
                                                          ast.Constant(rb is not None)], [])
    return call, rank


def _index(sub: ast.Subscript, batched: set[str], state, node):
    """``x[0]``, ``x[1:, 2]`` of a batched `x` with parts known when the code is made (numbers, slices of
    numbers) in a test: the index past the batch axis, and a row's axes."""
    inner, rank = _rows(sub.value, batched, state, node)
    parts = list(sub.slice.elts) if isinstance(sub.slice, ast.Tuple) else [sub.slice]
    added = sum(_is_none(p) for p in parts)  # (``x[:, None]``: an axis of length one, after the batch axis too)
    if rank is None or _reads(sub.slice, batched) or len(parts) - added > rank:
        raise _NotRows
    dropped = -added
    for p in parts:
        if isinstance(p, ast.Slice):
            if any(e is not None and type(_constant(e)) is not int for e in (p.lower, p.upper, p.step)):
                raise _NotRows
        elif type(_constant(p)) is int:
            dropped += 1
        elif not _is_none(p):  # (an array of positions, an Ellipsis, ...: NumPy may move axes)
            raise _NotRows
    new = ast.Subscript(inner, ast.Tuple([ast.Slice(None, None, None), *copy.deepcopy(parts)], ast.Load()),
                        ast.Load())
    return new, rank - dropped


def _is_none(part: ast.expr) -> bool:
    """Whether an index part is None (or ``np.newaxis``): a new axis."""
    return isinstance(part, ast.Constant) and part.value is None or _is_np(part, "newaxis")


def _constant(expr: ast.expr):
    try:
        return ast.literal_eval(expr)
    except ValueError:
        return None


def _call(sub: ast.Call, batched: set[str], state, node) -> tuple[ast.expr, int]:
    """``np.expand_dims(x, axis)``, ``np.max(x, axis=1)``, ``x.mean()`` of a batched `x` (`_rows`) for
    rows: (the call with its axis moved past the batch axis, a row's axes)."""
    func = sub.func
    if not isinstance(func, ast.Attribute):
        raise _NotRows
    module = isinstance(func.value, ast.Name) and func.value.id == "np"
    args = list(sub.args) if module else [func.value, *sub.args]
    if not args:
        raise _NotRows
    operand = args[0]
    inner, rank = _rows(operand, batched, state, node)
    if rank is None or any(_reads(a, batched) for a in args[1:]) or any(_reads(k.value, batched) for k in sub.keywords):
        raise _NotRows
    keywords = {k.arg: k.value for k in sub.keywords}
    if func.attr == "expand_dims" and module and len(args) == 2 and not keywords:
        axis = _literal(args[1])
        count = len(axis) if isinstance(axis, tuple) else 1
        out = rank + count
        moved = tuple(a % out + 1 for a in axis) if isinstance(axis, tuple) else axis % out + 1
        return ast.Call(copy.deepcopy(func), [inner, literal(moved)], []), out
    if func.attr not in _REDUCTIONS or len(args) > 2 or set(keywords) - {"axis", "keepdims"} \
            or (len(args) == 2 and "axis" in keywords):
        raise _NotRows
    axis = _literal(args[1]) if len(args) == 2 else _literal(keywords["axis"]) if "axis" in keywords else None
    keep = _literal(keywords["keepdims"]) if "keepdims" in keywords else False
    if keep not in (True, False) or (axis is not None and rank == 0):
        raise _NotRows
    if axis is None:
        moved, count = tuple(range(1, rank + 1)), rank
    elif isinstance(axis, tuple):
        moved, count = tuple(a % rank + 1 for a in axis), len(axis)
    else:
        moved, count = axis % rank + 1, 1
    call = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), func.attr, ast.Load()), [inner],
                    [ast.keyword("axis", literal(moved)), ast.keyword("keepdims", literal(keep))])
    return call, rank if keep else rank - count


def _literal(expr: ast.expr):
    try:
        value = ast.literal_eval(expr)
    except ValueError:
        raise _NotRows from None
    if not (value is None or type(value) in (int, bool) or (type(value) is tuple and all(type(a) is int
                                                                                            for a in value))):
        raise _NotRows
    return value


#: NumPy's truth reductions: called with no rule of their own (their values carry no gradient), kept as written
_TRUTHS = {"all": np.all, "any": np.any, "count_nonzero": np.count_nonzero}


def truth_rule(node):
    """`truth_reduction` for a call of np.all, np.any or np.count_nonzero kept as written
    (``ok = np.all(np.abs(x) < 2.0)``), else None."""
    func = getattr(node.rule, "func", None)
    return truth_reduction if any(func is f for f in _TRUTHS.values()) else None


def truth_reduction(node, state):
    """``np.all(x)``, ``np.any(x, axis=0)``, ``np.count_nonzero(x)`` of each row: the axis moved past the
    batch axis (None: every axis of a row), as the reductions' rule does (ad/batching_rules.py)."""
    expr, x = node.expr, node.inputs[0] if len(node.inputs) == 1 else None
    name = next(k for k, f in _TRUTHS.items() if node.rule.func is f)
    given = dict(zip(("axis", "keepdims"), expr.args[1:])) if isinstance(expr, ast.Call) else {}
    given.update({k.arg: k.value for k in getattr(expr, "keywords", [])})
    if x is None or len(expr.args) < 1 or not isinstance(expr.args[0], ast.Name) or set(given) - {"axis", "keepdims"}:
        state.refuse(node, f"np.{name} written this way has no batching rule", f"write np.{name}(x, axis=...)")
    rank = state.ndim(x, node)
    try:
        axis = ast.literal_eval(given["axis"]) if "axis" in given else None
    except ValueError:
        axis = False
    if axis is False or (axis is None and rank == 0 and name == "count_nonzero"):
        state.refuse(node, f"np.{name} with this axis has no batching rule", "give the axis as a number")
    axes = axis if isinstance(axis, tuple) else (axis,)
    new = tuple(range(1, rank + 1)) if axis is None else tuple(a + 1 if a >= 0 else a for a in axes)
    keywords = [ast.keyword("axis", literal(new if isinstance(axis, tuple) or axis is None else new[0]))]
    keywords += [ast.keyword("keepdims", copy.deepcopy(given["keepdims"]))] if "keepdims" in given else []
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), [state.ref(x)], keywords), True


def extreme(node, state):
    """Python's ``max(a, b)`` / ``min(a, b)`` of numbers with a batch axis: ``np.where(b > a, b, a)``
    (``b < a`` for min), which is Python's choice on every row (the first operand unless the second is
    strictly beyond it, a NaN first kept) in one dtype for the whole batch.  (Called row by row, each row
    returned whichever operand it picked, a Python 0 beside NumPy floats: rows of several dtypes sent
    the call to vmap's loop over the examples or not, depending on which sides the examples took.)"""
    expr, _ = elementwise(node, state)
    if not (isinstance(expr, ast.Call) and len(expr.args) == 2 and not expr.keywords):
        state.refuse(node, f"{node.rule.name}() of a batched value written this way has no batching rule",
                     f"write np.{node.rule.name}imum(a, b)")
    first, second = expr.args
    op = ast.Gt() if node.rule.name == "max" else ast.Lt()
    test = ast.Compare(second, [op], [copy.deepcopy(first)])
    where = ast.Attribute(ast.Name("np", ast.Load()), "where", ast.Load())
    return ast.Call(where, [test, copy.deepcopy(second), first], []), True


KINDS = {"whole_test": whole_test, "extreme": extreme}

__all__ = ["KINDS", "kept_test", "truth_rule", "whole_kind"]
