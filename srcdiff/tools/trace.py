"""`srcdiff.trace(f, *args)`: every node's value and adjoint, in topological order.

The forward values come from evaluating each node's expression in order, in the function's
own namespace; the adjoints from running, one statement at a time, the very backward
statements the code generator prints.  So the table shows what the generated gradient
computes, with each contribution to an adjoint tied to the generated line that added it.
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field

import numpy as np

from .. import driver
from ..api.binding import Binder
from ..api.flatcall import Front
from ..errors import SrcDiffError
from ..frontend import trees
from ..frontend.parse import parse_function
from ..ir import shapes
from ..ir.graph import GraphNode
from ..rules import TEMPLATE_GLOBALS
from . import tables
from .generated_lines import term_lines
from .graph import Graph, build_graph
from .run import Runner
from .tables import number_text, shape_text, summarize


@dataclass
class Contribution:
    """One term of an adjoint: from the node `origin` (None for the seed 1.0 of the output)."""

    origin: str | None
    value: object
    statement: str  # the generated line that adds it, e.g. ``a_bar = a_bar + t1_bar``
    line: int  # that line's number in `Trace.source` (1-based)


@dataclass
class Row:
    """A node with its forward value and its adjoint (None when no gradient reaches it), in
    one loop `iteration` (``(2,)``: the third; ``()`` outside loops, or a carried value after
    its loop).  A call to another user function has the callee's own trace as `frame`."""

    node: GraphNode
    value: object
    adjoint: object = None
    contributions: list[Contribution] = field(default_factory=list)
    iteration: tuple = ()
    frame: Trace | None = None

    @property
    def name(self) -> str:
        return self.node.name


@dataclass
class Trace:
    """The values and adjoints of one call; ``print(trace)`` shows the table.

    `taken` maps (branch region id, iteration) to the side that ran; `iterations` maps
    (loop region id, outer iteration) to how many times the loop body ran; `limit` is how many
    iterations of a loop the table shows.
    """

    graph: Graph
    rows: list[Row]
    wrt: list[str]
    source: str  # the generated gradient the adjoints come from
    taken: dict = field(default_factory=dict)
    iterations: dict = field(default_factory=dict)
    events: list = field(default_factory=list, repr=False)
    limit: int | None = 4

    def __getitem__(self, name: str) -> Row:
        rows = self.rows_of(name)
        if not rows:
            raise KeyError(name)
        return next((r for r in rows if not r.iteration), rows[-1])

    def rows_of(self, name: str) -> list[Row]:
        """Every row of node `name`: one per loop iteration it ran in."""
        return [row for row in self.rows if row.name == name]

    def table(self, color: bool = False, limit: int | None = -1) -> str:
        """The table as text; `color` adds ANSI emphasis (headers, adjoint column); `limit`
        (default: the trace's) is how many iterations of each loop to show."""
        return tables.render(self, color, self.limit if limit == -1 else limit)

    def __str__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(self.table())}</pre>"

    def print(self, file=None) -> None:
        """Print the table, emphasised when `file` is a terminal."""
        file = file or sys.stdout
        print(self.table(color=hasattr(file, "isatty") and file.isatty()), file=file)


def trace(f, *args, wrt=None, limit: int | None = 4, **kwargs) -> Trace:
    """Run `f` on `args` statement by statement and return a `Trace` of values and adjoints.

    `wrt` (indices or names) picks the parameters to differentiate; by default every
    parameter passed as a float or a float array.  Loops are traced in full; the table
    shows `limit` iterations of each (None: all).
    """
    func, values, wrt = plain_call(f, args, kwargs, wrt)
    parsed = parse_function(func)
    params = list(inspect.signature(parsed.func).parameters)
    # the gradient the pipeline compiles for these arguments, and the IR it came from
    # helpers stay calls (traced as frames); with the value, so every forward loop is in the program
    options = driver.Options(tuple_result=True, inline=False, with_value=True)
    lowered = driver.lowered(parsed.func, tuple(wrt), options, tuple(values))
    made = driver.variant(lowered, tuple(map(shapes.signature, values)))
    graph = build_graph(parsed, lowered.ir, wrt, made.program)
    runner = Runner(graph, made.program, _namespace(parsed, made), _frames(made), parsed.filename)
    runner.forward(dict(zip(params, values)))
    runner.backward()
    return _trace(runner.run, list(wrt), made.source, limit)


def _namespace(parsed, made) -> dict:
    """What the generated code sees: the user's globals, srcdiff's templates, the closure."""
    namespace = {**parsed.func.__globals__, **TEMPLATE_GLOBALS}
    namespace.update({k: c.cell_contents for k, c in parsed.closure.items() if _filled(c)})
    return namespace


def _frames(made):
    """``frames(name)``: (graph, program, namespace, frames) of the callee adjoint `name`."""
    def frames(name):
        callee, spec = made.callees.get(name), made.program.calls.get(name)
        if callee is None or callee.variant is None or spec is None:
            return None
        program = callee.variant.program
        parsed = parse_function(getattr(spec.func, "func", spec.func))
        graph = build_graph(parsed, program.function, list(spec.wrt), program)
        return graph, program, _namespace(parsed, callee.variant), _frames(callee.variant)
    return frames


def _trace(run, wrt: list[str], source: str, limit) -> Trace:
    lines = term_lines(run.events, run.graph, source)
    rows = []
    for name, iteration, value in run.values:
        terms = run.terms.get((name, iteration), [])
        contributions = []
        for term in terms:
            number, text = lines.get(id(term), (0, ""))
            contributions.append(Contribution(term.origin, term.value, text or term.statement, number))
        frame = run.frames.get((name, iteration))
        rows.append(Row(run.graph[name], value, run.adjoints.get((name, iteration)), contributions, iteration,
                        None if frame is None else _trace(frame, list(frame.graph.params), "", limit)))
    return Trace(run.graph, rows, wrt, source, dict(run.taken), dict(run.counts), run.events, limit)


def plain_call(f, args: tuple, kwargs: dict, wrt) -> tuple:
    """(function, arguments, differentiated parameters) of the call ``f(*args, **kwargs)``
    bound through the api's one front: a call with trees, of a method or of a partial is
    traced as the plain function of leaves `grad` differentiates (``p['W']`` is ``p_W``).
    By default every parameter that holds a float differentiates."""
    binder = Binder(f, "srcdiff.trace")
    positional = binder.bind(args, kwargs)
    if wrt is None:
        wrt = tuple(n for n, v in zip(binder.names, positional) if _holds_float(v))
        if not wrt:
            raise SrcDiffError(f"none of the arguments of {binder.qualname} is a float or a float array",
                               hint="pass floats (e.g. 2.0) or float arrays, or name wrt=")
    call = Front(f, wrt, what="srcdiff.trace").bound_call(positional)
    call.check(binder.qualname)
    return call.func, list(call.args), list(call.wrt)


def _holds_float(value) -> bool:
    if not trees.is_tree(value):
        return _is_float(value)
    return any(s.kind == "leaf" for _, s in trees.leaf_paths(trees.structure(value)))


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


__all__ = ["Contribution", "Row", "Trace", "number_text", "shape_text", "summarize", "trace"]
