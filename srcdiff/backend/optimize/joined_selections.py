"""Selections against 0.0 nested or repeated: one pass over the array where there were two.

The adjoint of ``np.minimum(r, d)`` selects on ``r <= d``; that of the ``np.maximum`` around it
on ``t2 >= t3``; the zero-factor guards select once more on the condition a share was already
selected on.  Each selection is a full pass (three, as ``keep_where``'s bit mask), where a hand
writes one (``np.clip``'s band, a ramp's two edges at once).  Two rewrites, both on selections
against a literal ``0.0``:

* ``np.where(c1, np.where(c2, g, 0.0), 0.0)`` is ``np.where(np.logical_and(c1, c2), g, 0.0)``
  (and ``np.where(c1, 0.0, np.where(c2, 0.0, g))`` is ``np.where(np.logical_or(c1, c2), 0.0,
  g)``; ``np.where(c1, np.where(c2, 0.0, g), 0.0)`` is ``np.where(np.logical_and(c1, c2'), g, 0.0)``
  of c2's negation, ``a != b`` for ``a == b``: np.clip's zero where its bounds are one): bit
  for bit, of the same shape and dtype (``np.where`` reads its conditions' truth as
  `logical_and` does); a logical and of two masks costs a tenth of a selection; but a logical and
  of a mask and a number's test (np.clip's bounds ``t2 != c``) costs as much as a selection
  (NumPy's ufunc takes its slow path for a bool scalar beside an array), so where c2 compares
  numbers the condition is ``c1 if c2 else np.logical_and(c1, c2)``: the same mask, the and run
  only in the rare case;
* ``np.where(c, v, 0.0)`` where `v` already vanishes wherever `c` fails is `v`: `v` is a selection
  on the same `c` against 0.0 (a name every binding of which is one, made before and in the
  function's straight-line statements), a tie's share of one (``np.where(r == d, 0.5 * g, g)``
  of such a `g`), one scaled by a number, or a sum of such.  `v` has `c`'s shape already (it
  was broadcast against `c`), and what the outer selection gave where `c` fails, +0.0, `v` holds
  as +0.0 or -0.0: only the sign of a zero changes, which a sum with anything else drops.  The
  condition's names must be bound once and never written into, so `c` reads the same arrays at
  both selections.

NumPy code only (code srcdiff differentiates again keeps its selections: their derivatives are
the ties' own rules), after the tie shares' rewrite (tie_shares.py reads the shares' selections
as codegen wrote them), before the selections become bit masks (selections.py).
"""

from __future__ import annotations

import ast
import copy
import math
from collections import Counter

from .liveness import bodies, nodes, written_into

#: how deep a chain of names a vanishing value is followed through
DEPTH = 6


def join_selections(func: ast.FunctionDef, is_scalar=lambda name: False) -> bool:
    """Join nested selections against 0.0 and drop repeated ones in `func` (see the module);
    `is_scalar` tells the names that hold numbers (a test of them is a number's)."""
    stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    params = {a.arg for a in func.args.args}
    changed_in_place = {name for block in bodies(func.body) for stmt in block for name in written_into(stmt)}
    stable = {name for name, count in stores.items() if count == 1 and name not in params}
    stable = (stable | {name for name in params if not stores[name]}) - changed_in_place
    rewriter = _Rewrite(stable, is_scalar)
    for stmt in func.body:
        # (its own bindings first: a name it rebinds before reading it again must vanish that way too)
        for name, value in _plain_bindings(stmt):
            rewriter.bindings.setdefault(name, []).append(value)
        rewriter.visit(stmt)
    return rewriter.changed


def _plain_bindings(stmt: ast.stmt):
    """(name, value) of `stmt` if it is ``name = value``, or of each such statement of the
    branches of an ``if`` (every statement of which runs at most once); a binding inside a loop
    or of any other kind, or a write into the name's array, makes it unfollowed (`None`)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return [(stmt.targets[0].id, stmt.value)]
    if isinstance(stmt, ast.If):
        return [pair for inner in stmt.body + stmt.orelse for pair in _plain_bindings(inner)]
    # (``x[i] = v``, ``x += v``, ``np.add.at(x, i, v)``: what a statement writes into is unfollowed too)
    bound = {n.id for n in nodes(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    return [(name, None) for name in sorted(bound | written_into(stmt))]


def _zero_sign(node: ast.expr) -> float | None:
    """1.0 or -1.0 for a float literal zero (``0.0``, ``-0.0``), else None."""
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    inner = node.operand if negative else node
    if isinstance(inner, ast.Constant) and type(inner.value) is float and inner.value == 0.0:
        return -math.copysign(1.0, inner.value) if negative else math.copysign(1.0, inner.value)
    return None


def _where(node: ast.expr) -> tuple[ast.expr, ast.expr, ast.expr] | None:
    """(condition, kept, other) of ``np.where(c, a, b)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "where" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" \
            and len(node.args) == 3 and not node.keywords:
        return node.args[0], node.args[1], node.args[2]
    return None


