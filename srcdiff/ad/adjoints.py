"""The adjoint of one primitive call: its rule's templates, instantiated and summed back."""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from ..ir.nodes import Node, Operand, Var, operand_ast
from ..ir.program import Assign
from ..ir.shapes import Shape
from .flat_ties import flat_kink
from .masks import RUNTIME_SELECTS, Mask, runtime_select_mask
from .refusals import not_differentiable
from .shape_sources import read_shapes_from
from .sweep import Sweep, operand_shape
from .tied_values import tie_persistence
from .ties import with_persistence
from .unused_elements import held_at_zero
from .zero_factors import ZERO, held_by_zero_adjoint, zero_factor


def reverse_node(node: Node, sweep: Sweep, location) -> None:
    """Contributions of one primitive call to the adjoints of its active inputs."""
    operand_shapes = {p: operand_shape(v, sweep.shapes) for p, v in zip(node.rule.params, node.inputs)}
    try:
        templates = node.rule.adjoints(node.static, operand_shapes, derivable=sweep.derivable)
    except SrcDiffError as exc:  # a rule refusing these arguments: say where the call is
        if exc.location is not None:
            raise
        raise SrcDiffError(exc.reason, location(node.line), exc.hint) from None
    result_shape = sweep.shapes.get(node.out.name, shapes.UNKNOWN)
    bindings = {"g": ast.Name(sweep.name(node.out.name), ast.Load()),
                "ans": ast.Name(node.out.name, ast.Load())}
    bindings.update({p: operand_ast(v) for p, v in zip(node.rule.params, node.inputs)})
    bindings.update({k: ast.Constant(v) for k, v in node.static.items()})
    fills = sweep.fills
    # a tie that srcdiff proves persists near the point has a share with derivative 0 (ad/ties.py)
    persist = tie_persistence(node, sweep, sweep.loops > 0)
    pending = []  # (value, contribution, masks its adjoint inherits)
    numbers = set()  # values whose contribution is a number standing for a filled array
    for param, operand in zip(node.rule.params, node.inputs):
        if not (isinstance(operand, Var) and operand.name in sweep.active) or param in node.rule.shape_only:
            continue
        if param not in templates:
            raise not_differentiable(node.rule, param, operand_shapes, location(node.line))
        factor = zero_factor(node, param, sweep)
        if factor is ZERO:  # a product with a constant 0: nothing flows back, not 0 * inf
            continue
        contribution = held_by_zero_adjoint(node, param, instantiate(templates[param], bindings), bindings["g"], sweep)
        contribution = flat_kink(held_at_zero(node, param, contribution, bindings["g"], sweep), node, sweep)
        if persist is not None:
            contribution = with_persistence(contribution, copy.deepcopy(persist))
        if fills is not None and operand.name in fills.producers and _is_scalar_fill(contribution, sweep) \
                and _broadcasts_back(fills.producers[operand.name], sweep):
            contribution = contribution.args[1]  # the number stands for the filled array
            numbers.add(operand.name)
        elif fills is not None and _is_fill(contribution) and operand.name in sweep.defined \
                and operand.name not in fills.producers and operand.name not in sweep.lists:
            # added to an adjoint that is already a whole array: broadcasting fills it
            contribution = contribution.args[1]
        if sweep.shape_sources is not None:
            contribution = read_shapes_from(contribution, *sweep.shape_sources, lambda e: _is_number(e, sweep))
        mask = sweep.masks.get(node.out.name, ())
        if not node.rule.elementwise:  # only a single condition zeroes a whole adjoint, any shape
            # a condition whose shape is told at run time holds past this call only if it is one
            # value: an array's zeros are spread by a reduction, a product, a reordering
            mask = tuple(m if m.whole else Mask(m.test, m.keep, False, None, True) for m in mask
                         if m.whole is not False)
        if isinstance(operand, Var) and operand.name in sweep.lists:
            mask = ()  # a list's adjoint stays a list (np.where would make it an array)
        if mask:  # exactly zero where the output's adjoint is, never 0 * inf
            shaped = result_shape if node.rule.elementwise else operand_shapes[param]
            contribution = _masked(contribution, mask, shaped, whole_only=not node.rule.elementwise)
        selection = node.rule.selection(param, node.static, operand_shapes)
        if selection is not None:  # selected, not multiplied by a mask: g may be inf or NaN there
            # a rule that is not elementwise (builtin max) tests one truth value
            whole = (result_shape.ndim == 0) if result_shape.known else not node.rule.elementwise or None
            selected = Mask(instantiate(selection[0], bindings), selection[1], True, whole)
            contribution = _masked(contribution, (selected,), shapes.SCALAR if not node.rule.elementwise
                                   else result_shape)
            mask += (selected,)
        elif not callable(node.rule.selects) and param in node.rule.selects:
            condition, keep = node.rule.selects[param]
            test = node.inputs[node.rule.params.index(condition)]
            tested = operand_shape(test, sweep.shapes)
            whole = (tested.ndim == 0) if tested.known else None  # None: told at run time
            mask += (Mask(operand_ast(test), keep, True, whole),)
        elif param == "value" and node.rule.name in RUNTIME_SELECTS:  # a gradient's select, read again
            mask += (runtime_select_mask(node, operand_shape(node.inputs[0], sweep.shapes)),)
        if factor is not None:  # g may be inf where the other factor is 0: select, never inf * 0
            other = operand_shapes[node.rule.zero_factors[param]]
            zero = Mask(factor, False, True, other.known and other.ndim == 0 and not isinstance(factor, ast.Call))
            contribution = _masked(contribution, (zero,), result_shape)
            mask = tuple(m for m in mask if ast.dump(m.test) != ast.dump(factor)) + (zero,)
        if node.rule.elementwise:
            others = [s for p, s in operand_shapes.items() if p != param]
            contribution = sum_to_shape(contribution, operand, operand_shapes[param], result_shape, others)
        kept = node.rule.kept_where(param)  # zero where the operand's own test fails (np.nansum at NaN)
        kept = (Mask(instantiate(kept, bindings), True, True),) if kept is not None else ()
        pending.append((operand.name, contribution, (_inherit(mask, operand_shapes[param], result_shape)
                                                     if mask else ()) + kept))
    for name, contribution, inherited in _shared(_merged(pending), node, sweep):
        first = name not in sweep.defined
        before = sweep.masks.get(name, ())
        sweep.contribute(name, contribution, node.line)
        if first and (name in numbers or node.rule.name == "list"):
            # a number standing for a filled array, or an item of a list's adjoint (the 0.0 of a
            # list of zeros where nothing reached it): a write by index into it first makes the
            # array (Sweep.ensure), and a parameter's gradient is shaped like it (reverse._returns)
            sweep.popped.add(name)
        if inherited and first:
            sweep.masks[name] = inherited
        elif inherited and before:  # a sum of values zero where a condition fails is zero there too
            common = _common_masks(before, inherited)
            if common:
                sweep.masks[name] = common


