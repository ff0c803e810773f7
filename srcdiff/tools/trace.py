"""`srcdiff.trace(f, *args)`: every node's value and adjoint, in topological order.

The forward values come from evaluating each node's expression in order, in the function's
own namespace; the adjoints from running, one statement at a time, the very backward
statements the code generator prints.  So the table shows what the generated gradient
computes, with each contribution to an adjoint tied to the generated line that added it.
"""

from __future__ import annotations

import ast
import inspect
import sys
from dataclasses import dataclass, field

import numpy as np

from .. import pipeline
from ..errors import SrcDiffError
from ..frontend.parse import parse_function
from ..ir import shapes
from ..ir.graph import GraphNode
from ..ir.program import AdjointStmt
from ..rules import TEMPLATE_GLOBALS
from .graph import Graph, build_graph, wrt_names


@dataclass
class Contribution:
    """One term of an adjoint: from the node `origin` (None for the seed 1.0 of the output)."""

    origin: str | None
    value: object
    statement: str  # the generated line that adds it, e.g. ``a_bar = a_bar + t1_bar``
    line: int  # that line's number in `Trace.source` (1-based)


@dataclass
class Row:
    """A node with its forward value and its adjoint (None when no gradient reaches it)."""

    node: GraphNode
    value: object
    adjoint: object = None
    contributions: list[Contribution] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.node.name


@dataclass
class Trace:
    """The values and adjoints of one call; ``print(trace)`` shows the table."""

    graph: Graph
    rows: list[Row]
    wrt: list[str]
    source: str  # the generated gradient the adjoints come from

    def __getitem__(self, name: str) -> Row:
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def table(self, color: bool = False) -> str:
        """The table as text; `color` adds ANSI emphasis (headers, adjoint column)."""
        header = ["#", "line", "node", "expression", "shape", "value", "adjoint"]
        body = []
        for i, row in enumerate(self.rows):
            node = row.node
            expression = "(parameter)" if node.kind == "parameter" else _clip(node.source, 36)
            adjoint = summarize(row.adjoint) if row.adjoint is not None else "-"
            if len(row.contributions) > 1:
                adjoint += f"  (sum of {len(row.contributions)})"
            body.append([str(i), node.location, node.name, expression, shape_text(row.value),
                         summarize(row.value), adjoint])
        widths = [max(len(r[c]) for r in [header] + body) for c in range(len(header))]

        def render(cells, style=""):
            text = "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
            return f"\033[{style}m{text}\033[0m" if color and style else text

        lines = [render(header, "1"), render(["-" * w for w in widths], "2")]
        lines += [render(r) for r in body]
        title = f"trace of {self.graph.name} (adjoints with respect to {', '.join(self.wrt)})"
        return "\n".join([render([title], "1")] + lines)

    def __str__(self) -> str:
        return self.table()

    def print(self, file=None) -> None:
        """Print the table, emphasised when `file` is a terminal."""
        file = file or sys.stdout
        print(self.table(color=hasattr(file, "isatty") and file.isatty()), file=file)


