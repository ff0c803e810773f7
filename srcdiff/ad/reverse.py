"""Stage 4: the IR becomes a gradient program — forward sweep, then adjoints in reverse.

Walking each block's items in reverse order, each node's rule turns the adjoint of its
output into a contribution for every *active* input (one that depends on a `wrt` parameter
and reaches the output).  The first contribution to an adjoint is assigned; later ones are
added into a new value (``x_bar = x_bar + c``), never in place, so no array is ever shared
by two adjoints that are still being accumulated.  Branches and loops are reversed by
reverse_regions.py; the forward sweep (what runs, what loops save) is built by forward.py.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from ..errors import SrcDiffError
from ..frontend.naming import Namer
from ..ir import shapes
from ..ir.nodes import Branch, Const, Function, Loop, Node, Operand, UserCall, Var, all_nodes, operand_ast
from ..ir.shapes import Shape
from ..lower.writes import check_in_place
from ..rules.structural import APPEND, GETITEM
from .program import AdjointStmt, Effect, walk

__all__ = ["AdjointStmt", "GradProgram", "active_values", "reverse", "walk"]


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
    """The adjoint of a user function for one call site's kind of arguments."""

    func: object
    wrt: tuple[str, ...]
    shapes: tuple[tuple[str, Shape], ...]


@dataclass
class LoopPlan:
    """How the forward sweep of one loop saves what its backward sweep reads."""

    stack: str | None = None
    saved: list[str] = field(default_factory=list)
    count: str | None = None  # iterations run, when the backward loop cannot recount them
    preset: list[str] = field(default_factory=list)  # saved names some iteration may not set


@dataclass
class Sweep:
    """State of the backward walk: adjoint names, which adjoints hold a value, the output."""

    namer: Namer
    shapes: dict[str, Shape]
    active: set[str]
    lists: frozenset
    location: object
    names: dict[str, str] = field(default_factory=dict)  # primal -> adjoint name (one per primal)
    defined: set[str] = field(default_factory=set)  # primals whose adjoint holds a value here
    owned: set[str] = field(default_factory=set)  # ... whose adjoint array no other name shares
    alias: dict[str, str] = field(default_factory=dict)  # adjoint name -> adjoint it is
    stmts: list = field(default_factory=list)
    plans: dict[int, LoopPlan] = field(default_factory=dict)  # id(loop) -> plan
    pullbacks: dict[int, str] = field(default_factory=dict)  # UserCall node id -> pullback name
    calls: dict = field(default_factory=dict)  # vjp name -> CallSpec

    @property
    def adjoint(self) -> dict[str, str]:
        """Primal name -> adjoint name, for the adjoints that hold a value."""
        return {p: self.names[p] for p in self.names if p in self.defined}

    def name(self, primal: str) -> str:
        if primal not in self.names:
            self.names[primal] = self.namer.adjoint(primal)
        return self.names[primal]

    def child(self) -> Sweep:
        """A sweep for a nested block: same names, its own statements."""
        other = copy.copy(self)
        other.defined, other.owned, other.alias = set(self.defined), set(self.owned), dict(self.alias)
        other.stmts = []
        return other

    def emit(self, stmt) -> None:
        self.stmts.append(stmt)

    def contribute(self, primal: str, expr: ast.expr, line: int | None) -> None:
        name = self.name(primal)
        if primal in self.defined:
            if primal in self.lists:  # adjoints of a list's elements add up one by one
                total = ast.parse(f"[a + b for a, b in zip({name}, c)]", mode="eval").body
                total.generators[0].iter.args[1] = expr
                self.emit(AdjointStmt(name, total, False, line))
            else:
                self.emit(AdjointStmt(name, expr, True, line))
                self.owned.add(primal)
            self.alias.pop(name, None)
            return
        self.defined.add(primal)
        self.emit(AdjointStmt(name, expr, False, line))
        self.alias.pop(name, None)
        if isinstance(expr, ast.Name):
            self.alias[name] = self.alias.get(expr.id, expr.id)
        if isinstance(expr, (ast.BinOp, ast.UnaryOp)) or primal in self.lists:
            self.owned.add(primal)
        else:
            self.owned.discard(primal)

    def zero(self, primal: str) -> ast.expr:
        """A zero adjoint for `primal`, of its type and shape."""
        if primal in self.lists:
            return ast.parse(f"[0.0] * len({primal})", mode="eval").body
        shape = self.shapes.get(primal, shapes.UNKNOWN)
        if shape.known and shape.ndim == 0 and shape.scalar:
            return ast.Constant(0.0)
        if shape.known:
            return ast.parse(f"np.zeros(np.shape({primal}))", mode="eval").body
        return ast.parse(f"zeros_like({primal})", mode="eval").body

    def ensure(self, primal: str, line=None, own: bool = False) -> None:
        """Give `primal`'s adjoint a value (zero) if it has none; with `own`, a private copy."""
        if primal not in self.defined:
            self.defined.add(primal)
            self.owned.add(primal)
            self.alias.pop(self.name(primal), None)
            self.emit(AdjointStmt(self.name(primal), self.zero(primal), False, line))
        elif own and primal not in self.owned and primal not in self.lists:
            name = self.name(primal)
            self.emit(AdjointStmt(name, ast.parse(f"copy_array({name})", mode="eval").body, False, line))
            self.owned.add(primal)
            self.alias.pop(name, None)


