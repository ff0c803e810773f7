"""The computation DAG of a lowered function, one node per value: the model behind
`srcdiff.graph(f)`, `trace`, `explain` and debug mode.

Each node is a parameter or one primitive call, labelled with the expression the user wrote
(temporaries spelled out again: ``(a + b) * (a + c)``, not ``t1 * t2``) and its source line.
An edge is data flow from a value to a call that reads it.  A value read more than once gets
one gradient contribution per use; those are marked (the backward pass adds them up).

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
    region: str | None = None  # the id of the innermost `Region` holding it (None: the function's body)
    var: str = ""  # its name in the generated code (`name` differs for the two sides of a branch)
    back: list[str] = field(default_factory=list)  # a carried value: what the previous iteration computed
    callee: object = None  # a call to another user function: that function

    def __post_init__(self):
        self.var = self.var or self.name

    @property
    def accumulates(self) -> bool:
        """Whether its gradient is a sum of contributions from several paths."""
        return self.active and self.uses > 1


@dataclass
class Region:
    """A cluster of the drawing: a loop (`carried` values, and the `stack` the body's values
    are saved on), a branch holding its two sides ("then", "else") and the merged values, or
    a call to another user function."""

    id: str
    kind: str  # "loop", "branch", "then", "else" or "call"
    label: str
    line: int
    parent: str | None = None
    carried: list[str] = field(default_factory=list)
    stack: list[str] = field(default_factory=list)
    test: str | None = None  # a branch's condition node; a loop's ``break`` flag


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
    regions: list[Region] = field(default_factory=list)
    calls: dict = field(default_factory=dict, repr=False)  # call node name -> the callee's Graph

    def region(self, rid: str | None) -> Region | None:
        return next((r for r in self.regions if r.id == rid), None)

    def enclosing(self, name: str, kind: str | None = None) -> list[Region]:
        """The regions holding node `name`, outermost first (only loops with kind="loop")."""
        found, region = [], self.region(self[name].region)
        while region is not None:
            found.insert(0, region)
            region = self.region(region.parent)
        return [r for r in found if kind is None or r.kind == kind]

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

    @property
    def back_edges(self) -> list[tuple[str, str]]:
        """(value computed by a loop body, the carried value it becomes in the next iteration)."""
        return [(name, node.name) for node in self.nodes for name in node.back]

    def users(self, name: str) -> list[str]:
        """The nodes that read `name`, in topological order (a carried value reads its update)."""
        return [n.name for n in self.nodes if name in n.inputs or name in n.back]

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
    # a statement run for its effect only (print, assert, a guard) has no value to show
    nodes = [n for n in ir.all_nodes(function) if not isinstance(n, ir.ForwardStatement)]
    body = [n for n in function.body.nodes if not isinstance(n, ir.ForwardStatement)]
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
    if not in_place and not is_plain(function):
        return _build_regions(function, location, def_line, set(user_names), active, parsed)
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
        def __init__(self, inlining: frozenset = frozenset()):  # t5 = t5 + t4 never into itself
            self.inlining = inlining

        def visit_Name(self, name: ast.Name):
            if name.id in temps and name.id not in self.inlining:
                return Inline(self.inlining | {name.id}).visit(copy.deepcopy(temps[name.id].expr))
            return name

    return ast.unparse(Inline().visit(copy.deepcopy(node.expr)))


def is_plain(function: ir.Function) -> bool:
    """Straight-line code without calls to other user functions: one node per IR node."""
    return ir.is_straight_line(function) and not any(isinstance(n, ir.UserCall) for n in function.body.nodes)


def _build_regions(function: ir.Function, location, def_line: int, user_names: set[str], active, parsed) -> Graph:
    """The graph of a function with branches, loops or calls: nodes in program order (a loop
    body once), clusters for the regions, and a back edge per loop-carried value."""
    walk = _Walk(function, location, user_names, active)
    for p in function.params:
        walk.add(p.name, "parameter", p.name, p.name, def_line, [], None)
    walk.block(function.body, None, "")
    output = walk.env.get(function.output.name) if isinstance(function.output, ir.Var) else None
    for node in walk.nodes:
        node.output = node.name == output
        node.uses = walk.uses.get(node.name, 0)
    return Graph(function.name, [p.name for p in function.params], walk.nodes, output, parsed, function,
                 walk.regions)


class _Walk:
    """Walks the regions in program order, naming each value's node (``z.then``/``z.else``
    for the two sides of a branch assigning `z`, ``xs#2`` for a list grown again)."""

    def __init__(self, function, location, user_names, active):
        self.location, self.active = location, active
        self.env: dict[str, str] = {}
        self.nodes: list[GraphNode] = []
        self.regions: list[Region] = []
        self.uses: dict[str, int] = {}
        self.merged: set[str] = set()
        self.closed: set[str] = set()  # carried values after their loop
        names = [n.out.name for n in ir.all_nodes(function)]
        known = user_names | {p.name for p in function.params}
        self.temps = {n.out.name: n for n in ir.all_nodes(function)
                      if _TEMP.fullmatch(n.out.name) and n.out.name not in known and names.count(n.out.name) == 1}

    def fresh(self, name: str, side: str, item=None) -> str:
        base = f"{name}.{side}" if side and name in self.merged else name
        if any(n.name == base for n in self.nodes):  # a list grown in place: refused, as in straight-line code
            earlier = [n.ir_node for n in self.nodes if n.name == base and n.ir_node]
            _refuse_in_place(earlier + [item] * (item is not None))
        return base

    def add(self, name, kind, expr, source, line, inputs, region, var="", **extra) -> GraphNode:
        loc = self.location(line)
        var = var or name
        node = GraphNode(name, kind, expr, source, line, loc.short, loc.code.strip(), inputs, extra.pop("rule", None),
                         active=self.active is None or var in self.active, region=region, var=var, **extra)
        self.nodes.append(node)
        self.env[var] = name
        return node

    def read(self, operands, count=True) -> list[str]:
        found = [self.env.get(v.name, v.name) for v in operands if isinstance(v, ir.Var)]
        for name in found if count else ():  # a loop's result: not one of the body's paths
            if name in self.closed:
                continue
            self.uses[name] = self.uses.get(name, 0) + 1
        return found

    def region(self, kind, label, line, parent, **extra) -> Region:
        rid = f"{kind}{line}"
        k = 2
        while any(r.id == rid for r in self.regions):
            rid, k = f"{kind}{line}_{k}", k + 1
        found = Region(rid, kind, label, line, parent, **extra)
        self.regions.append(found)
        return found

    def block(self, block: ir.Block, region: str | None, side: str) -> None:
        for item in block.nodes:
            if isinstance(item, ir.Branch):
                self.branch(item, region)
            elif isinstance(item, ir.Loop):
                self.loop(item, region)
            else:
                self.node(item, region, side)

    def node(self, item: ir.Node, region, side) -> None:
        inputs = self.read(item.input_vars, count=not getattr(item.rule, "nograd", False))
        callee = getattr(item, "callee", None)
        if callee is not None:
            region = self.region("call", "call " + source_expression(item, self.temps), item.line, region).id
        self.add(self.fresh(item.out.name, side, item), "operation", ast.unparse(item.expr),
                 source_expression(item, self.temps), item.line, inputs, region, item.out.name,
                 rule=_rule_name(item), temporary=item.out.name in self.temps, ir_node=item, callee=callee)

    def branch(self, item: ir.Branch, region) -> None:
        test = self.read([item.test], count=False)
        code = self.location(item.line).code.strip().rstrip(":")
        outer = self.region("branch", code, item.line, region, test=test[0] if test else None)
        before, merged = dict(self.env), {m.out.name for m in item.merges}
        self.merged |= merged
        sides, uses, counted = {}, dict(self.uses), {}
        for side, block in (("then", item.body), ("else", item.orelse)):
            self.env, self.uses = dict(before), dict(uses)  # one side runs: its reads are the paths
            inner = self.region(side, "taken when true" if side == "then" else "taken when false", item.line,
                                outer.id)
            self.block(block, inner.id, side)
            sides[side] = self.env
            counted = {k: max(v, counted.get(k, 0)) for k, v in self.uses.items()}
        self.env, self.uses = before, counted
        for m in item.merges:
            then, other = (sides[s].get(m.out.name) for s in ("then", "else"))
            for name in (then, other):
                if name:
                    self.uses[name] = self.uses.get(name, 0) + 1
            self.merged.discard(m.out.name)
            self.add(self.fresh(m.out.name, ""), "merge", f"{then} if {test[0] if test else '?'} else {other}",
                     f"{then} or {other}, by the condition", item.line,
                     [n for n in (test[0] if test else None, then, other) if n], outer.id, m.out.name)
        self.merged -= merged

    def loop(self, item: ir.Loop, region) -> None:
        code = self.location(item.line).code.strip().rstrip(":")
        found = self.region("loop", code, item.line, region)
        for c in item.carried:
            init = self.read([c.init])
            first = init[0] if init else repr(c.init.value) if hasattr(c.init, "value") else c.init.name  # 0.0
            node = self.add(self.fresh(c.var.name, ""), "carried", f"{first} at first",
                            "(carried)", item.line, init, found.id, c.var.name)
            found.carried.append(node.name)
        if item.target is not None:
            bounds = self.read(item.bounds, count=False)
            self.add(self.fresh(item.target.name, ""), "counter", code, "(loop counter)", item.line, bounds,
                     found.id, item.target.name)
        self.read(item.test_inputs, count=False)
        self.block(item.body, found.id, "")
        for c, name in zip(item.carried, found.carried):
            back = self.read([c.final])
            self[name].back = back
            self[name].expr = f"{self[name].expr}, then {back[0] if back else c.final}"
            self.env[c.var.name] = name
            self.closed.add(name)
        if isinstance(item.stop, ir.Var):
            found.test = self.env.get(item.stop.name)

    def __getitem__(self, name: str) -> GraphNode:
        return next(n for n in self.nodes if n.name == name)
