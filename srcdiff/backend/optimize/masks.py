"""Float masks taken case by case: where ``m = (a < b).astype(float)`` is 0 or 1, an array that
arithmetic makes of `m` is ``np.where(a < b, E1, E0)``, E1 and E0 the arithmetic with `m` set to
1 and to 0, each simplified.

A loss spelled with a 0/1 mask, ``m * X + (1.0 - m) * Y``, pays in its forward value and in
every adjoint the mask touches for products by 0 and 1: smooth L1 written that way spent eight
passes over its residuals where a selection of two simplified branches takes three.  Here, in
the function's top-level run of assignments:

* a mask is a name assigned once, never written into, to ``c.astype(float)`` (``np.float64``)
  or ``np.where(c, 1.0, 0.0)``, `c` a comparison of an array shape class;
* each name the straight-line arithmetic (``+ - * /``, unary minus) makes from a mask is
  followed as one expression, the temporaries it reads inlined; what else it reads (names
  assigned once and never written into, numbers, pure calls of those) is read again where the
  selection goes, and holds the same value there;
* where such a name is read by anything else (a matrix product, a sum, a return), its last
  assignment becomes the selection, when that costs fewer array passes than the distinct
  operations of the arithmetic it replaces (np.where counted as `WHERE_COST` passes: on a
  condition that follows no pattern it takes several multiplications' time); where both
  branches are one product of numbers by the same arrays (``tau * r * r``, ``(1.0 - tau) * r *
  r``), the numbers are blended by the float mask, ``(m * tau + (1.0 - m) * (1.0 - tau)) * (r *
  r)``, exact for finite numbers and without a branch per element; the comparison is kept in a name of its own
  (``m_case = a < b; m = m_case.astype(float)``) so the selection does not compute it again.

Each branch is simplified with the mask's value: products by 1 and sums with 0 dropped, numbers
folded, a product with a 0 factor (or a 0 divided) dropped, and like terms collected (``s * (0.5
* r) + (s * r) * 0.5`` is ``s * r``, rounding once instead of thrice).  Every operand a branch
drops is a number or has the mask's shape class (`shape_classes`), and the selection broadcasts
the comparison with what the branches keep, so it has the shape the arithmetic had.  Only where
every argument is float64 or a Python number and the function names no narrower dtype: the
float64 mask then widened no operand a branch keeps, so the selection has the arithmetic's dtype.
The mask made every sum, difference and negation it reaches a float one; a branch keeps each
only where it is still certainly a float (`is_float`), and one branch at least is a float: a
product by the mask dropped from ``m * above + m * far`` (two bool arrays) would leave
``above + far``, NumPy's logical or (1 where the arithmetic counted 2), and ``above - far`` or
``-above`` raise, and a selection of two bool or int branches would be bool or int.
Where every value is finite the selection is the arithmetic up to rounding; a term dropped as 0
times an array is NaN unfolded where that array is inf or NaN, where the loss itself is not
finite either (as `cases` drops its zero terms; docs/guarantees.md).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

from .branch_algebra import ARITHMETIC, collected, common_factor, cost, cost_saved, is_number, simplified
from .liveness import assigned_name, is_pure, mentions, nodes, reads, writes
from .repeated_solves import fixed_names
from .shape_classes import SCALAR, ShapeClasses
from .simplify import is_float
from .widths import narrows


def select_masks(func: ast.FunctionDef, classes: ShapeClasses, float_names: Callable[[str], bool]) -> bool:
    """Rewrite, in place, the arrays `func`'s top-level statements make from float masks as
    selections of their simplified branches (module docstring); whether any was.  `float_names`
    tells the names certainly holding floats (never a bool or an int)."""
    if narrows(func):
        return False
    fixed = fixed_names(func)
    masks = _masks(func, fixed, classes)
    if not masks:
        return False
    taken = mentions(func) | {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}
    follow = _Follow(masks, fixed, classes, _read_directly(func), float_names)
    made_at: dict[str, ast.Assign] = {}  # name -> the statement that made its current value
    selected: set[str] = set()
    changed = False
    for stmt in list(func.body):
        name = assigned_name(stmt)
        value = follow.followed(stmt.value) if name is not None else None
        if value is None:
            # arithmetic read by something else: a name selected where it is made, a larger
            # expression where it is read
            for used in sorted(set(reads(stmt)) & set(follow.env)):
                if used not in selected and _direct(stmt, used):
                    selected.add(used)
                    held = made_at[used]
                    new = _select(follow.env[used], masks, func, classes, taken, follow.float_names)
                    if new is not None:
                        held.value = new
                        changed = True
                        del follow.env[used]  # read from here on as the selection it holds
            changed |= _select_inside(stmt, follow, masks, func, classes, taken)
        for written in writes(stmt):
            follow.env.pop(written, None)
            follow.plain.pop(written, None)
            made_at.pop(written, None)
            selected.discard(written)
        if value is not None and (value[1] or _leaves_only(value[0])):
            (follow.env if value[1] else follow.plain)[name] = value[0]
            made_at[name] = stmt
    return changed


class _Follow:
    """The arithmetic of the top-level run so far: `env` the names made from masks, `plain` the
    names made of stable atoms only (inlined too, so like terms meet)."""

    def __init__(self, masks: dict, fixed: set[str], classes: ShapeClasses, kept: set[str],
                 float_names: Callable[[str], bool]):
        self.masks, self.fixed, self.classes, self.kept = masks, fixed, classes, kept
        self.float_names = float_names
        self.env: dict[str, ast.expr] = {}
        self.plain: dict[str, ast.expr] = {}

    def followed(self, value: ast.expr):
        """(`value` inlined, whether it reads a mask) when it is arithmetic of followed names,
        masks and stable atoms; else None."""
        if not is_pure(value) or not isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Name)):
            return None
        inlined, touched = self.inline(value)
        return None if inlined is None else (inlined, touched)

    def inline(self, node: ast.expr):
        """(`node` inlined, whether it reads a mask), or (None, False) where it is not
        arithmetic of followed names, masks and stable atoms."""
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.copy(node.id, self.env[node.id]), True
            if node.id in self.plain:
                return self.copy(node.id, self.plain[node.id]), False
            if node.id in self.masks:
                return ast.Name(node.id, ast.Load()), True
            return (ast.Name(node.id, ast.Load()), False) if self.stable(node.id) else (None, False)
        if isinstance(node, ast.Constant):
            return (node, False) if is_number(node) else (None, False)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
            left, a = self.inline(node.left)
            right, b = self.inline(node.right)
            if left is None or right is None:
                return None, False
            return ast.BinOp(left, node.op, right), a or b
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand, a = self.inline(node.operand)
            return (ast.UnaryOp(ast.USub(), operand), a) if operand is not None else (None, False)
        # an opaque atom: a pure call (or anything else) of stable names only
        names = mentions(node) - {"np", "math"}
        if not is_pure(node) or not all(self.stable(n) for n in names):
            return None, False
        return node, False

    def copy(self, name: str, expr: ast.expr) -> ast.expr:
        """`expr` (what `name` holds) inlined; marked shared where `name` is read other than by
        arithmetic too, so it is still computed after a selection replaces this reading
        (`cost_saved`)."""
        inlined = copy.deepcopy(expr)
        if name in self.kept and name in self.fixed:  # (a name rebound: its earlier value is read by what rebinds it)
            inlined.shared = True
        return inlined

    def stable(self, name: str) -> bool:
        """A name that holds one value wherever it is read (assigned once, never written into)
        and is not followed (a followed name is read through its arithmetic)."""
        return name in self.fixed and name not in self.env and name not in self.plain \
            and name not in self.masks and name not in ("np", "math")


def _leaves_only(expr: ast.expr) -> bool:
    """Arithmetic of names and numbers only (inlined, it computes nothing costly again)."""
    return all(isinstance(n, (ast.UnaryOp, ast.Name, ast.Constant, ast.unaryop, ast.expr_context, *ARITHMETIC))
               or isinstance(n, ast.BinOp) and isinstance(n.op, ARITHMETIC) for n in nodes(expr))


def _read_directly(func: ast.FunctionDef) -> set[str]:
    """The names `func` reads other than as operands of arithmetic (``np.shape(t)``, ``X.T @ t``)."""
    found = set()
    for parent in nodes(func):
        arithmetic = isinstance(parent, ast.BinOp) and isinstance(parent.op, ARITHMETIC) \
            or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub)
        if not arithmetic:
            found |= {c.id for c in ast.iter_child_nodes(parent)
                      if isinstance(c, ast.Name) and isinstance(c.ctx, ast.Load)}
    return found


def _direct(stmt: ast.stmt, name: str) -> bool:
    """Whether `stmt` reads `name` other than as an operand of arithmetic (which
    `_select_inside` takes whole)."""
    parents = {child: parent for parent in nodes(stmt) for child in ast.iter_child_nodes(parent)}
    for node in nodes(stmt):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            parent = parents.get(node)
            if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, ARITHMETIC)
                    or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub)):
                return True
    return False


def _select_inside(stmt: ast.stmt, follow: _Follow, masks: dict, func: ast.FunctionDef,
                   classes: ShapeClasses, taken: set[str]) -> bool:
    """Make each largest arithmetic expression in `stmt` reading a followed name a selection
    where that is cheaper."""
    changed = False

    class Visit(ast.NodeTransformer):
        def visit_BinOp(self, node):
            return self.arithmetic(node)

        def visit_UnaryOp(self, node):
            return self.arithmetic(node)

        def arithmetic(self, node):
            nonlocal changed
            if isinstance(node, ast.BinOp) and not isinstance(node.op, ARITHMETIC) \
                    or isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.USub):
                return self.generic_visit(node)
            inlined, touched = follow.inline(node)
            if inlined is None or not touched:
                return self.generic_visit(node)
            new = _select(inlined, masks, func, classes, taken, follow.float_names)
            if new is None:
                return node
            changed = True
            return new

    if is_pure(stmt) if isinstance(stmt, ast.expr) else not any(
            isinstance(n, (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.IfExp, ast.BoolOp)) for n in nodes(stmt)):
        if not isinstance(stmt, (ast.Assign, ast.Return, ast.Expr, ast.AugAssign)):
            return False
        Visit().visit(stmt)
    return changed


def _masks(func: ast.FunctionDef, fixed: set[str], classes: ShapeClasses) -> dict[str, ast.Assign]:
    """The masks among `func`'s top-level assignments (module docstring), each to its statement."""
    found, comparisons = {}, set()
    for stmt in func.body:
        name = assigned_name(stmt)
        if name in fixed and isinstance(stmt.value, ast.Compare):
            comparisons.add(name)
        if name in fixed and _condition_of(stmt.value, comparisons) is not None \
                and classes.of(ast.Name(name, ast.Load())) not in (None, SCALAR):
            found[name] = stmt
    return found


