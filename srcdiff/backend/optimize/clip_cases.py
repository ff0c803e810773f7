"""A gradient that is a clip, proved case by case: ``X.T @ E`` where `E`, read through the
statements that make it, is ``k * np.clip(r, lo, hi) + j * (r - np.clip(r, lo, hi)) + b`` on every
piece of one array `r`.

Piecewise losses reach their residual through np.abs, np.sign, comparisons, np.where, np.minimum /
np.maximum and np.clip, and the adjoint the rules write sums every piece's share: Huber's loss spelled
``0.5 r^2 - 0.5 max(|r| - d, 0)^2`` sends ``r / n`` and ``-(|r| - d) sign(r) / n`` where ``|r| >= d``,
five passes where ``np.clip(r, -d, d) / n`` is one.  This pass reads such an operand of ``@`` as a
function of `r` (beside numbers and names of numbers), evaluates it as an affine form of `r` (cases.py's
forms) on each open interval between the thresholds its comparisons name (and 0 where it reads |r| or
sign(r)) and at each threshold, and where it is one line between the outer thresholds and lines of one
slope outside meeting it there, writes that clip ``if lo < ... < hi else <the operand as it was>``: the
order the proof assumed, checked where the code runs.  A comparison (np.abs, np.sign, an extremum) is
decided only of ``±r + t``, `t` ±a name or a number, each side computed without rounding or a sum of two
such rounded once: its sign is exact, the pieces are NumPy's own.  At a threshold where the ties' shares
give another value than the line, ``not any_equal(r, t)`` joins the test (the code as it was there).
Within a piece the rewrite computes the same real number rounded otherwise (``k * d`` where ``k * r -
k * (r - d)`` cancelled): the rule of docs/how-it-works.md, "Rewrites that round differently"; where
`r` is inf the loss is not finite either, NaN the code's piece (nan_pieces.py).  NumPy code, float64.

Where the pieces are no clip (piece_lines.py writes each): a weight that jumps at an inner threshold times
a clip of the outer ones (a quantile Huber), else a chain of selections of the pieces' lines (SVR's two
hinges: -1 / n, 0, 1 / n), each comparison the one that gives its tie the value the code gave there.  The
operand may read other arrays the pieces are multiplied by (never compared: a mean's ones broadcast to
the residual's shape), and the array it reads may be a mask read only as a condition (``np.where(m, P1,
P0)``: a pinball loss of two quantiles).  These two are written only where they cost fewer passes over
the arrays than the code as it was (a tie's half share counted as its rare case, tie_shares.py).
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from collections.abc import Callable

from .cases import Form, added, np_call, scaled
from .liveness import assigned_name, is_comment, nodes
from .nan_pieces import open_piece_at_nan, same_at_nan, without_nan
from .piece_lines import as_clip, as_selections, as_weighted_clip, clean, line, number, shared_arrays, where

#: the calls whose adjoints this pass reads; where none is spelled it has nothing to do
CALLS = frozenset({"abs", "sign", "where", "minimum", "maximum", "clip"})
_SIDES = {ast.Lt: lambda s: s < 0, ast.LtE: lambda s: s <= 0, ast.Gt: lambda s: s > 0,
          ast.GtE: lambda s: s >= 0, ast.Eq: lambda s: s == 0, ast.NotEq: lambda s: s != 0}


class _Unknown(Exception):
    """Not a function of one array this pass can decide."""


class _Need(Exception):
    """A comparison against a threshold not yet among the breakpoints (its form, the argument)."""


def clip_cases(func: ast.FunctionDef, is_scalar: Callable[[str], bool]) -> bool:
    """Rewrite each top-level ``A @ E`` whose `E` is a clip case by case (module docstring)."""
    stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    current: dict[str, ast.expr] = {}  # name -> its value, names of elementwise values replaced
    before: set[str] = set(params)  # names bound (once) by the statements read so far
    changed = False
    forward: set[str] = set()  # names the forward sweep binds (before codegen's "backward" header)
    backward = False
    for stmt in func.body:
        backward = backward or (is_comment(stmt) and any(getattr(a, "value", None) == "backward"
                                                         for a in stmt.value.args))
        if not backward:
            forward.update(n.id for n in nodes(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        for node in nodes(stmt) if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Return, ast.Expr)) else ():
            for holder, field in _operands(node):
                operand = holder[field] if isinstance(holder, list) else getattr(holder, field)
                if _spelled(operand, forward, is_scalar):
                    continue
                made = _clipped(operand, current, stores, before, is_scalar)
                if made is not None:
                    holder.__setitem__(field, made) if isinstance(holder, list) else setattr(holder, field, made)
                    changed = True
        name = assigned_name(stmt)
        if name is None or not isinstance(stmt, ast.Assign):
            for written in (n.id for n in nodes(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)):
                current.pop(written, None)
            continue
        value = _substituted(stmt.value, current)
        current.pop(name, None)
        if _elementwise(value):  # (a number too: ``t9 = -d`` read as -d, the threshold the comparisons name)
            current[name] = value
        if stores[name] == 1:
            before.add(name)
    return changed


def _operands(node: ast.AST) -> list[tuple]:
    """Where `node` reads an operand the pass may write again: each side of ``@``, and what a full sum or
    mean reduces (``np.sum(E)``, ``E.mean()``: a loss's value, each element the same real number)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        return [(node, "left"), (node, "right")]
    if isinstance(node, ast.Call) and not node.keywords and np_call(node) in ("sum", "mean") and len(node.args) == 1:
        return [(node.args, 0)]
    if isinstance(node, ast.Call) and not node.keywords and not node.args and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("sum", "mean") and np_call(node) is None:
        return [(node.func, "value")]
    return []


def _spelled(operand: ast.expr, forward: set[str], is_scalar: Callable[[str], bool]) -> bool:
    """Whether `operand` reads forward arrays and numbers, by no selection (``c / n``): nothing to fold."""
    return not any(np_call(n) in CALLS for n in ast.walk(operand)) and all(
        n.id in forward or n.id == "np" or is_scalar(n.id) for n in ast.walk(operand) if isinstance(n, ast.Name))


def _substituted(expr: ast.expr, current: dict[str, ast.expr]) -> ast.expr:
    class Put(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            return copy.deepcopy(current[node.id]) if isinstance(node.ctx, ast.Load) and node.id in current else node
    return Put().visit(copy.deepcopy(expr))


def _elementwise(expr: ast.expr) -> bool:
    """Arithmetic, comparisons and the calls this pass decides, of names and numbers."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            if np_call(node) not in CALLS:
                return False
        elif isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.MatMult):
                return False
        elif isinstance(node, ast.Attribute):
            if not (isinstance(node.value, ast.Name) and node.value.id == "np"):
                return False  # (``y.size``: a number this pass keeps by its name)
        elif not isinstance(node, (ast.Name, ast.Constant, ast.UnaryOp, ast.Compare, ast.BoolOp,
                                   ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)):
            return False
    return True


def _clipped(operand: ast.expr, current, stores, before, is_scalar) -> ast.expr | None:
    """The clip (or chain of selections) `operand` equals, guarded, or None."""
    value = _substituted(operand, current)
    if not _elementwise(value) or not any(np_call(n) in CALLS for n in ast.walk(value)):
        return None
    names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} - {"np"}
    arrays = {n for n in names if not is_scalar(n)}
    if not arrays or len(arrays) > 3 or not names <= before or any(stores[n] > 1 for n in names):
        return None
    for atom in sorted(arrays):  # (the array compared; the others multiply the pieces)
        for mask in (False, True):
            made = _proved(value, atom, mask, arrays, is_scalar)
            if made is not None:
                return made
    return None


def _proved(value: ast.expr, atom: str, mask: bool, arrays: set, is_scalar) -> ast.expr | None:
    """`value` written again of `atom` read piece by piece (as a condition alone, where `mask`)."""
    breaks: list[Form] = []
    for _ in range(4):
        try:
            pieces = [_Eval(atom, breaks, where, is_scalar, mask).value(value)
                      for where in range(2 if mask else 2 * len(breaks) + 1)]
        except _Need as need:
            if mask or not _insert(breaks, need.args[0]):
                return None
            continue
        except _Unknown:
            return None
        if any(not isinstance(p, dict) or set(p) - {atom, "1"} for p in pieces):
            return None
        factors = arrays - {atom}  # (arrays the pieces are multiplied by: numbers on each piece, selected)
        if factors and any(p.get(atom) for p in pieces):
            return None  # (lines of `atom` times arrays: as many passes as the code as it was)
        nan = None if mask else open_piece_at_nan(_Eval, atom, value, pieces, breaks=breaks, is_scalar=is_scalar)
        pieces, shared = shared_arrays(pieces, is_scalar)
        clip = None if mask or factors else as_clip(atom, breaks, pieces, is_scalar)
        made, ties = clip or (_selected(atom, pieces, is_scalar), []) if mask or clip else as_weighted_clip(
            atom, breaks, pieces, is_scalar) or as_selections(atom, breaks, pieces, is_scalar, nan)
        for name in shared:
            made = ast.BinOp(made, ast.Mult(), ast.Name(name, ast.Load()))
        differs = not mask and not same_at_nan(_Eval, atom, made, value, breaks=breaks, is_scalar=is_scalar)
        if clip is None and len(_passes(made, is_scalar)) + len(ties) + differs >= len(_passes(value, is_scalar)):
            return None  # (no cheaper than the code as it was: a tie's share, a NaN, its rare case there)
        read = {n.id for n in ast.walk(made) if isinstance(n, ast.Name)}
        if ast.unparse(made) == ast.unparse(value) or not arrays <= read:
            return None  # (the user's own clip: nothing to fold; or an array's shape the pieces lost)
        tests: list[ast.expr] = [without_nan(atom)] if differs else []  # (another piece than the code's at NaN)
        if len(breaks) > 1:  # (the order the proof assumed)
            tests.append(ast.Compare(number(breaks[0]), [ast.Lt()] * (len(breaks) - 1),
                                     [number(b) for b in breaks[1:]]))
        # (``not any_equal(r, t)``: a pass that stops at no element, the test of a tie's rare case; ties at
        # ``-t`` and ``t`` one test of ``np.abs(r)``, exact as r is)
        for t in ties:
            if clean(scaled(t, {(): -1.0})) in ties and _sign(t) < 0:
                continue
            read: ast.expr = ast.Name(atom, ast.Load())
            if clean(scaled(t, {(): -1.0})) in ties:
                read = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "abs", ast.Load()), [read], [])
            tests.append(ast.UnaryOp(ast.Not(), ast.Call(ast.Name("any_equal", ast.Load()), [read, number(t)], [])))
        if not tests:
            return made
        return ast.IfExp(tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests), made, value)
    return None


def _passes(expr: ast.expr, is_scalar) -> set[str]:
    """The distinct array operations `expr` computes, a tie's half share (``np.where(x == t, 0.5 * v, v)``,
    tie_shares.py's rare case) counted as one."""
    out: set[str] = set()
    todo = [expr]
    while todo:
        node = todo.pop()
        reads = any(isinstance(n, ast.Name) and n.id != "np" and not is_scalar(n.id) for n in ast.walk(node))
        if reads and isinstance(node, (ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)):
            out.add(ast.dump(node))
        if np_call(node) == "where" and len(node.args) == 3 and isinstance(node.args[0], ast.Compare) \
                and isinstance(node.args[0].ops[0], ast.Eq) and isinstance(node.args[1], ast.BinOp) \
                and ast.dump(node.args[1].right) == ast.dump(node.args[2]):
            todo.append(node.args[2])
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _selected(atom: str, pieces: list, is_scalar) -> ast.expr:
    """``np.where(m, P1, P0)``: the pieces of a mask read only as a condition."""
    return where(ast.Name(atom, ast.Load()), line(pieces[1], atom, is_scalar), line(pieces[0], atom, is_scalar))


def _sign(form: Form) -> int | None:
    """The sign a threshold is taken to have (checked where the code runs): 0, or its one term's."""
    if not form:
        return 0
    (monomials,) = form.values()
    if len(monomials) != 1:
        return None
    (number,) = monomials.values()
    return 1 if number > 0 else -1


def _insert(breaks: list[Form], form: Form) -> bool:
    sign = _sign(form)
    if sign is None or len(breaks) >= 3 or any(_sign(b) == sign for b in breaks):
        return False
    breaks.append(form)
    breaks.sort(key=_sign)
    return True


def _threshold(form: Form) -> bool:
    """``±name`` or a number (or 0): a value the comparisons read exactly."""
    if set(form) - {"1"}:
        return False
    monomials = form.get("1", {})
    return not monomials or (len(monomials) == 1 and all(
        (not m and True) or (len(m) == 1 and not m[0].startswith("/") and abs(n) == 1.0) for m, n in monomials.items()))


class _Eval:
    """The value of an expression of `atom` on one piece: ``where`` 2i is the open interval below
    breakpoint i (2 len(breaks) the one above them all), 2i + 1 the breakpoint i itself."""

    def __init__(self, atom: str, breaks: list[Form], where: int, is_scalar: Callable[[str], bool], mask: bool):
        self.atom, self.breaks, self.where, self.is_scalar, self.mask = atom, breaks, where, is_scalar, mask

    def _threshold(self, form: Form) -> bool:
        """A threshold of numbers (an array the pieces are multiplied by is compared with nothing)."""
        return _threshold(form) and all(self.is_scalar(n.lstrip("/")) for m in form.get("1", {}) for n in m)

    def value(self, node: ast.expr):
        if isinstance(node, ast.Constant):
            if type(node.value) in (int, float):
                return clean({"1": {(): float(node.value)}})
            raise _Unknown
        if isinstance(node, ast.Name) and node.id == self.atom and self.mask:
            return self.where == 1  # (a mask: true on piece 1)
        if isinstance(node, ast.Name):
            return {node.id: {(): 1.0}} if node.id == self.atom else {"1": {(node.id,): 1.0}}
        if isinstance(node, ast.UnaryOp):
            inner = self.value(node.operand)
            if isinstance(node.op, ast.USub) and isinstance(inner, dict):
                return scaled(inner, {(): -1.0})
            if isinstance(node.op, (ast.Not, ast.Invert)) and isinstance(inner, bool):
                return not inner
            raise _Unknown
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self.value(node.left), self.value(node.comparators[0])
            if not isinstance(left, dict) or not isinstance(right, dict) or type(node.ops[0]) not in _SIDES \
                    or not _exact_pair(node.left, node.comparators[0]):
                raise _Unknown
            return _SIDES[type(node.ops[0])](self._order(left, right))
        return self._call(node)

    def _binop(self, node: ast.BinOp):
        left, right = self.value(node.left), self.value(node.right)
        if isinstance(left, bool) and isinstance(right, bool) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            return (left and right) if isinstance(node.op, ast.BitAnd) else (left or right)
        if not isinstance(left, dict) or not isinstance(right, dict):
            raise _Unknown
        if isinstance(node.op, (ast.Add, ast.Sub)):
            return clean(added(left, right, 1.0 if isinstance(node.op, ast.Add) else -1.0))
        if isinstance(node.op, ast.Mult) and not set(left) - {"1"}:
            return clean(scaled(right, left.get("1", {})))
        if isinstance(node.op, ast.Mult) and not set(right) - {"1"}:
            return clean(scaled(left, right.get("1", {})))
        if isinstance(node.op, ast.Div) and not set(right) - {"1"} and len(right.get("1", {})) == 1:
            ((monomial, number),) = right["1"].items()
            if any(n.startswith("/") for n in monomial):
                raise _Unknown
            return clean(scaled(left, {tuple("/" + n for n in monomial): 1.0 / number}))
        raise _Unknown

    def _call(self, node: ast.expr):
        name = np_call(node)
        args = [self.value(a) for a in node.args] if name in CALLS else None
        exact = name is not None and all(_exact_pair(a, b) for i, a in enumerate(node.args[:3])
                                         for b in node.args[i + 1:3]) if name in ("minimum", "maximum", "clip") \
            else len(node.args) == 1 and _exact_pair(node.args[0], ast.Constant(0.0))
        if name != "where" and not exact:
            raise _Unknown  # (a sign NumPy may round otherwise than the forms say)
        if name in ("abs", "sign") and len(args) == 1 and isinstance(args[0], dict):
            sign = self._side(args[0])  # (of ±atom only: a threshold's form is 0 there)
            return scaled(args[0], {(): float(sign)}) if name == "abs" else clean({"1": {(): float(sign)}})
        if name == "where" and len(args) == 3 and isinstance(args[0], bool):
            return args[1] if args[0] else args[2]
        if name in ("minimum", "maximum") and len(args) == 2 and all(isinstance(a, dict) for a in args):
            below = self._order(args[0], args[1]) <= 0
            return args[0] if below == (name == "minimum") else args[1]
        if name == "clip" and len(args) == 3 and all(isinstance(a, dict) for a in args):
            above_low, below_high = self._order(args[0], args[1]) >= 0, self._order(args[0], args[2]) <= 0
            if self._order(args[1], args[2]) > 0:
                raise _Unknown  # (bounds in the wrong order: NumPy gives the upper one)
            return (args[0] if below_high else args[2]) if above_low else args[1]
        raise _Unknown

    def _side(self, form: Form) -> int:
        """The sign of ``form`` on this piece: -1, 0 or 1, where `form` is ``±atom + t`` (t a threshold)."""
        slope = form.get(self.atom)
        rest = {k: v for k, v in form.items() if k != self.atom}
        if slope is None:
            side = _number_side(rest)
            if side is None:
                raise _Unknown
            return side
        if set(slope) != {()} or abs(slope[()]) != 1.0 or set(rest) - {"1"} or not self._threshold(rest):
            raise _Unknown
        s = slope[()]
        at = clean(scaled(rest, {(): -s}))  # s (atom - at): atom against `at`
        if at not in self.breaks:
            raise _Need(at)
        i = self.breaks.index(at)
        place = 2 * i + 1
        return int(s) * (0 if self.where == place else 1 if self.where > place else -1)

    def _order(self, left: Form, right: Form) -> int:
        """The sign of ``left - right`` on this piece: of the atom against a threshold, of two numbers
        (a constant difference, or two thresholds in the breakpoints' order)."""
        difference = clean(added(left, right, -1.0))
        if self.atom in difference or _number_side(difference) is not None:
            return self._side(difference)
        sides = [clean(left), clean(right)]
        for side in sides:
            if not self._threshold(side):
                raise _Unknown
            if side not in self.breaks:
                raise _Need(side)
        i, j = (self.breaks.index(side) for side in sides)
        return (i > j) - (i < j)


def _plain(node: ast.expr) -> bool:
    """A value computed without rounding from the names and numbers it reads (negated, selected)."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _plain(node.operand)
    name = np_call(node)
    return name in ("abs", "minimum", "maximum", "clip", "where") and all(
        _plain(a) for a in node.args[1 if name == "where" else 0:])


def _exact_pair(left: ast.expr, right: ast.expr) -> bool:
    """Whether NumPy orders `left` and `right` as their forms do: both computed without rounding, or one
    of them 0 and the other a sum or difference of two such values, rounded once (its sign exact)."""
    if _plain(left) and _plain(right):
        return True
    for value, zero in ((left, right), (right, left)):
        if isinstance(zero, ast.Constant) and zero.value == 0 and isinstance(value, ast.BinOp) \
                and isinstance(value.op, (ast.Add, ast.Sub)) and _plain(value.left) and _plain(value.right):
            return True
    return False


def _number_side(form: Form) -> int | None:
    """The sign of a constant form (numbers only), else None."""
    if set(form) - {"1"} or set(form.get("1", {})) - {()}:
        return None
    number = form.get("1", {}).get((), 0.0)
    return (number > 0) - (number < 0)
