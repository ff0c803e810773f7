"""The text of a trace: one row per node and loop iteration, branches and calls marked.

Straight-line code gives the plain table (``#  line  node  expression  shape  value
adjoint``); with loops a ``step`` column names the iteration (``t=2``: the loop counter's
value, ``#2`` for a ``while`` loop), at most `limit` iterations of each loop are shown (the
first ones and the last) with a ``… 96 more iterations`` row for the rest; a branch gets a
row saying which side ran, and a call to another user function has the callee's rows
nested under it, indented.
"""

from __future__ import annotations

import numpy as np

HEADER = ["#", "line", "node", "expression", "shape", "value", "adjoint"]


def render(trace, color: bool, limit: int | None) -> str:
    looped = bool(trace.graph.regions) or any(r.frame is not None for r in trace.rows)
    header = HEADER[:2] + ["step"] + HEADER[2:] if looped else HEADER
    body: list[list[str]] = []
    _rows(trace, limit, 0, body, looped, [0])
    widths = [max(len(r[c]) for r in [header] + body) for c in range(len(header))]

    def line(cells, style=""):
        text = "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
        return f"\033[{style}m{text}\033[0m" if color and style else text

    lines = [line(header, "1"), line(["-" * w for w in widths], "2")] + [line(r) for r in body]
    title = f"trace of {trace.graph.name} (adjoints with respect to {', '.join(trace.wrt)})"
    return "\n".join([line([title], "1")] + lines)


def _rows(trace, limit, depth: int, body: list, looped: bool, counter: list) -> None:
    graph, pad = trace.graph, "  " * depth
    counters = {(r.name, r.iteration): r.value for r in trace.rows if r.node.kind == "counter"}
    noted: set = set()
    marks = {}  # row key -> branch rows to print before it
    for event in trace.events:
        if event[0] == "branch":
            _, rid, iteration, side = event
            first = next((r for r in trace.rows if r.iteration[:len(iteration)] == iteration
                          and graph[r.name].region is not None
                          and _within(graph, r.name, rid)), None)
            if first is not None:
                marks.setdefault(id(first), []).append((rid, iteration, side))
    for row in trace.rows:
        node = row.node
        hidden = _hidden(trace, row, limit)
        if hidden is not None:
            key, more = hidden
            if key not in noted:
                noted.add(key)
                body.append(_cells(looped, "", "", "", f"{pad}…", f"{more} more iteration{'s' * (more != 1)}",
                                   "", "", ""))
            continue
        loc = node.location
        for rid, iteration, side in marks.get(id(row), []):
            region = graph.region(rid)
            body.append(_cells(looped, "", loc, _step(graph, node.name, iteration, counters), f"{pad}{region.label}",
                               f"→ {'true' if side == 'then' else 'false'}: the {side} side runs", "", "", ""))
        expression = {"parameter": "(parameter)", "counter": "(loop counter)"}.get(node.kind)
        if node.kind == "carried":
            loops = len(graph.enclosing(node.name, "loop"))
            expression = "(after the loop)" if len(row.iteration) < loops else f"(carried: {node.expr})"
        elif node.kind == "merge":
            expression = f"{node.inputs[-2]} or {node.inputs[-1]}" if len(node.inputs) > 2 else "(merged)"
        expression = expression or clip(node.source, 36)
        adjoint = summarize(row.adjoint) if row.adjoint is not None else "-"
        if len(row.contributions) > 1:
            adjoint += f"  (sum of {len(row.contributions)})"
        body.append(_cells(looped, str(counter[0]), loc, _step(graph, node.name, row.iteration, counters),
                           pad + node.name, expression, shape_text(row.value), summarize(row.value), adjoint))
        counter[0] += 1
        if row.frame is not None:
            body.append(_cells(looped, "", "", "", f"{pad}  ↳ {row.frame.graph.name}", "(its own graph)", "", "", ""))
            _rows(row.frame, limit, depth + 1, body, looped, counter)


def _cells(looped, number, loc, step, node, expression, shape, value, adjoint) -> list[str]:
    cells = [number, loc, step, node, expression, shape, value, adjoint]
    return cells if looped else cells[:2] + cells[3:]


def _within(graph, name: str, rid: str) -> bool:
    return any(r.id == rid for r in graph.enclosing(name))


def _step(graph, name: str, iteration: tuple, counters: dict) -> str:
    loops = graph.enclosing(name, "loop")
    parts = []
    for i, index in enumerate(iteration):
        counter = next((n.name for n in graph.nodes if n.region == loops[i].id and n.kind == "counter"), None)
        value = counters.get((counter, iteration[:i + 1])) if counter else None
        parts.append(f"{counter}={number_text(value)}" if value is not None else f"#{index}")
    if len(iteration) < len(loops) and graph[name].kind == "carried":
        parts.append("after")
    return ",".join(parts)


def _hidden(trace, row, limit):
    """(the loop and outer iteration, how many iterations are hidden) when `row` is not shown."""
    if limit is None:
        return None
    loops = trace.graph.enclosing(row.name, "loop")
    for i, index in enumerate(row.iteration):
        total = trace.iterations.get((loops[i].id, row.iteration[:i]), 0)
        if total > limit and limit - 1 <= index < total - 1:
            return (loops[i].id, row.iteration[:i]), total - limit
    return None


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shape_text(value) -> str:
    """``()`` for a number, ``(3, 2)`` for an array."""
    if isinstance(value, (np.ndarray, np.generic)) or np.ndim(value):
        return str(np.shape(value))
    return "()"


def number_text(x) -> str:
    """A float as short as it can be while still reading back (up to 6 significant digits)."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    try:
        f = float(x)
    except (TypeError, ValueError):
        return repr(x)
    return f"{f:.6g}"


def summarize(value) -> str:
    """A short description of a value: the number, a small array, or its range."""
    if value is None:
        return "-"
    if np.ndim(value) == 0:
        return number_text(value)
    array = np.asarray(value)
    if array.dtype.kind not in "biufc":
        return f"{type(value).__name__}"
    if array.size <= 4:
        return "[" + ", ".join(number_text(v) for v in array.ravel()) + "]"
    finite = array[np.isfinite(array)] if array.dtype.kind in "fc" else array
    text = f"min {number_text(finite.min())}  max {number_text(finite.max())}" if finite.size else "no finite"
    bad = array.size - finite.size
    return text + (f"  ({bad} non-finite)" if bad else "")
