"""Masked values in batched code (ad/batching.py): ``x[m]`` with a boolean mask `m` that differs
between examples picks each example's own number of items, which no array with a batch axis holds.
Where the masked value is only combined elementwise and then summed (``np.sum(x[x > 0] * w[x > 0])``,
``np.mean(x[m] ** 2)``, and a gradient's code of them: ``np.full(np.shape(t), 1.0)``, ``unbroadcast``,
``index_add(zeros_like(x), m, g)``), it is batched as *masked rows*: the whole of each row, the mask
beside it (`Batching.masks`), the positions the mask leaves out read by nothing:

- ``x[m]``: x's rows (masked_rows checks when run that m is a boolean mask as long as a row of x);
- an elementwise operation (``np.maximum``, a gradient's ``select``) of masked rows and numbers: masked
  rows of the same mask (two masks made apart, ``x[x > 0] * w[x > 0]``, are checked equal when run:
  masks_agree);
- ``np.sum``/``np.mean``/``np.prod`` of all of a masked value: ``np.sum(np.where(m, v, 0))`` (over
  ``np.sum(m)``), ``np.prod(np.where(m, v, 1))``, and the product's adjoint of each row likewise;
  its ``len`` or ``np.size``: each row's count, ``np.sum(m)``;
- ``np.shape(v)`` asked only to make ``np.full(shape, c)`` or ``zeros_like(v)``: a row's whole shape,
  masked rows again; ``index_add(base, m, g)``: ``base + np.where(m, g, 0)`` (index_add_masked).

Rows of one axis only (a mask of a row's matrix flattens it).  Anything else that reads a masked value
(its length, an index of it, a product, a list, the function's result) is refused at its line, and
vmap runs one example at a time as before; a check that fails when run does the same.
"""

from __future__ import annotations

import ast

from ..ir.nodes import Var
from ..ir.program import Assign, Run
from .batching_rules import call, literal

#: reductions of all of a masked value: the value at the positions the mask leaves out
_REDUCED = {"numpy.sum": 0.0, "numpy.mean": 0.0, "numpy.prod": 1.0}


def _mask_of(state, operand):
    return state.masks.get(operand.name) if isinstance(operand, Var) else None


def masked_node(node, state) -> tuple[list, bool]:
    """The statements of `node` where it makes or reads a masked value, and whether they are all of
    them (False: the checks to run first, then the node's own batching rule, its value masked rows)."""
    written = _masked_write(node, state)
    if written is not None:
        return written, True
    reads = [_mask_of(state, v) for v in node.inputs]
    if any(m is not None for m in reads):
        return _reading(node, state, reads)
    if node.rule.name == "getitem" and len(node.inputs) == 2 and isinstance(node.expr, ast.Subscript) \
            and isinstance(node.expr.slice, ast.Name) and isinstance(node.inputs[1], Var) \
            and node.inputs[1].name in state.bools and state.batched(node.inputs[1]):
        x, m = node.inputs
        if state.ndim(m, node, required=False) != 1 or state.ndim(x, node, required=False) != 1:
            return [], False
        state.masks[node.out.name] = m.name
        state.have.add(node.out.name)
        rows = call("masked_rows", state.ref(x), state.ref(m), ast.Constant(state.batched(x)),
                    ast.Name(state.size, ast.Load()))
        return [Assign([node.out.name], rows, node.line)], True
    return [], False


def _masked_write(node, state) -> list | None:
    """``y[m] = v`` (``set_item(y, m, v)``) of a row's vector `y`, `m` a test with a batch axis, `v` a number
    (each row's, or one) or masked rows of the same mask (``0.1 * y[y < 0]``): ``np.where(m, v, y)`` of each
    row (set_masked_rows); None for any other node."""
    if node.rule.batching_kind != "setitem" or len(node.inputs) != 3 or node.static.get("index") != "i0":
        return None
    x, v, m = node.inputs
    if not (isinstance(m, Var) and m.name in state.bools and state.batched(m)) or _mask_of(state, x) is not None \
            or state.ndim(m, node, required=False) != 1 or state.ndim(x, node, required=False) != 1:
        return None
    masked = _mask_of(state, v)
    if masked is None and state.ndim(v, node, required=False) != 0:
        return None
    out = [] if masked is None else [Run(ast.Expr(call("masks_agree", state.ref(m), ast.Name(masked, ast.Load()))),
                                         node.line)]
    state.have.add(node.out.name)
    rows = call("set_masked_rows", state.ref(x), state.ref(m), state.ref(v), ast.Constant(state.batched(x)),
                ast.Constant(masked is None and state.batched(v)))
    return out + [Assign([node.out.name], rows, node.line)]


def _refuse(node, state) -> None:
    state.refuse(node, "a masked value (each example's own number of items) read here cannot be batched",
                 "write the masked sum with np.where (np.sum(np.where(mask, x, 0.0))), or call the function "
                 "once per example")


