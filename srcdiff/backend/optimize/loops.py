"""Loop accumulations batched after the loop: one matmul instead of one product per iteration.

In a loop body, an accumulation ``X = X + E`` into a name the rest of the loop never reads
sums E over the iterations; nothing observes X until the loop ends.  So E's operands are
collected in lists (one append per iteration) and the sum is formed once after the loop:

* ``np.outer(a, b)`` with `a`, `b` vectors:   ``X = X + A.T @ B``
* ``e``, an array of X's number of axes:     ``X = X + E.sum(axis=0)``

where after the loop each list becomes an array once (``A = np.array(A)``; a value two
accumulations collect is collected once).  For numba, which has no ``np.array`` of a list
of arrays, the list is stacked by the run-time helper ``stack_rows`` instead.

(for an RNN on one sequence the per-step outer products of the weight gradient become one
matmul over the stacked states).  Per-step ``a.T @ b`` of matrices (a batched RNN) is left
alone: measured, one matmul over the concatenated batches was slower (the copies cost
more than the 50 small matmuls they replace).

The lists keep references, so the rewrite is made only when nothing in the loop can change
an array in place (no augmented or subscript assignment, no call with an effect besides
``.pop()``/``.append()``), and the flush runs only if the loop ran (``if A:``).  Shapes
come from the optimizer's info; a name whose shape is not known is left as it is.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .liveness import bodies, is_comment, is_pure, mentions, nodes, writes

ShapeOf = Callable[[str], object]  # name -> ir.shapes.Shape


def batch_accumulations(func: ast.FunctionDef, shape_of: ShapeOf, stack: str = "np.array") -> bool:
    """Rewrite every loop's batchable accumulations (see the module doc); True if any.
    `stack` is the function that makes a collected list an array."""
    taken = mentions(func)
    shape_of = _Guess(func, shape_of)
    changed = False
    for body in list(bodies(func.body)):
        index = 0
        while index < len(body):
            stmt = body[index]
            if isinstance(stmt, ast.For) and not stmt.orelse and _effect_free(stmt.body):
                before, after = _batch(stmt, shape_of, taken, stack)
                if before:
                    body[index:index + 1] = before + [stmt] + after
                    index += len(before) + len(after)
                    changed = True
            index += 1
    return changed


def _batch(loop: ast.For, shape_of: ShapeOf, taken: set[str], stack: str) -> tuple[list, list]:
    before, after = [], []
    target = mentions(loop.target) | mentions(loop.iter)
    collected: dict[str, str] = {}  # operand name -> the list holding it (while not reassigned)
    index = 0
    while index < len(loop.body):
        stmt = loop.body[index]
        index += 1
        found = _accumulation(stmt)
        plan = None
        if found is not None:
            name, term = found
            others = [s for s in loop.body if s is not stmt]
            if not (name in target or any(name in mentions(s) for s in others) or name in mentions(term)):
                plan = _plan(name, term, shape_of)
        if plan is None:
            for written in writes(stmt):
                collected.pop(written, None)
            continue
        kind, operands = plan
        lists, appends = [], []
        for suffix, operand in zip(("rows", "cols"), operands):
            if isinstance(operand, ast.Name) and operand.id in collected:
                lists.append(collected[operand.id])
                continue
            lst = _fresh(f"{name}_{suffix}", taken)
            lists.append(lst)
            append = _stmt(f"{lst}.append(v)")
            append.value.args[0] = operand
            appends.append(append)
            before.append(_stmt(f"{lst} = []"))
            if isinstance(operand, ast.Name):
                collected[operand.id] = lst
        loop.body[index - 1:index] = appends
        index += len(appends) - 1
        after.append((name, kind, lists))
    if not after:
        return [], []
    # every list got one value per iteration: one test, each list made an array once
    names = list(dict.fromkeys(lst for _, _, lists in after for lst in lists))
    flush = _stmt(f"if {names[0]}:\n    pass")
    flush.body = [_stmt(f"{lst} = {stack}({lst})") for lst in names] + [_flush(*a) for a in after]
    return [ast.copy_location(s, loop) for s in before], [ast.copy_location(flush, loop)]


def _accumulation(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    """(X, E) for ``X = X + E``, ``X = E + X`` or ``X += E``."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name):
        return stmt.target.id, stmt.value
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    name, value = stmt.targets[0].id, stmt.value
    if not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)):
        return None
    if isinstance(value.left, ast.Name) and value.left.id == name:
        return name, value.right
    if isinstance(value.right, ast.Name) and value.right.id == name:
        return name, value.left
    return None


