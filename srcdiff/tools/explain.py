"""`srcdiff.explain(f, *args, html="walk.html")`: a page that plays the gradient step by step.

One self-contained HTML file (inline CSS, JavaScript and SVG; nothing fetched from the
network) showing the user's source, the computation DAG, and the generated gradient.  Step
controls play the forward pass (each node lights up in topological order with its value and
shape) and then the backward pass (reverse order: each adjoint with the generated line that
computed it, and a node used on several paths shown receiving the sum of their terms).
The page's template, style and script live in ``srcdiff/assets/``.
"""

from __future__ import annotations

import ast
import html as html_text
import json
from pathlib import Path

import numpy as np

from ..ir.graph import GraphNode
from .display import Page
from .generated_lines import locate
from .layout import Layout, layout
from .trace import Row, Trace, shape_text, summarize, trace
from .walk_steps import region_steps

ASSETS = Path(__file__).with_name("assets")
CHAR = 7.8  # px per character of the 13px monospace font the boxes use
SMALL_CHAR = 6.4  # ... and of the 10.5px one of the location line
LINE = 17.0


def explain(f, *args, html=None, wrt=None, engine: str = "auto", **kwargs):
    """Write the walk-through of ``f(*args)`` to the file `html` and return its path.

    Without `html`, return the page's text instead (a `str` that a notebook displays
    inline).  `wrt` picks the differentiated
    parameters (default: every float argument); `engine` is "auto" (Graphviz `dot` when
    installed), "dot" or "layered" (the built-in layout).
    """
    run = trace(f, *args, wrt=wrt, **kwargs)
    page = render(run, engine=engine, call=_call_text(run, args, kwargs))
    if html is None:
        return Page(page)
    path = Path(html)
    path.write_text(page, encoding="utf-8")
    return path


def render(run: Trace, *, engine: str = "auto", call: str = "") -> str:
    """The page for a `Trace`, as HTML text."""
    rows = {row.name: row for row in run.rows}  # the last: a loop's value after it, the total adjoint
    rows.update({n.name: Row(n, None) for n in run.graph.nodes if n.name not in rows})  # a side not taken
    regional = bool(run.graph.regions)
    texts = {name: _box_lines(row) for name, row in rows.items()}
    sizes = {name: (max(len(lines[0]) * CHAR, len(lines[1]) * SMALL_CHAR, len(lines[2]) * CHAR,
                        len(lines[3]) * CHAR) + 28, (5 if rows[name].node.accumulates else 4) * LINE + 14)
             for name, lines in texts.items()}
    where = layout(run.graph, sizes, engine)
    lines = locate(run.events, run.graph, run.source)  # each step's line of the generated gradient
    data = {
        "title": call or run.graph.name,
        "wrt": run.wrt,
        "engine": where.engine,
        "steps": region_steps(run, lines) if regional else _forward_steps(run, lines) + _backward_steps(run),
        "regions": regional,
        "params": [{"name": p, "adjoint": _text(rows[p].adjoint)} for p in run.wrt],
    }
    parsed = run.graph.parsed
    first, last = parsed.tree.lineno, parsed.tree.end_lineno
    for decorator in parsed.tree.decorator_list:
        first = min(first, decorator.lineno)
    user = [(n, parsed.file_lines[n - 1].rstrip("\n")) for n in range(first, last + 1)]
    generated = list(enumerate(run.source.rstrip("\n").splitlines(), start=1))
    template = (ASSETS / "explain.html").read_text(encoding="utf-8")
    fill = {
        "TITLE": html_text.escape(data["title"]),
        "STYLE": (ASSETS / "explain.css").read_text(encoding="utf-8"),
        "SCRIPT": (ASSETS / "explain.js").read_text(encoding="utf-8"),
        "DATA": json.dumps(data, ensure_ascii=True).replace("</", "<\\/"),
        "SOURCE_NAME": html_text.escape(parsed.location(first).short.rsplit(":", 1)[0]),
        "SOURCE": _code_lines(user, "src"),
        "GENERATED": _code_lines(generated, "gen"),
        "GRAPH": _svg(run, where, texts),
        "GRADIENTS": "".join(
            f'<tr><td class="mono">{p}_bar</td><td class="mono adj-cell" data-adjoint-for="{p}">&ndash;</td></tr>'
            for p in run.wrt),
    }
    for key, value in fill.items():
        template = template.replace(f"{{{{{key}}}}}", value)
    return template


