"""Forward mode's seed mask: where a value moves along the tangent's line at all.

Forward over reverse (``hvp``, ``jvp(grad)``) differentiates a generated gradient whose kinks and
ties (``kink``, ``tie``, rules/kinks.py) have the derivative NaN wherever they hold, whatever the
tangent: an operand stationary at a tie can still be curved (``np.maximum(x * x, 0)`` at 0), so a
zero tangent of the operand is no proof that its share stands still.  A zero *seed* is: along the
line ``x + t v``, an element of x where v is 0 does not move at any order, nor does a value computed
element by element from such elements only.  So the share of a tie whose operands do not move is
constant along the line, and its derivative in that direction is 0, not NaN (H[0, 1] of
``np.sum(np.abs(x)) + x @ A @ x`` at x[0] = 0 by ``hvp`` along e_1).

`moving_values` names, for the values it can tell, the *affine* values whose nonzero tangents say
where they move: a value affine in the differentiated inputs with coefficients that carry no
tangent (the inputs, their slices and sums, a product with a constant) moves exactly where its
tangent is not 0, and an elementwise function of such values, shaped like each, moves only where
one of them does.

A sort is affine near a point where its operand has no ties (a permutation, fixed nearby), and so is a
read at the indices an argsort gives (``a[np.argsort(b)]``, ``np.take_along_axis``): such a value is
named with the sort's operand (`SortedTies`), and it is taken to move wherever that operand has a tie
when the function runs (`moves_test`), so only where nothing ties does its zero tangent mean it is still.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

from ..ir.nodes import Branch, Function, Loop, Node, Var, all_nodes
from ..ir.shapes import alike
from ..rules.structural import APPEND, GETITEM
from ..rules.table import LINEAR
from .sweep import operand_shape

#: rules affine in each operand when the others carry no tangent (``x * c``, ``x / c``), or in all
_AFFINE_IN_ONE = {"operator.mul", "numpy.multiply", "operator.truediv", "numpy.divide", "numpy.true_divide",
                  "operator.matmul", "numpy.matmul", "numpy.dot"}
_AFFINE_IN_ALL = {"operator.add", "operator.sub", "operator.neg", "operator.pos", "numpy.add", "numpy.subtract",
                  "numpy.negative", "numpy.positive", "copy", "numpy.asarray", "numpy.array"}


@dataclass(frozen=True)
class SortedTies:
    """A value sorted along `axis` (None: flattened): what it sorts is affine where it has no ties."""
    operand: str
    axis: object


@dataclass(frozen=True)
class Moves:
    """Where `value` (a loop's carried value, an item read back from a loop's stack, or the stack itself)
    may move, as a flag the forward program computes beside its tangent: at each iteration the carried
    value is its initial value or the last iteration's final one, each with its own test (tangent.py)."""
    value: str


_SORTS = {"numpy.sort": "axis"}
_ARGSORTS = {"numpy.argsort"}
_PERMUTED_READS = {"numpy.take_along_axis"}


def moves_test(names: tuple, tangent_name, flag_name=None) -> ast.expr:
    """Where a value named by `names` (`moving_values`) may move: one of its affine values' tangents (named by
    `tangent_name`) is not 0, a sort's operand it went through has a tie, or a carried value's flag
    (`Moves`, named by `flag_name`) holds."""
    tests = []
    for n in names:
        if isinstance(n, Moves):
            tests.append(flag_name(n.value))
        elif isinstance(n, SortedTies):
            axis = -1 if n.axis is None else n.axis
            tests.append(f"np.any(np.diff(np.sort({n.operand}, axis={n.axis!r}), axis={axis!r}) == 0)")
        else:
            tests.append(f"np.not_equal({tangent_name(n)}, 0.0)")
    expr = tests[0]
    for t in tests[1:]:
        expr = f"np.logical_or({expr}, {t})"
    return ast.parse(expr, mode="eval").body


def _sorted_by(node: Node, found: dict, argsorts: dict) -> tuple | None:
    """The `SortedTies` of a sort of an affine value, or of a read at an argsort's indices; None for others."""
    if node.rule.name in _SORTS:
        x = node.inputs[0]
        if isinstance(x, Var) and found.get(x.name, ())[:1] == (x.name,):
            return (*found[x.name][1:], SortedTies(x.name, node.static.get("axis", -1)))
        return None
    if node.rule is GETITEM or node.rule.name in _PERMUTED_READS:
        held = [argsorts[v.name] for v in node.input_vars[1:] if v.name in argsorts]
        return tuple(held) if held else None
    return None


