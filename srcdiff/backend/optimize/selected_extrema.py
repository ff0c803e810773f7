"""An extremum read only where a selection has decided it is the operand it equals.

A piecewise loss's adjoint reads its forward extrema inside the branch that keeps them: the
squared hinge's ``e = np.maximum(t, 0.0)`` only in ``np.where(t >= 0.0, -g * e * s, 0.0)``, the
smooth L1's ``np.minimum(a, b)`` only inside ``np.where(a <= b, ...)``, a winsorised square's
``np.clip(r, lo, hi)`` only inside the band ``(r >= lo) & (r <= hi)``.  There the extremum is its
operand: a pass over the array (a minimum or maximum costs twice a product: NumPy's loop tests
for NaN) that a hand does not write.  This pass writes the operand:

* the conditions every read of a name is under are collected, statement by statement from the
  last: inside ``np.where(c, kept, other)`` the kept branch is under `c`'s conjuncts (``&``), and a
  name bound once is under its reads' conditions where it is read through elementwise arithmetic
  only (``+ - *``, a numerator, a sign, ``np.where``, ``np.abs``, ``np.sign``, an extremum,
  ``np.tanh``: each element of the value is that element of its operands', and none divides by
  the operand, which could be 0 where the condition fails);
* under a condition saying ``u <= v`` (a comparison of the two, either way round), ``np.minimum(u, v)``
  is `u` and ``np.maximum(u, v)`` is `v` (and mirrored); ``np.clip(u, lo, hi)`` is `u` under
  ``u >= lo`` and ``u <= hi``; where the condition fails the selection drops the value.

Every name of the condition and of the extremum is bound once and written into by nobody, so both
read the same arrays; the operand kept is a float (the extremum's dtype where its other side is a
number or an array of its shape: the selection broadcasts against the condition, of the
extremum's shape).  Bit for bit but for the sign of a zero where the two sides tie as zeros
(``np.minimum(0.0, -0.0)``).  Top-level statements of NumPy code only (code srcdiff differentiates
again keeps the extremum: its derivative at a tie is a share, the operand's is not).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from functools import partial

from .cases import conjuncts, np_call, says_below
from .liveness import bound_once
from .simplify import is_float

#: calls each element of whose value is that element of its arguments' (no domain error made up)
ELEMENTWISE = frozenset({"where", "abs", "absolute", "sign", "negative", "minimum", "maximum", "clip", "tanh"})
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def selected_extrema(func: ast.FunctionDef, float_names: Callable[[str], bool]) -> bool:
    """Write each extremum read only under a selection deciding it as its operand (see the module);
    `float_names` tells the names certainly holding floats."""
    is_float_expr = partial(is_float, float_names=float_names)
    once = bound_once(func)
    stable = set(once)
    under: dict[str, frozenset[str]] = {}  # name -> the conditions (dumped) all its reads are under
    table: dict[str, ast.Compare] = {}
    changed = False
    for place in range(len(func.body) - 1, -1, -1):
        stmt = func.body[place]
        target = _defined(stmt, place, once)
        outer = (under.get(target) or frozenset()) if target else frozenset()
        if isinstance(stmt, (ast.Assign, ast.AugAssign)):  # (its value's own selections decide too)
            rewriter = _Rewrite(once, table, is_float_expr)
            stmt.value = rewriter.visit_under(stmt.value, outer)
            changed |= rewriter.changed
        _Reads(under, stable, table).collect(stmt, outer if target else None)
    return changed


def _defined(stmt: ast.stmt, place: int, once) -> str | None:
    """The name `stmt` binds once (`once`: liveness.bound_once), else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        name = stmt.targets[0].id
        return name if once.get(name, (None,))[0] == place else None
    return None


def _facts(condition: ast.expr, stable: set[str], table: dict[str, ast.Compare]) -> frozenset[str]:
    """The comparisons `condition` says (dumped, to intersect them; `table` maps them back), where
    every name it reads is stable."""
    if not all(n.id in stable or n.id == "np" for n in ast.walk(condition) if isinstance(n, ast.Name)):
        return frozenset()
    found = [c for c in conjuncts(condition) if isinstance(c, ast.Compare) and len(c.ops) == 1]
    table.update((ast.dump(c), c) for c in found)
    return frozenset(ast.dump(c) for c in found)


