"""Graphviz text and a plain-text outline of a `Graph`, regions included.

A loop is a cluster holding its carried values (each with a dashed back edge from the value
the body computes for the next iteration) and naming the stack the forward pass fills; a
branch is a cluster with its condition, holding one cluster per side and the merged values;
a call to another user function is a cluster holding the callee's own graph, its nodes named
``call/node`` (``t1/u``), with dashed edges for the arguments and the result.
"""

from __future__ import annotations

from ..ir import graph as model
from ..ir import nodes as ir

HEADER = ['  graph [rankdir=TB, fontname="Helvetica", fontsize=12];',
          '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize=12];',
          '  edge [color="#555555", arrowsize=0.7];']
CLUSTER_STYLE = {  # kind -> (border, fill)
    "loop": ("#3b6fb6", "#f3f7fd"), "branch": ("#7a5db0", "#faf8fd"), "then": ("#7a5db0", "#ffffff"),
    "else": ("#7a5db0", "#ffffff"), "call": ("#2f8a57", "#f4faf6"),
}


def to_dot(graph: model.Graph) -> str:
    """Graphviz DOT text for `graph`: deterministic, a function of the graph alone."""
    lines = [f"digraph {quote(graph.name)} {{", *HEADER]
    if graph.regions:
        lines.insert(2, '  compound=true;')
    edges: list[str] = []
    _emit(graph, "", None, "  ", lines, edges)
    lines += edges
    lines.append("}")
    return "\n".join(lines) + "\n"


def _emit(graph: model.Graph, prefix: str, rid: str | None, pad: str, lines: list[str], edges: list[str]) -> None:
    """The nodes and clusters inside region `rid` of `graph` (prefix: a callee's call site)."""
    for item in _children(graph, rid):
        if isinstance(item, model.GraphNode):
            lines.append(f"{pad}{quote(prefix + item.name)} [{node_attributes(item)}];")
            continue
        border, fill = CLUSTER_STYLE[item.kind]
        lines.append(f"{pad}subgraph {quote('cluster_' + prefix + item.id)} {{")
        lines.append(f"{pad}  label={quote(region_label(graph, item))};")
        lines.append(f"{pad}  labeljust=l; fontsize=11; style=\"rounded,filled\"; color={quote(border)}; "
                     f"fillcolor={quote(fill)};")
        _emit(graph, prefix, item.id, pad + "  ", lines, edges)
        if item.kind == "call":
            _emit_callee(graph, prefix, item, pad + "  ", lines, edges)
        lines.append(f"{pad}}}")
    if rid is None:
        for producer, consumer in graph.edges:
            style = ' [style="dotted", arrowhead="odot"]' if graph[consumer].kind == "merge" and \
                graph.region(graph[consumer].region).test == producer else ""
            edges.append(f"  {quote(prefix + producer)} -> {quote(prefix + consumer)}{style};")
        for producer, consumer in graph.back_edges:
            edges.append(f"  {quote(prefix + producer)} -> {quote(prefix + consumer)} [style=\"dashed\", "
                         f"color=\"#3b6fb6\", constraint=false, label=\"next iteration\", fontsize=10];")


def _emit_callee(graph, prefix, region, pad, lines, edges) -> None:
    call = next(n for n in graph.nodes if n.region == region.id and n.callee is not None)
    inner = graph.calls.get(call.name)
    if inner is None:
        return
    inner_prefix = f"{prefix}{call.name}/"
    _emit(inner, inner_prefix, None, pad, lines, edges)
    node = call.ir_node
    names = getattr(node, "arg_names", ())
    operands = [v for v in node.inputs if isinstance(v, ir.Var)]
    for operand, param in zip(node.inputs, names):
        if operand in operands and param in inner.params:
            edges.append(f"  {quote(prefix + call.inputs[operands.index(operand)])} -> "
                         f"{quote(inner_prefix + param)} [style=\"dashed\", color=\"#2f8a57\", label=\"{param}\", "
                         f"fontsize=10];")
    if inner.output:
        edges.append(f"  {quote(inner_prefix + inner.output)} -> {quote(prefix + call.name)} "
                     f"[style=\"dashed\", color=\"#2f8a57\", label=\"returns\", fontsize=10];")


