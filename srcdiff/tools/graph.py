"""The computation DAG of a function, as a user sees it: `srcdiff.graph(f)`.

The model (`srcdiff.ir.graph`: one node per value, data-flow edges, which nodes sum several
gradient contributions) is built here from the user's function: parsed, lowered, and with
its activity analysed for `wrt`.  This module adds what is about showing it: ``print(g)``
lists the nodes, and ``.to_dot()`` gives Graphviz text; no Graphviz binary is needed.
"""

from __future__ import annotations

import dataclasses

from ..ad.activity import active_values
from ..errors import SrcDiffError
from ..frontend.naming import assigned_names
from ..frontend.parse import ParsedFunction, parse_function
from ..ir import graph as model
from ..ir import nodes as ir
from ..lower.lowerer import lower
from ..rules import TABLE


class Graph(model.Graph):
    """A function's DAG: nodes in topological order (parameters first) and data-flow edges.

    ``print(graph)`` lists the nodes with their lines; `to_dot` gives Graphviz text.
    """

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


def _dot_attributes(node: model.GraphNode) -> str:
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


def build_graph(parsed: ParsedFunction, function: ir.Function, wrt=None) -> Graph:
    """The `Graph` of a lowered function; `wrt` (parameter names; all by default) decides
    which nodes are active."""
    params = [p.name for p in function.params]
    try:
        found = model.build(function, location=parsed.location, def_line=parsed.tree.lineno,
                            user_names=assigned_names(parsed.tree),
                            active=active_values(function, set(params if wrt is None else wrt)), parsed=parsed)
    except model.NotDrawable as exc:
        raise SrcDiffError(exc.reason, parsed.location(exc.line) if exc.line else None, exc.hint) from None
    return Graph(**{f.name: getattr(found, f.name) for f in dataclasses.fields(found)})


def graph(f, wrt=None) -> Graph:
    """The computation DAG of `f`: ``srcdiff.graph(f).to_dot()`` is Graphviz text.

    `wrt` (parameter indices or names; all parameters by default) decides which nodes carry
    gradients; nodes that do not are drawn dashed.
    """
    parsed = parse_function(f)
    function, _namer = lower(parsed, TABLE)
    params = [p.name for p in function.params]
    return build_graph(parsed, function, None if wrt is None else wrt_names(wrt, params, parsed.name))


def wrt_names(wrt, params: list[str], name: str) -> list[str]:
    """`wrt` (a parameter index or name, or a tuple or list of them) as parameter names."""
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
