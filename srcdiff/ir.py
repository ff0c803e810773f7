"""The intermediate representation: an explicit computation DAG of primitive calls.

Lowering turns every sub-expression of the user's function into a `Node` whose inputs are
`Var`s (values computed by other nodes, or parameters) or `Const`/`Global` operands.  Nodes
live in a `Block`, the region kind straight-line code needs; branches and loops are further
region kinds that hold blocks of their own.
"""

from __future__ import annotations

import ast
import heapq
from dataclasses import dataclass, field
from typing import Union

from .rules.table import Rule


@dataclass(frozen=True)
class Var:
    """A value with a name in the generated code (SSA: assigned once)."""

    name: str


@dataclass(frozen=True)
class Const:
    """A literal the user wrote: never differentiated."""

    value: object


@dataclass(frozen=True)
class Global:
    """A module-level or closure value, read when the gradient runs; never differentiated."""

    name: str


Operand = Union[Var, Const, Global]


def operand_ast(operand: Operand) -> ast.expr:
    """The expression that reads an operand in generated code."""
    if isinstance(operand, Const):
        return ast.Constant(operand.value)
    return ast.Name(operand.name, ast.Load())


@dataclass(eq=False)
class Node:
    """One primitive call: ``out = rule(*inputs, **static)``, from a line of user code.

    `expr` is the forward computation as the user spelled it, over the input names.
    """

    id: int
    rule: Rule
    inputs: tuple[Operand, ...]
    static: dict
    out: Var
    expr: ast.expr
    line: int
    users: list[Node] = field(default_factory=list)

    @property
    def input_vars(self) -> list[Var]:
        return [v for v in self.inputs if isinstance(v, Var)]


@dataclass
class Block:
    """Straight-line code: nodes in the order they were lowered."""

    nodes: list[Node] = field(default_factory=list)


@dataclass
class Function:
    """A lowered user function: parameters, body, and the operand it returns."""

    name: str
    params: list[Var]
    body: Block
    output: Operand
    return_line: int


def link_users(nodes: list[Node]) -> None:
    """Fill each node's `users` (the nodes reading its output), for the backward walk."""
    producer = {n.out: n for n in nodes}
    for n in nodes:
        n.users.clear()
    for n in nodes:
        for v in n.input_vars:
            if v in producer:
                producer[v].users.append(n)


def topological_order(nodes: list[Node]) -> list[Node]:
    """Kahn's algorithm; among ready nodes the smallest id goes first, so order is stable."""
    producer = {n.out: n for n in nodes}
    waiting = {n.id: len({producer[v].id for v in n.input_vars if v in producer}) for n in nodes}
    consumers: dict[int, list[Node]] = {n.id: [] for n in nodes}
    for n in nodes:
        for p in {producer[v].id: producer[v] for v in n.input_vars if v in producer}.values():
            consumers[p.id].append(n)
    ready = [(n.id, n) for n in nodes if waiting[n.id] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, node = heapq.heappop(ready)
        order.append(node)
        for user in consumers[node.id]:
            waiting[user.id] -= 1
            if waiting[user.id] == 0:
                heapq.heappush(ready, (user.id, user))
    if len(order) != len(nodes):
        raise ValueError("the graph has a cycle")  # lowering never builds one
    return order
