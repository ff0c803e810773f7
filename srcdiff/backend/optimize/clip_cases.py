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
`r` is inf or NaN the loss is not finite either.  NumPy code only (not read back, not numba), float64.
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from collections.abc import Callable

from .cases import Form, added, np_call, scaled
from .liveness import assigned_name, is_comment, nodes

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
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                for side in ("left", "right"):
                    if _spelled(getattr(node, side), forward, is_scalar):
                        continue
                    made = _clipped(getattr(node, side), current, stores, before, is_scalar)
                    if made is not None:
                        setattr(node, side, made)
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
    """The clip `operand` equals, guarded, or None."""
    value = _substituted(operand, current)
    if not _elementwise(value) or not any(np_call(n) in CALLS for n in ast.walk(value)):
        return None
    names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} - {"np"}
    arrays = {n for n in names if not is_scalar(n)}
    if len(arrays) != 1 or not names <= before or any(stores[n] > 1 for n in names):
        return None
    atom = arrays.pop()
    breaks: list[Form] = []
    for _ in range(4):
        try:
            pieces = [_Eval(atom, breaks, where).value(value) for where in range(2 * len(breaks) + 1)]
        except _Need as need:
            if not _insert(breaks, need.args[0]):
                return None
            continue
        except _Unknown:
            return None
        return _as_clip(value, atom, breaks, pieces)
    return None


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


def _clean(form: Form) -> Form:
    """`form` with empty coefficients dropped and each ``n`` cancelled against ``/n``."""
    out: Form = {}
    for atom, coefficient in form.items():
        kept: dict = {}
        for monomial, number in coefficient.items():
            names = list(monomial)
            for n in [n for n in names if n.startswith("/")]:
                if n[1:] in names and n in names:
                    names.remove(n[1:])
                    names.remove(n)
            key = tuple(sorted(names))
            kept[key] = kept.get(key, 0.0) + number
        kept = {m: n for m, n in kept.items() if n != 0.0}
        if kept:
            out[atom] = kept
    return out


class _Eval:
    """The value of an expression of `atom` on one piece: ``where`` 2i is the open interval below
    breakpoint i (2 len(breaks) the one above them all), 2i + 1 the breakpoint i itself."""

    def __init__(self, atom: str, breaks: list[Form], where: int):
        self.atom, self.breaks, self.where = atom, breaks, where

    def value(self, node: ast.expr):
        if isinstance(node, ast.Constant):
            if type(node.value) in (int, float):
                return _clean({"1": {(): float(node.value)}})
            raise _Unknown
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
            return _clean(added(left, right, 1.0 if isinstance(node.op, ast.Add) else -1.0))
        if isinstance(node.op, ast.Mult) and not set(left) - {"1"}:
            return _clean(scaled(right, left.get("1", {})))
        if isinstance(node.op, ast.Mult) and not set(right) - {"1"}:
            return _clean(scaled(left, right.get("1", {})))
        if isinstance(node.op, ast.Div) and not set(right) - {"1"} and len(right.get("1", {})) == 1:
            ((monomial, number),) = right["1"].items()
            if any(n.startswith("/") for n in monomial):
                raise _Unknown
            return _clean(scaled(left, {tuple("/" + n for n in monomial): 1.0 / number}))
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
            return scaled(args[0], {(): float(sign)}) if name == "abs" else _clean({"1": {(): float(sign)}})
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
        if set(slope) != {()} or abs(slope[()]) != 1.0 or set(rest) - {"1"} or not _threshold(rest):
            raise _Unknown
        s = slope[()]
        at = _clean(scaled(rest, {(): -s}))  # s (atom - at): atom against `at`
        if at not in self.breaks:
            raise _Need(at)
        i = self.breaks.index(at)
        place = 2 * i + 1
        return int(s) * (0 if self.where == place else 1 if self.where > place else -1)

    def _order(self, left: Form, right: Form) -> int:
        """The sign of ``left - right`` on this piece: of the atom against a threshold, of two numbers
        (a constant difference, or two thresholds in the breakpoints' order)."""
        difference = _clean(added(left, right, -1.0))
        if self.atom in difference or _number_side(difference) is not None:
            return self._side(difference)
        sides = [_clean(left), _clean(right)]
        for side in sides:
            if not _threshold(side):
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


