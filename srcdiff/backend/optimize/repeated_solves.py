"""A solve in the backward pass whose right-hand side is one the forward pass solved, scaled.

A quadratic form through a solve, ``r @ np.linalg.solve(K, r)`` or ``np.sum(R * cho_solve(cf,
R.T).T)``, seeds the adjoints of its solves with their own right-hand sides times a number:
the adjoint of ``x = solve_triangular(L, b)`` at a seed ``0.5 * b`` solves with L again for what
is ``0.5 * x``.  A multivariate-normal likelihood through a Cholesky factor spent a third of its
gradient's time in two such solves.  Here, where the forward pass assigned
``x = solve(L, b, <flags>)`` in the function's own body (L, b and x assigned nowhere else, never
written into), a later ``y = solve(L, g, <same flags>)`` in that body becomes::

    y_scale = proportion(g, b)
    y = y_scale * x if y_scale is not None else solve(L, g, <flags>)

An ``spd_solve(K.T, g, factor=F)`` (rules/symmetric.py) solves the system of an earlier
``spd_solve(K, b, factor=F)`` where F is not None (K is then symmetric): the check asks that too.
`proportion` (rules/triangular.py) finds the number when g is b times it to the last bits, at
the cost of a pass over g where it is; otherwise a glance at one line of g.  k * x rounds
differently from the solve of k * b (as `triangular_solves`' solves do); not for numba (no
SciPy there) nor for code srcdiff reads back (the helper has no rule).
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from typing import NamedTuple

from .liveness import is_pure, mentions, nodes, single_definitions


class Solve(NamedTuple):
    """A triangular solve's matrix (a name) and the flags that say which system it solves; for
    ``spd_solve`` (rules/symmetric.py), the name of the factor it is given."""
    matrix: str
    transposed: bool
    lower: bool
    unit: bool
    factor: str | None = None

    def key(self) -> tuple:
        """What two solves share to solve one system: an ``spd_solve`` given a factor solves with
        a symmetric matrix (its transpose too) where the factor is not None."""
        return (self.matrix, self.factor) if self.factor else self


#: the calls this pass rewrites: where none is spelled, it has nothing to do
CALLS = frozenset({"spd_solve", "solve_lower", "solve_triangular"})
_SCIPY_FLAGS = {"trans": 0, "lower": False, "unit_diagonal": False, "check_finite": True, "overwrite_b": False}


def solve_of(call: ast.expr) -> tuple[Solve, ast.expr] | None:
    """The system a triangular-solve call solves and its right-hand side, or None: SciPy's
    ``solve_triangular`` (any module spelling; flags as constants) and rules/triangular.py's
    ``solve_lower``."""
    if not (isinstance(call, ast.Call) and len(call.args) == 2):
        return None
    func = call.func
    if isinstance(func, ast.Name) and func.id == "spd_solve" and len(call.keywords) == 1 \
            and call.keywords[0].arg == "factor" and isinstance(call.keywords[0].value, ast.Name):
        a = call.args[0]
        transposed = isinstance(a, ast.Attribute) and a.attr == "T"
        a = a.value if transposed else a
        if not isinstance(a, ast.Name):
            return None
        return Solve(a.id, transposed, True, False, call.keywords[0].value.id), call.args[1]
    if not isinstance(call.args[0], ast.Name):
        return None
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    flags = {}
    for keyword in call.keywords:
        if keyword.arg is None or not isinstance(keyword.value, ast.Constant):
            return None
        flags[keyword.arg] = keyword.value.value
    matrix = call.args[0].id
    if name == "solve_lower" and isinstance(func, ast.Name) and set(flags) <= {"transpose"}:
        return Solve(matrix, bool(flags.get("transpose", False)), True, False), call.args[1]
    if name != "solve_triangular" or not set(flags) <= set(_SCIPY_FLAGS) or flags.get("overwrite_b"):
        return None
    trans = flags.get("trans", 0)
    if trans not in (0, 1, 2, "N", "T", "C"):
        return None
    return Solve(matrix, trans not in (0, "N"), bool(flags.get("lower", False)),
                 bool(flags.get("unit_diagonal", False))), call.args[1]


def repeated_solves(func: ast.FunctionDef) -> bool:
    """Rewrite, in place, the solves of `func`'s body whose right-hand side may be a forward
    solve's scaled (module docstring); whether any was."""
    fixed = fixed_names(func).__contains__
    params = {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}
    taken = {n.id for n in nodes(func) if isinstance(n, ast.Name)} | params
    solved: dict[Solve, list[tuple[str, str]]] = {}  # system -> (right-hand side, answer) of earlier solves
    assigned = set(params)  # names the body's statements so far assigned
    scaled_answers: dict[str, tuple] = {}  # answer -> (its scale: a name or a number, what it scales) of the rewrites
    defs = single_definitions(func)
    changed = False
    # (a solve inside a seed held out of its statement lives in the seed's statement since: its own
    # seed and scale go before that one, its rewrite into it)
    homes: dict[int, ast.stmt] = {}
    for stmt in list(func.body):
        for call in _calls(stmt):
            home = homes.get(id(call), stmt)
            found = solve_of(call)
            if found is None or not fixed(found[0].matrix) or not (plain(found[1]) or is_pure(found[1])) \
                    or found[0].factor and not fixed(found[0].factor):
                continue
            system, rhs = found
            earlier = [(b, x, t) for b, x, t in solved.get(system.key(), []) if ast.dump(b) != ast.dump(rhs)]
            if not earlier or not read_names(rhs) <= assigned:
                continue
            b, x, transposed = earlier[0]
            # (a matrix and its transpose solve one system only where spd_solve's factor is not None)
            symmetric = system.factor if transposed != system.transposed else None
            own = home.targets[0].id if isinstance(home, ast.Assign) and home.value is call else "solve"
            known = scaled_answers.get(rhs.id) if isinstance(rhs, ast.Name) else None
            known = known if known and isinstance(b, ast.Name) and known[1] == b.id else None
            k = known[0] if known and isinstance(known[0], float) else _static_scale(rhs, b, defs, fixed)
            if k is not None and not symmetric:  # the seed is k * b as written: k * x, no pass over it
                replace_in(home, call, ast.BinOp(ast.Constant(k), ast.Mult(), ast.Name(x, ast.Load())))
                ast.fix_missing_locations(home)
                scaled_answers[own] = (k, x)
                changed = True
                continue
            scale, seed = _fresh(f"{own}_scale", taken), rhs
            if not isinstance(rhs, ast.Name):  # the seed (an expression of names) computed once, for both
                seed = ast.Name(_fresh(f"{own}_seed", taken), ast.Load())
                held = ast.Assign([ast.Name(seed.id, ast.Store())], rhs)
                func.body.insert(func.body.index(home), ast.fix_missing_locations(ast.copy_location(held, home)))
                homes.update((id(n), held) for n in ast.walk(rhs) if isinstance(n, ast.Call))
                call.args[1] = ast.Name(seed.id, ast.Load())
            found_scale = ast.Call(ast.Name("proportion", ast.Load()), [ast.Name(seed.id, ast.Load()),
                                                                        copy.deepcopy(b)], [])
            if symmetric:
                given = ast.Compare(ast.Name(symmetric, ast.Load()), [ast.IsNot()], [ast.Constant(None)])
                found_scale = ast.IfExp(given, found_scale, ast.Constant(None))
            if known and not symmetric:
                # (the seed is an earlier rewrite's answer, k * b where its k is not None: k again, no pass over it)
                given = ast.Compare(ast.Name(known[0], ast.Load()), [ast.IsNot()], [ast.Constant(None)])
                found_scale = ast.IfExp(given, ast.Name(known[0], ast.Load()), found_scale)
            ratio = ast.Assign([ast.Name(scale, ast.Store())], found_scale)
            func.body.insert(func.body.index(home), ast.fix_missing_locations(ast.copy_location(ratio, home)))
            test = ast.Compare(ast.Name(scale, ast.Load()), [ast.IsNot()], [ast.Constant(None)])
            scaled = ast.BinOp(ast.Name(scale, ast.Load()), ast.Mult(), ast.Name(x, ast.Load()))
            replace_in(home, call, ast.IfExp(test, scaled, call))
            ast.fix_missing_locations(home)
            if own != "solve" and fixed(own):
                scaled_answers[own] = (scale, x)  # (its scale: a fresh name, assigned once)
            changed = True
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            found = solve_of(stmt.value)
            if found is not None and fixed(found[0].matrix) and _view(found[1], fixed) and fixed(target) \
                    and (not found[0].factor or fixed(found[0].factor)):
                solved.setdefault(found[0].key(), []).append((found[1], target, found[0].transposed))
        assigned |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return changed