def _call_text(run: Trace, args, kwargs) -> str:
    values = [f"{row.name}={_argument(row.value)}" for row in run.rows if row.node.kind == "parameter"
              and not row.iteration]
    return f"{run.graph.name}({', '.join(values)})"


def _argument(value) -> str:
    """An argument in the page title: a number, a small array, or an array's shape."""
    if np.ndim(value) and np.size(value) > 4:
        return f"array{np.shape(value)}"
    return summarize(value)


def _text(value) -> str:
    return summarize(value) if value is not None else ""


def _box_lines(row: Row) -> list[str]:
    node = row.node
    title = node.name if node.kind == "parameter" else f"{node.name} = {_clip(node.source, 30)}"
    kind = "parameter" if node.kind == "parameter" else (node.rule or "")
    return [title, f"{node.location} · {kind}", f"= {_valued(row.value)}", f"{node.name}_bar = {_text(row.adjoint)}"]


def _valued(value) -> str:
    """A value and, for an array, its shape: ``[1, 2, 3]  (3,)``."""
    shape = shape_text(value)
    return summarize(value) + ("" if shape == "()" else f"  {shape}")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _forward_steps(run: Trace, lines: dict[int, int]) -> list[dict]:
    steps = []
    values = {row.name: row.value for row in run.rows}
    # a row per value event, in the same order (`Runner.record` adds both)
    generated = [lines.get(i, 0) for i, event in enumerate(run.events) if event[0] == "value"]
    for row, line in zip(run.rows, generated):
        node = row.node
        step = {"phase": "forward", "node": node.name, "line": node.line, "genLines": [line] if line else [],
                "value": _valued(row.value), "shape": shape_text(row.value),
                "edges": [[i, node.name] for i in dict.fromkeys(node.inputs)]}
        if node.kind == "parameter":
            step["head"] = f"{node.name} = {summarize(row.value)}"
            step["what"] = f"parameter {node.name}, given as an argument"
        else:
            step["head"] = f"{node.name} = {node.source}"
            step["what"] = f"{_evaluated(node, values)} = {summarize(row.value)}"
        if step["shape"] != "()":
            step["what"] += f"  (an array of shape {step['shape']})"
        steps.append(step)
    return steps


