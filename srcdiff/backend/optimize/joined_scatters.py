"""Two products scattered into adjacent column blocks of one adjoint, by one left factor: one.

A matrix read by column blocks in products with one left operand (``x @ W[:, :n]``,
``x @ W[:, n:]``: a gate per product) gets in the backward sweep, per block, ::

    W_bar[:, n:] += t12.T @ g2                  W_bar[:, :] += t6.T @ np.concatenate([g1, g2], axis=-1)
    ...                                 -->
    W_bar[:, :n] += t6.T @ g1

one product over the joined blocks, as a hand writes it (the product of the concatenation is
the concatenation of the products, column block by column block).  Where:

* the second block starts where the first ends (bounds compared as adjacent_products.py
  compares them);
* both statements sit in one straight run, nothing between them reading or writing the
  accumulation or changing what the moved statement reads, and no name in the function bound to
  the accumulation or a view of it (``v = W_bar[:, :n]``);
* both left factors are one value: one name, or two names bound in that run to one expression
  (``t6 = xs[t]``, ``t12 = xs[t]``) nothing rebinds or writes into before the products;
* the adjoint and the left factor are matrices (shapes known to have two axes; a parameter's
  adjoint's is the parameter's), and each scattered factor (a name, ``unbroadcast(g, x)``, an
  elementwise expression, or a join of such along the last axis, which three blocks leave after
  two are joined) has two axes or more: x's of ``unbroadcast(g, x)``, a name's own, or an
  elementwise product, comparison or selection of such (``keep_where(t >= 0.0, g)``), written
  there or bound to a name (``z_bar * z * (1.0 - z)``, which broadcasts to the larger).  With more than
  two the product cannot be added into the block, joined or not: NumPy raises either way.

Blocks out of order give the joined product another width than the target block: NumPy raises,
nothing is summed wrongly.  The sums round as a product over the joined blocks does.  NumPy code
only, after `adjacent_products` (whose own join of a block pair's two products it leaves).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from ...ir.shapes import Shape
from .adjacent_products import same_bound, transpose_of
from .joined_sums import join_sums
from .liveness import bodies, is_compound, mentions, nodes, single_definitions, writes, written_into
from .long_axes import ndim, single_assignments


def join_scatters(func: ast.FunctionDef, shape_of: Callable[[str], Shape],
                  primal_of: Callable[[str], str | None]) -> bool:
    """Join every pair of products scattered into adjacent column blocks (see the module); an
    adjoint (`primal_of` gives its primal) has its primal's shape."""
    definitions = single_definitions(func)
    viewed = _viewed(func)
    changed = False
    taken = {n.id for n in nodes(func) if isinstance(n, ast.Name)}
    assigned = single_assignments(func)

    def dims_of(name: str):
        shape = _shape(name, definitions, shape_of, primal_of)
        return shape.dims if shape.known and not shape.scalar else None

    def matrices(e: ast.expr) -> bool:  # (a slice of an adjoint written block by block: ``pre_bar[:, n:]``)
        return (ndim(e, dims_of, assigned) or 0) >= 2

    for body in bodies(func.body):
        while _join_one(body, definitions, lambda n: _shape(n, definitions, shape_of, primal_of), viewed, matrices):
            changed = True
        while join_sums(body, definitions, taken, viewed, lambda n: _shape(n, definitions, shape_of, primal_of)):
            changed = True
    return changed


def _viewed(func: ast.FunctionDef) -> set[str]:
    """Names another name may hold a view of (``v = x[:, :n]``, ``v = x``, ``v = x.T``): a sum
    added into x is seen through v, so x's additions stay where they are."""
    found = set()
    for n in nodes(func):
        if isinstance(n, ast.Assign):
            root = n.value
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            if isinstance(root, ast.Name) and root is not n.value or isinstance(n.value, ast.Name):
                found.add(root.id)
    return found