def active_values(function: Function, wrt: set[str]) -> set[str]:
    """Names that depend on a `wrt` parameter and that the output depends on."""
    edges = []  # (source, destination) of every flow of value that carries a gradient

    def collect(block):
        for item in block.nodes:
            if isinstance(item, Node):
                if not getattr(item.rule, "nograd", False):
                    inputs = item.input_vars if item.rule is not GETITEM else item.input_vars[:1]
                    edges.extend((v.name, item.out.name) for v in inputs)
            elif isinstance(item, Branch):
                collect(item.body)
                collect(item.orelse)
            else:
                for c in item.carried:
                    edges.extend((v.name, c.var.name) for v in (c.init, c.final) if isinstance(v, Var))
                collect(item.body)

    collect(function.body)
    varies = set(wrt)
    useful = {function.output.name} if isinstance(function.output, Var) else set()
    changed = True
    while changed:
        changed = False
        for src, dst in edges:
            if src in varies and dst not in varies:
                varies.add(dst)
                changed = True
            if dst in useful and src not in useful:
                useful.add(src)
                changed = True
    return varies & useful


def reverse(function: Function, namer: Namer, wrt: tuple[str, ...], shape_of: dict[str, Shape],
            *, location, with_value: bool = False, pullback: str | None = None) -> GradProgram:
    """Build the gradient program of `function` with respect to the parameters `wrt`.

    With `pullback` (the name of the output's adjoint parameter), the program is a callee's:
    its output may be an array and its backward sweep starts from that parameter.
    """
    from .forward import build_forward  # the forward sweep depends on the backward's plans

    check_in_place(function, shape_of, location, callee=pullback is not None)
    sweep = Sweep(namer, shape_of, active_values(function, set(wrt)), function.lists, location)
    output = function.output
    out_shape = _shape(output, shape_of)
    if pullback is None and out_shape.known and out_shape.ndim > 0:
        raise SrcDiffError(
            f"the function returns an array with {out_shape.ndim} dimension(s), but a gradient "
            "needs a scalar output", location(function.return_line),
            "reduce it to a scalar (e.g. .sum() or .mean()), or differentiate one element",
        )
    if isinstance(output, Var) and output.name in sweep.active:
        seed = ast.Name(pullback, ast.Load()) if pullback else ast.Constant(1.0)
        sweep.contribute(output.name, seed, None)
    reverse_block(function.body, sweep)
    returns = _returns(wrt, sweep)
    with_output = with_value or pullback is not None or not out_shape.known
    forward = build_forward(function, sweep, returns, with_output)
    check = None if out_shape.known or pullback is not None else str(location(function.return_line).short)
    return GradProgram(function, forward, sweep.stmts, returns, check, sweep.adjoint, sweep.calls, pullback)


def reverse_block(block, sweep: Sweep) -> None:
    """The adjoints of a block's items, last item first."""
    from .regions import reverse_branch, reverse_call, reverse_getitem, reverse_loop

    for item in reversed(block.nodes):
        if isinstance(item, Branch):
            reverse_branch(item, sweep)
        elif isinstance(item, Loop):
            reverse_loop(item, sweep)
        elif item.out.name not in sweep.defined or getattr(item.rule, "nograd", False):
            continue
        elif isinstance(item, UserCall):
            reverse_call(item, sweep)
        elif item.rule is GETITEM:
            reverse_getitem(item, sweep)
        elif item.rule is APPEND:
            _reverse_append(item, sweep)
        else:
            reverse_node(item, sweep, sweep.location)