def _evaluated(node: GraphNode, values: dict) -> str:
    """The node's call with its inputs' values written in: ``2 + 3``."""
    tree = ast.parse(node.expr, mode="eval")

    class Fill(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            if name.id in values and np.size(values[name.id]) <= 4:
                return ast.Name(summarize(values[name.id]), ast.Load())
            return name

    return ast.unparse(Fill().visit(tree))


def _backward_steps(run: Trace) -> list[dict]:
    steps = []
    output = run.graph.output
    order = [r for r in run.rows if r.name == output] + [r for r in reversed(run.rows) if r.name != output]
    for row in order:
        if row.adjoint is None:
            continue
        node = row.node
        terms = [{"from": c.origin, "value": summarize(c.value), "statement": c.statement, "genLine": c.line}
                 for c in row.contributions]
        step = {"phase": "backward", "node": node.name, "line": node.line, "adjoint": summarize(row.adjoint),
                "genLines": [c.line for c in row.contributions if c.line], "terms": terms,
                "edges": [[node.name, c.origin] for c in row.contributions if c.origin],
                "head": f"{node.name}_bar = {summarize(row.adjoint)}"}
        if node.name == output:
            step["what"] = "the seed: d(output)/d(output) = 1"
        elif len(terms) > 1:
            step["what"] = (f"{node.name} is used on {len(terms)} paths, so its adjoint is the sum "
                            f"{' + '.join(t['value'] for t in terms)} = {step['adjoint']}")
        else:
            step["what"] = f"one path: the adjoint flows back from {terms[0]['from']}" if terms else ""
        steps.append(step)
    return steps


def _code_lines(lines: list[tuple[int, str]], prefix: str) -> str:
    out = []
    for number, text in lines:
        kind = " comment" if text.strip().startswith("#") else ""
        out.append(f'<div class="code-line{kind}" id="{prefix}-L{number}"><span class="ln">{number}</span>'
                   f'<span class="tx">{html_text.escape(text) or " "}</span></div>')
    return "\n".join(out)


def _svg(run: Trace, where: Layout, texts: dict[str, list[str]]) -> str:
    parts = [f'<svg id="graph" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {where.width:.0f} {where.height:.0f}" '
             f'width="{where.width:.0f}" height="{where.height:.0f}" role="img" aria-label="computation graph">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" '
             'markerUnits="userSpaceOnUse" '
             'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>']
    parts += _region_boxes(run, where)
    for (tail, head), d in where.edges.items():
        back = ' back' if (tail, head) in run.graph.back_edges else ''
        parts.append(f'<path class="edge{back}" data-from="{tail}" data-to="{head}" d="{d}" marker-end="url(#arrow)"/>')
    for node in run.graph.nodes:
        box = where.boxes[node.name]
        classes = ["node", node.kind]
        if node.accumulates:
            classes.append("accum")
        if node.output:
            classes.append("output")
        if not node.active:
            classes.append("inactive")
        title, location, _, _ = texts[node.name]
        radius = box.h / 2 if node.kind == "parameter" else 8
        top = -box.h / 2 + 7
        parts.append(
            f'<g class="{" ".join(classes)}" id="node-{node.name}" data-node="{node.name}" '
            f'transform="translate({box.x:.1f},{box.y:.1f})">'
            f'<title>{html_text.escape(node.code)}</title>'
            f'<rect x="{-box.w / 2:.1f}" y="{-box.h / 2:.1f}" width="{box.w:.1f}" height="{box.h:.1f}" '
            f'rx="{min(radius, 22):.1f}"/>'
            f'<text class="t-title" y="{top + LINE * 0.8:.1f}">{html_text.escape(title)}</text>'
            f'<text class="t-loc" y="{top + LINE * 1.75:.1f}">{html_text.escape(location)}</text>'
            f'<text class="t-val" y="{top + LINE * 2.8:.1f}"></text>'
            f'<text class="t-adj" y="{top + LINE * 3.8:.1f}"></text>'
            + (f'<text class="t-badge" y="{top + LINE * 4.75:.1f}">Σ sum of {node.uses} paths</text>'
               if node.accumulates else "")
            + "</g>")
    parts.append("</svg>")
    return "\n".join(parts)


def _region_boxes(run: Trace, where: Layout) -> list[str]:
    """A rounded rectangle behind each loop, branch side and call, around its nodes."""
    out = []
    def ancestors(region):
        return 0 if region.parent is None else 1 + ancestors(run.graph.region(region.parent))
    depth = {r.id: ancestors(r) for r in run.graph.regions}
    for region in sorted(run.graph.regions, key=lambda r: depth[r.id]):
        inside = [where.boxes[n.name] for n in run.graph.nodes
                  if n.name in where.boxes and any(r.id == region.id for r in run.graph.enclosing(n.name))]
        if not inside:
            continue
        pad = 16 - 5 * depth[region.id]
        x0, y0 = min(b.x - b.w / 2 for b in inside) - pad, min(b.y - b.h / 2 for b in inside) - pad - 16
        x1, y1 = max(b.x + b.w / 2 for b in inside) + pad, max(b.y + b.h / 2 for b in inside) + pad
        out.append(f'<g class="region {region.kind}" id="region-{region.id}"><rect x="{x0:.1f}" y="{y0:.1f}" '
                   f'width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" rx="10"/>'
                   f'<text x="{x0 + 8:.1f}" y="{y0 + 13:.1f}">{html_text.escape(region.label)}</text></g>')
    return out