def _columns(index: ast.expr):
    """(lo, hi) of ``[:, lo:hi]`` with bounds absent, names or numbers."""
    if not (isinstance(index, ast.Tuple) and len(index.elts) == 2):
        return None
    rows, cols = index.elts
    if not (isinstance(rows, ast.Slice) and rows.lower is None and rows.upper is None and rows.step is None
            and isinstance(cols, ast.Slice) and cols.step is None):
        return None
    if not all(b is None or isinstance(b, (ast.Name, ast.Constant)) for b in (cols.lower, cols.upper)):
        return None
    return cols.lower, cols.upper


def _shape(name: str, definitions: dict, shape_of, primal_of) -> Shape:
    """`name`'s shape, a parameter's adjoint's its parameter's, or that of x for a name bound only to
    ``unbroadcast(g, x)`` (an adjoint summed back to its operand's shape)."""
    value = definitions.get(name)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "unbroadcast" \
            and len(value.args) == 2 and not value.keywords and isinstance(value.args[1], ast.Name):
        return shape_of(value.args[1].id)
    return shape_of(primal_of(name) or name)


def _scattered(stmt: ast.stmt):
    """``W_bar[:, lo:hi] += H.T @ G``: (W_bar, the index, H, G's parts, what has each part's
    number of axes: `_shaped`)."""
    if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Subscript)
            and isinstance(stmt.target.value, ast.Name)):
        return None
    v = stmt.value
    if not (isinstance(v, ast.BinOp) and isinstance(v.op, ast.MatMult) and transpose_of(v.left) is not None):
        return None
    g = v.right
    joined = isinstance(g, ast.Call) and ast.unparse(g.func) == "np.concatenate" and len(g.args) == 1 \
        and isinstance(g.args[0], ast.List) and [ast.unparse(k) for k in g.keywords] == ["axis=-1"]
    parts = g.args[0].elts if joined else [g]
    shaped = [_shaped(p) for p in parts]
    if None in shaped:
        return None
    return stmt.target.value.id, stmt.target.slice, transpose_of(v.left), parts, shaped


def _shaped(g: ast.expr) -> ast.expr | None:
    """What has `g`'s number of axes: x of ``unbroadcast(g, x)``, else g itself (a name, or what
    `_two_axes_at_least` reads: ``f_bar * f * (1.0 - f)``, an adjoint read once, moved into the
    product)."""
    if isinstance(g, ast.Call) and isinstance(g.func, ast.Name) and g.func.id == "unbroadcast":
        return g.args[1] if len(g.args) == 2 and not g.keywords and isinstance(g.args[1], ast.Name) else None
    return g


def _matrix(name: str, shape_of) -> bool:
    shape = shape_of(name)
    return shape.known and not shape.scalar and shape.ndim == 2


def _two_axes_at_least(e: ast.expr, definitions: dict, shape_of, depth: int = 4) -> bool:
    """Whether `e` has two axes or more: a name known to (`shape_of`), or bound only to an
    elementwise sum, difference, product or quotient of such (which broadcasts to the larger)."""
    if isinstance(e, ast.Name):
        shape = shape_of(e.id)
        if shape.known and not shape.scalar and shape.ndim >= 2:
            return True
        e = definitions.get(e.id)
    if depth and isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return any(_two_axes_at_least(side, definitions, shape_of, depth - 1) for side in (e.left, e.right))
    if depth and isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _two_axes_at_least(e.operand, definitions, shape_of, depth - 1)
    if depth and isinstance(e, ast.Compare):  # (a mask: the broadcast of what it compares)
        return any(_two_axes_at_least(side, definitions, shape_of, depth - 1) for side in [e.left, *e.comparators])
    if depth and isinstance(e, ast.Call) and ast.unparse(e.func) in ("keep_where", "np.where") and not e.keywords:
        return any(_two_axes_at_least(a, definitions, shape_of, depth - 1) for a in e.args)  # (broadcast too)
    return False


