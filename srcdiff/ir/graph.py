"""The computation DAG of a lowered function, one node per value: the model behind
`srcdiff.graph(f)`, `trace`, `explain` and debug mode.

Each node is a parameter or one primitive call, labelled with the expression the user wrote
(temporaries spelled out again: ``(a + b) * (a + c)``, not ``t1 * t2``) and its source line.
An edge is data flow from a value to a call that reads it.  A node whose value is read more
than once receives one gradient contribution per use; those are marked, because the backward
pass must add them up.

This module reads only the IR: where a node needs the user's file and line, `build` is given
a `location` function, and which values carry a gradient (activity analysis) is given to it.
A function it cannot show one node per value raises `NotDrawable`, which the tools report as
a `SrcDiffError` at the user's line (so the IR, the lowest layer, imports no error types).
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from . import nodes as ir

_TEMP = re.compile(r"t\d+")


class NotDrawable(Exception):
    """The graph cannot show this function one node per value: `reason`, at user line `line`
    (0: the whole function), and `hint`, what to do instead."""

    def __init__(self, reason: str, line: int = 0, hint: str = ""):
        super().__init__(reason)
        self.reason, self.line, self.hint = reason, line, hint


@dataclass
class GraphNode:
    """One value of the function: a parameter (`rule` None) or the result of a primitive call.

    `expr` is the call over its inputs' names (``t1 * t2``); `source` is the same call as the
    user spelled it (``(a + b) * (a + c)``); `uses` counts the operand slots reading it, so
    ``x * x`` uses `x` twice.  `active` is False when no gradient flows through the node.
    """

    name: str
    kind: str  # "parameter" or "operation"
    expr: str
    source: str
    line: int
    location: str
    code: str
    inputs: list[str] = field(default_factory=list)
    rule: str | None = None
    uses: int = 0
    active: bool = True
    output: bool = False
    temporary: bool = False  # a sub-expression the user did not name (t1, t2...)
    ir_node: ir.Node | None = field(default=None, repr=False)

    @property
    def accumulates(self) -> bool:
        """Whether its gradient is a sum of contributions from several paths."""
        return self.active and self.uses > 1


@dataclass
class Graph:
    """A function's DAG: nodes in topological order (parameters first) and data-flow edges.

    `parsed` is the parsed user function the graph was built from (a
    `srcdiff.frontend.parse.ParsedFunction`), kept for tools that show its source.
    """

    name: str
    params: list[str]
    nodes: list[GraphNode]
    output: str | None
    parsed: object = field(repr=False)
    function: ir.Function = field(repr=False)

    def __getitem__(self, name: str) -> GraphNode:
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(name)

    @property
    def edges(self) -> list[tuple[str, str]]:
        """(producer, consumer) pairs, one per distinct pair, in node order."""
        out = []
        for node in self.nodes:
            for name in dict.fromkeys(node.inputs):
                out.append((name, node.name))
        return out

    def users(self, name: str) -> list[str]:
        """The nodes that read `name`, in topological order."""
        return [n.name for n in self.nodes if name in n.inputs]

    def origin(self, primal: str, reads, adjoint_names: dict[str, str]) -> str | None:
        """Which user of `primal` a contribution to its adjoint comes from.

        `reads` are the names the contribution's code reads; `adjoint_names` maps a primal to
        its adjoint's name.  The user whose adjoint is read wins; when the optimizer folded
        that adjoint away (the output's seed 1.0), the only user, or the output, is it.
        """
        return contribution_origin(self.users(primal), self.output, reads, adjoint_names)


def contribution_origin(users: list[str], output: str | None, reads, adjoint_names: dict[str, str]) -> str | None:
    """`Graph.origin`, given the users of the primal and the name of the output."""
    for user in users:
        if adjoint_names.get(user) in reads:
            return user
    if len(users) == 1:
        return users[0]
    return output if output in users else None


def function_nodes(function: ir.Function, regions: bool = False) -> list[ir.Node]:
    """Every node of `function` in program order; control-flow regions (not drawn yet) are
    refused unless `regions` (debug mode only looks nodes up by name)."""
    nodes = list(ir.all_nodes(function))
    body = list(function.body.nodes)
    if regions:
        return nodes
    if len(nodes) != len(body) or any(not isinstance(n, ir.Node) for n in body):
        raise NotDrawable(f"{function.name} has control flow, which graph/trace/explain do not show yet",
                          hint="try them on a straight-line function")
    return nodes


def build(function: ir.Function, *, location: Callable[[int], object], def_line: int,
          user_names: Collection[str] = (), active: Collection[str] | None = None,
          parsed: object = None, in_place: bool = False) -> Graph:
    """The `Graph` of a lowered function.

    `location` gives the user's place of a line number (a `srcdiff.errors.Location`: its
    `short` ``file.py:12`` and its `code` are what a node shows), `def_line` is the line of
    the ``def``, and `user_names` are the names the user's code assigns (so a variable the
    user called ``t1`` is not taken for a temporary).  `active` are the values a gradient
    flows through (`srcdiff.ad.activity.active_values`); None when activity was not
    analysed, which marks every node active.  `parsed` is kept as `Graph.parsed`.

    A node per value needs every value to have its own name; ``xs.append(v)`` changes the
    list `xs` in place, and a loop body runs many times, so the graph refuses both unless
    `in_place` (debug mode, which only looks nodes up by name, accepts them).
    """
    nodes = function_nodes(function, regions=in_place)
    if not in_place:
        nodes = ir.topological_order(nodes)
        _refuse_in_place(nodes)
    params = [p.name for p in function.params]
    known = set(user_names) | set(params)
    temps = {n.out.name: n for n in nodes if _TEMP.fullmatch(n.out.name) and n.out.name not in known}
    output = function.output.name if isinstance(function.output, ir.Var) else None

    def is_active(name: str) -> bool:
        return active is None or name in active

    uses: dict[str, int] = {}
    for node in nodes:
        for v in node.input_vars:
            uses[v.name] = uses.get(v.name, 0) + 1

    def place(line: int) -> tuple[str, str]:
        loc = location(line)
        return loc.short, loc.code.strip()

    out = []
    for name in params:
        where, code = place(def_line)
        out.append(GraphNode(name, "parameter", name, name, def_line, where, code, uses=uses.get(name, 0),
                             active=is_active(name)))
    for node in nodes:
        where, code = place(node.line)
        out.append(GraphNode(node.out.name, "operation", ast.unparse(node.expr), source_expression(node, temps),
                             node.line, where, code, [v.name for v in node.input_vars], _rule_name(node),
                             uses.get(node.out.name, 0), is_active(node.out.name), node.out.name == output,
                             node.out.name in temps, ir_node=node))
    return Graph(function.name, params, out, output, parsed, function)


def _refuse_in_place(nodes: list[ir.Node]) -> None:
    seen = set()
    for node in nodes:
        if node.out.name in seen:
            raise NotDrawable(f"{ast.unparse(node.expr)} changes {node.out.name} in place, which "
                              "graph/trace/explain do not show yet", node.line,
                              "build the list in one expression (e.g. [x, x * x]), or use "
                              "srcdiff.grad(f, debug=True) to check the gradient's values")
        seen.add(node.out.name)


def _rule_name(node: ir.Node) -> str:
    """The primitive's name; a call to another user function is named after that function."""
    name = getattr(node.rule, "name", None)
    return name or getattr(getattr(node, "callee", None), "__qualname__", "call")


def source_expression(node: ir.Node, temps: dict[str, ir.Node]) -> str:
    """`node`'s expression with temporaries replaced by what they compute, as the user wrote it."""

    class Inline(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            if name.id in temps:
                return Inline().visit(copy.deepcopy(temps[name.id].expr))
            return name

    return ast.unparse(Inline().visit(copy.deepcopy(node.expr)))
