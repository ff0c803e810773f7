"""Broadcast products summed over axes, written as the contractions they are.

``np.sum(X[:, :, None] * W[None, :, :], axis=1)`` is ``X @ W``, and the adjoint of
``D = np.sum((X[:, None, :] - C[None]) ** 2, axis=-1)`` with respect to `C` is
``unbroadcast(-(np.expand_dims(D_bar, -1) * 2 * t3), t2)``: both build an array as large
as every broadcast operand together (n x k x d) only to sum it again.  A careful hand writes
``X @ W`` and ``-2 * (D_bar.T @ X - D_bar.sum(0)[:, None] * C)``.  This pass does the same:

* a sum (``np.sum``, ``.sum``, or codegen's ``unbroadcast`` to an operand's shape) of a
  product of factors of known shapes becomes ``np.einsum`` of the factors' own arrays (what a
  view such as ``X[:, None, :]``, ``np.expand_dims(g, -1)`` or ``np.full(t.shape, g)``
  broadcasts), a factor's axes no other one reads summed first, and a two-operand contraction
  of matrices and vectors written with ``@``;
* a factor read once that is a sum or difference of broadcast operands (``t3 = t1 - t2``) is
  distributed, so no term is larger than its operands.

Unlike the other passes this one changes how sums round (as any hand-written contraction
does): the value is the same up to rounding, not bitwise.  Only straight-line statements of
the function's body are rewritten, reading names bound once there.
"""

from __future__ import annotations

import ast
import bisect
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ...ir import shapes
from . import fills
from .contract_shapes import Dims, broadcast, contracted, int_of, is_call, np_call, pre_reduce, view_of
from .liveness import is_pure, mentions, nodes, writes

LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass
class Factor:
    """`base` broadcast over the `frame` dims: its own axes sit at `axes` of the frame."""

    base: ast.expr
    axes: tuple[int, ...]
    frame: tuple[str, ...]
    name: str | None = None   # a name bound once to a sum of two operands (distributable)


@dataclass
class Product:
    factors: list
    scalars: list            # (ast operator, expr) applied to the result in order
    negative: bool = False
    frames: tuple = ()       # shapes the product is broadcast to without an operand (np.full)


def contract_sums(func: ast.FunctionDef, shape_of: Callable, is_scalar: Callable[[str], bool],
                  is_float: Callable[[ast.expr], bool], primal_of: Callable[[str], str]) -> bool:
    """Rewrite every sum of a broadcast product in `func`'s top-level statements."""
    counts = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    definitions, where = {}, {}
    for i, stmt in enumerate(func.body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and counts[stmt.targets[0].id] == 1:
            definitions[stmt.targets[0].id], where[stmt.targets[0].id] = stmt.value, i
    changes: dict[str, list[int]] = {}   # name -> the statements that may change it, in order
    for k, stmt in enumerate(func.body):
        for name in _changed(stmt):
            changes.setdefault(name, []).append(k)
    # a definition may stand in for its name up to the first statement changing what it reads
    until = {name: min((_next(changes.get(read, ()), at) for read in _loads(definitions[name])),
                       default=len(func.body)) for name, at in where.items()}
    rewriter = _Rewriter(Dims(shape_of, is_scalar, primal_of, definitions), definitions, is_float,
                         {n.id for n in nodes(func) if isinstance(n, ast.Name)})
    shapes_read = {id(n.value) for n in nodes(func) if isinstance(n, ast.Attribute) and n.attr == "shape"}
    rewriter.value_reads = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name)
                                   and isinstance(n.ctx, ast.Load) and id(n) not in shapes_read)
    taken = rewriter.taken
    body = fills.name_view_bases(func.body, rewriter.value_reads, taken, rewriter.dims_of)
    if len(body) != len(func.body):  # names bound first: the definitions again
        func.body[:] = body
        return contract_sums(func, shape_of, is_scalar, is_float, primal_of) or True
    body = []
    for i, stmt in enumerate(func.body):
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Return)) and stmt.value is not None:
            rewriter.readable = lambda name, i=i: name in where and where[name] < i <= until[name]
            rewriter.visit(stmt)
            body.extend(rewriter.pending)
            rewriter.pending = []
        body.append(stmt)
    func.body[:] = body
    return rewriter.changed


