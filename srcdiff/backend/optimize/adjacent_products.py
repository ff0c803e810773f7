"""Products with adjacent column blocks of one matrix joined: two matmuls where there were four.

Gates read by column blocks of one weight matrix (``h @ U[:, :n]``, ``h @ U[:, n:2 * n]``) give
in the backward sweep, per block, ``h_bar = h_bar + g1 @ t8.T`` and ``U_bar[:, :n] += h.T @ g1``
(``t8 = U[:, :n]``).  A hand writes one product over the joined blocks instead:

    t8_joined = np.concatenate([g1, g2], axis=-1)
    h_bar = h_bar + t8_joined @ U[:, :t13].T
    U_bar[:, :t13] += h.T @ t8_joined

`join_adjacent_products` does so where the second block starts where the first ends (the same
name or number, or names bound to the same expression) and all four statements sit in one
straight run, nothing between them reading or writing the two accumulations or changing what
the moved products read.  Blocks out of order (the second starting before the first) would
give the joined product another width than its operands: NumPy raises, nothing is summed
wrongly.  The sums round as a product over the joined blocks does.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from ...ir.shapes import UNKNOWN, Shape
from .liveness import bodies, fresh_name, is_compound, mentions, nodes, single_definitions, writes, written_into


def join_adjacent_products(func: ast.FunctionDef, shape_of: Callable[[str], Shape],
                           primal_of: Callable[[str], str | None]) -> bool:
    """Join the products of every pair of adjacent column blocks (see the module): blocks of a
    matrix the function never rebinds (a parameter), scattered into its adjoint (`primal_of`
    gives an adjoint's primal)."""
    definitions = single_definitions(func)
    names = [n for n in nodes(func) if isinstance(n, ast.Name)]
    taken = {n.id for n in names}
    bound = {n.id for n in names if not isinstance(n.ctx, ast.Load)}
    changed = False
    for body in bodies(func.body):
        while _join_one(body, definitions, lambda n: shape_of(n) if n not in bound else UNKNOWN, primal_of, taken):
            changed = True
    return changed


def _block(block: ast.expr, definitions: dict, shape_of) -> tuple[str, ast.expr | None, ast.expr | None] | None:
    """``name = W[:, lo:hi]`` of a matrix W, or ``W[:, lo:hi]`` itself (the block an earlier join
    leaves): (W, lo, hi)."""
    value = definitions.get(block.id) if isinstance(block, ast.Name) else block
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)
            and isinstance(value.slice, ast.Tuple) and len(value.slice.elts) == 2):
        return None
    rows, cols = value.slice.elts
    if not (isinstance(rows, ast.Slice) and rows.lower is None and rows.upper is None and rows.step is None
            and isinstance(cols, ast.Slice) and cols.step is None):
        return None
    if not all(b is None or isinstance(b, (ast.Name, ast.Constant)) for b in (cols.lower, cols.upper)):
        return None
    shape = shape_of(value.value.id)
    if not (shape.known and shape.ndim == 2 and not shape.scalar):
        return None
    return value.value.id, cols.lower, cols.upper


