"""Selections on a condition already decided: ``np.where(c, np.where(c, a, 0.0) * k, 0.0)``
is ``np.where(c, a * k, 0.0)``.

The adjoint of ``np.where(c, x, y)`` masks what flows into each branch with `c`, and the
zero-factor guards mask it again, so one value of a ``where``-built loss (Huber's, a ReLU's
tie) is selected by the same condition two or three times over, each a full pass over the
array.  Inside the branch an outer ``np.where(c, ...)`` keeps, an inner ``np.where(c, x, y)``
reached through sums and products only ever shows its `x` (its `y` in the other branch):
the outer selection reads each element where the inner one reads the same element of `c`,
as broadcasting aligns both on the right.  The inner selection is dropped when what it drops
is a number (so no shape is lost: the outer ``where`` broadcasts against `c` again) and what
it keeps is a float (so the dtype is what it was).  The run-time ``select(c, e)`` (a selection
of a shape not known before the call) of ``e = np.where(c, x, 0.0)`` is `e` itself.

A hold ``held_still(e, np.where(c, k, 0.0))`` (ad/still_adjoints.py) is `e` there for a number
``k != 0``: it holds `e` at 0 only where its direction is 0, which it is nowhere in that branch
(``np.where(x > 0, np.sqrt(x), 0.0)``'s adjoint: no hold, as before holds were made).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from .liveness import assigned_name, bodies, is_comment, is_compound, is_pure, nodes, reads, writes
from .simplify import is_float, is_number, nonzero_number, size_read

#: element-wise operators defined everywhere (not ``@``, ``/``, ``**``, nor functions like np.log): the
#: element at a position reads only that position, and an inner selection under a division or a
#: function may be what keeps it finite where the outer one drops it (``(c - s) / np.where(near, 1.0,
#: x)``: without it, x's zeros would divide there, raise for numbers, and make NaN at the next order)
ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult)
#: a division's numerator only: the divisor is computed either way, so what the numerator holds
#: where the outer selection drops it changes nothing there (``np.where(c, t5_bar / beta, 0.0)``)
NUMERATOR = (ast.Div,)


def fold_decided_wheres(func: ast.FunctionDef, float_names: Callable[[str], bool]) -> bool:
    """Drop every inner ``np.where`` whose condition an enclosing one already decided."""
    folder = _Folder(float_names)
    folder.visit(func)
    return folder.changed


def inline_decided(func: ast.FunctionDef, float_names: Callable[[str], bool]) -> bool:
    """``t = np.where(c, x, 0.0)`` read once, later in the same run of plain assignments, inside
    the branch of a ``np.where(c, ...)`` that keeps `x`: `x` goes there and `t` is not made
    (``t8_bar = np.where(t2, t4_bar, 0.0); r_bar = np.where(t2, t8_bar * r, 0.0)`` is
    ``r_bar = np.where(t2, t4_bar * r, 0.0)``).  Only plain assignments and ``del`` may stand
    between, none rebinding what `c` or `x` read: no array changes in place meanwhile.  Nested
    selections too: ``t = np.where(c, 0.0, np.where(e, 0.0, s))`` read where both `c` and `e` fail
    (inside selections on each, at any depth: a chain of np.where's adjoints) is `s` there."""
    loads = reads(func)
    folder = _Folder(float_names)
    for block in bodies(func.body):
        i = 0
        while i < len(block):
            if not _inline_at(block, i, loads, folder):
                i += 1
    return folder.changed


def _inline_at(block: list[ast.stmt], i: int, loads, folder: _Folder) -> bool:
    stmt, name = block[i], assigned_name(block[i])
    if name is None or not loads[name]:
        return False
    return any(_inline_side(block, i, loads, folder, required, value)
               for required, value in _decided_values(stmt.value, frozenset(), folder))


def _decided_values(value: ast.expr, required: frozenset, folder: _Folder):
    """The values a chain of selections takes where the conditions it needs are decided, as pairs
    (the set of (condition dumped, branch kept), value), the deepest of each chain first; a side
    is kept where the other is a number (both, when both are numbers: ``np.where(c, 0.0, 1.0)``
    read where c fails is 1.0)."""
    if not (is_where(value) and _plain(value.args[0])):
        return
    for kept in (1, 2):
        side = value.args[kept]
        if is_number(value.args[3 - kept]) and is_pure(side) and folder._is_float(side):
            needs = required | {(ast.dump(value.args[0]), kept)}
            yield from _decided_values(side, needs, folder)
            yield needs, side


def _inline_side(block: list[ast.stmt], i: int, loads, folder: _Folder, required: frozenset,
                 value: ast.expr) -> bool:
    stmt, name = block[i], assigned_name(block[i])
    # read more than once: only a value that costs nothing again (a name, a number, one operation of those)
    if loads[name] > 1 and not _cheap(value):
        return False
    inputs = set(reads(stmt.value)) | {name}
    remaining, rewritten = loads[name], []
    for j in range(i + 1, len(block)):
        later = block[j]
        if is_comment(later):
            continue
        count = reads(later)[name]
        if count:
            if is_compound(later):
                return False
            trial = _Substitute(name, required, value).visit(copy.deepcopy(later))
            if reads(trial)[name]:
                return False
            rewritten.append((j, trial))
            remaining -= count
            if not remaining:
                for k, new in rewritten:
                    block[k] = new
                del block[i]
                folder.changed = True
                return True
        plain = isinstance(later, ast.Delete) or (assigned_name(later) is not None and is_pure(later.value))
        if not plain or writes(later) & inputs:
            return False
    return False


def _cheap(expr: ast.expr) -> bool:
    if isinstance(expr, (ast.Name, ast.Constant)) or size_read(expr):
        return True
    return isinstance(expr, ast.BinOp) and all(isinstance(e, (ast.Name, ast.Constant)) or size_read(e)
                                               for e in (expr.left, expr.right))


class _Substitute(ast.NodeTransformer):
    """`name` replaced by `value` where it is reached element-wise from branches of ``np.where``
    that decide every (condition dumped, branch) pair of `required` (and nowhere else): each
    selection on the way broadcasts against its condition again, so no shape is lost."""

    def __init__(self, name: str, required: frozenset, value: ast.expr):
        self.name, self.required, self.value = name, required, value

    def visit_Call(self, node: ast.Call) -> ast.expr:
        if is_where(node) and _plain(node.args[0]):
            key = ast.dump(node.args[0])
            node.args[1:] = [self._in(node.args[b], frozenset({(key, b)})) for b in (1, 2)]
        self.generic_visit(node)
        return node

    def _in(self, expr: ast.expr, decided: frozenset) -> ast.expr:
        here = self.required <= decided
        if isinstance(expr, ast.Name) and expr.id == self.name and here:
            return copy.deepcopy(self.value)
        held = _held(expr)
        if held is not None and isinstance(held[1], ast.Name) and held[1].id == self.name and here \
                and nonzero_number(self.value):
            return self._in(held[0], decided)  # (its direction is the nonzero number here: the hold holds nothing)
        if is_where(expr):  # (each element is one of its branches')
            key = ast.dump(expr.args[0]) if _plain(expr.args[0]) else None
            expr.args[1:] = [self._in(expr.args[b], decided | ({(key, b)} if key else set())) for b in (1, 2)]
        elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ELEMENTWISE):
            expr.left, expr.right = self._in(expr.left, decided), self._in(expr.right, decided)
        elif isinstance(expr, ast.BinOp) and isinstance(expr.op, NUMERATOR):
            expr.left = self._in(expr.left, decided)
        elif isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            expr.operand = self._in(expr.operand, decided)
        return expr