def drop_fills(func: ast.FunctionDef, shape_of: Callable, is_scalar: Callable[[str], bool],
               primal_of: Callable[[str], str]) -> bool:
    """``a + np.full(t.shape, b) -> a + b`` where `a` has `t`'s dims (fills.py), everywhere in `func`."""
    return fills.drop_fills(func, Dims(shape_of, is_scalar, primal_of, {}))


def _sum_call(expr):
    """(summand, axes or None for all, target name or None) of a sum this pass rewrites."""
    if is_call(expr, "unbroadcast", 2) and isinstance(expr.args[1], ast.Name):
        return expr.args[0], None, expr.args[1]
    if np_call(expr) == "sum" and expr.args:
        summand, rest, keywords = expr.args[0], expr.args[1:], expr.keywords
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "sum":
        summand, rest, keywords = expr.func.value, expr.args, expr.keywords
    else:
        return None
    # keepdims=True: the summed axes stay, of length one (`KEEPDIMS` stands for the target)
    kept = [k for k in keywords if k.arg == "keepdims"]
    if kept and not (isinstance(kept[0].value, ast.Constant) and kept[0].value.value is True):
        return None
    keywords = [k for k in keywords if k.arg != "keepdims"]
    if len(rest) > 1 or any(k.arg != "axis" for k in keywords) or (rest and keywords):
        return None
    axis = rest[0] if rest else (keywords[0].value if keywords else None)
    if kept and (axis is None or (isinstance(axis, ast.Constant) and axis.value is None)):
        return None
    if axis is None or (isinstance(axis, ast.Constant) and axis.value is None):
        return summand, None, None
    items = axis.elts if isinstance(axis, ast.Tuple) else [axis]
    ints = [int_of(i) for i in items]
    return (summand, tuple(ints), KEEPDIMS if kept else None) if None not in ints else None


#: the target of a sum with keepdims=True: every axis of the frame kept, the summed ones of length one
KEEPDIMS = "keepdims"


