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
from .batching_rules import literal

_OPERATORS = (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp)
#: reductions a test may hold (``x > np.mean(x)``), with the keywords they take here
_REDUCTIONS = {"sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "all", "any", "ptp"}


class _NotRows(Exception):
    """A part of the test that cannot be read for rows."""


def whole_kind(node, state) -> str:
    """How a test kept whole is batched: ``"elementwise"`` (operators and ufuncs of names, the
    batching rule of arithmetic) or ``"whole_test"`` (it holds reductions or ``np.expand_dims`` of
    batched values, `whole_test`).  Any other is recorded in `state.wrong_rows`, refused where read."""
    try:
        if _plain(node.expr):
            return "elementwise"
        _plan(node, state)
    except _NotRows:
        state.wrong_rows[node.out.name] = (
            node, f"the test `{ast.unparse(node.expr)}` computes a value inside it (a call or an index), "
            "which batching would compute over the whole batch",
            "assign that value to a name on a line of its own before the test")
        return "elementwise"
    return "whole_test"


def whole_test(node, state):
    """The test with each batched leaf (a name, or a reduction or ``np.expand_dims`` of one,
    rewritten for rows) given axes of length one after its batch axis up to the test's axes a
    row, so that NumPy lines rows up with rows as it does without the batch axis."""
    leaves, rank = _plan(node, state)

    def rebuilt(sub):  # a copy of the test, its leaves replaced (the IR's expression is left as it is)
        if id(sub) in leaves:
            expr, own = leaves[id(sub)]
            if own >= rank:
                return expr
            parts = [ast.Slice(None, None, None)] + [ast.Constant(None)] * (rank - own)
            return ast.Subscript(expr, ast.Tuple(parts, ast.Load()), ast.Load())
        new = copy.copy(sub)
        for name, value in ast.iter_fields(sub):
            if isinstance(value, list):
                setattr(new, name, [rebuilt(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(new, name, rebuilt(value))
        return new

    return rebuilt(node.expr), True


def _plan(node, state) -> tuple[dict[int, tuple[ast.expr, int]], int]:
    """The batched leaves of the test by the id of their node (`_leaves`) and a row's axes of the
    test: its shape's, else the most of its leaves' (a part without rows whose axes are not known
    raises `_NotRows`)."""
    batched = {v.name for v in node.inputs if isinstance(v, Var) and state.batched(v)}
    others: list = []
    leaves = _leaves(node.expr, batched, state, node, others)
    rank = state.ndim(node.out, node, required=False)
    if rank is None:
        if None in others:
            raise _NotRows
        rank = max([r for _, r in leaves.values()] + others, default=0)
    return leaves, rank


def _plain(expr: ast.expr) -> bool:
    """Whether `expr` is operators and elementwise ufuncs of names and constants (the batching rule of
    arithmetic reads it right)."""
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in ("np", "math"):
            continue  # a constant or a function of a module (np.pi, np.abs)
        if isinstance(sub, ast.Call) and not sub.keywords and _ufunc(sub.func):
            continue  # np.abs(r) <= c: elementwise, the same over rows as over one
        if isinstance(sub, (*_OPERATORS, ast.Name, ast.Constant, ast.Load, ast.cmpop, ast.boolop, ast.unaryop,
                            ast.operator)):
            continue
        return False
    return True


def _ufunc(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np" \
        and isinstance(getattr(np, func.attr, None), np.ufunc)


def _reads(expr: ast.expr, batched: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in batched for n in ast.walk(expr))


def _leaves(expr: ast.expr, batched: set[str], state, node, others: list) -> dict[int, tuple[ast.expr, int]]:
    """The batched leaves of `expr` by the id of their node: (the expression for rows, a row's axes).
    Operators and ufuncs between them are walked through; a part reading no batched value is left as
    it is, its number of axes (None where not known) put in `others`; anything else reading one
    raises `_NotRows`."""
    found: dict[int, tuple[ast.expr, int]] = {}

    def walk(sub):
        if not _reads(sub, batched):
            others.append(_plain_rank(sub, node, state))
            return
        if isinstance(sub, ast.Name):
            found[id(sub)] = (copy.deepcopy(sub), _rank_of(sub.id, node, state))
        elif isinstance(sub, _OPERATORS):
            for child in ast.iter_child_nodes(sub):
                walk(child)
        elif isinstance(sub, ast.Call) and not sub.keywords and _ufunc(sub.func):
            for arg in sub.args:
                walk(arg)
        elif isinstance(sub, ast.Call):
            found[id(sub)] = _call(sub, batched, state, node)
        else:
            raise _NotRows
    walk(expr)
    return found


def _rank_of(name: str, node, state) -> int:
    rank = state.ndim(Var(name), node, required=False)
    if rank is None:
        raise _NotRows
    return rank


def _plain_rank(sub: ast.expr, node, state) -> int | None:
    """A row's axes of a part of a test without rows: a constant's, a name's; None where unknown."""
    if isinstance(sub, ast.Constant):
        return int(np.ndim(sub.value))
    if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in ("np", "math"):
        return 0
    if isinstance(sub, ast.Name):
        try:
            return _rank_of(sub.id, node, state)
        except _NotRows:
            return None
    return None


def _call(sub: ast.Call, batched: set[str], state, node) -> tuple[ast.expr, int]:
    """``np.expand_dims(x, axis)``, ``np.max(x, axis=1)``, ``x.mean()`` of a batched `x` (a name, or
    such a call of one) for rows: (the call with its axis moved past the batch axis, a row's axes)."""
    func = sub.func
    if not isinstance(func, ast.Attribute):
        raise _NotRows
    module = isinstance(func.value, ast.Name) and func.value.id == "np"
    args = list(sub.args) if module else [func.value, *sub.args]
    if not args:
        raise _NotRows
    operand = args[0]
    if isinstance(operand, ast.Name) and operand.id in batched:
        inner, rank = copy.deepcopy(operand), _rank_of(operand.id, node, state)
    elif isinstance(operand, ast.Call):
        inner, rank = _call(operand, batched, state, node)
    else:
        raise _NotRows
    if any(_reads(a, batched) for a in args[1:]) or any(_reads(k.value, batched) for k in sub.keywords):
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


KINDS = {"whole_test": whole_test}

__all__ = ["KINDS", "whole_kind"]