def _held(node: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """The contribution and direction of ``held_still(e, g)``, None for anything else."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "held_still" \
            and len(node.args) == 2 and not node.keywords:
        return node.args[0], node.args[1]
    return None


def is_where(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and len(node.args) == 3 and not node.keywords
            and isinstance(node.func, ast.Attribute) and node.func.attr == "where"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np")


def _selects_its_own_where(node: ast.expr) -> bool:
    """``select(c, np.where(c, x, 0.0))``: the run-time helper keeps the where's value as it is
    (c one value: the where is already all zeros when c fails; c of the where's shape: it is zero
    where c fails; else the helper returns it unchanged)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "select" \
        and len(node.args) == 2 and not node.keywords and is_where(node.args[1]) and _plain(node.args[0]) \
        and ast.dump(node.args[0]) == ast.dump(node.args[1].args[0]) \
        and isinstance(zero := node.args[1].args[2], ast.Constant) and type(zero.value) in (int, float) \
        and zero.value == 0


def _plain(condition: ast.expr) -> bool:
    """A condition evaluating alike wherever it is written in one expression: names, numbers,
    comparisons, ``not`` and element-wise operators on them, no call."""
    return all(isinstance(n, (ast.Name, ast.Constant, ast.Compare, ast.UnaryOp, ast.BinOp, ast.BoolOp,
                              ast.expr_context, ast.cmpop, ast.unaryop, ast.operator, ast.boolop))
               for n in nodes(condition))


class _Folder(ast.NodeTransformer):
    def __init__(self, float_names: Callable[[str], bool]):
        self.float_names, self.changed = float_names, False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)  # inner selections first: what they keep is then folded
        if _selects_its_own_where(node):  # ``select(c, np.where(c, x, 0.0))``: the where's value
            self.changed = True
            return node.args[1]
        if is_where(node) and _plain(node.args[0]):
            key = ast.dump(node.args[0])
            node.args[1] = self._decided(node.args[1], key, 1)
            node.args[2] = self._decided(node.args[2], key, 2)
        return node

    def _is_float(self, expr: ast.expr) -> bool:
        """Certainly a float: `is_float`, or a selection one of whose branches is one (a float
        and anything NumPy selects between are promoted to a float)."""
        if is_where(expr):
            return self._is_float(expr.args[1]) or self._is_float(expr.args[2])
        return is_float(expr, self.float_names)

    def _decided(self, expr: ast.expr, key: str, branch: int) -> ast.expr:
        """`expr` with each ``np.where(c, x, y)`` it reaches element-wise (through arithmetic and
        the branches of selections on other conditions) replaced by the argument `branch` (1: `x`,
        2: `y`) when the other one is a number and this one a float."""
        if is_where(expr) and ast.dump(expr.args[0]) == key:
            kept, dropped = expr.args[branch], expr.args[3 - branch]
            if is_number(dropped) and self._is_float(kept):
                self.changed = True
                return self._decided(kept, key, branch)
            return expr
        held = _held(expr)
        if held is not None and is_where(held[1]) and ast.dump(held[1].args[0]) == key \
                and is_number(held[1].args[3 - branch]) and nonzero_number(held[1].args[branch]):
            self.changed = True  # (the hold's direction is a nonzero number in this branch: it holds nothing)
            return self._decided(held[0], key, branch)
        if is_where(expr):  # a selection on another condition: each element is one of its branches'
            expr.args[1] = self._decided(expr.args[1], key, branch)
            expr.args[2] = self._decided(expr.args[2], key, branch)
        elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ELEMENTWISE):
            expr.left = self._decided(expr.left, key, branch)
            expr.right = self._decided(expr.right, key, branch)
        elif isinstance(expr, ast.BinOp) and isinstance(expr.op, NUMERATOR):
            expr.left = self._decided(expr.left, key, branch)
        elif isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            expr.operand = self._decided(expr.operand, key, branch)
        return expr


