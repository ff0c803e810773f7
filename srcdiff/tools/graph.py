"""The computation DAG of a function, as a user sees it: `srcdiff.graph(f)`.

Each node is a parameter or one primitive call, labelled with the expression the user wrote
(temporaries spelled out again: ``(a + b) * (a + c)``, not ``t1 * t2``) and its source line.
An edge is data flow from a value to a call that reads it.  A node whose value is read more
than once receives one gradient contribution per use; those are marked, because the backward
pass must add them up.  ``.to_dot()`` gives Graphviz text; no Graphviz binary is needed.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass, field

from ..ad.activity import active_values
from ..errors import SrcDiffError
from ..frontend.naming import assigned_names
from ..frontend.parse import ParsedFunction, parse_function
from ..ir import nodes as ir
from ..lower.lowerer import lower
from ..rules import TABLE

_TEMP = re.compile(r"t\d+")


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
    """A function's DAG: nodes in topological order (parameters first) and data-flow edges."""

    name: str
    params: list[str]
    nodes: list[GraphNode]
    output: str | None
    parsed: ParsedFunction = field(repr=False)
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

    def to_dot(self) -> str:
        """Graphviz DOT text: boxes for calls, ellipses for parameters, a double border on
        the output, and an amber fill on nodes whose gradient sums several paths."""
        lines = [f"digraph {_quote(self.name)} {{",
                 '  graph [rankdir=TB, fontname="Helvetica", fontsize=12];',
                 '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", '
                 'fontname="Helvetica", fontsize=12];',
                 '  edge [color="#555555", arrowsize=0.7];']
        for node in self.nodes:
            lines.append(f"  {_quote(node.name)} [{_dot_attributes(node)}];")
        for producer, consumer in self.edges:
            lines.append(f"  {_quote(producer)} -> {_quote(consumer)};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        rows = []
        for node in self.nodes:
            mark = f"  <- sum of {node.uses} gradient paths" if node.accumulates else ""
            what = f"{node.name} (parameter)" if node.kind == "parameter" else f"{node.name} = {node.source}"
            rows.append(f"{node.location:>14}  {what}{mark}")
        return "\n".join(rows)


def contribution_origin(users: list[str], output: str | None, reads, adjoint_names: dict[str, str]) -> str | None:
    """`Graph.origin`, given the users of the primal and the name of the output."""
    for user in users:
        if adjoint_names.get(user) in reads:
            return user
    if len(users) == 1:
        return users[0]
    return output if output in users else None


def _dot_attributes(node: GraphNode) -> str:
    if node.kind == "parameter":
        label = f"{node.name}\nparameter"
    else:
        label = f"{node.name} = {_shorten(node.source)}\n{node.location}"
    attrs = {"label": label}
    if node.kind == "parameter":
        attrs.update(shape="ellipse", fillcolor="#e8f0fe")
    if node.accumulates:
        attrs["label"] += f"\nsum of {node.uses} gradients"
        attrs.update(fillcolor="#fff3cd", color="#b26a00", penwidth="2")
    if node.output:
        attrs["peripheries"] = "2"
    if not node.active:
        attrs.update(style="rounded,dashed", fontcolor="#777777")
    return ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items())


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def function_nodes(function: ir.Function, regions: bool = False) -> list[ir.Node]:
    """Every node of `function` in program order; control-flow regions (not drawn yet) are
    refused unless `regions` (debug mode only looks nodes up by name)."""
    nodes = list(ir.all_nodes(function))
    body = list(function.body.nodes)
    if regions:
        return nodes
    if len(nodes) != len(body) or any(not isinstance(n, ir.Node) for n in body):
        raise SrcDiffError(f"{function.name} has control flow, which graph/trace/explain do not "
                           "show yet", hint="try them on a straight-line function")
    return nodes


def build(parsed: ParsedFunction, function: ir.Function, wrt=None, *, in_place: bool = False) -> Graph:
    """The `Graph` of a lowered function; `wrt` (parameter names) decides which nodes are active.

    A node per value needs every value to have its own name; ``xs.append(v)`` changes the
    list `xs` in place, and a loop body runs many times, so the graph refuses both unless
    `in_place` (debug mode, which only looks nodes up by name, accepts them).
    """
    nodes = function_nodes(function, regions=in_place)
    if not in_place:
        nodes = ir.topological_order(nodes)
    if not in_place:
        _refuse_in_place(parsed, nodes)
    params = [p.name for p in function.params]
    active = active_values(function, set(params if wrt is None else wrt))
    user_names = assigned_names(parsed.tree) | set(params)
    temps = {n.out.name: n for n in nodes if _TEMP.fullmatch(n.out.name) and n.out.name not in user_names}
    output = function.output.name if isinstance(function.output, ir.Var) else None

    uses: dict[str, int] = {}
    for node in nodes:
        for v in node.input_vars:
            uses[v.name] = uses.get(v.name, 0) + 1

    def place(line: int) -> tuple[str, str]:
        loc = parsed.location(line)
        return loc.short, loc.code.strip()

    out = []
    def_line = parsed.tree.lineno
    for name in params:
        where, code = place(def_line)
        out.append(GraphNode(name, "parameter", name, name, def_line, where, code, uses=uses.get(name, 0),
                             active=name in active))
    for node in nodes:
        where, code = place(node.line)
        out.append(GraphNode(node.out.name, "operation", ast.unparse(node.expr), source_expression(node, temps),
                             node.line, where, code, [v.name for v in node.input_vars], _rule_name(node),
                             uses.get(node.out.name, 0), node.out.name in active, node.out.name == output,
                             node.out.name in temps, ir_node=node))
    return Graph(parsed.name, params, out, output, parsed, function)


def _refuse_in_place(parsed: ParsedFunction, nodes: list[ir.Node]) -> None:
    seen = set()
    for node in nodes:
        if node.out.name in seen:
            raise SrcDiffError(f"{ast.unparse(node.expr)} changes {node.out.name} in place, which "
                               "graph/trace/explain do not show yet", parsed.location(node.line),
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
                return Inline().visit(_copy(temps[name.id].expr))
            return name

    return ast.unparse(Inline().visit(_copy(node.expr)))


def _copy(tree: ast.expr) -> ast.expr:
    return copy.deepcopy(tree)


def graph(f, wrt=None) -> Graph:
    """The computation DAG of `f`: ``srcdiff.graph(f).to_dot()`` is Graphviz text.

    `wrt` (parameter indices or names; all parameters by default) decides which nodes carry
    gradients; nodes that do not are drawn dashed.
    """
    parsed = parse_function(f)
    function, _namer = lower(parsed, TABLE)
    params = [p.name for p in function.params]
    return build(parsed, function, None if wrt is None else _wrt_names(wrt, params, parsed.name))


def _wrt_names(wrt, params: list[str], name: str) -> list[str]:
    items = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    out = []
    for item in items:
        if isinstance(item, int) and not isinstance(item, bool) and -len(params) <= item < len(params):
            out.append(params[item])
        elif isinstance(item, str) and item in params:
            out.append(item)
        else:
            raise SrcDiffError(f"wrt={item!r} is not a parameter of {name}; its parameters are {params}")
    return out