def _condition_of(value: ast.expr, comparisons: set[str]) -> ast.expr | None:
    """The comparison (or name, in `comparisons`, holding one) a 0/1 float mask is made of, or None."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "astype" \
            and len(value.args) == 1 and not value.keywords and _is_float64(value.args[0]):
        condition = value.func.value
    elif isinstance(value, ast.Call) and _np_call(value) == "where" and len(value.args) == 3 \
            and is_number(value.args[1], 1.0) and is_number(value.args[2], 0.0):
        condition = value.args[0]
    else:
        return None
    if isinstance(condition, ast.Name) and condition.id in comparisons:
        return condition
    if isinstance(condition, ast.Compare) and len(condition.ops) == 1 and is_pure(condition) \
            and not isinstance(condition.ops[0], (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
        return condition
    return None


def _is_float64(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "float") or (
        isinstance(node, ast.Attribute) and node.attr == "float64" and isinstance(node.value, ast.Name)
        and node.value.id == "np")


def _np_call(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call) and not node.keywords and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np":
        return node.func.attr
    return None


# ---- the selection ------------------------------------------------------------------------------


#: np.where in passes of arithmetic: it reads three operands and branches on each element, which
#: costs several multiplications' time where its condition follows no pattern (a residual's sign)
WHERE_COST = 4
#: ``m * a + (1.0 - m) * b`` of numbers a and b, in passes
MASK_BLEND_COST = 4


def _select(expr: ast.expr, masks: dict, func: ast.FunctionDef, classes: ShapeClasses,
            taken: set[str], float_names: Callable[[str], bool]) -> ast.expr | None:
    """The arithmetic `expr` as a selection on the first mask it reads, where that is proved of
    the mask's shape and is cheaper; else None."""
    used = [n.id for n in nodes(expr) if isinstance(n, ast.Name) and n.id in masks]
    if not used:
        return None
    mask = min(used)
    key = classes.of(ast.Name(mask, ast.Load()))
    branches = [collected(simplified(_substituted(expr, mask, value)), classes) for value in (1.0, 0.0)]
    if not _fits(expr, branches, key, classes) or not _stay_floats(branches, float_names):
        return None
    shared = common_factor(*branches, classes)
    if shared is not None:  # the numbers blended by the float mask, the arrays multiplied once
        spent = MASK_BLEND_COST + cost(shared[2], classes) + 1
    else:
        spent = WHERE_COST + sum(cost(b, classes) for b in branches)
    if spent >= cost_saved(expr, classes):
        return None
    if shared is not None:
        first, second, arrays = shared
        return ast.fix_missing_locations(ast.BinOp(_blend(mask, first, second), ast.Mult(), arrays))
    case = ast.Name(_case_name(mask, masks[mask], func, taken), ast.Load())
    where = ast.Attribute(ast.Name("np", ast.Load()), "where", ast.Load())
    return ast.fix_missing_locations(ast.Call(where, [case, *branches], []))


