"""Selections whose every branch is zero, decided case by case: ``a_bar + np.where(c, x, 0.0)``
is ``a_bar`` where `x` is zero at every element `c` keeps.

The adjoint of a piecewise loss reaches the residual through each piece, and within a piece the
forward values it reads are decided: where ``a <= d``, ``q = np.minimum(a, d)`` is `a`.  Huber's
loss spelled ``q * (a - 0.5 * q)`` with that `q` sends ``(a - q) / n`` into `q`'s adjoint, which
the minimum passes on only where ``a <= d``, where it is zero: a whole masked pass that adds
nothing.  This pass proves such a term zero and drops it:

* the adjoints and temporaries of the top-level run of assignments are followed as linear
  combinations of arrays (the atoms: names assigned once) with coefficients that are products
  of numbers and names of numbers (``t4 = a - 0.5 * q; q_bar = t6_bar * t4 - 0.5 * t6_bar * q``
  is ``t6_bar * a - t6_bar * q``);
* inside the branch of ``np.where(c, x, y)`` that a comparison `c` keeps, a forward value it
  decides stands for the operand it equals: ``np.minimum(u, v)`` (``np.maximum``) is `u` where
  `c` says ``u <= v`` (``u >= v``), on `c`'s true side only, where neither is NaN; a forward
  ``np.where(c, x, y)`` is `x` (`y`) on either side;
* a branch is zero when each of its terms is a linear combination whose coefficients all cancel
  (numbers summed exactly, names of numbers matched), or a zero times a finite number.

Every name involved is a number or an array of the one shape of the sum the selection is added
to (`shape_classes`), so the selection broadcasts to nothing larger and each element it reads
is the one its condition decides.  Where every value is finite the term dropped is the unfolded
one's rounding error around zero (``c * (0.5 * a) - 0.5 * (c * a)``: exactly zero but for
underflow); where an atom is inf or NaN the unfolded term is NaN (``inf - inf``) and the folded
sum is the other terms' value: the loss's own value is not finite there either
(docs/guarantees.md).
"""

from __future__ import annotations

import ast
import math
from collections import Counter
from collections.abc import Callable

from .liveness import assigned_name, is_pure, nodes, reads, writes
from .shape_classes import SCALAR, ShapeClasses
from .simplify import is_float, is_number

#: a linear combination: atom (a name, or "1" for the number one) -> coefficient; a coefficient
#: maps a monomial (sorted names of numbers, "/n" for a division by `n`) to its number
Form = dict

#: comparisons ``l op r`` (true) that say ``l <= r``, and those that say ``r <= l``
#: the calls this pass rewrites: where none is spelled, it has nothing to do
CALLS = frozenset({"where", "minimum", "maximum", "clip"})

_LEFT_SMALLER = (ast.Lt, ast.LtE, ast.Eq)
_RIGHT_SMALLER = (ast.Gt, ast.GtE, ast.Eq)


def drop_zero_cases(func: ast.FunctionDef, classes: ShapeClasses, float_names: Callable[[str], bool]) -> bool:
    """Drop each selection added to (or subtracted from) an array of its shape in `func`'s
    top-level statements where every branch is zero case by case (module docstring)."""
    stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    once = {n for n in params if not stores[n]} | {n for n, k in stores.items() if k == 1 and n not in params}
    top = {assigned_name(s) for s in func.body} - {None}
    decided = {assigned_name(s): s.value for s in func.body
               if assigned_name(s) in once and _deciding(s.value)}
    cases = _Cases(classes, float_names, once & (top | params), decided)
    for stmt in func.body:
        name = assigned_name(stmt)
        if name is None:
            for written in writes(stmt):
                cases.env.pop(written, None)
            continue
        stmt.value = cases.visit(stmt.value)
        form = cases.linear(stmt.value, {}) if is_pure(stmt.value) else None
        cases.env.pop(name, None)
        cases.held.pop(name, None)
        if form is not None:
            cases.env[name] = form
        elif np_call(stmt.value) == "where" and is_pure(stmt.value):
            cases.hold(name, stmt.value)
    return cases.changed


def _deciding(value: ast.expr) -> bool:
    """``np.minimum(u, v)``, ``np.maximum(u, v)``, ``np.clip(u, lo, hi)`` or ``np.where(c, x, y)``
    of names and numbers."""
    name = np_call(value)
    if name is None:
        return False
    if (name, len(value.args)) in (("minimum", 2), ("maximum", 2), ("clip", 3)):
        return all(isinstance(a, (ast.Name, ast.Constant)) for a in value.args)
    if name == "where" and len(value.args) == 3:
        return _comparison(value.args[0]) and all(isinstance(a, (ast.Name, ast.Constant)) for a in value.args[1:])
    return False


def np_call(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call) and not node.keywords and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np":
        return node.func.attr
    return None


def conjuncts(condition: ast.expr) -> list[ast.expr]:
    """The comparisons ``&`` joins in `condition` (itself if it is one)."""
    if isinstance(condition, ast.BinOp) and isinstance(condition.op, ast.BitAnd):
        return conjuncts(condition.left) + conjuncts(condition.right)
    return [condition]


