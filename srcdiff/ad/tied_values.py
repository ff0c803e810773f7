"""A kink's or a tie's value in a gradient srcdiff differentiates again: ``tied(value, condition, x, y)``.

Forward over reverse (``hvp``, ``jvp(grad)``, ``hessian``) differentiates the gradient's forward sweep
too, and a value computed there by ``np.maximum(x, y)`` (``np.minimum``, ``fmax``, ``fmin``, builtin
``max`` / ``min``, ``np.clip``, ``np.abs``) at its tie has no derivative along a line where its operands
part: the first-order convention (the mean of the operands' tangents) is not one.  A gradient that reads
that value (the ``x[1]`` component of ``np.maximum(x[0], 0.0) * x[1]``, or every component after a hidden
value carried through relu, ``h = np.maximum(h, 0.0) * w + x[i]``) would get a finite number where its
derivative does not exist.  So the derivable sweep writes the value as `tied`'s operand: its value is
the value, its tangent NaN where the tie holds and an operand's tangent is not 0 (rules/kinks.py), 0
where nothing moves; and no NaN where srcdiff proves the tie persists near the point, or the value is a
flat zero read only as a power above 2 (the same `persist` its shares get: ad/ties.py, ad/flat_ties.py).
"""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
import math

import numpy as np

from ..ir.nodes import Node, Var, operand_ast
from .flat_ties import flat_condition
from .ties import TIED, clip_persistence, persistence, zero_persistence

_ABS = (np.absolute, np.fabs, builtins.abs, math.fabs)


def tie_persistence(node: Node, sweep, in_loop: bool) -> ast.expr | dict | None:
    """The `persist` operand of the shares of `node` (a tie): proved persistent (ad/ties.py), or a flat
    zero (ad/flat_ties.py); None outside a derivable gradient, in a loop, or where nothing is proved."""
    if not sweep.derivable or in_loop or getattr(node.rule, "func", None) not in TIED + (np.clip,):
        return None
    persist = persistence(node, sweep.definitions)
    flat = flat_condition(node, sweep.flat)
    if flat is None:  # (np.clip(x, x, 3.0): x and its bound tied at every point)
        return persist if persist is not None else clip_persistence(node, sweep.definitions)
    return flat if persist is None else ast.BinOp(persist, ast.BitOr(), flat)


#: comparisons whose boundary (the operands equal) is where np.where's selection switches
_ORDERS = (ast.Gt, ast.GtE, ast.Lt, ast.LtE)


def tied_node(node: Node, sweep, in_loop: bool, definitions: dict) -> Node:
    """`node` itself, or, in a derivable gradient, a copy computing ``tied(value, ...)`` (module docstring)
    where it is an active kink or tie: also ``np.where(a > b, x, y)`` (a leaky relu) at a == b.
    `definitions`: value name -> the node computing it."""
    func = getattr(node.rule, "func", None)
    if not sweep.derivable or sweep.once or node.out.name not in sweep.active or not isinstance(node.out, Var):
        return node  # (`once`: vmap's form of a gradient, batched and run, not differentiated again)
    operands = [operand_ast(v) for v in node.inputs]
    value = node.expr
    if func in _ABS and len(operands) == 1:
        condition = None if in_loop else flat_condition(node, sweep.flat) or zero_persistence(node.inputs[0],
                                                                                              sweep.definitions)
        value = _tied(value, operands[0], ast.Constant(0.0), _at_operand(condition, node, operands[0]))
    elif func in TIED and len(operands) == 2:
        persist = tie_persistence(node, sweep, in_loop)
        value = _tied(value, operands[0], operands[1], _at_operand(persist, node, operands[0]))
    elif func is np.clip and len(operands) == 3:
        persist = tie_persistence(node, sweep, in_loop)
        for bound in operands[1:]:
            if not (isinstance(bound, ast.Constant) and bound.value is None):
                pair = persist.get((ast.unparse(operands[0]), ast.unparse(bound))) if isinstance(persist, dict) \
                    else persist
                value = _tied(value, operands[0], bound, _at_operand(pair, node, operands[0]))
    elif func is np.sort and len(operands) == 1:  # (its tie's NaN: rules/sort_ties.py)
        axis = ast.keyword("axis", ast.Constant(node.static.get("axis", -1)))
        value = ast.Call(ast.Name("sorted_tied", ast.Load()), [value, copy.deepcopy(operands[0])],
                         [axis, ast.keyword("own", ast.Constant(True))])
    elif func is np.where and len(operands) == 3 and (test := _comparison(node.inputs[0], definitions)):
        value = _tied(value, test.left, test.comparators[0], None)
    else:
        return node
    return dataclasses.replace(node, expr=value)


def _comparison(operand, definitions: dict) -> ast.Compare | None:
    """The test ``a > b`` (``>=``, ``<``, ``<=``) that computed `operand`, or None."""
    found = definitions.get(operand.name) if isinstance(operand, Var) else None
    test = getattr(found, "expr", None) if getattr(getattr(found, "rule", None), "name", None) == "compare" else None
    ok = isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], _ORDERS)
    return test if ok else None


def _tied(value: ast.expr, x: ast.expr, y: ast.expr, persist) -> ast.expr:
    condition = ast.Compare(copy.deepcopy(x), [ast.Eq()], [copy.deepcopy(y)])
    args = [value, condition, copy.deepcopy(x), copy.deepcopy(y)] + ([persist] if persist is not None else [])
    return ast.Call(ast.Name("tied", ast.Load()), args, [])


def _at_operand(persist, node: Node, x: ast.expr):
    """`persist` with the node's own value read as its operand `x` (equal to it where the tie holds, the
    only place `persist` is read): the flat zero ``np.equal(m, 0.0)`` is tested before m is assigned."""
    if persist is None or isinstance(persist, dict):
        return None if isinstance(persist, dict) else persist

    class Swap(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            return copy.deepcopy(x) if name.id == node.out.name else name

    return Swap().visit(copy.deepcopy(persist))


__all__ = ["tie_persistence", "tied_node"]