def merge_complements(func: ast.FunctionDef, float_names: Callable[[str], bool]) -> bool:
    """``x = np.where(c, a, 0.0)`` and later ``x = x + np.where(c, 0.0, b)`` are one selection,
    ``x = np.where(c, a, b)``: a piecewise loss (Huber's ``np.where(|r| <= d, ...)``) sends its
    adjoint into the residual through both branches, each a full pass plus the sum.  The two
    selections leave each element one of its terms and a zero, so one selection gives the same
    value (up to the sign of a zero).  Only plain assignments and ``del`` may stand between,
    none reading `x` nor rebinding what `c` or `a` read; also within one expression."""
    folder = _Folder(float_names)
    changed = False
    for node in nodes(func):
        for field in ("value", "left", "right", "operand"):
            sub = getattr(node, field, None)
            merged = _merged_sum(sub, folder) if isinstance(sub, ast.BinOp) else None
            if merged is not None:
                setattr(node, field, merged)
                changed = True
        for k, sub in enumerate(node.args if isinstance(node, ast.Call) else ()):  # (a selection's branch)
            merged = _merged_sum(sub, folder) if isinstance(sub, ast.BinOp) else None
            if merged is not None:
                node.args[k] = merged
                changed = True
    for block in bodies(func.body):
        i = 0
        while i < len(block):
            if _merge_at(block, i, folder):
                changed = True
            else:
                i += 1
    return changed


