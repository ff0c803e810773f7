"""A 0/1 float mask read only as a factor: ``m = np.where(c, 0.0, 1.0)``, ``r_bar + m * np.sign(r)``
is ``r_bar + np.where(c, 0.0, np.sign(r))``.

The adjoint of ``np.where(c, a, b)`` with respect to what only the `b` side reads is the seed
selected, and where the seed is the number 1.0 codegen writes the mask of the side as floats
(``np.where(c, 0.0, 1.0)``: a Huber loss written ``np.where(abs(r) < beta, quad, abs(r) - k)``,
whose linear side's adjoint then multiplies the mask by abs's ``np.sign(r)``).  Making the mask
is a selection's pass, and the product another; the selection of the factor itself is one, and
beside the other side's selection on `c` (``np.where(c, quad_bar, 0.0)``) the two merge into one
(wheres.merge_complements), as a hand writes ``np.where(c, r / beta, np.sign(r))``.

A mask here is a name assigned once and never written into, to ``np.where(c, 1.0, 0.0)`` or
``np.where(c, 0.0, 1.0)`` (``c.astype(float)`` is masks.py's), its condition reading names
that hold one value wherever they are read; every read of it is a factor of a product whose other
factor is a float (or such a mask's expression is itself the factor).  Each such product becomes
the selection of that factor (on `c`, or off it), and the mask, read no more, goes.  The selection
broadcasts `c` with the factor as the product
broadcast the mask, so the shape is the product's; the dtype too, every argument being float64
(the optimizer's `double`: a float64 mask widened no float32 factor then).  Where the mask is 1
the product was the factor exactly; where it is 0 the product was a zero, or NaN where the factor
is inf or NaN, which the selection gives as 0.0 (as masks.py drops a term 0 times an array: where
the loss itself is not finite either; docs/guarantees.md).  So are a boolean mask and a selected number
as a factor of any chain of products (`_select_bool_products`): Huber by ``small * quad + ~small * lin``.
"""

from __future__ import annotations

import ast
import copy
import math
from collections.abc import Callable

from .liveness import assigned_name, is_comment, nodes
from .repeated_solves import fixed_names
from .shape_classes import SCALAR, ShapeClasses
from .simplify import is_float, is_number


def select_mask_products(func: ast.FunctionDef, float_names: Callable[[str], bool],
                         classes: ShapeClasses | None = None) -> bool:
    """Rewrite every product by a 0/1 float mask of `func`'s top-level statements as a selection
    (see the module), where the mask is read nowhere else; whether any was."""
    fixed = fixed_names(func)
    masks = {}
    for stmt in func.body:
        name = assigned_name(stmt)
        found = _mask(stmt.value) if name in fixed else None
        if found is not None and all(n.id in fixed or n.id == "np" for n in nodes(found[0]) if isinstance(n, ast.Name)):
            masks[name] = found
    products, reads, inline = {}, {}, []
    primal = primal_nodes(func)
    for node in nodes(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in masks:
            reads[node.id] = reads.get(node.id, 0) + 1
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and id(node) not in primal:
            for mine, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(mine, ast.Name) and mine.id in masks and is_float(other, float_names):
                    products.setdefault(mine.id, []).append((node, other))
                    break
                if _mask(mine) is not None and is_float(other, float_names):   # a mask read where it is made
                    inline.append((node, other, _mask(mine)))
                    break
    chosen = {name for name in masks if reads.get(name) and len(products.get(name, ())) == reads[name]}
    targets = {}
    for node, other, (condition, kept_where_true) in inline + [
            (node, other, masks[name]) for name in sorted(chosen) for node, other in products[name]]:
        branches = [other, ast.Constant(0.0)] if kept_where_true else [ast.Constant(0.0), other]
        targets[id(node)] = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "where", ast.Load()),
                                     [copy.deepcopy(condition), *branches], [])
    if targets:
        _Replace(targets).visit(func)
    return bool(targets) | (classes is not None and _select_bool_products(func, fixed, float_names, classes))


