"""The statements of a gradient program, between the reverse pass and code generation.

The forward sweep is a list of IR `Node`s and the statements below; the backward sweep is a
list of `AdjointStmt`s and the statements below.  Branches and loops stay structured (`If`,
`For`, `While` hold statement lists), so later passes (the optimizer, the debug mode) can walk
them with `walk` instead of re-parsing text.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .nodes import Function
from .shapes import Shape


@dataclass
class AdjointStmt:
    """``target = expr`` (or ``target = target + expr`` when `accumulate`) in the backward sweep."""

    target: str
    expr: ast.expr
    accumulate: bool = False
    line: int | None = None  # the user's line the contribution comes from


@dataclass
class Assign:
    """``a, b = expr``: loop bookkeeping, copies, and calls that also return a pullback."""

    targets: list[str]
    expr: ast.expr
    line: int | None = None
    target = None  # not an adjoint (for passes that match AdjointStmt.target)


@dataclass
class Effect:
    """An expression run for its effect: ``stack.append(...)``, ``xs.append(v)``, ``xs_bar.pop()``."""

    expr: ast.expr
    line: int | None = None
    target = None


@dataclass
class Run:
    """A statement of the user's run as written in the forward sweep (`nodes.ForwardStatement`)."""

    stmt: ast.stmt
    line: int | None = None
    target = None


@dataclass
class Scatter:
    """Add `expr` into part of the adjoint `target`: ``target[index] += expr`` (mode "add"),
    ``np.add.at(target, index, expr)`` for index arrays that may repeat ("add.at"), or
    ``target[index] = target[index] + expr`` for a list of adjoints ("list")."""

    target: str
    index: ast.expr
    expr: ast.expr
    mode: str
    line: int | None = None


@dataclass
class If:
    test: ast.expr
    body: list = field(default_factory=list)
    orelse: list = field(default_factory=list)
    line: int | None = None
    target = None


@dataclass
class For:
    target_name: str
    iter: ast.expr
    body: list = field(default_factory=list)
    line: int | None = None
    target = None


@dataclass
class While:
    test: ast.expr
    body: list = field(default_factory=list)
    line: int | None = None
    target = None


@dataclass
class Break:
    target = None


def own_expressions(stmt) -> list[ast.AST]:
    """The expressions a forward or backward statement evaluates itself (not those of the
    statements nested in it), in the order it evaluates them."""
    if isinstance(stmt, (If, While)):
        return [stmt.test]
    if isinstance(stmt, For):
        return [stmt.iter]
    if isinstance(stmt, Run):
        return [stmt.stmt]
    if isinstance(stmt, Scatter):
        return [stmt.index, stmt.expr]
    expr = getattr(stmt, "expr", None)  # an IR node, an adjoint, an assignment, an effect
    return [expr] if expr is not None else []


def walk(stmts: list):
    """Every statement of a (forward or backward) statement list, nested ones included."""
    for stmt in stmts:
        yield stmt
        for inner in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
            if isinstance(inner, list):
                yield from walk(inner)


def children(stmt) -> list[list]:
    return [inner for inner in (getattr(stmt, "body", None), getattr(stmt, "orelse", None))
            if isinstance(inner, list)]


@dataclass
class GradProgram:
    """Everything codegen needs: the forward sweep, then the backward statements.

    `forward` holds IR nodes and program statements (program.py); `backward` holds
    `AdjointStmt`s and program statements.  In straight-line code both are flat lists.
    `calls` maps the name of each generated callee adjoint (``helper_vjp``) the program
    calls to the `CallSpec` that builds it.  With `pullback` set (a callee's program), the
    backward sweep is seeded by the parameter `pullback` instead of 1.0.
    """

    function: Function
    forward: list
    backward: list
    returns: list[ast.expr]
    check_output: str | None = None  # "file:line" when the output's shape is unknown
    adjoints: dict[str, str] = field(default_factory=dict)  # primal name -> its adjoint's name
    calls: dict = field(default_factory=dict)
    pullback: str | None = None


@dataclass(frozen=True)
class CallSpec:
    """The adjoint (or, `mode` "forward", the tangent function) of a user function for one
    call site's kind of arguments."""

    func: object
    wrt: tuple[str, ...]
    shapes: tuple[tuple[str, Shape], ...]
    mode: str = "reverse"
    spent: tuple[str, ...] = ()  # parameters the helper may update in place unseen (ad/in_place_args.py)