def says_below(condition: ast.Compare, low: ast.expr, high: ast.expr) -> bool:
    """Whether `condition`, true, says ``low <= high``."""
    left, right, op = ast.dump(condition.left), ast.dump(condition.comparators[0]), condition.ops[0]
    if (left, right) == (ast.dump(low), ast.dump(high)):
        return isinstance(op, _LEFT_SMALLER)
    if (left, right) == (ast.dump(high), ast.dump(low)):
        return isinstance(op, _RIGHT_SMALLER)
    return False


def _finite(node: ast.expr) -> bool:
    return is_number(node) and math.isfinite(node.value)


def _number_form(form: Form) -> bool:
    """A form of numbers only (no array atom)."""
    return set(form) <= {"1"}


def added(left: Form, right: Form, sign: float) -> Form:
    """``left + sign * right``, coefficients that cancel dropped."""
    out = {atom: dict(c) for atom, c in left.items()}
    for atom, coefficient in right.items():
        mine = out.setdefault(atom, {})
        for monomial, number in coefficient.items():
            total = mine.get(monomial, 0.0) + sign * number
            if total == 0.0:
                mine.pop(monomial, None)
            else:
                mine[monomial] = total
    return out


def scaled(form: Form, factor: dict) -> Form:
    """`form` times the coefficient `factor` (monomials multiplied, names sorted)."""
    out: Form = {}
    for atom, coefficient in form.items():
        product: dict = {}
        for m1, n1 in coefficient.items():
            for m2, n2 in factor.items():
                monomial = tuple(sorted(m1 + m2))
                total = product.get(monomial, 0.0) + n1 * n2
                if total == 0.0:
                    product.pop(monomial, None)
                else:
                    product[monomial] = total
        out[atom] = product
    return out


def _without(renames: dict[str, ast.expr], name: str) -> dict[str, ast.expr]:
    """`renames` but `name`'s: a decided value read through the others it was decided from, never itself."""
    return {n: v for n, v in renames.items() if n != name}


def _comparison(node: ast.expr) -> bool:
    """``l op r`` of one operator between names or numbers."""
    return isinstance(node, ast.Compare) and len(node.ops) == 1 \
        and all(isinstance(o, (ast.Name, ast.Constant)) for o in (node.left, node.comparators[0]))