def _accumulated(stmt: ast.stmt):
    """``X = X + G @ S.T``: (X, G, S) with G a name, S a name or a block ``W[:, lo:hi]``."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    v, x = stmt.value, stmt.targets[0].id
    if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add) and isinstance(v.left, ast.Name) and v.left.id == x \
            and isinstance(v.right, ast.BinOp) and isinstance(v.right.op, ast.MatMult) \
            and isinstance(v.right.left, ast.Name) and isinstance(v.right.right, ast.Attribute) \
            and v.right.right.attr == "T" and isinstance(v.right.right.value, (ast.Name, ast.Subscript)):
        return x, v.right.left.id, v.right.right.value
    return None


def transpose_of(e: ast.expr) -> str | None:
    if isinstance(e, ast.Attribute) and e.attr == "T" and isinstance(e.value, ast.Name):
        return e.value.id
    return None


def _scattered(stmt: ast.stmt):
    """``W_bar[:, lo:hi] += H.T @ G``: (W_bar, the index, H, G) with H and G names."""
    if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Subscript)
            and isinstance(stmt.target.value, ast.Name)):
        return None
    v = stmt.value
    if isinstance(v, ast.BinOp) and isinstance(v.op, ast.MatMult) and transpose_of(v.left) is not None \
            and isinstance(v.right, ast.Name):
        return stmt.target.value.id, stmt.target.slice, transpose_of(v.left), v.right.id
    return None


def same_bound(a, b, definitions: dict) -> bool:
    """Two bounds of one value: both absent, one name or number, or names bound to one expression."""
    if a is None or b is None:
        return a is None and b is None
    if ast.dump(a) == ast.dump(b):
        return True
    if isinstance(a, ast.Name) and isinstance(b, ast.Name) and a.id in definitions and b.id in definitions:
        return ast.dump(definitions[a.id]) == ast.dump(definitions[b.id])
    return False


def _join_one(body: list[ast.stmt], definitions: dict, shape_of, primal_of, taken: set[str]) -> bool:
    products = [(i, _accumulated(s)) for i, s in enumerate(body)]
    products = [(i, p, _block(p[2], definitions, shape_of)) for i, p in products if p is not None]
    products = [(i, p, b) for i, p, b in products if b is not None]
    for a, (i1, p1, (w1, lo1, hi1)) in enumerate(products):
        for i2, p2, (w2, lo2, hi2) in products[a + 1:]:
            if p1[0] != p2[0] or p1[1] == p2[1] or w1 != w2:
                continue
            if hi1 is not None and lo2 is not None and same_bound(hi1, lo2, definitions):
                order, lo, hi = (p1, p2), lo1, hi2   # p1's block, then p2's
            elif hi2 is not None and lo1 is not None and same_bound(hi2, lo1, definitions):
                order, lo, hi = (p2, p1), lo2, hi1
            else:
                continue
            if _rewrite(body, (i1, i2), order, w1, lo, hi, definitions, primal_of, taken):
                return True
    return False


def _rewrite(body, places, order, w, lo, hi, definitions, primal_of, taken) -> bool:
    (x, g1, s1), (_, g2, s2) = order
    scatters = {}
    for i, stmt in enumerate(body):
        found = _scattered(stmt)
        # (only the scatters into w's adjoint: a block's adjoint may also reach another matrix's)
        if found is not None and found[3] in (g1, g2) and primal_of(found[0]) == w:
            scatters.setdefault(found[3], []).append((i, found))
    if len(scatters.get(g1, ())) != 1 or len(scatters.get(g2, ())) != 1:
        return False
    (j1, q1), (j2, q2) = scatters[g1][0], scatters[g2][0]
    slice1, slice2 = (definitions[s.id].slice if isinstance(s, ast.Name) else s.slice for s in (s1, s2))
    if q1[0] != q2[0] or primal_of(q1[0]) != w or q1[2] != q2[2] or ast.dump(q1[1]) != ast.dump(slice1) \
            or ast.dump(q2[1]) != ast.dump(slice2):
        return False
    blocks = mentions(s1) | mentions(s2)
    involved = sorted({*places, j1, j2})
    start, end = involved[0], involved[-1]
    if any(is_compound(s) for s in body[start:end + 1]):
        return False
    accumulators = {x, q1[0]}
    if accumulators & {g1, g2, w, q1[2], *blocks} or x == q1[0]:
        return False
    for k in involved:  # each moves down to `end`: what it reads unchanged on the way
        read = (mentions(body[k].value) | blocks | {w}) - accumulators
        for m in range(k + 1, end + 1):
            if m not in involved and read & (writes(body[m]) | written_into(body[m])):
                return False
    if any(mentions(body[m]) & accumulators for m in range(start, end + 1) if m not in involved):
        return False
    joined = fresh_name(f"{s1.id if isinstance(s1, ast.Name) else g1}_joined", taken)
    cols = ast.Slice(copy.deepcopy(lo), copy.deepcopy(hi))
    whole = ast.Subscript(ast.Name(w, ast.Load()), ast.Tuple([ast.Slice(), cols], ast.Load()), ast.Load())
    concat = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "concatenate", ast.Load()),
                      [ast.List([ast.Name(g1, ast.Load()), ast.Name(g2, ast.Load())], ast.Load())],
                      [ast.keyword("axis", ast.UnaryOp(ast.USub(), ast.Constant(1)))])
    product = ast.BinOp(ast.Name(joined, ast.Load()), ast.MatMult(), ast.Attribute(whole, "T", ast.Load()))
    accumulate = ast.Assign([ast.Name(x, ast.Store())], ast.BinOp(ast.Name(x, ast.Load()), ast.Add(), product))
    target = ast.Subscript(ast.Name(q1[0], ast.Store()), ast.Tuple([ast.Slice(), copy.deepcopy(cols)], ast.Load()),
                           ast.Store())
    scatter = ast.AugAssign(target, ast.Add(), ast.BinOp(
        ast.Attribute(ast.Name(q1[2], ast.Load()), "T", ast.Load()), ast.MatMult(), ast.Name(joined, ast.Load())))
    new = [ast.copy_location(s, body[end]) for s in
           (ast.Assign([ast.Name(joined, ast.Store())], concat), accumulate, scatter)]
    body[end + 1:end + 1] = new
    for k in sorted(involved, reverse=True):
        del body[k]
    return True