def _children(node: ast.expr, conditions: frozenset[str], stable: set[str], table: dict):
    """(child, the conditions it is under) of an elementwise `node`; None where `node` is not elementwise."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # (a divisor decided could be 0 elsewhere)
        return [(node.left, conditions), (node.right, frozenset())]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
        return [(node.left, conditions), (node.right, conditions)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return [(node.operand, conditions)]
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        return [(node.left, conditions), (node.comparators[0], conditions)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
        return [(node.left, conditions), (node.right, conditions)]
    name = np_call(node)
    if name not in ELEMENTWISE:
        return None
    if name == "where" and len(node.args) == 3:
        c, kept, other = node.args
        return [(c, conditions), (kept, conditions | _facts(c, stable, table)), (other, conditions)]
    return [(a, conditions) for a in node.args]


class _Reads:
    """Gathers, for each name a statement reads, the conditions the read is under (intersected)."""

    def __init__(self, under: dict, stable: set[str], table: dict):
        self.under, self.stable, self.table = under, stable, table

    def collect(self, stmt: ast.stmt, outer: frozenset[str] | None) -> None:
        if outer is not None:  # a name's own binding: its value's reads are under its own reads' conditions
            self._walk(stmt.value, outer)
            return
        if isinstance(stmt, ast.Delete):
            return
        value = stmt.value if isinstance(stmt, (ast.Assign, ast.AugAssign)) else None
        if value is not None:
            self._walk(value, frozenset())
            rest = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        else:
            rest = [stmt]
        for node in rest:
            for n in ast.walk(node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    self._note(n.id, frozenset())

    def _note(self, name: str, conditions: frozenset[str]) -> None:
        known = self.under.get(name)
        self.under[name] = conditions if known is None else known & conditions

    def _walk(self, node: ast.expr, conditions: frozenset[str]) -> None:
        if isinstance(node, ast.Name):
            self._note(node.id, conditions)
            return
        children = _children(node, conditions, self.stable, self.table)
        if children is None:  # not elementwise: its operands are under no condition (but their own selections')
            children = [(child, frozenset()) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]
        for child, under in children:
            self._walk(child, under)


class _Rewrite:
    """Writes the extrema of an expression decided by the conditions they are under."""

    def __init__(self, once: dict, table: dict, is_float_expr):
        self.once, self.stable, self.table, self.is_float_expr = once, set(once), table, is_float_expr
        self.changed = False

    def visit_under(self, node: ast.expr, conditions: frozenset[str]) -> ast.expr:
        children = _children(node, conditions, self.stable, self.table)
        if children is None:
            conditions = frozenset()
            children = [(child, conditions) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]
        decided = self._decided(node, conditions) if conditions else None
        if decided is not None:
            self.changed = True
            return self.visit_under(copy.deepcopy(decided), conditions)
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [self._child(v, children) for v in value])
            elif isinstance(value, ast.expr):
                setattr(node, field, self._child(value, children))
        return node

    def _child(self, value, children):
        for child, under in children:
            if child is value:
                return self.visit_under(value, under)
        return value

    def _decided(self, node: ast.expr, conditions: frozenset[str]) -> ast.expr | None:
        """The operand an extremum `node` equals under `conditions`, else None."""
        name = np_call(node)
        if name not in ("minimum", "maximum", "clip") or not all(
                n.id in self.stable for a in node.args for n in ast.walk(a) if isinstance(n, ast.Name)):
            return None
        compares = [self.table[d] for d in conditions]
        below = lambda low, high: any(says_below(c, low, high) for c in compares)  # noqa: E731
        found = None
        if name == "clip" and len(node.args) == 3:
            u, lo, hi = node.args
            found = u if below(lo, u) and below(u, hi) else None
        elif len(node.args) == 2:
            u, v = node.args
            small, large = (u, v) if below(u, v) else (v, u) if below(v, u) else (None, None)
            found = small if name == "minimum" else large
        return found if found is not None and self._float(found) else None

    def _float(self, node: ast.expr) -> bool:
        """A float or an array of floats: so is a view or item of one (``x[:, None]``), and a name
        bound once to one."""
        for _ in range(4):
            while isinstance(node, ast.Subscript):
                node = node.value
            if self.is_float_expr(node) or not (isinstance(node, ast.Name) and self.once.get(node.id, (-1,))[0] >= 0):
                break
            node = self.once[node.id][1]
        return self.is_float_expr(node)