def _common_masks(a: tuple, b: tuple) -> tuple:
    """The masks both `a` and `b` hold (same test and polarity), exact only if both are."""
    def key(m):
        return ast.dump(m.test), m.keep, m.whole
    found = {key(m): m for m in b}
    return tuple(Mask(m.test, m.keep, m.exact and found[key(m)].exact, m.whole,
                      m.whole_only or found[key(m)].whole_only) for m in a if key(m) in found)


def _merged(pending: list) -> list:
    """Equal contributions of one node to one value (``x * x`` gives ``g * x`` twice) as one,
    doubled: ``2.0 * (g * x)``."""
    out = []
    for name, contribution, inherited in pending:
        same = next((i for i, (n, c, m) in enumerate(out) if n == name and not m and not inherited
                     and ast.dump(c) == ast.dump(contribution)), None)
        if same is None:
            out.append((name, contribution, inherited))
        else:
            out[same] = (name, _doubled(contribution), ())
    return out


def _doubled(e: ast.expr) -> ast.expr:
    """``2.0 * e``, the 2.0 put on the leftmost factor (``2.0 * g * x`` for ``g * x``) so that
    constant folding meets it; doubling is exact, so the value is bitwise the same."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Mult, ast.Div)):
        return ast.BinOp(_doubled(e.left), e.op, e.right)
    return ast.BinOp(ast.Constant(2.0), ast.Mult(), e)


@dataclass
class Fills:
    """Where ``np.full(shape, s)`` (the adjoint of ``np.sum``) may flow as the number ``s``.

    `producers` maps a value that is a node's result, assigned once, to that node: only its
    adjoint reads the value's adjoint.  When each of its contributions, with a number for
    that adjoint, has the value's shape all the same (``2.0 * g * x`` for ``x * x``), the
    number gives bitwise the same arrays as the fill."""

    producers: dict[str, Node]


def _is_fill(contribution: ast.expr) -> bool:
    return isinstance(contribution, ast.Call) and _is_np_call(contribution, "full") \
        and len(contribution.args) == 2 and not contribution.keywords


def _is_scalar_fill(contribution: ast.expr, sweep: Sweep) -> bool:
    return _is_fill(contribution) and _is_number(contribution.args[1], sweep)


def _is_number(e: ast.expr, sweep: Sweep) -> bool:
    return getattr(_shape_of_expr(e, _shapes(sweep)), "dims", None) == ()


def _broadcasts_back(node: Node, sweep: Sweep) -> bool:
    """Whether every contribution of `node`'s adjoint, its output's adjoint a number, still
    has the shape of its output (before any summing back)."""
    result = sweep.shapes.get(node.out.name, shapes.UNKNOWN)
    if not node.rule.elementwise or not result.known or result.scalar or shapes.UNKNOWN_DIM in result.dims:
        return False
    operand_shapes = {p: operand_shape(v, sweep.shapes) for p, v in zip(node.rule.params, node.inputs)}
    try:
        templates = node.rule.adjoints(node.static, operand_shapes)
    except SrcDiffError:
        return False
    bindings = {"g": ast.Constant(1.0), "ans": ast.Name(node.out.name, ast.Load())}
    bindings.update({p: operand_ast(v) for p, v in zip(node.rule.params, node.inputs)})
    bindings.update({k: ast.Constant(v) for k, v in node.static.items()})
    known = _shapes(sweep)
    return all(getattr(_shape_of_expr(instantiate(templates[p], bindings), known), "dims", None) == result.dims
               for p, v in zip(node.rule.params, node.inputs)
               if isinstance(v, Var) and v.name in sweep.active and p in templates)


def _shapes(sweep: Sweep) -> dict[str, Shape]:
    """Shapes by name in the backward sweep: an adjoint has its value's shape."""
    return {**sweep.shapes, **{adjoint: sweep.shapes[primal] for primal, adjoint in sweep.names.items()
                               if primal in sweep.shapes}}


