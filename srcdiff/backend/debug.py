"""Debug mode, ``srcdiff.grad(f, debug=True)``: the first NaN or infinity names the user's line.

A post-pass over the generated source: after every forward assignment and every adjoint
assignment it inserts one readable line,

    h = np.log(t1)
    check_finite(h, 'forward', 'h', t1=t1)
    ...
    x_bar = unbroadcast(y_bar / (2.0 * y), x)
    check_finite(x_bar, 'backward', 'y', y_bar=y_bar, y=y, x=x)

naming the value just computed, the sweep, the graph node it belongs to (for an adjoint, the
node whose rule produced the contribution) and the inputs the statement read.  The check costs
an `np.isfinite` per statement, which is why it is opt-in.  When a value is not finite,
`Checker` raises `SrcDiffError` at the user's line with the operation and its inputs, e.g.
``np.log(x - x) is -inf: np.log(0.0)``.  Arithmetic exceptions that Python floats raise
instead of returning inf/nan (``1.0 / 0.0``, ``math.log(0.0)``) are translated the same way.
"""

from __future__ import annotations

import ast
import linecache
import re
import sys

import numpy as np

from ..errors import SrcDiffError
from ..frontend.naming import Namer, assigned_names
from ..frontend.parse import ParsedFunction
from ..ir import nodes as ir
from ..ir.graph import build, contribution_origin
from ..ir.program import GradProgram
from ..rules import TEMPLATE_GLOBALS

HELPER = "check_finite"
_CALL = re.compile(r"\(\s*\w+, '(forward|backward)', '(\w+)'")


def helper_name(namer: Namer) -> str:
    """The name the checks call the `Checker` by: `check_finite` unless the user took it."""
    return namer.copy().fresh(HELPER)


def helper_cells(parsed: ParsedFunction, function: ir.Function, namer: Namer) -> dict:
    """The closure cell that instrumented code needs: {helper name: Checker}."""
    return {helper_name(namer): Checker(parsed, function)}


def instrument(source: str, program: GradProgram, helper: str) -> str:
    """`source` (one generated ``def``) with a finiteness check after each assignment.

    A forward assignment is recognised by the graph node it computes; an adjoint assignment
    by the adjoint it assigns, and attributed to the node its contribution comes from (see
    `Graph.origin`), so it works on the optimizer's output, merged sums included.  Anything
    else (loop bookkeeping, say) is left unchecked rather than guessed at.
    """
    module = ast.parse(source)
    func = module.body[0]
    computed, users = _users(program.function)
    output = program.function.output.name if isinstance(program.function.output, ir.Var) else None
    primal_of = {adjoint: primal for primal, adjoint in program.adjoints.items()}
    inserts: dict[int, str] = {}
    for stmt in _statements(func.body):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        target = stmt.targets[0].id
        reads = _reads(stmt.value, target)
        if target in computed:
            call = _call(helper, target, "forward", target, reads)
        elif target in primal_of:
            owner = contribution_origin(users.get(primal_of[target], []), output, set(reads), program.adjoints)
            if owner is None:
                continue  # the output's seed, 1.0
            call = _call(helper, target, "backward", owner, reads)
        else:
            continue
        inserts[stmt.end_lineno] = " " * stmt.col_offset + call
    lines = source.splitlines()
    out = []
    for number, text in enumerate(lines, start=1):
        out.append(text)
        if number in inserts:
            out.append(inserts[number])
    return _guard("\n".join(out) + "\n", func, helper)


def _users(function: ir.Function) -> tuple[set[str], dict[str, list[str]]]:
    """The names nodes compute, and for every name the nodes reading it (in program order)."""
    nodes = ir.all_nodes(function) if hasattr(ir, "all_nodes") else function.body.nodes
    users: dict[str, list[str]] = {}
    for node in nodes:
        for v in dict.fromkeys(node.input_vars):
            users.setdefault(v.name, []).append(node.out.name)
    return {n.out.name for n in nodes}, users


def _statements(body: list[ast.stmt]):
    for stmt in body:
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _statements(inner)


def _reads(expr: ast.expr, target: str) -> list[str]:
    """Variables a statement reads, in order: its inputs (helpers and modules left out)."""
    names = [n.id for n in sorted((n for n in ast.walk(expr) if isinstance(n, ast.Name)),
                                  key=lambda n: (n.lineno, n.col_offset))]
    return [n for n in dict.fromkeys(names) if n != target and n not in TEMPLATE_GLOBALS]


def _call(helper: str, value: str, sweep: str, node: str, inputs: list[str]) -> str:
    args = [value, repr(sweep), repr(node)] + [f"{name}={name}" for name in inputs]
    return f"{helper}({', '.join(args)})"


def _guard(source: str, func: ast.FunctionDef, helper: str) -> str:
    """Wrap the body so ``1.0 / 0.0`` on Python floats is reported like an infinity."""
    lines = source.splitlines()
    first = func.body[0].lineno - 1
    while first > 0 and lines[first - 1].strip().startswith("#"):
        first -= 1
    indent = " " * func.body[0].col_offset
    body = ["    " + line if line.strip() else line for line in lines[first:]]
    head = lines[:first] + [indent + "try:"]
    tail = [indent + "except (ArithmeticError, ValueError) as error:",
            indent + f"    raise {helper}.failed(error)"]
    return "\n".join(head + body + tail) + "\n"