def _children(graph: model.Graph, rid: str | None) -> list:
    """Nodes directly in region `rid` and the regions nested in it, in program order."""
    out, seen = [], set()
    for node in graph.nodes:
        chain = [r.id for r in graph.enclosing(node.name)] if node.region else []
        if node.region == rid:
            out.append(node)
            continue
        below = chain[chain.index(rid) + 1] if rid in chain else (chain[0] if rid is None and chain else None)
        if below is not None and below not in seen:
            seen.add(below)
            out.append(graph.region(below))
    return out


def region_label(graph: model.Graph, region: model.Region) -> str:
    """The cluster's title: ``for t in range(3)`` with its carried values and stack."""
    where = f"line {region.line}"
    if region.kind == "loop":
        extra = []
        if region.carried:
            extra.append("carries " + ", ".join(region.carried))
        if region.stack:
            extra.append("stack: " + ", ".join(region.stack))
        if region.test:
            extra.append(f"stops when {region.test}")
        return f"{region.label}   ({where})" + "".join("\n" + e for e in extra)
    if region.kind == "branch":
        return f"{region.label}   ({where})" + (f"\ncondition: {region.test}" if region.test else "")
    if region.kind == "call":
        return f"{region.label}   ({where})\nits own graph inside"
    return region.label


def node_attributes(node: model.GraphNode) -> str:
    if node.kind == "parameter":
        label = f"{node.name}\nparameter"
    elif node.kind == "carried":
        label = f"{node.name}\ncarried: {node.expr}\n{node.location}"
    elif node.kind == "counter":
        label = f"{node.name}\nloop counter"
    elif node.kind == "merge":
        label = f"{node.name} = {node.inputs[-2] if len(node.inputs) > 2 else '?'} or " \
                f"{node.inputs[-1]}\n{node.location}"
    else:
        label = f"{node.name} = {shorten(node.source)}\n{node.location}"
    attrs = {"label": label}
    if node.kind == "parameter":
        attrs.update(shape="ellipse", fillcolor="#e8f0fe")
    elif node.kind == "carried":
        attrs.update(fillcolor="#dce8fa")
    elif node.kind == "counter":
        attrs.update(shape="ellipse", fillcolor="#eeeeee")
    elif node.kind == "merge":
        attrs.update(shape="invhouse", fillcolor="#efe9f8")
    if node.accumulates:
        attrs["label"] += f"\nsum of {node.uses} gradients"
        attrs.update(fillcolor="#fff3cd", color="#b26a00", penwidth="2")
    if node.output:
        attrs["peripheries"] = "2"
    if not node.active:
        attrs.update(style="rounded,dashed", fontcolor="#777777")
    return ", ".join(f"{k}={quote(v)}" for k, v in attrs.items())


def outline(graph: model.Graph) -> str:
    """One line per node (and per region), indented by region."""
    rows: list[str] = []
    _outline(graph, None, 0, rows)
    return "\n".join(rows)


def _outline(graph, rid, depth, rows) -> None:
    pad = "  " * depth
    for item in _children(graph, rid):
        if isinstance(item, model.Region):
            loc = graph.parsed.location(item.line).short if graph.parsed is not None else f"line {item.line}"
            title = region_label(graph, item).replace("\n", "; ")
            rows.append(f"{loc:>14}  {pad}[{item.kind}] {title}")
            _outline(graph, item.id, depth + 1, rows)
            continue
        mark = f"  <- sum of {item.uses} gradient paths" if item.accumulates else ""
        if item.kind == "parameter":
            what = f"{item.name} (parameter)"
        elif item.kind == "carried":
            what = f"{item.name} (carried: {item.expr})"
        elif item.kind == "counter":
            what = f"{item.name} (loop counter)"
        else:
            what = f"{item.name} = {item.source if item.kind != 'merge' else item.expr}"
        rows.append(f"{item.location:>14}  {pad}{what}{mark}")


def quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clustered(graph: model.Graph, place, rid: str | None = None, pad: str = "  ") -> list[str]:
    """Lines placing each node (`place(node)` gives its statement) inside its regions' clusters."""
    lines = []
    for item in _children(graph, rid):
        if isinstance(item, model.GraphNode):
            lines.append(pad + place(item))
        else:
            lines.append(f"{pad}subgraph {quote('cluster_' + item.id)} {{ margin=14;")
            lines += clustered(graph, place, item.id, pad + "  ")
            lines.append(pad + "}")
    return lines