def _shape_of_expr(e: ast.expr, shape_of) -> Shape | None:
    """The shape of an expression of elementwise arithmetic on known values; None if unsure."""
    if not any(isinstance(n, ast.Name) for n in ast.walk(e)):  # constant arithmetic: a number
        return shapes.SCALAR if isinstance(e, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare)) else None
    if isinstance(e, ast.Name):
        found = shape_of.get(e.id)
        return found if found is not None and found.known else None
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return _shape_of_expr(e.operand, shape_of)
    parts = None
    if isinstance(e, ast.BinOp) and not isinstance(e.op, ast.MatMult):
        parts = [e.left, e.right]
    elif isinstance(e, ast.Call) and not e.keywords and isinstance(e.func, ast.Attribute) \
            and isinstance(e.func.value, ast.Name) and e.func.value.id == "np":
        if e.func.attr == "size":
            return shapes.SCALAR
        if e.func.attr == "where" or isinstance(getattr(np, e.func.attr, None), np.ufunc):
            parts = e.args
    if not parts:
        return None
    found = [_shape_of_expr(p, shape_of) for p in parts]
    if None in found:
        return None
    out = shapes.broadcast(*found)
    if not out.known or shapes.UNKNOWN_DIM in out.dims:
        return None
    return shapes.SCALAR if out.dims == () and all(f.scalar for f in found) else shapes.Shape(out.dims)


