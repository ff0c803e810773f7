"""Stage 4: the IR becomes a gradient program — forward sweep, then adjoints in reverse.

Walking the nodes in reverse topological order, each node's rule turns the adjoint of its
output into a contribution for every *active* input (one that depends on a `wrt` parameter
and reaches the output).  The first contribution to an adjoint is assigned; later ones are
added into a new value (``x_bar = x_bar + c``), never in place, so no array is ever shared
by two adjoints that are still being accumulated.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from . import shapes
from .errors import SrcDiffError
from .ir import Const, Function, Node, Operand, Var, operand_ast, topological_order
from .naming import Namer
from .shapes import Shape


@dataclass
class AdjointStmt:
    """``target = expr`` (or ``target = target + expr`` when `accumulate`) in the backward sweep."""

    target: str
    expr: ast.expr
    accumulate: bool = False
    line: int | None = None  # the user's line the contribution comes from


@dataclass
class GradProgram:
    """Everything codegen needs: which forward nodes run, then the backward statements."""

    function: Function
    forward: list[Node]
    backward: list[AdjointStmt]
    returns: list[ast.expr]
    check_output: str | None = None  # "file:line" when the output's shape is unknown


@dataclass
class _Sweep:
    namer: Namer
    shapes: dict[str, Shape]
    active: set[str]
    adjoint: dict[str, str] = field(default_factory=dict)  # primal name -> adjoint name
    alias: dict[str, str] = field(default_factory=dict)  # adjoint name -> adjoint it is
    stmts: list[AdjointStmt] = field(default_factory=list)

    def contribute(self, primal: str, expr: ast.expr, line: int | None) -> None:
        if primal in self.adjoint:
            name = self.adjoint[primal]
            self.stmts.append(AdjointStmt(name, expr, True, line))
            self.alias.pop(name, None)
        else:
            name = self.namer.adjoint(primal)
            self.adjoint[primal] = name
            self.stmts.append(AdjointStmt(name, expr, False, line))
            if isinstance(expr, ast.Name):
                self.alias[name] = self.alias.get(expr.id, expr.id)


def active_values(function: Function, wrt: set[str]) -> set[str]:
    """Names that depend on a `wrt` parameter and that the output depends on."""
    nodes = function.body.nodes
    varies = set(wrt)
    for node in nodes:
        if any(v.name in varies for v in node.input_vars):
            varies.add(node.out.name)
    useful = {function.output.name} if isinstance(function.output, Var) else set()
    for node in reversed(nodes):
        if node.out.name in useful:
            useful.update(v.name for v in node.input_vars)
    return varies & useful


def reverse(function: Function, namer: Namer, wrt: tuple[str, ...], shape_of: dict[str, Shape],
            *, location, with_value: bool = False) -> GradProgram:
    """Build the gradient program of `function` with respect to the parameters `wrt`."""
    sweep = _Sweep(namer, shape_of, active_values(function, set(wrt)))
    output = function.output
    out_shape = _shape(output, shape_of)
    if out_shape.known and out_shape.ndim > 0:
        raise SrcDiffError(
            f"the function returns an array with {out_shape.ndim} dimension(s), but a gradient "
            "needs a scalar output", location(function.return_line),
            "reduce it to a scalar (e.g. .sum() or .mean()), or differentiate one element",
        )
    if isinstance(output, Var) and output.name in sweep.active:
        sweep.contribute(output.name, ast.Constant(1.0), None)
    for node in reversed(topological_order(function.body.nodes)):
        if node.out.name in sweep.adjoint:
            reverse_node(node, sweep, location)
    returns = _returns(wrt, sweep)
    forward = _needed_forward(function, sweep.stmts, returns, with_value or not out_shape.known)
    check = None if out_shape.known else str(location(function.return_line).short)
    return GradProgram(function, forward, sweep.stmts, returns, check)


def reverse_node(node: Node, sweep: _Sweep, location) -> None:
    """Contributions of one primitive call to the adjoints of its active inputs."""
    operand_shapes = {p: _shape(v, sweep.shapes) for p, v in zip(node.rule.params, node.inputs)}
    templates = node.rule.adjoints(node.static, operand_shapes)
    result_shape = sweep.shapes[node.out.name]
    bindings = {"g": ast.Name(sweep.adjoint[node.out.name], ast.Load()),
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


def _returns(wrt: tuple[str, ...], sweep: _Sweep) -> list[ast.expr]:
    """One gradient per `wrt` parameter; zeros for a parameter the output ignores."""
    returns, roots = [], set()
    for name in wrt:
        if name not in sweep.adjoint:
            shape = sweep.shapes.get(name, shapes.UNKNOWN)
            if shape.scalar:
                returns.append(ast.Constant(0.0))
            else:
                returns.append(_call("zeros_like", ast.Name(name, ast.Load())))
            continue
        adjoint = sweep.adjoint[name]
        root = sweep.alias.get(adjoint, adjoint)
        value = ast.Name(adjoint, ast.Load())
        shape = sweep.shapes.get(name, shapes.UNKNOWN)
        if root in roots and not shape.scalar:  # two gradients must not be one array
            value = _method(value, "copy") if shape.known else _call("copy_array", value)
        roots.add(root)
        returns.append(value)
    return returns


def _needed_forward(function: Function, stmts, returns, with_output: bool) -> list[Node]:
    """The forward nodes whose values the backward sweep (or the caller) reads."""
    needed = set()
    for tree in [s.expr for s in stmts] + returns:
        needed.update(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    if with_output and isinstance(function.output, Var):
        needed.add(function.output.name)
    kept = []
    for node in reversed(topological_order(function.body.nodes)):
        if node.out.name in needed:
            kept.append(node)
            needed.update(v.name for v in node.input_vars)
    return kept[::-1]