def _join_one(body: list[ast.stmt], definitions: dict, shape_of, viewed: set[str], matrices) -> bool:
    found = []
    for i, stmt in enumerate(body):
        s = _scattered(stmt)
        cols = None if s is None else _columns(s[1])
        if cols is not None and _matrix(s[0], shape_of) and _matrix(s[2], shape_of) \
                and all(_two_axes_at_least(e, definitions, shape_of) or matrices(e) for e in s[4]):
            found.append((i, s, cols))
    for a, (i, s1, (lo1, hi1)) in enumerate(found):
        for j, s2, (lo2, hi2) in found[a + 1:]:
            if s1[0] != s2[0] or s1[0] in viewed:
                continue
            if hi1 is not None and lo2 is not None and same_bound(hi1, lo2, definitions):
                lo, hi, parts = lo1, hi2, [*s1[3], *s2[3]]
            elif hi2 is not None and lo1 is not None and same_bound(hi2, lo1, definitions):
                lo, hi, parts = lo2, hi1, [*s2[3], *s1[3]]
            else:
                continue
            if _one_value(body, s1[2], s2[2], i, j, definitions) and _movable(body, i, j, s1[0]):
                _rewrite(body, i, j, s1[0], s2[2], lo, hi, parts)
                return True
    return False


def _one_value(body, h1: str, h2: str, i: int, j: int, definitions: dict) -> bool:
    """Whether `h1` at statement i and `h2` at statement j hold one value."""
    if h1 == h2:
        return not any(h1 in writes(body[m]) | written_into(body[m]) for m in range(i + 1, j))
    if h1 not in definitions or h2 not in definitions or ast.dump(definitions[h1]) != ast.dump(definitions[h2]):
        return False
    k1, k2 = _last_binding(body, h1, i), _last_binding(body, h2, j)
    if k1 is None or k2 is None:
        return False
    read = mentions(definitions[h1]) | {h1, h2}
    # (from the first binding to the second product, the expression's inputs and both names stay)
    return not any(read & (writes(body[m]) | written_into(body[m]))
                   for m in range(min(k1, k2), j) if m not in (k1, k2))


def _last_binding(body, name: str, before: int) -> int | None:
    for m in range(before - 1, -1, -1):
        if name in writes(body[m]) | written_into(body[m]):
            ok = isinstance(body[m], ast.Assign) and len(body[m].targets) == 1 \
                and isinstance(body[m].targets[0], ast.Name) and body[m].targets[0].id == name
            return m if ok else None
    return None


def _movable(body, i: int, j: int, target: str) -> bool:
    """Statement i can move down to j: nothing between reads or writes the accumulation, or
    changes what statement i reads."""
    if any(is_compound(s) for s in body[i:j + 1]):
        return False
    if target in mentions(body[i].value) | mentions(body[j].value):
        return False  # (a product reading the sum it is added into would read it at another time)
    read = mentions(body[i]) - {target}
    return not any(target in mentions(body[m]) or read & (writes(body[m]) | written_into(body[m]))
                   for m in range(i + 1, j))


def _rewrite(body, i: int, j: int, target: str, left: str, lo, hi, parts: list[ast.expr]) -> None:
    concat = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "concatenate", ast.Load()),
                      [ast.List([copy.deepcopy(p) for p in parts], ast.Load())],
                      [ast.keyword("axis", ast.UnaryOp(ast.USub(), ast.Constant(1)))])
    cols = ast.Slice(copy.deepcopy(lo), copy.deepcopy(hi))
    index = ast.Tuple([ast.Slice(), cols], ast.Load())
    product = ast.BinOp(ast.Attribute(ast.Name(left, ast.Load()), "T", ast.Load()), ast.MatMult(), concat)
    joined = ast.AugAssign(ast.Subscript(ast.Name(target, ast.Load()), index, ast.Store()), ast.Add(), product)
    body[j] = ast.copy_location(joined, body[j])
    del body[i]