def _stay_floats(branches: list[ast.expr], float_names: Callable[[str], bool]) -> bool:
    """Whether every sum, difference and negation in the `branches` is certainly of floats, as the
    mask made them, and one branch is a float (so the selection is a float array, as the
    arithmetic was): a bool array's ``+`` is a logical or, its ``-`` raises."""
    for branch in branches:
        for node in nodes(branch):
            signed = isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) \
                or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            if signed and not is_float(node, float_names):
                return False
    return any(is_float(b, float_names) for b in branches)


def _blend(mask: str, first: ast.expr, second: ast.expr) -> ast.expr:
    """``m * first + (1.0 - m) * second`` of two numbers: exactly `first` where m is 1 and
    `second` where it is 0 (a product by 0 or 1 and a sum with 0 round nothing), in four
    passes of arithmetic that do not branch on the mask's elements."""
    m = ast.Name(mask, ast.Load())
    complement = ast.BinOp(ast.Constant(1.0), ast.Sub(), ast.Name(mask, ast.Load()))
    return simplified(ast.BinOp(ast.BinOp(m, ast.Mult(), first), ast.Add(),
                                ast.BinOp(complement, ast.Mult(), second)))


def _fits(expr: ast.expr, branches: list[ast.expr], key, classes: ShapeClasses) -> bool:
    """Whether each operand `expr` reads that neither branch reads is a number or of the mask's
    class `key`: the selection broadcasts the mask's comparison with the operands the branches
    keep, so only a dropped operand could have widened the arithmetic's result."""
    kept = set().union(*(_atoms(b) for b in branches))
    return all(classes.of(atom) in (SCALAR, key) for text, atom in _atoms(expr).items() if text not in kept)


