"""A cell's forward products of one left operand with adjacent column blocks of one matrix: one.

Gates read by column blocks of one weight matrix, in place or named before the loop, multiply
one left operand block by block in each step (``x @ W[:, :n]``, ``x @ Wf`` with ``Wf = W[:, n:2 * n]``).
A hand multiplies once and slices the result::

    t26 = t23 @ Wi + h_1 @ Ui                        t23_W = t23 @ W[:, :t6]
    ...                                 -->          t26 = t23_W[:, :t23_W_1] + h_1 @ Ui
    t30 = t23 @ Wf                                   ...
                                                     t30 = t23_W[:, t23_W_1:]

with the cuts the blocks' widths (``t23_W_1 = Wi.shape[1]``), read once before the loop.  The
product of the joined columns is the products of the blocks side by side, each column the same
sum (rounded as BLAS rounds a product of that width).  Where:

* each block's bounds are multiples ``c * n`` of one count never negative, or literal ints, or
  absent (named_blocks.py's `multiple`), ``c`` no larger at the start than at the end: then the
  blocks' columns lie side by side in order, and the joined block holds exactly theirs;
* consecutive blocks meet (the end of one is the start of the next: adjacent_products.py's
  `same_bound`), the matrix has two axes and is bound once before the loop, never written into,
  and so are the bounds and the named blocks;
* the left operand is one name nothing rebinds or changes in place from the first product's
  statement to the last's.

NumPy code only (numba's and code srcdiff reads back keep their products).
"""

from __future__ import annotations

import ast
import copy
import math
from collections.abc import Callable

from ...ir.shapes import Shape
from .adjacent_products import same_bound
from .liveness import bodies, bound_once, fresh_name, is_compound, mentions, writes
from .named_blocks import multiple
from .statements import mutated


def join_forward_products(func: ast.FunctionDef, shape_of: Callable[[str], Shape]) -> bool:
    """Join every chain of products of one left operand with adjacent column blocks (see the module)."""
    changed = False
    while _join_one(func, shape_of):
        changed = True
    return changed


def _join_one(func: ast.FunctionDef, shape_of) -> bool:
    once = bound_once(func)
    definitions = {name: value for name, (_, value) in once.items() if value is not None}
    for top, stmt in enumerate(func.body):
        if not is_compound(stmt):
            continue
        for body in list(bodies([stmt]))[1:]:
            groups: dict[tuple[str, str], list] = {}
            for j, inner in enumerate(body):
                if is_compound(inner):
                    continue
                for node in ast.walk(inner):
                    found = _product(node, once, top, shape_of)
                    if found is not None:
                        groups.setdefault(found[:2], []).append((j, node, *found[2:]))
            for (left, matrix), products in groups.items():
                chain = _chain(products, once, definitions)
                if chain is not None and _unchanged(left, body, chain):
                    _rewrite(func, top, body, left, matrix, chain, shape_of)
                    return True
    return False


