"""Products of one left operand with column blocks that tile one matrix: one product, then slices.

Gates read by column blocks of one weight matrix (``x @ W[:, :n]``, ``x @ W[:, n:2 * n]``,
``x @ W[:, 2 * n:]``; ``np.split``'s pieces, written as such slices by splits.py) make one matrix
product per gate in each step of the forward sweep, where a hand writes one product and slices it::

    z = sigmoid(t6 @ W[:, :n] + ...)           t6_W = t6 @ W
    c = np.tanh(t6 @ W[:, n:] + ...)    -->    z = sigmoid(t6_W[..., :n] + ...)
                                               c = np.tanh(t6_W[..., n:] + ...)

A product is a few microseconds whatever its size at a recurrent cell's sizes: three where there
was one.  ``(x @ W)[..., lo:hi]`` is ``x @ W[:, lo:hi]`` for a matrix W and any x the product takes
(the slice of the product's last axis is the slice of W's columns, the same bounds clipped the same
way).  Where: in one straight run, W a matrix (two axes known) no name of the function rebinds, the
blocks' bounds adjacent from the first column to the last (bounds compared as adjacent_products.py
compares them: every column is used), the left operands one name nothing rebinds or writes into
between its first product and its last, or names bound to one expression (``t6 = xs[t]``,
``t12 = xs[t]``) whose inputs nothing in the run writes.  The products round as a product over the
whole matrix does (as the joins of the backward sweep's products).  NumPy code only.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ...ir.shapes import UNKNOWN, Shape
from .adjacent_products import same_bound
from .liveness import bodies, fresh_name, is_compound, mentions, nodes, single_definitions, writes, written_into


def join_products(func: ast.FunctionDef, shape_of: Callable[[str], Shape]) -> bool:
    """Make each set of products of one left operand by blocks tiling a matrix one product (see the
    module)."""
    definitions = single_definitions(func)
    names = [n for n in nodes(func) if isinstance(n, ast.Name)]
    taken = {n.id for n in names}
    bound = {n.id for n in names if not isinstance(n.ctx, ast.Load)}
    changed = False
    for body in bodies(func.body):
        while _join_one(body, definitions, lambda n: shape_of(n) if n not in bound else UNKNOWN, taken):
            changed = True
    return changed


def column_block(e: ast.expr, definitions: dict, shape_of):
    """``W[:, lo:hi]`` of a matrix W (or a name bound to one): (W, lo, hi)."""
    value = definitions.get(e.id) if isinstance(e, ast.Name) else e
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)
            and isinstance(value.slice, ast.Tuple) and len(value.slice.elts) == 2):
        return None
    rows, cols = value.slice.elts
    if not (isinstance(rows, ast.Slice) and rows.lower is None and rows.upper is None and rows.step is None
            and isinstance(cols, ast.Slice) and cols.step is None
            and all(b is None or isinstance(b, (ast.Name, ast.Constant)) for b in (cols.lower, cols.upper))):
        return None
    shape = shape_of(value.value.id)
    return (value.value.id, cols.lower, cols.upper) if shape.known and shape.ndim == 2 and not shape.scalar else None


def _products(body: list[ast.stmt], definitions: dict, shape_of) -> list:
    """Every ``L @ block`` with L a name in the run's simple statements: (statement index, node, L, block)."""
    found = []
    for i, stmt in enumerate(body):
        if is_compound(stmt) or not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr)):
            continue
        for n in nodes(stmt.value):
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult) and isinstance(n.left, ast.Name):
                block = column_block(n.right, definitions, shape_of)
                if block is not None:
                    found.append((i, n, n.left.id, block))
    return found


def _tiling(blocks: list, definitions: dict) -> list | None:
    """The blocks in column order where they tile the matrix (first from column 0, each starting where
    the one before ends, the last to the end), each once; else None."""
    first = [b for b in blocks if b[3][1] is None or isinstance(b[3][1], ast.Constant) and b[3][1].value == 0]
    if len(first) != 1:
        return None
    chain, rest = first, [b for b in blocks if b is not first[0]]
    while rest:
        hi = chain[-1][3][2]
        following = [b for b in rest if hi is not None and b[3][1] is not None and same_bound(hi, b[3][1], definitions)]
        if len(following) != 1:
            return None
        chain.append(following[0])
        rest.remove(following[0])
    return chain if chain[-1][3][2] is None and len(chain) > 1 else None


def _one_value(body: list[ast.stmt], chain: list, start: int, end: int, definitions: dict) -> bool:
    """The left operands hold one value from statement `start` to `end`: one name nothing rebinds or
    writes into before the last product reads it, or names bound once, in the run before their
    products, to one expression whose inputs nothing in the run writes."""
    names = {p[2] for p in chain}
    if len(names) == 1:
        (name,) = names
        return not any(name in writes(body[m]) | written_into(body[m]) for m in range(start, end))
    values = {ast.dump(definitions[n]) if n in definitions else None for n in names}
    if len(values) != 1 or None in values:
        return False
    for name in names:
        first = min(p[0] for p in chain if p[2] == name)
        if not any(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                   and s.targets[0].id == name for s in body[:first]):
            return False
    inputs = mentions(definitions[next(iter(names))])
    return not any(inputs & (writes(s) | written_into(s)) for s in body)


def _join_one(body: list[ast.stmt], definitions: dict, shape_of, taken: set[str]) -> bool:
    products = _products(body, definitions, shape_of)
    groups: dict = {}
    for p in products:
        left = p[2]
        key = (ast.dump(definitions[left]) if left in definitions else left, p[3][0])
        groups.setdefault(key, []).append(p)
    for (_, matrix), group in groups.items():
        chain = _tiling(group, definitions) if len(group) > 1 else None
        if chain is None:
            continue
        start, end = min(p[0] for p in chain), max(p[0] for p in chain)
        if any(matrix in writes(body[m]) | written_into(body[m]) for m in range(start, end + 1)) \
                or not _one_value(body, chain, start, end, definitions):
            continue
        left = next(p[2] for p in chain if p[0] == start)
        name = fresh_name(f"{left}_{matrix}", taken)
        taken.add(name)
        for _, node, _, (_, lo, hi) in chain:
            node.left = ast.Name(name, ast.Load())
            node.op = None  # (marked: replaced below)
            node.right = ast.Slice(lo, hi)
        for stmt in body[start:end + 1]:
            _slices_for_marks(stmt, name)
        product = ast.BinOp(ast.Name(left, ast.Load()), ast.MatMult(), ast.Name(matrix, ast.Load()))
        body.insert(start, ast.Assign([ast.Name(name, ast.Store())], product))
        ast.fix_missing_locations(body[start])
        return True
    return False


def _slices_for_marks(stmt: ast.stmt, name: str) -> None:
    """Replace each marked product (its op None) by ``name[..., lo:hi]``."""
    for parent in nodes(stmt):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, ast.BinOp) and value.op is None:
                setattr(parent, field, _sliced(name, value.right))
            elif isinstance(value, list):
                for k, item in enumerate(value):
                    if isinstance(item, ast.BinOp) and item.op is None:
                        value[k] = _sliced(name, item.right)
    ast.fix_missing_locations(stmt)


def _sliced(name: str, cols: ast.Slice) -> ast.Subscript:
    return ast.Subscript(ast.Name(name, ast.Load()), ast.Tuple([ast.Constant(Ellipsis), cols], ast.Load()), ast.Load())
