"""Debug mode, ``srcdiff.grad(f, debug=True)``: the first NaN or infinity names the user's line.

A pass over the generated function's AST: after every forward assignment and every adjoint
assignment it inserts one readable statement,

    h = np.log(t1)
    check_finite(h, 'forward', 'h', t1=t1)
    ...
    x_bar = unbroadcast(y_bar / (2.0 * y), x)
    check_finite(x_bar, 'backward', 'y', y_bar=y_bar, y=y, x=x)

naming the value just computed, the sweep, the graph node it belongs to (for an adjoint, the
node whose rule produced the contribution) and the inputs the statement read.  The check costs
an `np.isfinite` per statement, which is why it is opt-in.  When a value is not finite,
`Checker` keeps the first such statement's `SrcDiffError` (at the user's line, with the operation
and its inputs, e.g. ``np.log(x - x) is -inf: np.log(0.0)``) and raises it when the function
returns something not finite: a NaN that np.where leaves out (NaN data in the branch not taken)
does not reach what the user gets, so it stops nothing.  Arithmetic exceptions that Python floats raise
instead of returning inf/nan (``1.0 / 0.0``, ``math.log(0.0)``) are translated the same way:
the body runs inside ``try``, and `Checker.failed` finds the failing statement's check in
the rendered function (`Checker.read`).
"""

from __future__ import annotations

import ast
import linecache
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


def helper_name(namer: Namer) -> str:
    """The name the checks call the `Checker` by: `check_finite` unless the user took it."""
    return namer.copy().fresh(HELPER)


def instrument(func: ast.FunctionDef, program: GradProgram, helper: str) -> None:
    """Add a finiteness check after each assignment of the generated function `func`.

    A forward assignment is recognised by the graph node it computes; an adjoint assignment
    by the adjoint it assigns, and attributed to the node its contribution comes from (see
    `Graph.origin`), so it works on the optimizer's output, merged sums included.  Anything
    else (loop bookkeeping, say) is left unchecked rather than guessed at.
    """
    computed, users = _users(program.function)
    output = program.function.output.name if isinstance(program.function.output, ir.Var) else None
    primal_of = {adjoint: primal for primal, adjoint in program.adjoints.items()}

    def check(stmt: ast.stmt) -> ast.stmt | None:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            return None
        target = stmt.targets[0].id
        reads = _reads(stmt.value, target)
        if target in computed:
            return _call(helper, target, "forward", target, reads)
        if target in primal_of:
            owner = contribution_origin(users.get(primal_of[target], []), output, set(reads), program.adjoints)
            if owner is not None:  # None: the output's seed, 1.0
                return _call(helper, target, "backward", owner, reads)
        return None

    def visit(body: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    setattr(stmt, field, visit(inner))
            out.append(stmt)
            added = check(stmt)
            if added is not None:
                out.append(added)
        return out

    # ``1.0 / 0.0`` on Python floats raises instead of giving inf: reported like an infinity
    failed = _method(helper, "failed", ast.Name("error", ast.Load()))
    handler = ast.ExceptHandler(ast.Name("Exception", ast.Load()), "error", [ast.Raise(failed)])
    # NumPy warns when it makes an inf or a NaN; the check right after says it better, at the
    # user's line, so its RuntimeWarning would only repeat it
    quiet = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "errstate", ast.Load()), [],
                     [ast.keyword(k, ast.Constant("ignore")) for k in ("divide", "invalid", "over")])
    body = [ast.Expr(_method(helper, "begin")), ast.With([ast.withitem(quiet)], _returns_checked(visit(func.body),
                                                                                                   helper))]
    func.body = [ast.Try(body, [handler], [], [])]


def _returns_checked(body: list[ast.stmt], helper: str) -> list[ast.stmt]:
    """`body` with each ``return value`` of the function's own (not of a function it defines) made
    ``return helper.end(value)``: the first non-finite value is raised only if what it returns is not finite."""
    class Returns(ast.NodeTransformer):
        def visit_FunctionDef(self, node):
            return node

        visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef

        def visit_Return(self, node: ast.Return):
            return ast.Return(_method(helper, "end", node.value or ast.Constant(None)))

    return [Returns().visit(stmt) for stmt in body]


def _method(helper: str, name: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.Attribute(ast.Name(helper, ast.Load()), name, ast.Load()), list(args), [])