def _static_scale(seed: ast.expr, b: ast.expr, defs: dict, fixed) -> float | None:
    """k where `seed` is written k * `b` element by element (a number times b, either side transposed
    alike, through names assigned once), or None: then ``k * x`` is what `proportion` would find."""
    s, t = scaled_form(seed, defs, fixed), scaled_form(b, defs, fixed)
    return s[0] if s and t and s[1:] == t[1:] and t[0] == 1.0 else None


def scaled_form(expr: ast.expr, defs: dict, fixed, depth: int = 0) -> tuple[float, str, bool] | None:
    """(k, name, transposed) where `expr` is k times the array `name` (or its transpose), as written."""
    if isinstance(expr, ast.Name):
        value = defs.get(expr.id) if fixed(expr.id) and depth < 6 else None
        found = scaled_form(value, defs, fixed, depth + 1) if value is not None else None
        return found or ((1.0, expr.id, False) if fixed(expr.id) else None)
    transposed = expr.value if isinstance(expr, ast.Attribute) and expr.attr == "T" else \
        expr.args[0] if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
        and expr.func.attr == "transpose" and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np" \
        and len(expr.args) == 1 and not expr.keywords else None
    if transposed is not None:
        found = scaled_form(transposed, defs, fixed, depth + 1)
        return (found[0], found[1], not found[2]) if found else None
    scaled = _einsum_scale(expr)
    if scaled is not None:  # ``np.einsum(',ij->ji', k, b)`` (a seed the contraction pass wrote): k * b.T
        found = scaled_form(scaled[1], defs, fixed, depth + 1)
        return (float(scaled[0]), found[1], found[2] != scaled[2]) if found and found[0] == 1.0 else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        for num, other in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(num, ast.Constant) and type(num.value) in (int, float) and num.value != 0:
                found = scaled_form(other, defs, fixed, depth + 1)
                # (one number: k * (c * b) rounds twice, not as (k c) * b)
                return (float(num.value), found[1], found[2]) if found and found[0] == 1.0 else None
    return None