class _Rewriter(ast.NodeTransformer):
    def __init__(self, dims_of, definitions, is_float, taken):
        self.dims_of, self.definitions, self.is_float = dims_of, definitions, is_float
        self.changed, self.readable = False, lambda name: False
        self.taken, self.pending, self.hoisted = taken, [], {}

    def hoist(self, f: Factor) -> Factor:
        """`f` with its expression computed once before the statement, in a name of its own
        (both terms of a distributed contraction read it)."""
        if isinstance(f.base, ast.Name):
            return f
        k = 1
        while f"c{k}" in self.taken:
            k += 1
        name = f"c{k}"
        self.taken.add(name)
        self.dims_of.memo[name] = self.dims_of(f.base)
        self.hoisted[name] = f.base
        self.pending.append(ast.Assign([ast.Name(name, ast.Store())], f.base))
        return Factor(ast.Name(name, ast.Load()), f.axes, f.frame)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        found = _sum_call(node)
        if found is None:
            return node
        summand, axes, target = found
        new = self.contraction(summand, axes, target)
        if new is None:
            return node
        self.changed = True
        return new

    def contraction(self, summand, axes, target):
        product = self.collect(summand)
        return None if product is None else self.contract(product, axes, target, 0)

    def contract(self, product, axes, target, depth):
        if len(product.factors) < 2 or depth > 2:
            return None
        frame = broadcast(*[f.frame for f in product.factors], *product.frames)
        if frame is None:
            return None
        if target == KEEPDIMS:
            keep = _kept(frame, axes, None, False)
            keep = None if keep is None else (keep[0], 0)
        else:
            keep = _kept(frame, axes, self.dims_of(target) if target is not None else None, target is not None)
        if keep is None:
            return None
        split = self.distribute(product, axes, target, depth)
        if split is not None:
            return split
        if not _worth_it(product.factors, frame):
            return None
        if not any(self.floats(f.base) for f in product.factors):
            return None  # a product of integers or booleans: einsum's dtype rules differ from np.sum's
        return _emit(product, frame, keep, self.dims_of)

    def distribute(self, product, axes, target, depth):
        """The contraction of ``... * (a - b)`` as that of ``... * a`` minus that of ``... * b``
        when `a` and `b` are each smaller than their difference (broadcast operands)."""
        names = Counter(f.name for f in product.factors if f.name)
        for i, f in enumerate(product.factors):
            if not f.name or names[f.name] != 1:
                continue
            definition = self.definitions[f.name]
            many = f.frame.count(shapes.MANY)
            parts = [self.collect(p) for p in (definition.left, definition.right)]
            if any(p is None or broadcast(*[g.frame for g in p.factors], *p.frames, ()).count(shapes.MANY) >= many
                   for p in parts):
                continue
            pending = len(self.pending)
            rest = [self.hoist(g) for g in product.factors[:i] + product.factors[i + 1:]]
            terms = [self.contract(Product(rest + p.factors, product.scalars + p.scalars,
                                           product.negative != p.negative, product.frames + p.frames + (f.frame,)),
                                   axes, target, depth + 1) for p in parts]
            if None in terms:
                del self.pending[pending:]
                return None
            return ast.BinOp(terms[0], definition.op, terms[1])
        return None

    def floats(self, expr) -> bool:
        """Certainly a float array: a float, or arithmetic with one, or a view of one."""
        if self.is_float(expr):
            return True
        if isinstance(expr, ast.Name) and expr.id in self.hoisted:
            return self.floats(self.hoisted[expr.id])
        if isinstance(expr, ast.Name):
            return self.readable(expr.id) and self.floats(self.definitions[expr.id])
        if isinstance(expr, ast.BinOp):
            return isinstance(expr.op, ast.Div) or self.floats(expr.left) or self.floats(expr.right)
        if isinstance(expr, ast.UnaryOp):
            return self.floats(expr.operand)
        if is_call(expr, "unbroadcast", 2):   # a sum of what it is given
            return self.floats(expr.args[0])
        view = view_of(expr, self.dims_of)
        return view is not None and self.floats(view[0])

    def collect(self, expr) -> Product | None:
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
            left, right = self.collect(expr.left), self.collect(expr.right)
            if left is None or right is None:
                return None
            return Product(left.factors + right.factors, left.scalars + right.scalars,
                           left.negative != right.negative, left.frames + right.frames)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div) and self.dims_of(expr.right) == ():
            left = self.collect(expr.left)
            if left is not None:
                left.scalars.append((ast.Div(), expr.right))
            return left
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            inner = self.collect(expr.operand)
            if inner is not None:
                inner.negative = not inner.negative
            return inner
        dims = self.dims_of(expr)
        if dims == ():
            return Product([], [(ast.Mult(), expr)])
        if dims is None:
            return None
        if isinstance(expr, ast.Name) and self.readable(expr.id):
            definition = self.definitions[expr.id]
            if view_of(definition, self.dims_of) is not None:
                return self.collect(definition)
            # a product read only here (or for its shape) need not be made: its factors are read
            # instead; one read again elsewhere is made anyway, and summed as it is
            if isinstance(definition, ast.BinOp) and isinstance(definition.op, ast.Mult) \
                    and self.value_reads[expr.id] == 1:
                return self.collect(definition)
            if isinstance(definition, ast.BinOp) and isinstance(definition.op, (ast.Add, ast.Sub)):
                return Product([Factor(expr, tuple(range(len(dims))), dims, expr.id)], [])
        view = view_of(expr, self.dims_of)
        if view is not None:
            base, axes, frame = view
            if np_call(expr) == "full":   # the broadcast of a product: its factors, in the frame
                inner = self.collect(base)
                if inner is None:
                    return None
                inner.frames = inner.frames + (frame,)
                return inner
            if self.dims_of(base) == ():
                return Product([], [(ast.Mult(), base)], frames=(frame,))
            inner = self.collect(base)
            if inner is not None and len(inner.factors) == 1 and not inner.scalars and not inner.frames:
                f = inner.factors[0]
                if f.name is None and f.frame == self.dims_of(base):   # a view of a view
                    return Product([Factor(f.base, tuple(axes[a] for a in f.axes), frame)], [])
            return Product([Factor(base, axes, frame)], [])
        return Product([Factor(expr, tuple(range(len(dims))), dims)], [])