def _plan(name: str, term: ast.expr, shape_of: ShapeOf):
    """("outer" | "sum", operands to collect), or None."""
    if not is_pure(term):
        return None
    total = shape_of(name)
    if not (total.known and not total.scalar and total.ndim):
        return None
    if isinstance(term, ast.Call) and _is_np(term.func, "outer") and len(term.args) == 2 \
            and not term.keywords and total.ndim == 2 and all(_has_ndim(a, 1, shape_of) for a in term.args):
        return "outer", list(term.args)
    if isinstance(term, ast.Name) and _has_ndim(term, total.ndim, shape_of):
        return "sum", [term]
    return None


def _has_ndim(expr: ast.expr, ndim: int, shape_of: ShapeOf) -> bool:
    if not isinstance(expr, ast.Name):
        return False
    shape = shape_of(expr.id)
    return shape.known and not shape.scalar and shape.ndim == ndim


class _Guess:
    """The info's shapes, and for a name it does not know (an adjoint local to a loop) that
    is assigned once, elementwise arithmetic of known arrays: their largest ndim."""

    def __init__(self, func: ast.FunctionDef, shape_of: ShapeOf):
        self.shape_of = shape_of
        stores: dict[str, int] = {}
        for node in nodes(func):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                stores[node.id] = stores.get(node.id, 0) + 1
        self.value = {}
        for node in nodes(func):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and stores[node.targets[0].id] == 1:
                self.value[node.targets[0].id] = node.value

    def __call__(self, name: str):
        shape = self.shape_of(name)
        if shape.known or name not in self.value:
            return shape
        ndim = self._ndim(self.value[name], 4)
        return _Dims(ndim) if ndim else shape

    def _ndim(self, expr: ast.expr, depth: int) -> int | None:
        """The ndim of an elementwise expression with at least one known array, else None."""
        if isinstance(expr, ast.Constant):
            return 0 if type(expr.value) in (int, float) else None
        if isinstance(expr, ast.Name):
            shape = self.shape_of(expr.id)
            if shape.known:
                return shape.ndim
            return self._ndim(self.value[expr.id], depth - 1) if depth and expr.id in self.value else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            parts = [self._ndim(expr.left, depth), self._ndim(expr.right, depth)]
        elif isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            parts = [self._ndim(expr.operand, depth)]
        else:
            return None
        return None if None in parts or not max(parts) else max(parts)


class _Dims:
    """A guessed shape: an array of `ndim` axes."""

    known, scalar = True, False

    def __init__(self, ndim: int):
        self.ndim = ndim


def _flush(name: str, kind: str, lists: list[str]) -> ast.stmt:
    if kind == "outer":
        total = f"{lists[0]}.T @ {lists[1]}"
    else:
        total = f"{lists[0]}.sum(axis=0)"
    return _stmt(f"{name} = {name} + {total}")


def _effect_free(body: list[ast.stmt]) -> bool:
    """Nothing in `body` changes an object in place (so a collected array keeps its value)."""
    for node in nodes(ast.Module(body, [])):
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)) and not isinstance(node.target, ast.Name):
            return False
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            return False
        if isinstance(node, (ast.Break, ast.Continue, ast.Return, ast.Nonlocal, ast.Global, ast.FunctionDef)):
            return False
        if isinstance(node, ast.Expr) and not is_comment(node) and not _list_call(node.value):
            return False
        if isinstance(node, ast.Assign) and not (is_pure(node.value) or _list_call(node.value)):
            return False
    return True


def _list_call(expr: ast.expr) -> bool:
    """``stack.pop()`` or ``rows.append(v)``: a loop stack's own effect."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
        and expr.func.attr in ("pop", "append") and isinstance(expr.func.value, ast.Name) \
        and all(is_pure(a) for a in expr.args)


def _is_np(func: ast.expr, attr: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == attr \
        and isinstance(func.value, ast.Name) and func.value.id == "np"


def _fresh(base: str, taken: set[str]) -> str:
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name


def _stmt(text: str) -> ast.stmt:
    return ast.parse(text).body[0]


__all__ = ["batch_accumulations"]