def _product(node: ast.AST, once: dict, top: int, shape_of):
    """``L @ B`` of a name L and a column block B of a two-axis matrix bound once before the
    top statement `top` (in place, ``W[:, lo:hi]``, or a name bound so): (L, W, lo, hi, B)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and isinstance(node.left, ast.Name)):
        return None
    block = node.right
    value = block
    if isinstance(block, ast.Name):
        place, value = once.get(block.id, (math.inf, None))
        if place >= top:
            return None
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)
            and isinstance(value.slice, ast.Tuple) and len(value.slice.elts) == 2):
        return None
    rows, cols = value.slice.elts
    if not (isinstance(rows, ast.Slice) and rows.lower is None and rows.upper is None and rows.step is None
            and isinstance(cols, ast.Slice) and cols.step is None):
        return None
    matrix = value.value.id
    shape = shape_of(matrix)
    if once.get(matrix, (math.inf,))[0] >= top or not (shape.known and not shape.scalar and shape.ndim == 2):
        return None
    for bound in (cols.lower, cols.upper):
        if not (bound is None or isinstance(bound, ast.Constant)
                or isinstance(bound, ast.Name) and once.get(bound.id, (math.inf,))[0] < top):
            return None
    return node.left.id, matrix, cols.lower, cols.upper, block


def _chain(products: list, once: dict, definitions: dict):
    """The longest run of blocks each starting where the one before ends, in column order (see
    the module), at least two; else None."""
    best = None
    for start in products:
        chain = [start]
        while True:
            nxt = [p for p in products if p not in chain and chain[-1][3] is not None and p[2] is not None
                   and same_bound(chain[-1][3], p[2], definitions)]
            if len(nxt) != 1:
                break
            chain.append(nxt[0])
        if len(chain) >= 2 and (best is None or len(chain) > len(best)) and _ordered(chain, once):
            best = chain
    return best


def _ordered(chain: list, once: dict) -> bool:
    """Whether every block's start is no later than its end, as multiples of one count."""
    found = [(multiple(lo, once, 0), multiple(hi, once, math.inf)) for _, _, lo, hi, _ in chain]
    if any(a is None or b is None for a, b in found):
        return False
    scales = {s for pair in found for s, c in pair if c not in (0, math.inf)}
    return len(scales) <= 1 and all(a[1] <= b[1] for a, b in found)


def _unchanged(left: str, body: list, chain: list) -> bool:
    """Whether nothing rebinds or writes into `left` from the first product's statement up to the last's."""
    first, last = min(p[0] for p in chain), max(p[0] for p in chain)
    between = body[first:last]
    return left not in set().union(*(writes(s) for s in between)) | mutated(between)


def _rewrite(func, top, body, left, matrix, chain, shape_of) -> None:
    taken = mentions(func)
    joined = fresh_name(f"{left}_{matrix}", taken)
    first = min(p[0] for p in chain)
    lo, hi = chain[0][2], chain[-1][3]
    cols = ast.Slice(copy.deepcopy(lo), copy.deepcopy(hi))
    product = ast.BinOp(ast.Name(left, ast.Load()), ast.MatMult(),
                        ast.Subscript(ast.Name(matrix, ast.Load()), ast.Tuple([ast.Slice(), cols], ast.Load()),
                                      ast.Load()))
    # the cuts, read once before the loop: the first blocks' widths added up
    cuts, made = [], []
    for i, (_, _, _, _, block) in enumerate(chain[:-1]):
        cut = fresh_name(f"{joined}_{i + 1}", taken | set(cuts))
        width = ast.Subscript(ast.Attribute(copy.deepcopy(block), "shape", ast.Load()), ast.Constant(1), ast.Load())
        made.append(ast.Assign([ast.Name(cut, ast.Store())],
                               width if not cuts else ast.BinOp(ast.Name(cuts[-1], ast.Load()), ast.Add(), width)))
        cuts.append(cut)
    shape = shape_of(left)
    lead = ast.Slice() if shape.known and not shape.scalar and shape.ndim == 2 else ast.Constant(Ellipsis)
    pieces = {}
    for i, (_, node, _, _, _) in enumerate(chain):
        start = ast.Name(cuts[i - 1], ast.Load()) if i else None
        end = ast.Name(cuts[i], ast.Load()) if i < len(cuts) else None
        index = ast.Tuple([copy.deepcopy(lead), ast.Slice(start, end)], ast.Load())
        pieces[id(node)] = ast.Subscript(ast.Name(joined, ast.Load()), index, ast.Load())

    class Swap(ast.NodeTransformer):
        def visit_BinOp(self, node):
            if id(node) in pieces:
                return pieces[id(node)]
            return self.generic_visit(node)

    for j in sorted({p[0] for p in chain}):
        body[j] = Swap().visit(body[j])
    body.insert(first, ast.Assign([ast.Name(joined, ast.Store())], product))
    func.body[top:top] = made
    for stmt in made + [body[first]]:
        ast.fix_missing_locations(ast.copy_location(stmt, func.body[top + len(made)]))