def _as_clip(value: ast.expr, atom: str, breaks: list[Form], pieces: list) -> ast.expr | None:
    """``k * np.clip(r, lo, hi) + j * (r - np.clip(r, lo, hi)) + b if lo < ... < hi else value`` where
    `pieces` say so: one line ``k r + b`` between the outer breakpoints, lines of one slope `j` outside
    meeting it there (`value`: the operand with the statements that made it read in, so that they go
    where nothing else reads them)."""
    count = len(breaks)
    if count < 2 or any(not isinstance(p, dict) or set(p) - {atom, "1"} for p in pieces):
        return None
    line = pieces[2]
    inner, outer = line.get(atom, {}), pieces[0].get(atom, {})
    if any(pieces[w] != line for w in range(2, 2 * count - 1, 2)) or pieces[2 * count].get(atom, {}) != outer \
            or not (inner or outer):
        return None
    ties = []  # breakpoints where the shares give another value than the line: the code as it was there
    for i, point in enumerate(breaks):
        expected = _at(line, atom, point)
        if _at(pieces[0 if i == 0 else 2 * count], atom, point) != expected and i in (0, count - 1):
            return None  # (the outer lines do not meet the inner one)
        if _at(pieces[2 * i + 1], atom, point) != expected:
            ties.append(point)
    terms = []
    if inner:
        terms.append(_times(inner, _clip(atom, breaks)))
    if outer:
        terms.append(_times(outer, ast.BinOp(ast.Name(atom, ast.Load()), ast.Sub(), _clip(atom, breaks))))
    if line.get("1"):
        terms.append(_coefficient(line["1"]))
    made = terms[0]
    for term in terms[1:]:
        made = ast.BinOp(made, ast.Add(), term)
    if ast.unparse(made) == ast.unparse(value):
        return None  # (the user's own clip: nothing to fold)
    test: ast.expr = ast.Compare(_number(breaks[0]), [ast.Lt()] * (count - 1), [_number(b) for b in breaks[1:]])
    if ties:  # (``not any_equal(r, t)``: a pass that stops at no element, the test of a tie's rare case)
        test = ast.BoolOp(ast.And(), [test] + [ast.UnaryOp(ast.Not(), ast.Call(
            ast.Name("any_equal", ast.Load()), [ast.Name(atom, ast.Load()), _number(t)], [])) for t in ties])
    return ast.IfExp(test, made, value)


def _times(coefficient: dict, value: ast.expr) -> ast.expr:
    """``coefficient * value``, a coefficient of ±1 a sign."""
    if coefficient in ({(): 1.0}, {(): -1.0}):
        return value if coefficient[()] > 0 else ast.UnaryOp(ast.USub(), value)
    return ast.BinOp(_coefficient(coefficient), ast.Mult(), value)


def _at(piece: Form, atom: str, point: Form) -> Form:
    """`piece`, a line in `atom`, at `point`."""
    return _clean(added({k: v for k, v in piece.items() if k != atom}, scaled(point, piece.get(atom, {})), 1.0))


def _clip(atom: str, breaks: list[Form]) -> ast.expr:
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "clip", ast.Load()),
                    [ast.Name(atom, ast.Load()), _number(breaks[0]), _number(breaks[-1])], [])


def _number(form: Form) -> ast.expr:
    return _coefficient(form.get("1", {}))


def _coefficient(coefficient: dict) -> ast.expr:
    """A sum of monomials as an expression: ``2.0 * a / n``."""
    out: ast.expr | None = None
    for monomial, number in sorted(coefficient.items()):
        names = list(monomial)
        term: ast.expr = ast.Constant(abs(number))
        if abs(number) == 1.0 and names and not names[0].startswith("/"):
            term = ast.Name(names.pop(0), ast.Load())
        for name in names:
            op = ast.Div() if name.startswith("/") else ast.Mult()
            term = ast.BinOp(term, op, ast.Name(name.lstrip("/"), ast.Load()))
        if out is None:
            out = ast.UnaryOp(ast.USub(), term) if number < 0 else term
        else:
            out = ast.BinOp(out, ast.Sub() if number < 0 else ast.Add(), term)
    return out if out is not None else ast.Constant(0.0)