def _select_bool_products(func: ast.FunctionDef, fixed: set[str], float_names: Callable[[str], bool],
                          classes: ShapeClasses) -> bool:
    """A product of factors one of which is a boolean mask, ``small * (0.5 * r * r)`` or ``t6 * d *
    np.sign(r)`` with ``small = np.abs(r) <= d; t6 = ~small``, is the selection of the product of the
    other factors, in their order (times True it was that product exactly): ``np.where(small, 0.5 * r
    * r, 0.0)``, ``np.where(small, 0.0, d * np.sign(r))``, which wheres.merge_complements then joins
    where they are added (a Huber loss by boolean masks).  A boolean mask is a name assigned once and
    never written into, to a comparison of arrays (`classes`: a comparison of numbers is a bool, and
    its selection a 0-d array where the product was a number) or to ``~`` of such a name (whose mask
    is its operand's complement); the other factors one float at least and no mask (so the product is
    a float)."""
    bools: dict[str, tuple[str, bool]] = {}
    for stmt in func.body:
        name = assigned_name(stmt)
        if name in fixed and isinstance(stmt.value, ast.Compare) and len(stmt.value.ops) == 1 \
                and classes.of(stmt.value) not in (None, SCALAR):
            bools[name] = (name, True)
        elif name in fixed and isinstance(stmt.value, ast.UnaryOp) and isinstance(stmt.value.op, ast.Invert) \
                and isinstance(stmt.value.operand, ast.Name) and stmt.value.operand.id in bools:
            operand, kept = bools[stmt.value.operand.id]
            bools[name] = (operand, not kept)
    targets = {}
    primal = primal_nodes(func)
    for node in nodes(func):
        if id(node) in targets or id(node) in primal \
                or not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
            continue
        factors = _factors(node)
        masks = [f for f in factors if (isinstance(f, ast.Name) and f.id in bools) or _selected_leaf(f)]
        if len(masks) != 1:
            continue
        # the other factors, a selected leaf in its selection's place
        rest = [_selected_leaf(f) if f is masks[0] else f for f in factors if f is not masks[0] or _selected_leaf(f)]
        if len(factors) < 2 or not any(is_float(f, float_names) for f in rest) \
                or (_selected_leaf(masks[0]) and classes.of(masks[0].args[0]) in (None, SCALAR)):
            continue  # (a selection on a number is a 0-d array where the product was a number)
        for inner in nodes(node):  # (the chain's inner products are this one's)
            targets.setdefault(id(inner), None)
        product = rest[0]
        for f in rest[1:]:
            product = ast.BinOp(product, ast.Mult(), f)
        if _selected_leaf(masks[0]):
            condition, kept_where_true = masks[0].args[0], is_number(masks[0].args[2], 0.0)
        else:
            condition, kept_where_true = ast.Name(bools[masks[0].id][0], ast.Load()), bools[masks[0].id][1]
        branches = [product, ast.Constant(0.0)] if kept_where_true else [ast.Constant(0.0), product]
        targets[id(node)] = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "where", ast.Load()),
                                     [copy.deepcopy(condition), *branches], [])
    targets = {k: v for k, v in targets.items() if v is not None}
    if targets:
        _Replace(targets).visit(func)
    return bool(targets)


def primal_nodes(func: ast.FunctionDef) -> set[int]:
    """The ids of the nodes of the statements of `func`'s forward sweep (its top-level statements
    before the ``# backward`` header; all but nested functions, a pullback's, where it has none) that
    the value `func` returns reads (value_and_grad's, a pullback's value).  Their products stay
    products: a selection gives 0.0 where the product is NaN (a factor inf or NaN), and the function's
    own value must be the user's there.  A forward value only the adjoints read may be a selection:
    where it differs, the loss is not finite either (docs/guarantees.md)."""
    start = next((i for i, stmt in enumerate(func.body) if is_comment(stmt) and stmt.value.args
                  and getattr(stmt.value.args[0], "value", None) == "backward"), None)
    forward = func.body[:start] if start is not None else \
        [stmt for stmt in func.body if not isinstance(stmt, ast.FunctionDef)]
    wanted = {n.id for stmt in func.body if isinstance(stmt, ast.Return) for n in ast.walk(stmt)
              if isinstance(n, ast.Name)}
    kept: list[ast.stmt] = []
    for stmt in reversed(forward):  # (a statement the value reads reads what it reads, before it)
        written = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if written & wanted or not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr)):
            kept.append(stmt)
            wanted |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return {id(node) for stmt in kept for node in ast.walk(stmt)}


def _selected_leaf(node: ast.expr) -> ast.expr | None:
    """The name or number `k` of ``np.where(c, k, 0.0)`` or ``np.where(c, 0.0, k)`` (a selected seed,
    a factor whose selection takes in the chain's other factors: ``np.where(c, 0.0, s) * d * x`` is
    ``np.where(c, 0.0, s * d * x)``); None for anything else."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "where" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" and len(node.args) == 3 \
            and not node.keywords and isinstance(node.args[0], (ast.Name, ast.Compare)):
        for kept, other in ((1, 2), (2, 1)):
            zero = node.args[other]
            if is_number(zero, 0.0) and type(zero.value) is float and math.copysign(1.0, zero.value) > 0 \
                    and isinstance(node.args[kept], (ast.Name, ast.Constant)) and not is_number(node.args[kept], 0.0):
                return node.args[kept]
    return None


def _factors(node: ast.expr) -> list[ast.expr]:
    """The factors of a chain of products, left to right."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]


class _Replace(ast.NodeTransformer):
    def __init__(self, targets: dict[int, ast.expr]):
        self.targets = targets

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        new = self.targets.get(id(node))
        if new is not None:
            return ast.copy_location(new, node)
        self.generic_visit(node)
        return node


def _mask(value: ast.expr) -> tuple[ast.expr, bool] | None:
    """(condition, whether the mask is 1 where it holds) of ``np.where(c, 1.0, 0.0)`` or
    ``np.where(c, 0.0, 1.0)`` (``c.astype(float)``: masks.py's)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and not value.keywords \
            and value.func.attr == "where" and isinstance(value.func.value, ast.Name) and value.func.value.id == "np" \
            and len(value.args) == 3 and isinstance(value.args[0], (ast.Compare, ast.Name)):
        first, second = (a.value if isinstance(a, ast.Constant) and type(a.value) is float else None
                         for a in value.args[1:])
        if (first, second) in ((1.0, 0.0), (0.0, 1.0)) and math.copysign(1.0, first) > 0 \
                and math.copysign(1.0, second) > 0:   # (+0.0: the product by -0.0 gave zeros of the other sign)
            return value.args[0], first == 1.0
    return None