class Checker:
    """Raises `SrcDiffError` at the user's line when a checked value is not finite."""

    def __init__(self, parsed: ParsedFunction, function: ir.Function):
        self.parsed = parsed
        self.graph = build(function, location=parsed.location, def_line=parsed.tree.lineno,
                           user_names=assigned_names(parsed.tree), parsed=parsed,
                           in_place=True)  # appends: looked up by name only

    def __call__(self, value, sweep, node, /, **inputs):
        if _finite(value):
            return
        caller = sys._getframe(1)  # the generated function: the statement is above this check
        lines = linecache.getlines(caller.f_code.co_filename)
        statement = lines[caller.f_lineno - 2].strip() if 1 < caller.f_lineno <= len(lines) + 1 else ""
        raise self._error(value, sweep, node, inputs, statement=statement)

    def failed(self, error: BaseException) -> BaseException:
        """The `SrcDiffError` for an exception raised by a generated statement, else `error`."""
        if isinstance(error, ValueError) and "math domain error" not in str(error):
            return error
        tb = error.__traceback__  # its first entry is the generated function's own frame
        if tb is None:
            return error
        frame = tb.tb_frame
        lines = linecache.getlines(frame.f_code.co_filename)
        statement = lines[tb.tb_lineno - 1].strip() if 0 < tb.tb_lineno <= len(lines) else ""
        check = lines[tb.tb_lineno] if tb.tb_lineno < len(lines) else ""
        found = _CALL.search(check)
        if found is None:
            return error
        sweep, node = found.groups()
        inputs = {n: frame.f_locals[n] for n in _keywords(check) if n in frame.f_locals}
        exc = self._error(None, sweep, node, inputs, statement=statement,
                          result=f"raised {type(error).__name__} ({error})")
        exc.__cause__ = error
        return exc

    def _error(self, value, sweep: str, node_name: str, inputs: dict, *, statement: str,
               result: str | None = None) -> SrcDiffError:
        node = self.graph[node_name]
        index = _first_bad_index(value)
        if result is None:
            result = f"is {_element(value, index)}" + (f" at index {index}" if index else "")
        shown = {name: _element(v, index, np.shape(value)) for name, v in inputs.items()}
        subject = node.source if sweep == "forward" else f"the adjoint of {node.source}"
        computed = statement
        if sweep == "forward" and not statement.startswith(("try", "except")):
            computed = _substitute(node.expr, shown)  # np.log(t1) -> np.log(0.0)
        inputs_text = ", ".join(f"{self._spelled(name)} = {text}" for name, text in shown.items())
        bad = [name for name, v in inputs.items() if not _finite(v)]
        if bad:
            origin = f"from non-finite input(s) {', '.join(bad)}: {inputs_text}"
            hint = "a value the function reads (an argument or a global) is already NaN/inf"
        else:
            origin = f"from finite inputs {inputs_text}" if inputs_text else "from constants"
            hint = ("the operation is undefined or overflows at these values: change the input, or "
                    "rewrite the expression to stay finite (add an epsilon, clip, use a stable form)")
        message = f"{sweep} pass: {subject} {result}, computed as {computed} {origin}"
        error = SrcDiffError(message, self.parsed.location(node.line), hint)
        error.sweep, error.node = sweep, node_name
        return error

    def _spelled(self, name: str) -> str:
        """An input as the user wrote it: a temporary by its expression, a variable by name."""
        try:
            node = self.graph[name]
        except KeyError:
            return name
        return f"({node.source})" if node.temporary else name


def _keywords(call: str) -> list[str]:
    try:
        parsed = ast.parse(call.strip(), mode="eval").body
    except SyntaxError:
        return []
    return [k.arg for k in getattr(parsed, "keywords", []) if k.arg]


def _finite(value) -> bool:
    try:
        array = np.asarray(value)
    except Exception:
        return True
    if array.dtype.kind not in "fc":
        return True
    return bool(np.all(np.isfinite(array)))


def _first_bad_index(value) -> tuple | None:
    if value is None or np.ndim(value) == 0:
        return None
    bad = np.argwhere(~np.isfinite(np.asarray(value)))
    return tuple(int(i) for i in bad[0]) if len(bad) else None


def _element(value, index, shape=None) -> str:
    """A value as text; for arrays, the element (after broadcasting) at the failing index."""
    if value is None:
        return "?"
    if index is not None and shape is not None:
        try:
            return _number(np.broadcast_to(np.asarray(value), shape)[index])
        except ValueError:
            pass
    if index is not None and np.ndim(value):
        return _number(np.asarray(value)[index])
    if np.ndim(value) == 0:
        return _number(value)
    return f"array of shape {np.shape(value)}"


def _number(value) -> str:
    try:
        return repr(float(value))
    except (TypeError, ValueError):
        return repr(value)


def _substitute(expr: str, values: dict[str, str]) -> str:
    """``np.log(t1)`` with t1 = 0.0 -> ``np.log(0.0)`` (the call as it was evaluated)."""
    tree = ast.parse(expr, mode="eval")

    class Fill(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            return ast.Name(values[name.id], ast.Load()) if name.id in values else name

    return ast.unparse(Fill().visit(tree))