def _reverse_append(node: Node, sweep: Sweep) -> None:
    """``xs.append(v)``: v's adjoint is the last of the list's adjoints (popped either way)."""
    lst, value = node.inputs
    pop = ast.parse(f"{sweep.name(lst.name)}.pop()", mode="eval").body
    if isinstance(value, Var) and value.name in sweep.active:
        sweep.contribute(value.name, pop, node.line)
    else:
        sweep.emit(Effect(pop, node.line))


def reverse_node(node: Node, sweep: Sweep, location) -> None:
    """Contributions of one primitive call to the adjoints of its active inputs."""
    operand_shapes = {p: _shape(v, sweep.shapes) for p, v in zip(node.rule.params, node.inputs)}
    try:
        templates = node.rule.adjoints(node.static, operand_shapes)
    except SrcDiffError as exc:  # a rule refusing these arguments: say where the call is
        if exc.location is not None:
            raise
        raise SrcDiffError(exc.reason, location(node.line), exc.hint) from None
    result_shape = sweep.shapes.get(node.out.name, shapes.UNKNOWN)
    bindings = {"g": ast.Name(sweep.name(node.out.name), ast.Load()),
                "ans": ast.Name(node.out.name, ast.Load())}
    bindings.update({p: operand_ast(v) for p, v in zip(node.rule.params, node.inputs)})
    bindings.update({k: ast.Constant(v) for k, v in node.static.items()})
    for param, operand in zip(node.rule.params, node.inputs):
        if not (isinstance(operand, Var) and operand.name in sweep.active):
            continue
        if param not in templates:
            raise SrcDiffError(f"{node.rule.name} is not differentiable with respect to its "
                               f"argument {param!r}", location(node.line),
                               "pass a value that does not depend on the differentiated inputs")
        contribution = instantiate(templates[param], bindings)
        if node.rule.elementwise:
            contribution = sum_to_shape(contribution, operand, operand_shapes[param], result_shape)
        sweep.contribute(operand.name, contribution, node.line)


def instantiate(template: ast.expr, bindings: dict[str, ast.expr]) -> ast.expr:
    """A copy of `template` with g, ans, the parameters and static names substituted."""

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            return copy.deepcopy(bindings[name.id]) if name.id in bindings else name

    return Substitute().visit(copy.deepcopy(template))


def sum_to_shape(g: ast.expr, operand: Operand, operand_shape: Shape, result_shape: Shape) -> ast.expr:
    """`g` (shaped like the result) summed back to the shape of a broadcast operand."""
    axes = shapes.reduction_axes(operand_shape, result_shape)
    if axes is None:
        return _call("unbroadcast", g, operand_ast(operand))
    lead, keep = axes
    if operand_shape.ndim == 0 and lead:
        return _method(g, "sum")
    if lead:
        g = _method(g, "sum", axis=_axis(lead))
    if keep:
        g = _method(g, "sum", axis=_axis(keep), keepdims=ast.Constant(True))
    return g


def _axis(axes: tuple[int, ...]) -> ast.expr:
    return ast.Constant(axes[0]) if len(axes) == 1 else ast.Tuple([ast.Constant(a) for a in axes], ast.Load())


def _method(obj: ast.expr, name: str, **keywords) -> ast.expr:
    return ast.Call(ast.Attribute(obj, name, ast.Load()), [],
                    [ast.keyword(k, v) for k, v in keywords.items()])


def _call(name: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])


def _shape(operand: Operand, shape_of: dict[str, Shape]) -> Shape:
    if isinstance(operand, Var):
        return shape_of.get(operand.name, shapes.UNKNOWN)
    if isinstance(operand, Const):
        return shapes.of_constant(operand.value)
    return shapes.UNKNOWN


def _returns(wrt: tuple[str, ...], sweep: Sweep) -> list[ast.expr]:
    """One gradient per `wrt` parameter; zeros for a parameter the output ignores."""
    returns, roots = [], set()
    for name in wrt:
        if name not in sweep.defined:
            shape = sweep.shapes.get(name, shapes.UNKNOWN)
            if shape.scalar:
                returns.append(ast.Constant(0.0))
            else:
                returns.append(_call("zeros_like", ast.Name(name, ast.Load())))
            continue
        adjoint = sweep.name(name)
        root = sweep.alias.get(adjoint, adjoint)
        value = ast.Name(adjoint, ast.Load())
        shape = sweep.shapes.get(name, shapes.UNKNOWN)
        if root in roots and not shape.scalar:  # two gradients must not be one array
            value = _method(value, "copy") if shape.known else _call("copy_array", value)
        roots.add(root)
        returns.append(value)
    return returns


def all_program_nodes(function: Function) -> list[Node]:
    """Every node of the function (kept for callers of the straight-line API)."""
    return all_nodes(function)