def _np_call(name: str, args: list[ast.expr]) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), args, [])


def _negated(condition: ast.expr) -> ast.expr:
    """``a != b`` for ``a == b`` (each is the other's negation, NaN included), else ``np.logical_not(c)``."""
    if isinstance(condition, ast.Compare) and len(condition.ops) == 1 and isinstance(condition.ops[0], ast.Eq):
        return ast.Compare(condition.left, [ast.NotEq()], condition.comparators)
    return _np_call("logical_not", [condition])


def _finite_number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and math.isfinite(node.value)


class _Rewrite(ast.NodeTransformer):
    def __init__(self, stable: set[str], is_scalar):
        self.stable = stable
        self.is_scalar = is_scalar
        self.bindings: dict[str, list[ast.expr | None]] = {}
        self.changed = False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        found = _where(node)
        if found is None:
            return node
        condition, kept, other = found
        sign = _zero_sign(other)
        if sign is not None:
            inner = _where(kept)
            if inner is not None and _zero_sign(inner[2]) == sign:
                self.changed = True
                node.args = [_np_call("logical_and", [condition, inner[0]]), inner[1], other]
                return node
            if inner is not None and _zero_sign(inner[1]) == sign:  # the inner one zeroes where its condition holds
                self.changed = True
                node.args = [self._and(condition, _negated(inner[0])), inner[2], other]
                return node
            if self._fixed(condition) and self._vanishes(kept, ast.dump(condition), DEPTH):
                self.changed = True
                return kept
            return node
        sign = _zero_sign(kept)
        inner = _where(other)
        if sign is not None and inner is not None and _zero_sign(inner[1]) == sign:
            self.changed = True
            node.args = [_np_call("logical_or", [condition, inner[0]]), kept, inner[2]]
        return node

    def _and(self, mask: ast.expr, test: ast.expr) -> ast.expr:
        """``np.logical_and(mask, test)``; ``mask if test else np.logical_and(mask, test)`` where
        `test` compares numbers (the and of a mask and a bool scalar is NumPy's slow path)."""
        joined = _np_call("logical_and", [mask, test])
        if not self._compares_numbers(test):
            return joined
        return ast.IfExp(copy.deepcopy(test), copy.deepcopy(mask), joined)

    def _compares_numbers(self, test: ast.expr) -> bool:
        """Whether `test` is a comparison of names holding numbers and number literals."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return False
        return all(_finite_number(side) or (isinstance(side, ast.UnaryOp) and isinstance(side.op, ast.USub)
                                            and isinstance(side.operand, ast.Name) and self.is_scalar(side.operand.id))
                   or (isinstance(side, ast.Name) and self.is_scalar(side.id))
                   for side in (test.left, test.comparators[0]))

    def _fixed(self, condition: ast.expr) -> bool:
        """Whether every name `condition` reads holds the same array wherever it is read."""
        return all(n.id in self.stable or n.id == "np" for n in nodes(condition) if isinstance(n, ast.Name))

    def _vanishes(self, node: ast.expr, condition: str, depth: int) -> bool:
        """Whether `node` is 0.0 (of either sign) wherever the condition dumped as `condition` fails,
        and has been broadcast against it (see the module)."""
        if depth <= 0:
            return False
        found = _where(node)
        if found is not None:
            c, a, b = found
            if ast.dump(c) == condition and _zero_sign(b) is not None:
                return True
            return (self._vanishes(a, condition, depth - 1) or _zero_sign(a) is not None) \
                and (self._vanishes(b, condition, depth - 1) or _zero_sign(b) is not None) \
                and not (_zero_sign(a) is not None and _zero_sign(b) is not None)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            return (_finite_number(node.left) and self._vanishes(node.right, condition, depth - 1)) \
                or (_finite_number(node.right) and self._vanishes(node.left, condition, depth - 1))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return _finite_number(node.right) and not _zero_sign(node.right) \
                and self._vanishes(node.left, condition, depth - 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return self._vanishes(node.left, condition, depth - 1) and self._vanishes(node.right, condition, depth - 1)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self._vanishes(node.operand, condition, depth - 1)
        if isinstance(node, ast.Name):
            values = self.bindings.get(node.id)
            return bool(values) and all(v is not None and self._vanishes(v, condition, depth - 1) for v in values)
        return False