def _users(function: ir.Function) -> tuple[set[str], dict[str, list[str]]]:
    """The names nodes compute, and for every name the nodes reading it (in program order)."""
    nodes = ir.all_nodes(function)
    users: dict[str, list[str]] = {}
    for node in nodes:
        for v in dict.fromkeys(node.input_vars):
            users.setdefault(v.name, []).append(node.out.name)
    return {n.out.name for n in nodes}, users


def _reads(expr: ast.expr, target: str) -> list[str]:
    """Variables a statement reads, in order: its inputs (helpers and modules left out)."""
    names = [n.id for n in sorted((n for n in ast.walk(expr) if isinstance(n, ast.Name)),
                                  key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))]
    return [n for n in dict.fromkeys(names) if n != target and n not in TEMPLATE_GLOBALS]


def _call(helper: str, value: str, sweep: str, node: str, inputs: list[str]) -> ast.stmt:
    keywords = [ast.keyword(name, ast.Name(name, ast.Load())) for name in inputs]
    args = [ast.Name(value, ast.Load()), ast.Constant(sweep), ast.Constant(node)]
    return ast.Expr(ast.Call(ast.Name(helper, ast.Load()), args, keywords))


class Checker:
    """Raises `SrcDiffError` at the user's line when a checked value is not finite."""

    def __init__(self, parsed: ParsedFunction, function: ir.Function, helper: str, source: str):
        self.parsed = parsed
        self.checks = read(source, helper)
        self.graph = build(function, location=parsed.location, def_line=parsed.tree.lineno,
                           user_names=assigned_names(parsed.tree), parsed=parsed,
                           in_place=True)  # appends: looked up by name only
        #: per call running (a stack: the function may call itself), the first non-finite value's error
        self.first: list = []

    def begin(self) -> None:
        """A call of the generated function starts: nothing non-finite met yet."""
        self.first.append(None)

    def end(self, result):
        """`result`, returned by the generated function; if it is not finite, the error of the first
        non-finite value the call met (a NaN that only a branch np.where leaves out reaches no result)."""
        first = self.first.pop() if self.first else None
        if first is not None and not _finite_tree(result):
            raise first
        return result

    def __call__(self, value, sweep, node, /, **inputs):
        if _finite(value) or not self.first or self.first[-1] is not None:
            return
        caller = sys._getframe(1)  # the generated function: the statement is above this check
        lines = linecache.getlines(caller.f_code.co_filename)
        statement = lines[caller.f_lineno - 2].strip() if 1 < caller.f_lineno <= len(lines) + 1 else ""
        self.first[-1] = self._error(value, sweep, node, inputs, statement=statement)

    def failed(self, error: BaseException) -> BaseException:
        """The `SrcDiffError` for an exception raised by a generated statement (the first non-finite
        value before it, if one was met), else `error`."""
        first = self.first.pop() if self.first else None
        if isinstance(error, SrcDiffError) or not isinstance(error, (ArithmeticError, ValueError)):
            return error
        if first is not None:
            first.__cause__ = error
            return first
        if isinstance(error, ValueError) and "math domain error" not in str(error):
            return error
        tb = error.__traceback__  # its first entry is the generated function's own frame
        if tb is None or tb.tb_lineno not in self.checks:
            return error
        frame = tb.tb_frame
        lines = linecache.getlines(frame.f_code.co_filename)
        statement = lines[tb.tb_lineno - 1].strip() if 0 < tb.tb_lineno <= len(lines) else ""
        sweep, node, names = self.checks[tb.tb_lineno]
        inputs = {n: frame.f_locals[n] for n in names if n in frame.f_locals}
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


def read(source: str, helper: str) -> dict[int, tuple[str, str, list[str]]]:
    """The checks of an instrumented function's source, by the line of the statement each
    follows: (sweep, graph node, names of the inputs)."""
    found = {}
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for before, stmt in zip(body, body[1:]):
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == helper:
                sweep, owner = (a.value for a in call.args[1:3])
                found[before.end_lineno] = (sweep, owner, [k.arg for k in call.keywords])
    return found


def _finite(value) -> bool:
    try:
        array = np.asarray(value)
    except Exception:
        return True
    if array.dtype.kind not in "fc":
        return True
    return bool(np.all(np.isfinite(array)))


def _finite_tree(value) -> bool:
    """Whether every number of `value` (a result: an array, a tuple of them, a tree) is finite."""
    if isinstance(value, dict):
        return all(_finite_tree(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return all(_finite_tree(v) for v in value)
    if hasattr(value, "__dataclass_fields__"):
        return all(_finite_tree(getattr(value, f)) for f in value.__dataclass_fields__)
    return _finite(value)


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