def _atoms(expr: ast.expr) -> dict[str, ast.expr]:
    """The operands of `expr`'s arithmetic (names and what else it combines), by their text."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ARITHMETIC):
        return {**_atoms(expr.left), **_atoms(expr.right)}
    if isinstance(expr, ast.UnaryOp):
        return _atoms(expr.operand)
    if isinstance(expr, ast.Constant):
        return {}
    return {ast.unparse(expr): expr}


def _case_name(mask: str, stmt: ast.Assign, func: ast.FunctionDef, taken: set[str]) -> str:
    """The name holding the mask's comparison, split out of its statement the first time; the
    mask's shape is read from it (the mask then need not be made for a shape check)."""
    value = stmt.value
    astype = isinstance(value.func, ast.Attribute) and value.func.attr == "astype"
    inner = value.func.value if astype else value.args[0]
    if isinstance(inner, ast.Name):
        case = inner.id
    else:
        case = f"{mask}_case"
        while case in taken:
            case += "_"
        taken.add(case)
        held = ast.copy_location(ast.Assign([ast.Name(case, ast.Store())], inner), stmt)
        func.body.insert(func.body.index(stmt), ast.fix_missing_locations(held))
        if astype:
            value.func.value = ast.Name(case, ast.Load())
        else:
            value.args[0] = ast.Name(case, ast.Load())
    for node in nodes(func):
        if isinstance(node, ast.Attribute) and node.attr == "shape" and isinstance(node.value, ast.Name) \
                and node.value.id == mask and isinstance(node.ctx, ast.Load):
            node.value = ast.Name(case, ast.Load())
    return case


def _substituted(expr: ast.expr, mask: str, value: float) -> ast.expr:
    class Put(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.Constant(value) if node.id == mask else node
    return Put().visit(copy.deepcopy(expr))