def _reading(node, state, reads: list) -> tuple[list, bool]:
    masks = [m for m in reads if m is not None]
    mask = masks[0]
    kind = node.rule.batching_kind
    out = []
    for other in dict.fromkeys(masks[1:]):  # two masks made apart: the same positions, or not batched
        if other != mask:
            out.append(Run(ast.Expr(call("masks_agree", ast.Name(mask, ast.Load()), ast.Name(other, ast.Load()))),
                           node.line))
    if node.rule.name in _REDUCED and len(node.inputs) == 1 and set(node.static) <= {"axis", "keepdims"} \
            and node.static.get("axis") in (None, 0, -1) and not node.static.get("keepdims"):
        kept = call("np.where", ast.Name(mask, ast.Load()), state.ref(node.inputs[0]),
                    literal(_REDUCED[node.rule.name]))
        total = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "prod" if node.rule.name == "numpy.prod" else "sum",
                                       ast.Load()), [kept], [ast.keyword("axis", literal(1))])
        if node.rule.name == "numpy.mean":
            count = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "sum", ast.Load()),
                             [ast.Name(mask, ast.Load())], [ast.keyword("axis", literal(1))])
            total = ast.BinOp(total, ast.Div(), count)
        state.have.add(node.out.name)
        return out + [Assign([node.out.name], total, node.line)], True
    if kind == "unbroadcast" and reads[0] is not None and reads[1] is None \
            and state.ndim(node.inputs[1], node, required=False) == 0:  # summed to a number: the masked sum
        kept = call("np.where", ast.Name(mask, ast.Load()), state.ref(node.inputs[0]), literal(0.0))
        state.have.add(node.out.name)
        total = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "sum", ast.Load()), [kept],
                         [ast.keyword("axis", literal(1))])
        return out + [Assign([node.out.name], total, node.line)], True
    if node.rule.name.endswith("prod_adjoint") and reads[:2] == [None, mask] and node.static.get("axis") is None \
            and not node.static.get("keepdims") and state.ndim(node.inputs[0], node, required=False) == 0:
        # the product's adjoint along each row, the positions left out 1 (they change no product): masked rows
        kept = call("np.where", ast.Name(mask, ast.Load()), state.ref(node.inputs[1]), literal(1.0))
        state.have.add(node.out.name)
        state.masks[node.out.name] = mask
        rows = call("prod_adjoint", state.rows(node.inputs[0]), kept, literal(1), literal(False))
        return out + [Assign([node.out.name], rows, node.line)], True
    expr = node.expr
    func = expr.func if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords else None
    if (isinstance(func, ast.Name) and func.id in ("len", "size") or isinstance(func, ast.Attribute)
            and func.attr == "size" and isinstance(func.value, ast.Name) and func.value.id in ("np", "numpy")) \
            and len(node.inputs) == 1:  # each row's own number of items
        state.have.add(node.out.name)
        count = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "sum", ast.Load()), [ast.Name(mask, ast.Load())],
                         [ast.keyword("axis", literal(1))])
        return out + [Assign([node.out.name], count, node.line)], True
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "shape" \
            or isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "shape" \
            and len(node.inputs) == 1:
        state.masks[node.out.name] = mask  # a row's whole shape: only np.full and zeros_like may read it
        state.shaped.add(node.out.name)
        row = ast.Subscript(state.ref(node.inputs[0]), ast.Constant(0), ast.Load())
        return out + [Assign([node.out.name], call("np.shape", row), node.line)], True
    shapes_read = [v for v in node.inputs if isinstance(v, Var) and v.name in state.shaped]
    if shapes_read and not (kind == "full" and node.inputs[0] in shapes_read and len(shapes_read) == 1):
        _refuse(node, state)
    if kind == "index_add":  # (the gradient's scatter of masked rows: where the index, the mask, holds)
        base, index, value = node.inputs[:3]
        if _mask_of(state, base) is not None or _mask_of(state, value) is None or _mask_of(state, index) is not None:
            _refuse(node, state)
        # the index (a mask, or a tuple of one) must be the value's mask: checked when run
        out.append(Run(ast.Expr(call("masks_agree", state.ref(index), ast.Name(_mask_of(state, value), ast.Load()))),
                       node.line))
        state.have.add(node.out.name)
        rows = call("index_add_masked", state.rows(base), state.ref(index), state.ref(value))
        return out + [Assign([node.out.name], rows, node.line)], True
    if kind not in ("elementwise", "like", "unbroadcast", "full", "whole_test", "first", "select") and not (
            kind is None and node.rule.nograd and isinstance(expr, (ast.Compare, ast.UnaryOp, ast.BoolOp))):
        _refuse(node, state)
    if kind == "unbroadcast" and reads[1:2] == [None] or kind == "full" and (reads[0] is None or reads[1:2] != [None]):
        _refuse(node, state)  # (summed back to a shape not masked, or a value per masked row filling a shape)
    for v, m in zip(node.inputs, reads):  # beside masked rows: numbers (their rows), or masked rows
        if m is None and not (kind == "full" and v is node.inputs[1]) and state.ndim(v, node, required=False) != 0:
            _refuse(node, state)
    state.masks[node.out.name] = mask
    return out, False


def carried_masked(names, state, node) -> None:
    """Refuse a loop carrying, or a branch merging, a masked value (its name after them is not masked)."""
    if any(name in state.masks for name in names):
        _refuse(node, state)


__all__ = ["carried_masked", "masked_node"]