def _one_sided(expr: ast.expr, folder: _Folder) -> int | None:
    """1 when `expr` is ``np.where(c, a, 0)``, 2 for ``np.where(c, 0, b)``: the branch kept, a
    float; None otherwise."""
    if not (is_where(expr) and _plain(expr.args[0]) and is_pure(expr)):
        return None
    for kept in (1, 2):
        if is_number(expr.args[3 - kept], 0.0) and folder._is_float(expr.args[kept]):
            return kept
    return None


def _complementary(first: ast.expr, second: ast.expr, folder: _Folder) -> ast.expr | None:
    """The one selection two one-sided ones on one condition add up to: ``np.where(c, a, b)``
    of complements, ``np.where(c, a + b, 0.0)`` of two on the same side (the zeros add to 0.0)."""
    a, b = _one_sided(first, folder), _one_sided(second, folder)
    if a is None or b is None or ast.dump(first.args[0]) != ast.dump(second.args[0]):
        return None
    if a == b:
        args = [first.args[0], first.args[1], first.args[2]]
        args[a] = ast.BinOp(first.args[a], ast.Add(), second.args[b])
        return ast.Call(first.func, args, [])
    branches = (first.args[a], second.args[b]) if a == 1 else (second.args[b], first.args[a])
    return ast.Call(first.func, [first.args[0], *branches], [])


def _merged_sum(expr: ast.BinOp, folder: _Folder) -> ast.expr | None:
    if isinstance(expr.op, ast.Sub) and (negated := _negated(expr.right, folder)) is not None:
        left = _negated(expr.left.operand, folder) if _negation(expr.left) else expr.left
        return None if left is None else _complementary(left, negated, folder)
    if not isinstance(expr.op, ast.Add):
        return None
    return _complementary(expr.left, expr.right, folder)


def _negation(expr: ast.expr) -> bool:
    return isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub)


def _negated(expr: ast.expr, folder: _Folder) -> ast.expr | None:
    """``-np.where(c, 0.0, b)`` as ``np.where(c, 0.0, -b)`` (the zero's sign aside), pushed into a
    chain of such selections: a one-sided selection subtracted merges like one added; None for
    anything else."""
    kept = _one_sided(expr, folder)
    if kept is None:
        return None
    args = list(expr.args)
    args[3 - kept] = ast.Constant(0.0)
    args[kept] = _negated(args[kept], folder) or ast.UnaryOp(ast.USub(), args[kept])
    return ast.Call(expr.func, args, [])


def _merge_at(block: list[ast.stmt], i: int, folder: _Folder) -> bool:
    name = assigned_name(block[i])
    first = block[i].value if name is not None else None
    if first is not None and _negation(first):  # (``x = -np.where(c, 0.0, a)``)
        first = _negated(first.operand, folder)
    if first is None or _one_sided(first, folder) is None:
        return False
    inputs = set(reads(block[i].value)) | {name}
    for j in range(i + 1, len(block)):
        later = block[j]
        if is_comment(later):
            continue
        value = later.value if assigned_name(later) == name else None
        if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)):
            pairs = ((value.left, value.right), (value.right, value.left)) if isinstance(value.op, ast.Add) \
                else ((value.left, _negated(value.right, folder)),)  # (``x = x - np.where(c, 0.0, b)``)
            for mine, other in pairs:
                merged = other is not None and isinstance(mine, ast.Name) and mine.id == name \
                    and _complementary(first, other, folder)
                if merged and not reads(other)[name]:
                    later.value = merged
                    del block[i]
                    return True
            return False
        plain = isinstance(later, ast.Delete) or (assigned_name(later) is not None and is_pure(later.value))
        if not plain or name in reads(later) or writes(later) & inputs:
            return False
    return False