def moving_values(function: Function, active: set[str], wrt: tuple[str, ...], shape_of: dict) -> dict:
    """Value name -> the tuple of affine values (module docstring) where one of whose tangents is not 0
    the value may move along the line; values assigned more than once or in a loop's carry are left out."""
    nodes = [n for n in all_nodes(function) if isinstance(getattr(n, "out", None), Var)]
    assigned = Counter(n.out.name for n in nodes)
    appended: dict = {}  # a list -> the items appended to it (a loop's stack of the values it saves)
    for node in nodes:
        if node.rule is APPEND and isinstance(node.inputs[0], Var):
            appended.setdefault(node.inputs[0].name, []).append(node.inputs[1])
    found: dict = {name: (name,) for name in wrt if name in active}
    # an argsort of an active value: the indices it gives are fixed near a point where it has no ties
    argsorts = {n.out.name: SortedTies(n.inputs[0].name, n.static.get("axis", -1)) for n in nodes
                if n.rule.name in _ARGSORTS and isinstance(n.inputs[0], Var) and n.inputs[0].name in active}
    # a loop's carried value moves where its flag says (`Moves`: tangent.py computes it each iteration)
    found.update({c.var.name: (Moves(c.var.name),) for c in carries(function)
                  if c.var.name in active and c.var != c.init and c.var.name not in function.lists})
    flagged: set = set()
    for _ in range(2):  # (again once the lists of affine items are known: a loop's stack read back)
        stacks = {name for name, items in appended.items()
                  if all(isinstance(v, Var) and found.get(v.name) == (v.name,) for v in items)}
        flagged = {name for name, items in appended.items() if name not in stacks
                   and all(isinstance(v, Var) and v.name in found for v in items)}
        found.update({name: (Moves(name),) for name in flagged})
        for node in nodes:
            name = node.out.name
            moving = [v for v in node.input_vars if v.name in active]
            if name not in active or assigned[name] != 1 or not moving or name in found:
                continue
            if node.rule is GETITEM and node.inputs[0].name in stacks:
                found[name] = (name,)  # (an item saved on a stack moves as it did: its tangent is saved too)
            elif node.rule is GETITEM and node.inputs[0].name in flagged:
                found[name] = (Moves(name),)  # (and its flag, saved beside it)
            elif any(v.name not in found or v.name in flagged for v in moving):
                continue
            elif (sort := _sorted_by(node, found, argsorts)) is not None:
                if node.rule.name in _SORTS or all(found[v.name][:1] == (v.name,) for v in moving):
                    found[name] = (name, *dict.fromkeys(sort + tuple(g for v in moving for g in found[v.name][1:])))
            elif _affine(node, moving) and all(found[v.name][:1] == (v.name,) for v in moving):
                found[name] = (name, *dict.fromkeys(g for v in moving for g in found[v.name][1:]))
            elif node.rule.elementwise and _alike(node, moving, shape_of):
                found[name] = tuple(dict.fromkeys(a for v in moving for a in found[v.name]))
    return found


def carries(function: Function) -> list:
    """Every loop's carried values (`Carry`), in program order."""
    found = []

    def visit(block):
        for item in block.nodes:
            if isinstance(item, Branch):
                visit(item.body)
                visit(item.orelse)
            elif isinstance(item, Loop):
                found.extend(item.carried)
                visit(item.body)

    visit(function.body)
    return found


def _affine(node: Node, moving: list[Var]) -> bool:
    name = node.rule.name
    if name in _AFFINE_IN_ALL or node.rule.tangents == LINEAR:
        return True
    return name in _AFFINE_IN_ONE and len({v.name for v in moving}) == 1 and len(moving) == 1 \
        and (not name.endswith("div") and "divide" not in name or node.inputs[0] == moving[0])


def _alike(node: Node, moving: list[Var], shape_of: dict) -> bool:
    """Whether every moving operand is shaped like the result (element i reads element i only)."""
    out = operand_shape(node.out, shape_of)
    return out.known and all(alike(operand_shape(v, shape_of), out) for v in moving)


__all__ = ["Moves", "carries", "moves_test", "moving_values"]