class _Cases(ast.NodeTransformer):
    def __init__(self, classes: ShapeClasses, float_names, atoms: set[str], decided: dict[str, ast.expr]):
        self.classes, self.float_names, self.atoms, self.decided = classes, float_names, atoms, decided
        self.env: dict[str, Form] = {}
        #: selections held in names (``c_shared = np.where(r == d, 0.5 * c_bar, c_bar)``), each with
        #: the forms and selections of the names it read when it was made
        self.held: dict[str, tuple] = {}
        self.changed = False

    def hold(self, name: str, value: ast.expr) -> None:
        names = set(reads(value))
        self.held[name] = (value, {n: self.env[n] for n in names if n in self.env},
                           {n: self.held[n] for n in names if n in self.held})

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        if not isinstance(node.op, (ast.Add, ast.Sub)):
            return node
        sides = ((node.left, node.right),) + (((node.right, node.left),) if isinstance(node.op, ast.Add) else ())
        for kept, dropped in sides:
            key = self._class_of(kept) if is_float(kept, self.float_names) else None
            if key not in (None, SCALAR) and np_call(dropped) == "where" and self._zero(dropped, (), key):
                self.changed = True
                return kept
        return node

    def _class_of(self, expr: ast.expr):
        """`expr`'s shape class; for a name rebound (an adjoint summed up), that of the arrays
        its linear form combines, when they are all of one class."""
        key = self.classes.of(expr)
        if key is not None or not isinstance(expr, ast.Name) or expr.id not in self.env:
            return key
        found = {self.classes.of(ast.Name(atom, ast.Load())) if atom in self.atoms else None
                 for atom in self.env[expr.id] if atom != "1"}
        arrays = found - {SCALAR}
        return arrays.pop() if len(arrays) == 1 and None not in arrays else None

    # ---- zero, case by case --------------------------------------------------------------

    def _zero(self, expr: ast.expr, facts: tuple, key) -> bool:
        """Whether `expr` is zero at every element where the comparisons `facts` ((node, truth)
        pairs) hold, reading only numbers and arrays of class `key`."""
        if isinstance(expr, ast.Constant):
            return is_number(expr, 0.0)
        if isinstance(expr, ast.Name):
            form = self._name_linear(expr.id, self._renames(facts, key))
            if form is None and expr.id in self.held:
                return self._held_zero(expr.id, facts, key)
            return form is not None and all(atom == "1" or self._fits(ast.Name(atom, ast.Load()), key)
                                            for atom in form) and not any(form.values())
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            return self._zero(expr.operand, facts, key)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
            return self._zero(expr.left, facts, key) and self._zero(expr.right, facts, key)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
            return (self._zero(expr.left, facts, key) and _finite(expr.right)) \
                or (_finite(expr.left) and self._zero(expr.right, facts, key))
        if np_call(expr) == "where" and len(expr.args) == 3 and self._condition(expr.args[0], key):
            condition = expr.args[0]
            holds = tuple((c, True) for c in conjuncts(condition))
            return self._zero(expr.args[1], facts + holds + ((condition, True),), key) \
                and self._zero(expr.args[2], facts + ((condition, False),), key)
        return False

    def _held_zero(self, name: str, facts: tuple, key) -> bool:
        """`_zero` of the selection held in `name`, read with the names as they were then."""
        value, env, held = self.held[name]
        outer = self.env, self.held
        self.env, self.held = env, held
        try:
            return self._zero(value, facts, key)
        finally:
            self.env, self.held = outer

    def _condition(self, node: ast.expr, key) -> bool:
        """A comparison of numbers and names fitting `key`, or ``&`` of such."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
            return self._condition(node.left, key) and self._condition(node.right, key)
        return _comparison(node) and all(self._fits(o, key) for o in (node.left, node.comparators[0]))

    def _fits(self, node: ast.expr, key) -> bool:
        """A number, or a name assigned once holding a number or an array of class `key`."""
        if isinstance(node, ast.Constant):
            return is_number(node)
        return node.id in self.atoms and self.classes.of(node) in (SCALAR, key)

    def _renames(self, facts: tuple, key) -> dict[str, ast.expr]:
        """The forward values `facts` decide, each to the operand it equals there: the outermost
        fact's (a tie inside ``a <= d`` keeps `a`, which equals `d` there, so the forms still cancel)."""
        renames: dict[str, ast.expr] = {}
        for name, value in self.decided.items():
            if not self._fits(ast.Name(name, ast.Load()), key):
                continue
            kind = np_call(value)
            for condition, truth in facts:
                if kind == "where" and ast.dump(condition) == ast.dump(value.args[0]):
                    renames.setdefault(name, value.args[1 if truth else 2])
                elif kind == "clip" and truth:
                    u, low, high = value.args
                    if any(says_below(c, low, u) for c, t in facts if t and isinstance(c, ast.Compare)) \
                            and any(says_below(c, u, high) for c, t in facts if t and isinstance(c, ast.Compare)):
                        renames.setdefault(name, u)
                elif kind in ("minimum", "maximum") and truth and isinstance(condition, ast.Compare):
                    u, v = value.args
                    # u <= v: the minimum is u, the maximum v; v <= u: the other way round
                    if says_below(condition, u, v):
                        renames.setdefault(name, u if kind == "minimum" else v)
                    elif says_below(condition, v, u):
                        renames.setdefault(name, v if kind == "minimum" else u)
        return {n: v for n, v in renames.items() if isinstance(v, ast.Constant) or self._fits(v, key)}

    # ---- linear forms ----------------------------------------------------------------------

    def linear(self, expr: ast.expr, renames: dict[str, ast.expr]) -> Form | None:
        """`expr` as a linear combination of atoms (module docstring), each atom renamed by
        `renames` (a forward value decided to be one of its operands); None if it is not one."""
        if isinstance(expr, ast.Constant):
            return {"1": {(): float(expr.value)}} if is_number(expr) else None
        if isinstance(expr, ast.Name):
            return self._name_linear(expr.id, renames)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            inner = self.linear(expr.operand, renames)
            return inner if inner is None or isinstance(expr.op, ast.UAdd) else scaled(inner, {(): -1.0})
        if not isinstance(expr, ast.BinOp):
            return None
        left, right = self.linear(expr.left, renames), self.linear(expr.right, renames)
        if left is None or right is None:
            return None
        if isinstance(expr.op, ast.Add):
            return added(left, right, 1.0)
        if isinstance(expr.op, ast.Sub):
            return added(left, right, -1.0)
        if isinstance(expr.op, ast.Mult):
            if _number_form(left):
                return scaled(right, left.get("1", {}))
            if _number_form(right):
                return scaled(left, right.get("1", {}))
            return None
        if isinstance(expr.op, ast.Div) and _number_form(right):
            divisor = right.get("1", {})
            if len(divisor) != 1:
                return None
            (monomial, number), = divisor.items()
            if number == 0.0 or len(monomial) > 1 or (monomial and monomial[0].startswith("/")):
                return None
            return scaled(left, {tuple("/" + n for n in monomial): 1.0 / number})
        return None

    def _name_linear(self, name: str, renames: dict[str, ast.expr]) -> Form | None:
        if name in renames:  # (transitively: ``c = np.maximum(t2, -d)`` decided t2, itself np.minimum(r, d) decided r)
            return self.linear(renames[name], _without(renames, name))
        if name in self.env:
            form: Form = {}
            for atom, coefficient in self.env[name].items():
                if atom in renames:
                    part = self.linear(renames[atom], _without(renames, atom))
                    if part is None:
                        return None
                    form = added(form, scaled(part, coefficient), 1.0)
                else:
                    form = added(form, {atom: coefficient}, 1.0)
            return form
        if name in self.held:  # a selection: `_zero` reads it case by case
            return None
        if self.classes.is_scalar(name):
            return {"1": {(name,): 1.0}}
        if name in self.atoms:
            return {name: {(): 1.0}}
        return None