def _einsum_scale(expr: ast.expr) -> tuple[float, ast.expr, bool] | None:
    """(k, b, transposed) of ``np.einsum(',ij->ij', k, b)`` or ``np.einsum(',ij->ji', k, b)``, k a number."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "einsum"
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np" and len(expr.args) == 3
            and not expr.keywords and isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[1], ast.Constant)
            and type(expr.args[1].value) in (int, float) and expr.args[1].value != 0):
        return None
    spec = expr.args[0].value
    if spec in (",ij->ij", ",ij->ji"):
        return expr.args[1].value, expr.args[2], spec == ",ij->ji"
    return None


def fixed_names(func: ast.FunctionDef) -> set[str]:
    """The names that hold one value wherever they are read: assigned once (a parameter: never)
    and never written into, deleted or passed to a call that may write into them."""
    stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    params = {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}
    names = {n.id for n in nodes(func) if isinstance(n, ast.Name)} | params
    written = _mutated(func)
    return {name for name in names if name not in written and stores[name] == (0 if name in params else 1)}


#: builtins that only read their arguments
_READERS = frozenset({"len", "float", "int", "abs", "range", "isinstance"})


def _mutated(func: ast.FunctionDef) -> set[str]:
    """Names whose object may change in place or go: targets of ``x[i] = ...``, ``x += ...`` and
    ``del``, and the arguments of calls that are not known pure but for the solves `_solve` reads
    (SciPy's solve_triangular without overwrite_b writes into nothing)."""
    found = set()
    for node in nodes(func):
        if isinstance(node, ast.AugAssign):
            found |= mentions(node.target)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found |= mentions(node.value)
        elif isinstance(node, ast.Delete):
            found |= mentions(node)
        elif isinstance(node, ast.Call) and solve_of(node) is None and not is_pure(ast.Call(node.func, [], [])) \
                and not (isinstance(node.func, ast.Name) and node.func.id in _READERS):
            found |= mentions(node)
    return found


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def _view(expr: ast.expr, fixed) -> bool:
    """Whether `expr` is a fixed name or its transpose (read again, the same values for free)."""
    expr = expr.value if isinstance(expr, ast.Attribute) and expr.attr == "T" else expr
    return isinstance(expr, ast.Name) and fixed(expr.id)


def read_names(expr: ast.expr) -> set[str]:
    """The names `expr` reads values of (not the module of a function it calls, ``np`` of ``np.einsum``)."""
    modules = {id(n.func.value) for n in ast.walk(expr) if isinstance(n, ast.Call)
               and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)}
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and id(n) not in modules}


def plain(expr: ast.expr) -> bool:
    """Whether `expr` is names and numbers in arithmetic, transposes and subscripts (no call:
    evaluating it once more, or earlier, does nothing else)."""
    allowed = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.Subscript,
               ast.Slice, ast.Tuple, ast.Load, ast.expr_context)
    return all(isinstance(n, allowed) or isinstance(n, ast.Attribute) and n.attr == "T" for n in ast.walk(expr))


_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)
_CONDITIONAL = (ast.IfExp, ast.BoolOp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _calls(stmt: ast.stmt) -> list[ast.Call]:
    """The calls a simple statement always makes (none inside a conditional expression, a
    lambda or a comprehension), outermost first."""
    if not isinstance(stmt, _SIMPLE):
        return []
    found, todo = [], [stmt]
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.Call):
            found.append(node)
        todo.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, _CONDITIONAL))
    return found


def replace_in(stmt: ast.stmt, old: ast.expr, new: ast.expr) -> None:
    """Put `new` where `old` is in `stmt`."""
    for parent in ast.walk(stmt):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(item is old for item in value):
                value[[item is old for item in value].index(True)] = new
                return
