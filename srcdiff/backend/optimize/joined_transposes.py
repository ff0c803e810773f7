"""An input's adjoint through the transposes of adjacent column blocks of one matrix: one product.

A gate's input read by two column blocks of one matrix (``x @ W[:, :n]``, ``x @ W[:, n:]``) gets,
where the matrix's own adjoint is joined already (joined_scatters.py) or not differentiated, two
products in each step of the backward sweep::

    x_bar = g2 @ t10.T                                   x_joined = np.concatenate([g1, g2], axis=-1)
    ...                                         -->      x_bar = x_joined @ W[:, :].T
    x_bar = x_bar + g1 @ t7.T

(``t7 = W[:, :n]``, ``t10 = W[:, n:]``), one product over the joined blocks where a hand writes one
(the product of a join by the joined blocks is the sum of the blocks' products), and a join
nested_joins.py then shares with the matrix's own product.  Where: one straight run; the blocks
adjacent (bounds compared as adjacent_products.py compares them) of a matrix no name rebinds; the
first statement a product or an accumulation of one, the second an accumulation, into one name
nothing between reads, binds or writes; the first adjoint not changed between; both adjoints
matrices whose rows are known to be more than one, or joined later in the run in that order (a row
broadcast against more would be a sum of products but no join).  The sums round as a product over
the joined blocks does.  NumPy code only.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from ...ir import shapes
from ...ir.shapes import UNKNOWN, Shape
from .adjacent_products import same_bound
from .joined_products import column_block
from .liveness import bodies, fresh_name, is_compound, mentions, nodes, single_definitions, writes, written_into


def join_transposes(func: ast.FunctionDef, shape_of: Callable[[str], Shape]) -> bool:
    """Join every pair of products by adjacent blocks' transposes accumulated into one name (see the
    module); `shape_of` gives a name's shape (an adjoint's its primal's)."""
    definitions = single_definitions(func)
    names = [n for n in nodes(func) if isinstance(n, ast.Name)]
    taken = {n.id for n in names}
    bound = {n.id for n in names if not isinstance(n.ctx, ast.Load)}
    blocks_of = lambda n: shape_of(n) if n not in bound else UNKNOWN  # noqa: E731
    changed = False
    for body in bodies(func.body):
        while _join_one(body, definitions, blocks_of, shape_of, taken):
            changed = True
    return changed


def _product(stmt: ast.stmt, definitions: dict, shape_of):
    """``X = G @ S.T`` or ``X = X + G @ S.T`` with S a block of a matrix: (X, accumulated, G, (W, lo, hi))."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    x, v = stmt.targets[0].id, stmt.value
    added = isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add) and isinstance(v.left, ast.Name) and v.left.id == x
    product = v.right if added else v
    if not (isinstance(product, ast.BinOp) and isinstance(product.op, ast.MatMult)
            and isinstance(product.left, ast.Name) and isinstance(product.right, ast.Attribute)
            and product.right.attr == "T"):
        return None
    block = column_block(product.right.value, definitions, shape_of)
    return None if block is None or product.left.id == x else (x, added, product.left.id, block)


def _rows(name: str, shape_of) -> bool:
    shape = shape_of(name)
    return shape.known and not shape.scalar and shape.ndim == 2 and shape.dims[0] == shapes.MANY


def _joined_later(body: list[ast.stmt], j: int, order: list[str]) -> bool:
    """The run joins the adjoints in that order after statement j, neither changed before: their rows
    are one (a join of the blocks' scatters, ``x.T @ np.concatenate([g1, g2], axis=-1)``)."""
    for stmt in body[j + 1:]:
        if is_compound(stmt):
            return False
        for n in nodes(stmt):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "concatenate" \
                    and len(n.args) == 1 and isinstance(n.args[0], ast.List) \
                    and [e.id if isinstance(e, ast.Name) else None for e in n.args[0].elts] == order \
                    and [ast.dump(k) for k in n.keywords] == [ast.dump(ast.keyword("axis", ast.UnaryOp(
                        ast.USub(), ast.Constant(1))))]:
                return True
        if set(order) & (writes(stmt) | written_into(stmt)):
            return False
    return False


def _join_one(body: list[ast.stmt], definitions: dict, blocks_of, shape_of, taken: set[str]) -> bool:
    found = [(i, _product(s, definitions, blocks_of)) for i, s in enumerate(body)]
    found = [(i, p) for i, p in found if p is not None]
    for i, (x, added, g2, (w, lo2, hi2)) in found:
        for j, (x1, added1, g1, (w1, lo1, hi1)) in found:
            if j <= i or x1 != x or not added1 or w1 != w or g1 == g2:
                continue
            if hi1 is not None and lo2 is not None and same_bound(hi1, lo2, definitions):
                order, lo, hi = [g1, g2], lo1, hi2
            elif hi2 is not None and lo1 is not None and same_bound(hi2, lo1, definitions):
                order, lo, hi = [g2, g1], lo2, hi1
            else:
                continue
            between = body[i + 1:j]
            changing = set()
            for s in between:
                changing |= writes(s) | written_into(s)
            if any(is_compound(s) or x in mentions(s) for s in between) or {g2, w} & changing \
                    or not (_rows(g1, shape_of) and _rows(g2, shape_of) or _joined_later(body, j, order)):
                break
            joined = fresh_name(f"{x}_joined", taken)
            concat = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "concatenate", ast.Load()),
                              [ast.List([ast.Name(g, ast.Load()) for g in order], ast.Load())],
                              [ast.keyword("axis", ast.UnaryOp(ast.USub(), ast.Constant(1)))])
            span = ast.Slice(copy.deepcopy(lo), copy.deepcopy(hi))
            cols = ast.Subscript(ast.Name(w, ast.Load()), ast.Tuple([ast.Slice(), span], ast.Load()), ast.Load())
            product = ast.BinOp(ast.Name(joined, ast.Load()), ast.MatMult(), ast.Attribute(cols, "T", ast.Load()))
            value = ast.BinOp(ast.Name(x, ast.Load()), ast.Add(), product) if added else product
            new = [ast.Assign([ast.Name(joined, ast.Store())], concat), ast.Assign([ast.Name(x, ast.Store())], value)]
            body[j:j + 1] = [ast.fix_missing_locations(ast.copy_location(s, body[j])) for s in new]
            del body[i]
            return True
    return False
