"""Where a tie persists: the operands of ``np.maximum`` / ``np.minimum`` (and ``fmax``, ``fmin``,
builtin ``max`` / ``min``) that are the same function near the point.

A derivable gradient (one srcdiff differentiates again) gives each operand of a tie half the
adjoint, ``tie(x == y, g, x, y)``, and that share jumps where the tie ends, so its derivative
is NaN there (rules/kinks.py).  Equal tangents of ``x`` and ``y`` do not make it 0: the
operands may still part at second order (``np.maximum(x * x, 2 * x - 1)`` at 1, whose Hessian
is 2, not the shares' 1).  What does make it 0 is a tie that holds on a whole neighbourhood,
and this module proves that from the program: ``x`` and ``y`` are computed by the same
primitives from the same values, except where one side passes through a ``clip``, ``maximum``
or ``minimum`` that strictly selects one of its operands there (PPO's
``np.minimum(r * adv, np.clip(r, lo, hi) * adv)``, where ``lo < r < hi``).  The strict
inequalities, true at the point, stay true nearby, so there the two sides are one function.
The proof is a condition the generated code evaluates (``(r > lo) & (r < hi)``), passed to the
tie as its `persist` operand; no proof, no operand (NaN at the tie, as before).
"""

from __future__ import annotations

import ast
import builtins
import copy

import numpy as np

from ..ir.nodes import Const, Global, Node, Operand, UserCall, Var, operand_ast
from .zero_diagonals import diagonal_persistence

#: the primitives whose derivable adjoint is a tie of their two operands
TIED = (np.maximum, np.minimum, np.fmax, np.fmin, builtins.max, builtins.min)
GREATER = (np.maximum, np.fmax, builtins.max)
DEPTH = 8  # how many primitives deep the two sides are compared


def persistence(node: Node, definitions: dict[str, Node]) -> ast.expr | None:
    """The condition under which `node`'s two operands are one function near the point (an
    expression over primal values, True where they are the very same value), or None."""
    if getattr(node.rule, "func", None) not in TIED or len(node.inputs) != 2:
        return None
    terms = _same(node.inputs[0], node.inputs[1], definitions, DEPTH)
    for tied, other in (node.inputs, node.inputs[::-1]):
        if terms is None:  # (a difference of one function with itself, tied with 0: at every point)
            terms = _difference_of_same(tied, other, definitions)
    if terms is None:  # (a pairwise squared distance clipped at 0: tied on its diagonal)
        return diagonal_persistence(*node.inputs, definitions) or diagonal_persistence(*node.inputs[::-1], definitions)
    if not terms:
        return ast.Constant(True)
    condition = terms[0]
    for term in terms[1:]:
        condition = ast.BinOp(condition, ast.BitAnd(), term)
    return condition


def clip_persistence(node: Node, definitions: dict[str, Node]) -> dict | None:
    """For ``np.clip(x, lo, hi)``, whose derivable adjoint ties x with each bound (and the bounds
    with each other): ``(x's code, the bound's code)`` -> the condition under which the two are one
    function near the point (``np.clip(x, x, 3.0)``: x and its lower bound, at every point), for the
    pairs srcdiff proves; None where it proves none."""
    if getattr(node.rule, "func", None) is not np.clip or len(node.inputs) != 3:
        return None
    found = {}
    for i, j in ((0, 1), (0, 2), (1, 2)):
        terms = _same(node.inputs[i], node.inputs[j], definitions, DEPTH)
        if terms is not None and not _none(node.inputs[i]) and not _none(node.inputs[j]):
            condition: ast.expr = ast.Constant(True)
            for k, term in enumerate(terms):
                condition = term if k == 0 else ast.BinOp(condition, ast.BitAnd(), term)
            x, y = (ast.unparse(operand_ast(node.inputs[k])) for k in (i, j))
            found[x, y] = condition
            if (i, j) == (0, 2) and not _none(node.inputs[1]):  # (a_max's share ties np.maximum(x, a_min) with it)
                above = ast.BinOp(condition, ast.BitAnd(), _compare(node.inputs[0], ast.Gt(), node.inputs[1]))
                found[ast.unparse(ast.parse(f"np.maximum({x}, {ast.unparse(operand_ast(node.inputs[1]))})")), y] = above
        elif (i, j) == (0, 1) and (diagonal := diagonal_persistence(node.inputs[0], node.inputs[1], definitions)):
            # (a pairwise squared distance clipped at 0 below: tied with its bound on its diagonal)
            found[tuple(ast.unparse(operand_ast(node.inputs[k])) for k in (0, 1))] = diagonal
    return found or None


def with_persistence(contribution: ast.expr, persist) -> ast.expr:
    """`contribution` with `persist` passed to each ``tie(condition, g, x, y)`` it calls (a dict, from
    `clip_persistence`: to the ties of the pairs it names)."""

    class Add(ast.NodeTransformer):
        def visit_Call(self, call: ast.Call):
            self.generic_visit(call)
            if isinstance(call.func, ast.Name) and call.func.id == "tie" and len(call.args) == 4:
                if not isinstance(persist, dict):
                    call.args.append(persist)
                elif (ast.unparse(call.args[2]), ast.unparse(call.args[3])) in persist:
                    call.args.append(copy.deepcopy(persist[ast.unparse(call.args[2]), ast.unparse(call.args[3])]))
            return call

    return Add().visit(contribution)