def trace(f, *args, wrt=None, **kwargs) -> Trace:
    """Run `f` on `args` node by node and return a `Trace` of values and adjoints.

    `wrt` (indices or names) picks the parameters to differentiate; by default every
    parameter passed as a float or a float array.
    """
    parsed = parse_function(f)
    params = list(inspect.signature(parsed.func).parameters)
    values = _bind(parsed.func, args, kwargs)
    if wrt is None:
        wrt = [p for p, v in zip(params, values) if _is_float(v)]
        if not wrt:
            raise SrcDiffError(f"none of the arguments of {parsed.name} is a float or a float array",
                               hint="pass floats (e.g. 2.0) or float arrays, or name wrt=")
    else:
        wrt = wrt_names(wrt, params, parsed.name)
    # the gradient the pipeline compiles for these arguments, and the IR it came from
    lowered = pipeline.lowered(parsed.func, tuple(wrt), pipeline.Options(tuple_result=True), tuple(values))
    made = pipeline.variant(lowered, tuple(map(shapes.signature, values)))
    function, program, source = lowered.ir, made.program, made.source
    graph = build_graph(parsed, function, wrt)
    for node in graph.nodes:
        if getattr(node.ir_node, "callee", None) is not None:
            raise SrcDiffError(f"trace and explain do not step into calls to other functions yet "
                               f"({node.source})", parsed.location(node.line),
                               "trace the called function on its own, or inline it")

    namespace = dict(parsed.func.__globals__)
    namespace.setdefault("set_item", TEMPLATE_GLOBALS["set_item"])  # a write's forward (writes.py)
    namespace.update({k: c.cell_contents for k, c in parsed.closure.items() if _filled(c)})
    namespace.update(zip(params, values))
    primal = dict(zip(params, values))
    for node in graph.nodes:
        if node.ir_node is not None:
            primal[node.name] = _eval(node.ir_node.expr, namespace, parsed, node.line)
            namespace[node.name] = primal[node.name]


    backward = {**parsed.func.__globals__, **TEMPLATE_GLOBALS}  # as the generated code sees them
    backward.update({k: c.cell_contents for k, c in parsed.closure.items() if _filled(c)})
    backward.update(primal)
    primal_of = {adjoint: name for name, adjoint in program.adjoints.items()}
    assigns = _assignments(source)
    contributions: dict[str, list[Contribution]] = {}
    for stmt in program.backward:
        if not isinstance(stmt, AdjointStmt):
            continue
        term = _eval(stmt.expr, backward, parsed, stmt.line)
        backward[stmt.target] = backward[stmt.target] + term if stmt.accumulate else term
        primal_name = primal_of.get(stmt.target, stmt.target)
        reads = {n.id for n in ast.walk(stmt.expr) if isinstance(n, ast.Name)}
        origin = graph.origin(primal_name, reads, program.adjoints)
        number, text = _generated_line(assigns, stmt.target, program.adjoints.get(origin))
        contributions.setdefault(primal_name, []).append(
            Contribution(origin, term, text or f"{stmt.target} = {ast.unparse(stmt.expr)}", number))
    rows = []
    for node in graph.nodes:
        adjoint_name = program.adjoints.get(node.name)
        adjoint = backward.get(adjoint_name) if adjoint_name else None
        rows.append(Row(node, primal[node.name], adjoint, contributions.get(node.name, [])))
    return Trace(graph, rows, list(wrt), source)


def _bind(func, args, kwargs) -> list:
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{func.__qualname__}(): {exc}") from None
    bound.apply_defaults()
    return list(bound.arguments.values())


def _eval(expr: ast.expr, namespace: dict, parsed, line):
    code = compile(ast.fix_missing_locations(ast.Expression(expr)), parsed.filename, "eval")
    try:
        return eval(code, namespace)
    except Exception as exc:
        where = parsed.location(line) if line else None
        raise SrcDiffError(f"evaluating {ast.unparse(expr)} failed: {type(exc).__name__}: {exc}", where,
                           "try srcdiff.grad(f, debug=True) to find the first bad value") from exc


def _assignments(source: str) -> list[tuple[int, str, set[str], str]]:
    """Each ``name = ...`` of the generated source: line number, target, names read, text."""
    lines = source.splitlines()
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            reads = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            text = " ".join(line.strip() for line in lines[node.lineno - 1:node.end_lineno])
            out.append((node.lineno, node.targets[0].id, reads, text))
    return sorted(out)


def _generated_line(assigns, target: str, origin_adjoint: str | None) -> tuple[int, str]:
    """The generated line adding a contribution to `target`: the first assignment to it that
    reads the origin's adjoint (the optimizer may have merged several terms into one line),
    else the first assignment to it; (0, "") when the optimizer left none."""
    mine = [a for a in assigns if a[1] == target]
    for number, _, reads, text in mine:
        if origin_adjoint in reads:
            return number, text
    return (mine[0][0], mine[0][3]) if mine else (0, "")


def _describe(parsed, line: int) -> str:
    loc = parsed.location(line)
    return f"{loc.short}  {loc.code.strip()}"


def _filled(cell) -> bool:
    try:
        return cell.cell_contents is not _EMPTY
    except ValueError:  # the enclosing function has not set it yet
        return False


_EMPTY = object()


def _is_float(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating))


def _clip(text: str, limit: int) -> str:
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