def _is_np_call(e: ast.Call, attr: str) -> bool:
    return isinstance(e.func, ast.Attribute) and e.func.attr == attr and isinstance(e.func.value, ast.Name) \
        and e.func.value.id == "np"


def _masked(contribution: ast.expr, mask: tuple[Mask, ...], shape: Shape, whole_only: bool = False) -> ast.expr:
    """`contribution` where every condition of `mask` holds, an exact 0.0 elsewhere."""
    zero = ast.Constant(0.0)
    for m in reversed(mask):
        if _selected_by(contribution, m):
            continue  # already zero where this condition fails
        kept, dropped = (contribution, zero) if m.keep else (zero, contribution)
        if m.whole is None and (whole_only or m.whole_only):
            test = m.test if m.keep else _np("logical_not", m.test)
            contribution = call("select_whole", test, contribution)
        elif not m.exact:
            test = m.test if m.keep else _np("logical_not", m.test)
            contribution = call("select", test, contribution)
        elif shape.known and shape.scalar:  # Python numbers stay numbers
            contribution = ast.IfExp(m.test, kept, dropped)
        else:
            contribution = _np("where", m.test, kept, dropped)
    return contribution


def _selected_by(e: ast.expr, m: Mask) -> bool:
    """Whether `e` is ``np.where(test, ..., 0.0)`` (or its mirror) for `m`'s condition."""
    if isinstance(e, ast.IfExp):
        test, kept, dropped = e.test, e.body, e.orelse
    elif isinstance(e, ast.Call) and _is_np_call(e, "where") and len(e.args) == 3 and not e.keywords:
        test, kept, dropped = e.args
    else:
        return False
    zero = dropped if m.keep else kept
    return m.exact and isinstance(zero, ast.Constant) and zero.value == 0.0 and ast.dump(test) == ast.dump(m.test)


def _inherit(mask: tuple[Mask, ...], operand: Shape, result: Shape) -> tuple[Mask, ...]:
    """The masks an operand's adjoint keeps: all of them when it has the result's shape
    (exactly, if that is proved), none when its shape certainly differs."""
    whole = tuple(m for m in mask if m.whole is not False)
    if _same_shape(operand, result):
        return mask
    if operand.known and result.known and operand.ndim != result.ndim:
        return whole
    return tuple(m if m.whole else Mask(m.test, m.keep, False, m.whole, m.whole_only) for m in mask)


def _np(name: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), list(args), [])


def _same_shape(a: Shape, b: Shape) -> bool:
    """Known and equal: within one broadcast, equal dims mean equal lengths."""
    return a.known and b.known and a.dims == b.dims and a.scalar == b.scalar and shapes.UNKNOWN_DIM not in a.dims


def instantiate(template: ast.expr, bindings: dict[str, ast.expr]) -> ast.expr:
    """A copy of `template` with g, ans, the parameters and static names substituted."""

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            return copy.deepcopy(bindings[name.id]) if name.id in bindings else name

    return Substitute().visit(copy.deepcopy(template))


