"""The computation DAG of a function, as a user sees it: `srcdiff.graph(f)`.

The model (`srcdiff.ir.graph`: one node per value, data-flow edges, which nodes sum several
gradient contributions) is built here from the user's function: parsed, lowered, and with
its activity analysed for `wrt`.  This module adds what is about showing it: ``print(g)``
lists the nodes, and ``.to_dot()`` gives Graphviz text; no Graphviz binary is needed.
"""

from __future__ import annotations

import ast
import dataclasses

from .. import driver
from ..ad.activity import active_values
from ..api.flatcall import EVERY, Front
from ..errors import SrcDiffError
from ..frontend import callables
from ..frontend.naming import assigned_names
from ..frontend.parse import ParsedFunction, parse_function
from ..ir import graph as model
from ..ir import nodes as ir
from ..ir.program import Effect, For, While, walk
from ..lower.lowerer import lower
from ..rules import TABLE
from . import dot


class Graph(model.Graph):
    """A function's DAG: nodes in topological order (parameters first) and data-flow edges;
    loops, branches and calls as `regions`.

    ``print(graph)`` lists the nodes with their lines; `to_dot` gives Graphviz text; in a
    notebook the graph displays as SVG.
    """

    def to_dot(self) -> str:
        """Graphviz DOT text: boxes for calls, ellipses for parameters, a double border on
        the output, an amber fill on nodes whose gradient sums several paths, and a cluster
        per loop, branch and call."""
        return dot.to_dot(self)

    def __str__(self) -> str:
        return dot.outline(self)

    def to_svg(self, engine: str = "auto") -> str:
        """SVG text: Graphviz `dot` when installed (or `engine="dot"`), else the built-in layout."""
        from .display import graph_svg

        return graph_svg(self, engine)

    def _repr_svg_(self) -> str:
        return self.to_svg()

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return {"image/svg+xml": self.to_svg(), "text/plain": str(self)}


def build_graph(parsed: ParsedFunction, function: ir.Function, wrt=None, program=None, seen=None) -> Graph:
    """The `Graph` of a lowered function; `wrt` (parameter names; all by default) decides
    which nodes are active; `program` (the gradient program, when there is one) names each
    loop's stack; calls to other user functions get the callee's own graph in `calls`."""
    params = [p.name for p in function.params]
    try:
        found = model.build(function, location=parsed.location, def_line=parsed.tree.lineno,
                            user_names=assigned_names(parsed.tree),
                            active=active_values(function, set(params if wrt is None else wrt)), parsed=parsed)
    except model.NotDrawable as exc:
        raise SrcDiffError(exc.reason, parsed.location(exc.line) if exc.line else None, exc.hint) from None
    made = Graph(**{f.name: getattr(found, f.name) for f in dataclasses.fields(found)})
    _add_stacks(made, program)
    seen = (seen or set()) | {parsed.func}
    for node in made.nodes:
        if node.callee is not None and getattr(node.callee, "__wrapped__", node.callee) not in seen:
            inner = _callee_graph(node.callee, seen)
            if inner is not None:
                made.calls[node.name] = inner
    return made


def _callee_graph(callee, seen: set) -> Graph | None:
    func = getattr(callee, "func", callee)  # a call with static arguments: ir.Specialised
    try:
        parsed = parse_function(func)
    except SrcDiffError:
        return None
    if parsed.func in seen:  # recursion: drawn once
        return None
    function, _namer = lower(parsed, TABLE)
    return build_graph(parsed, function, None, seen=seen)


def _add_stacks(made: Graph, program) -> None:
    """Name, on each loop region, the values its forward pass pushes on the stack."""
    if program is None:
        return
    loops = {r.line: r for r in made.regions if r.kind == "loop"}
    for stmt in walk(program.forward):
        if isinstance(stmt, (For, While)) and stmt.line in loops:
            for inner in stmt.body:
                expr = getattr(inner, "expr", None)
                if isinstance(inner, Effect) and isinstance(expr, ast.Call) and \
                        isinstance(expr.func, ast.Attribute) and expr.func.attr == "append" and expr.args:
                    saved = expr.args[0].elts if isinstance(expr.args[0], ast.Tuple) else [expr.args[0]]
                    loops[stmt.line].stack = [ast.unparse(e) for e in saved]


def graph(f, wrt=None) -> Graph:
    """The computation DAG of `f`: ``srcdiff.graph(f).to_dot()`` is Graphviz text.

    `wrt` (parameter indices or names; all parameters by default) decides which nodes carry
    gradients; nodes that do not are drawn dashed.
    """
    f, leaves = _plain_function(f, wrt)
    parsed = parse_function(f)
    function, _namer = lower(parsed, TABLE)
    params = [p.name for p in function.params]
    names = leaves if leaves is not None or wrt is None else wrt_names(wrt, params, parsed.name)
    program = None
    if not model.is_plain(function):
        try:  # the gradient's program names what each loop saves
            options = driver.Options(tuple_result=True, inline=False)
            found = driver.lowered(parsed.func, tuple(names or params), options)
            function, program = found.ir, driver.variant(found, None).program
        except SrcDiffError:
            pass
    return build_graph(parsed, function, names, program)


def _plain_function(f, wrt) -> tuple:
    """A method or partial as the plain function `grad` differentiates (api's one front): an
    object's attributes become parameters of their own (``self.w`` is ``self_w``); and the
    differentiated leaves when `wrt` is given (else None).  A plain function is itself."""
    target = callables.resolve(f)
    if target.plain:
        return f, None
    front = Front(f, EVERY if wrt is None else wrt, what="srcdiff.graph")
    structs = front.structures(front.full_values((None,) * len(front.names)))
    flat, leaves, _plan = front.prepared(structs)
    return flat.func, None if wrt is None else list(leaves)


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
