"""Where to draw a `Graph`: node boxes and edge curves, from Graphviz or a layered fallback.

With the `dot` program installed, its layout (``dot -Tplain``) is used: boxes of our own
sizes, positions and spline edges from Graphviz.  Without it, a small layered layout does:
parameters on top, each node one layer below its deepest input, layers ordered by the mean
position of their inputs (a few barycentre sweeps) so edges cross little.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from dataclasses import dataclass, field

from ..ir.graph import Graph
from .dot import clustered

PAD = 24.0  # px around the drawing
DPI = 72.0  # Graphviz plain output is in inches


@dataclass
class Box:
    """A node's rectangle: centre (x, y) and size, in px, y growing downwards."""

    x: float
    y: float
    w: float
    h: float


@dataclass
class Layout:
    width: float
    height: float
    boxes: dict[str, Box]
    edges: dict[tuple[str, str], str] = field(default_factory=dict)  # SVG path data per edge
    engine: str = "layered"


def layout(graph: Graph, sizes: dict[str, tuple[float, float]], engine: str = "auto") -> Layout:
    """Positions for boxes of `sizes` (px); `engine` is "dot", "layered" or "auto"."""
    if engine in ("auto", "dot") and shutil.which("dot"):
        try:
            return dot_layout(graph, sizes)
        except (OSError, subprocess.SubprocessError, ValueError):
            if engine == "dot":
                raise
    return layered_layout(graph, sizes)


def dot_layout(graph: Graph, sizes: dict[str, tuple[float, float]]) -> Layout:
    """Ask Graphviz `dot` where the boxes and edges go."""
    lines = ["digraph G {", "  graph [rankdir=TB, nodesep=0.35, ranksep=0.5];",
             '  node [shape=box, fixedsize=true, label=""];', "  edge [arrowsize=0.8];"]
    def place(node):
        w, h = sizes[node.name]
        return f'"{node.name}" [width={w / DPI:.3f}, height={h / DPI:.3f}];'
    lines += clustered(graph, place)
    for tail, head in graph.edges:
        lines.append(f'  "{tail}" -> "{head}";')
    lines.append("}")
    done = subprocess.run(["dot", "-Tplain"], input="\n".join(lines), capture_output=True, text=True,
                          timeout=30, check=True)
    boxes, splines, height, width = {}, {}, 0.0, 0.0
    for row in done.stdout.splitlines():
        parts = shlex.split(row)
        if not parts:
            continue
        if parts[0] == "graph":
            width, height = float(parts[2]) * DPI, float(parts[3]) * DPI
        elif parts[0] == "node":
            x, y, w, h = (float(v) * DPI for v in parts[2:6])
            boxes[parts[1]] = Box(x + PAD, height - y + PAD, w, h)
        elif parts[0] == "edge":
            n = int(parts[3])
            coords = [float(v) * DPI for v in parts[4:4 + 2 * n]]
            points = [(coords[i] + PAD, height - coords[i + 1] + PAD) for i in range(0, len(coords), 2)]
            splines[(parts[1], parts[2])] = _spline_path(points)
    if set(boxes) != {n.name for n in graph.nodes}:
        raise ValueError("dot did not place every node")
    return Layout(width + 2 * PAD, height + 2 * PAD, boxes, splines, "dot")


def _spline_path(points: list[tuple[float, float]]) -> str:
    """Graphviz B-spline control points (1 + 3k of them) as SVG cubic segments."""
    d = f"M{points[0][0]:.1f},{points[0][1]:.1f}"
    for i in range(1, len(points) - 2, 3):
        (x1, y1), (x2, y2), (x3, y3) = points[i:i + 3]
        d += f" C{x1:.1f},{y1:.1f} {x2:.1f},{y2:.1f} {x3:.1f},{y3:.1f}"
    return d


def layered_layout(graph: Graph, sizes: dict[str, tuple[float, float]],
                   gap_x: float = 28.0, gap_y: float = 44.0) -> Layout:
    """The built-in layout: one layer per longest-path depth, barycentre ordering."""
    depth: dict[str, int] = {}
    for node in graph.nodes:  # topological order, so inputs come first
        depth[node.name] = 1 + max((depth[i] for i in node.inputs), default=-1)
    layers: list[list[str]] = [[] for _ in range(max(depth.values(), default=0) + 1)]
    for node in graph.nodes:
        layers[depth[node.name]].append(node.name)
    inputs = {n.name: n.inputs for n in graph.nodes}
    users: dict[str, list[str]] = {n.name: [] for n in graph.nodes}
    for tail, head in graph.edges:
        users[tail].append(head)

    def order(layer, neighbours, rank):
        before = {name: i for i, name in enumerate(layer)}

        def key(name):
            near = [rank[m] for m in neighbours[name] if m in rank]
            return (sum(near) / len(near) if near else rank.get(name, 0.0), before[name])
        layer.sort(key=key)

    for _ in range(4):
        for layers_, neighbours in ((layers[1:], inputs), (layers[-2::-1], users)):
            for layer in layers_:
                rank = {m: i for lay in layers for i, m in enumerate(lay)}
                order(layer, neighbours, rank)

    row_height = [max(sizes[n][1] for n in layer) for layer in layers]
    row_width = [sum(sizes[n][0] for n in layer) + gap_x * (len(layer) - 1) for layer in layers]
    width = max(row_width)
    boxes, y = {}, PAD
    for layer, h, w in zip(layers, row_height, row_width):
        x = PAD + (width - w) / 2
        for name in layer:
            bw, bh = sizes[name]
            boxes[name] = Box(x + bw / 2, y + h / 2, bw, bh)
            x += bw + gap_x
        y += h + gap_y
    edges = {}
    ins = {n.name: list(dict.fromkeys(n.inputs)) for n in graph.nodes}
    outs = {name: [] for name in boxes}
    for tail, head in graph.edges:
        outs[tail].append(head)
    outs = {name: sorted(heads, key=lambda h: boxes[h].x) for name, heads in outs.items()}
    ins = {name: sorted(tails, key=lambda t: boxes[t].x) for name, tails in ins.items()}

    def spread(names, name, width):  # fan the ends of several edges out along the box side
        k, n = names.index(name), len(names)
        return (k - (n - 1) / 2) * min(16.0, width / (n + 1))

    for tail, head in graph.edges:
        a, b = boxes[tail], boxes[head]
        x1 = a.x + spread(outs[tail], head, a.w)
        x2 = b.x + spread(ins[head], tail, b.w)
        y1, y2 = a.y + a.h / 2, b.y - b.h / 2 - 2
        mid = (y2 - y1) / 2
        edges[(tail, head)] = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{y1 + mid:.1f} {x2:.1f},{y2 - mid:.1f} {x2:.1f},{y2:.1f}"
    return Layout(width + 2 * PAD, y - gap_y + PAD, boxes, edges, "layered")