def _worth_it(factors: list, frame) -> bool:
    """A product some factor of which is broadcast (the product is larger than it), or a
    square (``t3 * t3``): there the product need not be made.  A product of distinct arrays
    of one shape is summed as written (``np.sum(w * r)``: as readable, and a mismatch of
    the user's shapes raises NumPy's own broadcasting error there)."""
    many = frame.count(shapes.MANY)
    offsets = [len(frame) - len(f.frame) for f in factors]
    if any(sum(f.frame[a] == shapes.MANY for a in f.axes) < many for f in factors):
        return True
    keys = [(ast.dump(f.base), f.axes, offset) for f, offset in zip(factors, offsets)]
    return len(set(keys)) < len(keys)


def _next(indices, at: int) -> int:
    """The first of the sorted `indices` after `at` (or past the end)."""
    k = bisect.bisect_right(indices, at)
    return indices[k] if k < len(indices) else 1 << 30


def _changed(stmt: ast.stmt) -> set[str]:
    """The names `stmt` may rebind or change in place: every name a statement other than
    ``name = pure expression`` mentions (``x[i] += v``, ``np.add.at(x, i, v)``)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and is_pure(stmt.value):
        return writes(stmt)
    return writes(stmt) | mentions(stmt)


def _loads(expr) -> set[str]:
    return {n.id for n in nodes(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - {"np"}


def _kept(frame, axes, target_dims, unbroadcast):
    """Per axis of `frame`: True kept, False summed; `target` rank for unbroadcast. None: no."""
    rank = len(frame)
    if unbroadcast:
        if target_dims is None or len(target_dims) > rank:
            return None
        lead = rank - len(target_dims)
        keep = [False] * lead
        for d, t in zip(frame[lead:], target_dims):
            keep.append(t == shapes.MANY or d == shapes.ONE)
            if t == shapes.MANY and d == shapes.ONE:
                return None
        return keep, lead
    if axes is None:
        return [False] * rank, None
    norm = {a % rank for a in axes if -rank <= a < rank}
    if len(norm) != len(axes):
        return None
    return [i not in norm for i in range(rank)], None


def _emit(product: Product, frame, keep_lead, dims_of) -> ast.expr | None:
    keep, lead = keep_lead
    rank = len(frame)
    operands = []   # [expr, letters]
    for f in product.factors:
        base_dims = dims_of(f.base)
        if base_dims is None or len(base_dims) != len(f.axes):
            return None
        offset = rank - len(f.frame)
        letters = []
        for a, d in zip(f.axes, base_dims):
            if d == shapes.ONE and frame[offset + a] == shapes.MANY:
                return None     # an operand broadcast along an axis of its own: left as it is
            letters.append(LETTERS[offset + a])
        operands.append([f.base, letters])
    spanned = {letter for _, letters in operands for letter in letters}
    if any(frame[i] == shapes.MANY and LETTERS[i] not in spanned for i in range(rank)):
        return None         # an axis only a np.full makes: its sum would be a count
    out = [LETTERS[i] for i in range(rank) if keep[i] and LETTERS[i] in spanned]
    scalars = list(product.scalars)
    operands = pre_reduce(operands, out, scalars)
    result = contracted(operands, out)
    inserted = [i for i in range(rank) if keep[i] and LETTERS[i] not in spanned]
    if lead is None and inserted:
        return None
    if lead is not None:   # unbroadcast: the target's axes of length one, summed or not, restored
        target_axes = [i for i in range(lead, rank)]
        if any(not keep[i] for i in target_axes) or inserted:
            items = [ast.Slice() if (keep[i] and LETTERS[i] in out) else ast.Constant(None) for i in target_axes]
            result = ast.Subscript(result, ast.Tuple(items, ast.Load()), ast.Load())
    for op, scalar in scalars:
        result = ast.BinOp(result, op, scalar)
    return ast.UnaryOp(ast.USub(), result) if product.negative else result
