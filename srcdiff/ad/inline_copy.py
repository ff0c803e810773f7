"""A helper's lowered IR copied into its caller: every region, every name renamed.

`Copier` walks a callee's body (nodes, branches, loops) and builds new regions in which
each name the callee defines has a fresh name of the caller's, and each parameter reads the
operand the call gives it.  Names are renamed wherever the IR holds them: operands, the
nodes' expressions, merges, loop-carried values and targets, while-loop tests, and the
statements run for their effect.  Node ids continue after the caller's, in program order.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import operator
from typing import Callable

from ..ir.nodes import (
    Block,
    Branch,
    Carry,
    Const,
    ForwardStatement,
    Loop,
    Merge,
    Node,
    Operand,
    Var,
    operand_ast,
    region_defines,
)


class Copier:
    """Copies regions, reading operand `operands[name]` for each renamed or bound name."""

    def __init__(self, operands: dict[str, Operand], next_id: Callable[[], int], line_of: Callable[[int], int],
                 spent: frozenset = frozenset()):
        self.operands, self.next_id, self.line_of = operands, next_id, line_of
        self.spent = spent  # the caller's parameters no one reads after this call (in_place_args.py)
        self._rename = _Rename(operands)

    def operand(self, o: Operand) -> Operand:
        return self.operands.get(o.name, o) if isinstance(o, Var) else o

    def var(self, v: Var) -> Var:
        found = self.operands.get(v.name, v)
        if not isinstance(found, Var):
            raise ValueError(f"{v.name} is assigned in the helper but bound to a constant")
        return found

    def expr(self, e):
        return self._rename.visit(copy.deepcopy(e))

    def block(self, block: Block, fold: frozenset[str] | None = None) -> Block:
        """`block` copied; with `fold` (names never folded), a node of plain arithmetic on
        constants (a parameter bound to a default or a literal) becomes the constant."""
        items = []
        for item in block.nodes:
            if fold is not None and isinstance(item, Node) and type(item) is Node and item.out.name not in fold:
                value = _folded(item, [self.operand(v) for v in item.inputs])
                if value is not None:
                    self.operands[item.out.name] = value
                    continue
            items.append(self.item(item))
        return Block(items)

    def item(self, item):
        if isinstance(item, Branch):
            return Branch(self.operand(item.test), self.block(item.body), self.block(item.orelse),
                          [Merge(self.var(m.out), self.operand(m.body), self.operand(m.orelse)) for m in item.merges],
                          self.line_of(item.line))
        if isinstance(item, Loop):
            test_inputs = tuple(v for v in map(self.operand, item.test_inputs) if isinstance(v, Var))
            return dataclasses.replace(
                item, target=None if item.target is None else self.var(item.target),
                bounds=tuple(map(self.operand, item.bounds)),
                test=None if item.test is None else self.expr(item.test), test_inputs=test_inputs,
                body=self.block(item.body),
                carried=[Carry(self.var(c.var), self.operand(c.init), self.operand(c.final)) for c in item.carried],
                stop=None if item.stop is None else self.operand(item.stop), line=self.line_of(item.line))
        return self.node(item)

    def node(self, n: Node) -> Node:
        changes = dict(id=self.next_id(), inputs=tuple(map(self.operand, n.inputs)), out=self.var(n.out),
                       expr=self.expr(n.expr), line=self.line_of(n.line), users=[])
        if isinstance(n, ForwardStatement):
            changes["stmt"] = self.expr(n.stmt)
        if getattr(n, "sharers", None):  # the helper's names of the values sharing an updated array, as copied
            # (read under the helper's names, they would be the caller's values of the same names: a number
            # there would clear the refusal of ``acc += v; history.append(acc)``, a silent wrong gradient)
            renamed = [self.operand(Var(name)) for name in n.sharers]
            changes["sharers"] = tuple(v.name for v in renamed) if all(isinstance(v, Var) for v in renamed) else None
        if getattr(n, "argument", None) is not None and getattr(n, "shared_with", "") is None:
            # ``x += v`` on the helper's parameter: in the caller, x is the call's operand,
            # whose array NumPy would change too (lower/writes.py refuses it unless a number)
            given = self.operands.get(n.argument)
            if isinstance(given, Var) and given.name not in self.spent:
                changes["shared_with"] = given.name
            elif isinstance(given, Var):  # read by this call alone: it is the caller's parameter's array
                changes["argument"] = given.name
        return dataclasses.replace(n, **changes)


_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.truediv, operator.neg}


def _folded(node: Node, inputs: list) -> Const | None:
    """The value of ``0.5 * dt`` with dt a constant: the same float the code would compute; of
    ``weights is None`` with weights a constant (``weights=(1.0, 0.05)`` given to the helper)."""
    tested = _none_test(node)
    if tested is not None and inputs and isinstance(inputs[0], Const):
        return Const((inputs[0].value is None) is tested)
    if getattr(node.rule, "func", None) not in _ARITHMETIC or not inputs \
            or not all(isinstance(v, Const) and type(v.value) in (int, float) for v in inputs):
        return None
    try:
        return Const(node.rule.func(*(v.value for v in inputs)))
    except ArithmeticError:
        return None  # the run raises it, where the user wrote it


def _none_test(node: Node) -> bool | None:
    """True for a node computing ``v is None`` of its one input v, False for ``v is not None``, else None."""
    e = node.expr
    if len(node.inputs) != 1 or not isinstance(e, ast.Compare) or len(e.ops) != 1 \
            or not isinstance(e.ops[0], (ast.Is, ast.IsNot)):
        return None
    sides = [e.left, e.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    if names != [node.inputs[0].name] or not any(isinstance(s, ast.Constant) and s.value is None for s in sides):
        return None
    return isinstance(e.ops[0], ast.Is)


def defined_names(block: Block) -> list[str]:
    """Every name `block` assigns, in program order (each once)."""
    found: dict[str, None] = {}

    def walk(b: Block) -> None:
        for item in b.nodes:
            if isinstance(item, Node):
                found[item.out.name] = None
            elif isinstance(item, Branch):
                walk(item.body)
                walk(item.orelse)
                found.update(dict.fromkeys(m.out.name for m in item.merges))
            else:
                if item.target is not None:
                    found[item.target.name] = None
                found.update(dict.fromkeys(c.var.name for c in item.carried))
                walk(item.body)
    walk(block)
    assert set(found) == region_defines(block)
    return list(found)


def expressions(block: Block):
    """Every expression and statement the regions of `block` hold (for the names they read)."""
    for item in block.nodes:
        if isinstance(item, Node):
            yield item.expr
            if isinstance(item, ForwardStatement) and item.stmt is not None:
                yield item.stmt
        elif isinstance(item, Branch):
            yield from expressions(item.body)
            yield from expressions(item.orelse)
        else:
            if item.test is not None:
                yield item.test
            yield from expressions(item.body)


def operands(block: Block):
    """Every operand the regions of `block` read."""
    for item in block.nodes:
        if isinstance(item, Node):
            yield from item.inputs
        elif isinstance(item, Branch):
            yield item.test
            yield from operands(item.body)
            yield from operands(item.orelse)
            for m in item.merges:
                yield m.body
                yield m.orelse
        else:
            yield from item.bounds
            for c in item.carried:
                yield c.init
                yield c.final
            if item.stop is not None:
                yield item.stop
            yield from operands(item.body)


class _Rename(ast.NodeTransformer):
    """Names read or written renamed; a name bound to a constant becomes the constant."""

    def __init__(self, operands: dict):
        self.operands = operands

    def visit_Name(self, node: ast.Name) -> ast.expr:
        found = self.operands.get(node.id)
        if found is None:
            return node
        if isinstance(found, Var):
            return ast.copy_location(ast.Name(found.name, node.ctx), node)
        return ast.copy_location(operand_ast(found), node)  # a constant, or a global read by name


__all__ = ["Copier", "defined_names", "expressions", "operands"]
