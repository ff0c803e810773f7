"""What srcdiff shows in a Jupyter notebook: a graph as SVG, and the walk-through page inline
(`Page`).  (A gradient's highlighted source is `GradFunction._repr_html_`, api/source_html.py.)

Graphs are drawn by Graphviz `dot` when it is installed, else by the built-in layered layout
(`srcdiff.tools.layout`) as plain SVG boxes and curves.
"""

from __future__ import annotations

import html
import shutil
import subprocess

from . import dot


def graph_svg(graph, engine: str = "auto") -> str:
    """SVG of a `Graph`: `dot -Tsvg` of its DOT text, or the built-in layout."""
    if engine in ("auto", "dot") and shutil.which("dot"):
        try:
            done = subprocess.run(["dot", "-Tsvg"], input=dot.to_dot(graph), capture_output=True, text=True,
                                  timeout=60, check=True)
            text = done.stdout
            return text[text.index("<svg"):]
        except (OSError, subprocess.SubprocessError, ValueError):
            if engine == "dot":
                raise
    return _layered_svg(graph)


def _layered_svg(graph) -> str:
    from .layout import layered_layout

    sizes = {}
    for node in graph.nodes:
        lines = dot.node_attributes(node).split('"')[1].replace("\\n", "\n").split("\n")
        sizes[node.name] = (max(len(line) for line in lines) * 7.2 + 20, 16 * len(lines) + 12)
    where = layered_layout(graph, sizes)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{where.width:.0f}" height="{where.height:.0f}" '
             f'viewBox="0 0 {where.width:.0f} {where.height:.0f}" font-family="Helvetica,Arial,sans-serif" '
             'font-size="12">',
             '<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" '
             'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>']
    for d in where.edges.values():
        parts.append(f'<path d="{d}" fill="none" stroke="#555" marker-end="url(#a)"/>')
    for node in graph.nodes:
        box = where.boxes[node.name]
        fill = "#fff3cd" if node.accumulates else "#e8f0fe" if node.kind == "parameter" else "#ffffff"
        parts.append(f'<rect x="{box.x - box.w / 2:.1f}" y="{box.y - box.h / 2:.1f}" width="{box.w:.1f}" '
                     f'height="{box.h:.1f}" rx="8" fill="{fill}" stroke="#333"/>')
        text = node.name if node.kind != "operation" else f"{node.name} = {dot.shorten(node.source, 30)}"
        parts.append(f'<text x="{box.x:.1f}" y="{box.y + 4:.1f}" text-anchor="middle">{html.escape(text)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


class Page(str):
    """The walk-through page's HTML text; in a notebook it displays inline, in a sandboxed
    frame (the page's own script and style stay inside it)."""

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{html.escape(str(self), quote=True)}" style="width:100%;height:760px;'
                'border:1px solid #ddd;border-radius:6px" sandbox="allow-scripts"></iframe>')