def sum_to_shape(g: ast.expr, operand: Operand, operand_shape: Shape, result_shape: Shape,
                 others: list[Shape] = ()) -> ast.expr:
    """`g` (shaped like the result) summed back to the shape of a broadcast operand; `others`
    are the shapes of the other operands of the broadcast."""
    axes = shapes.reduction_axes(operand_shape, result_shape) or _axes_among(operand_shape, others)
    if axes is None:
        return call("unbroadcast", g, operand_ast(operand))
    lead, keep = axes
    # np.sum(g, ...) rather than g.sum(...): the array API standard has the function only,
    # so the same code runs on every array library (the namespace binds np, backend/namespaces.py)
    if operand_shape.ndim == 0 and lead:
        return np_call("sum", g)
    if lead:
        g = np_call("sum", g, axis=_axis(lead))
    if keep:
        g = np_call("sum", g, axis=_axis(keep), keepdims=ast.Constant(True))
    return g


def _axes_among(operand: Shape, others: list[Shape]):
    """`reduction_axes` from all the operands of a broadcast: an axis of unknown length is
    the result's own where every other operand has length 1 there (``x[:, None] - y[None, :]``),
    or where there is no other operand (``np.tanh(x[:, n:])``: the result has x's shape)."""
    if not (operand.known and all(s.known for s in others)):
        return None
    ndim = max(s.ndim for s in [operand, *others])
    lead, keep = ndim - operand.ndim, []
    for axis, dim in enumerate(operand.dims):
        there = {s.dims[axis + lead - ndim + s.ndim] for s in others if axis + lead - ndim + s.ndim >= 0}
        if there <= {shapes.ONE}:
            continue  # the result's length is this operand's
        if dim == shapes.ONE:  # summing an axis of length 1 is right whatever the result's length
            keep.append(axis)
        elif dim != shapes.MANY:
            return None
    return tuple(range(lead)), tuple(keep)


def _shared(pending: list, node: Node, sweep: Sweep) -> list:
    """Subexpressions the contributions of one node compute more than once (``x == ans`` in the adjoint of
    ``np.max``, the solve in that of ``np.linalg.solve``) computed once, into a temporary; never one under a
    conditional expression (it might not run); in copies (a use mask's may be in a statement emitted before)."""
    counts: dict[str, list[ast.expr]] = {}
    for _, contribution, _ in pending:
        guarded = {id(n) for e in ast.walk(contribution) if isinstance(e, ast.IfExp) for n in ast.walk(e)}
        for n in ast.walk(contribution):
            if id(n) not in guarded and _worth_sharing(n):
                counts.setdefault(ast.dump(n), []).append(n)
    repeated = [text for text, found in counts.items() if len(found) > 1]
    if not repeated:
        return pending
    inner = {ast.dump(n) for text in repeated for n in ast.walk(counts[text][0]) if ast.dump(n) != text}
    names = {}
    for text in repeated:
        if text not in inner:  # the largest repeated expressions only
            names[text] = sweep.namer.fresh(f"{node.out.name}_shared")
            sweep.emit(Assign([names[text]], copy.deepcopy(counts[text][0]), node.line))

    class Share(ast.NodeTransformer):
        def visit(self, n):
            if isinstance(n, ast.expr) and ast.dump(n) in names:
                return ast.Name(names[ast.dump(n)], ast.Load())
            return super().visit(n)

    return [(name, Share().visit(copy.deepcopy(c)), inherited) for name, c, inherited in pending]


def _worth_sharing(n: ast.AST) -> bool:
    return isinstance(n, (ast.Call, ast.BinOp, ast.Compare)) \
        and any(isinstance(v, ast.Name) and v.id not in ("np", "math") for v in ast.walk(n))


def _axis(axes: tuple[int, ...]) -> ast.expr:
    return ast.Constant(axes[0]) if len(axes) == 1 else ast.Tuple([ast.Constant(a) for a in axes], ast.Load())


def method(obj: ast.expr, name: str, **keywords) -> ast.expr:
    return ast.Call(ast.Attribute(obj, name, ast.Load()), [],
                    [ast.keyword(k, v) for k, v in keywords.items()])


def np_call(name: str, *args: ast.expr, **keywords) -> ast.expr:
    """``np.name(*args, **keywords)``."""
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), list(args),
                    [ast.keyword(k, v) for k, v in keywords.items()])


def call(name: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])