def zero_persistence(operand: Operand, definitions: dict[str, Node]) -> ast.expr | None:
    """The condition under which `operand` is ``a - b`` of two operands that are one function near the
    point (``r - np.clip(r, -d, d)``: ``(r > -d) & (r < d)``), so 0 on a neighbourhood; or None."""
    terms = _difference_of_same(operand, Const(0.0), definitions)
    if not terms:
        return None if terms is None else ast.Constant(True)
    condition = terms[0]
    for term in terms[1:]:
        condition = ast.BinOp(condition, ast.BitAnd(), term)
    return condition


def _difference_of_same(tied: Operand, other: Operand, definitions: dict[str, Node]) -> list[ast.expr] | None:
    """Conditions under which `tied` is ``a - b`` of two operands that are one function near the point
    and `other` the constant 0 (``np.maximum(x - x, 0.0)``: 0 whatever x is), or None."""
    node = _defined(tied, definitions)
    if node is None or node.rule.name not in ("operator.sub", "numpy.subtract") or len(node.inputs) != 2 \
            or not (isinstance(other, Const) and type(other.value) in (int, float) and other.value == 0):
        return None
    return _same(node.inputs[0], node.inputs[1], definitions, DEPTH - 1)


def _plain(operand: Operand) -> bool:
    """An operand whose equality means the same value (not an array literal)."""
    return isinstance(operand, (Var, Global)) or (
        isinstance(operand, Const) and isinstance(operand.value, (bool, int, float, type(None))))


def _same(a: Operand, b: Operand, definitions: dict[str, Node], depth: int) -> list[ast.expr] | None:
    """Conditions (all must hold) under which `a` and `b` are one function near the point."""
    if _plain(a) and _plain(b) and type(a) is type(b) and a == b:
        return []
    if depth == 0:
        return None
    for side, other in ((a, b), (b, a)):
        for picked, conditions in _selected(side, definitions):
            rest = _same(picked, other, definitions, depth - 1)
            if rest is not None:
                return conditions + rest
    first, second = _defined(a, definitions), _defined(b, definitions)
    squares = _square_of(first), _square_of(second)
    if None not in squares:  # x ** 2, x * x, np.square(x): one function
        return _same(squares[0], squares[1], definitions, depth - 1)
    if first is None or second is None or first.rule is not second.rule or len(first.inputs) != len(second.inputs):
        return None
    try:
        if not bool(first.static == second.static) or _pattern(first) != _pattern(second):
            return None
    except (TypeError, ValueError):  # statics that do not compare as one truth value
        return None
    terms: list[ast.expr] = []
    for p, q in zip(first.inputs, second.inputs):
        found = _same(p, q, definitions, depth - 1)
        if found is None:
            return None
        terms += found
    # an elementwise primitive's conditions broadcast to its value's shape; any other (a sum,
    # a product of matrices) mixes elements, so only operands that are the very same values
    # make its values the same
    return terms if first.rule.elementwise or not terms else None


_POWERS = {"numpy.power", "operator.pow", "numpy.float_power"}
_PRODUCTS = {"operator.mul", "numpy.multiply"}


def _square_of(node: Node | None) -> Operand | None:
    """The operand `node` squares (``x ** 2``, ``x * x``, ``np.square(x)``), or None."""
    if node is None:
        return None
    name, inputs = node.rule.name, node.inputs
    if name in _POWERS and len(inputs) == 2 and isinstance(inputs[1], Const) and inputs[1].value == 2 \
            or name == "numpy.square" and len(inputs) == 1:
        return inputs[0]
    if name in _PRODUCTS and len(inputs) == 2 and _plain(inputs[0]) and inputs[0] == inputs[1]:
        return inputs[0]
    return None


def _pattern(node: Node) -> str:
    """`node`'s expression with its operands' names by position: what the call reads besides its
    operands and statics (``v[0]`` and ``v[1]``: one operand, two constant indices) must agree."""
    names = {v.name: f"operand_{i}" for i, v in enumerate(node.inputs) if isinstance(v, Var)}
    return ast.dump(_Renamed(names).visit(ast.parse(ast.unparse(node.expr), mode="eval").body))


class _Renamed(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node: ast.Name):
        return ast.Name(self.names.get(node.id, node.id), node.ctx)


def _defined(operand: Operand, definitions: dict[str, Node]) -> Node | None:
    """The pure primitive call that computed `operand` in this block, or None."""
    node = definitions.get(operand.name) if isinstance(operand, Var) else None
    if node is None or isinstance(node, UserCall) or not getattr(node.rule, "pure", False):
        return None
    return node


def _selected(operand: Operand, definitions: dict[str, Node]):
    """(operand, conditions) pairs: `operand` is that operand of its clip / maximum / minimum
    wherever the strict conditions hold, hence on a neighbourhood of the point."""
    node = _defined(operand, definitions)
    func = getattr(node.rule, "func", None) if node is not None else None
    if func is np.clip and len(node.inputs) == 3:
        x, low, high = node.inputs
        conditions = [_compare(x, ast.Gt(), bound) for bound in (low, high)[:1] if not _none(bound)]
        conditions += [_compare(x, ast.Lt(), bound) for bound in (high,) if not _none(bound)]
        if conditions:
            yield x, conditions
    elif func in TIED and len(node.inputs) == 2:
        u, w = node.inputs
        wins = ast.Gt() if func in GREATER else ast.Lt()
        yield u, [_compare(u, wins, w)]
        yield w, [_compare(w, wins, u)]


def _none(operand: Operand) -> bool:
    return isinstance(operand, Const) and operand.value is None


def _compare(left: Operand, op: ast.cmpop, right: Operand) -> ast.expr:
    return ast.Compare(operand_ast(left), [op], [operand_ast(right)])
