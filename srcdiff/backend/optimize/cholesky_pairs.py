"""Terms of a Cholesky factor's adjoint that depend on the factor through its matrix alone, folded.

A Gaussian likelihood solves with the factor L of S = L L^T: ``cho_solve((L, True), b)`` is
``x = solve_triangular(L, y, lower=True, trans=1)`` of ``y = solve_triangular(L, b, lower=True)``,
and ``|solve_triangular(L, b, lower=True)|^2`` is b's quadratic form in S^-1.  Each solve gives
L's adjoint a term ``-tril(p q^T)`` (rules/scipy_linalg.py), and ``cholesky_adjoint(L_bar, L)``
turns the sum into S's adjoint, Phi(P + P^T) with P = L^-T Phi(L^T L_bar) L^-1 (Phi: the lower
triangle, its diagonal halved; Phi(L^T g) reads only g's lower triangle).  Where L^T times the terms
is symmetric, M, Phi(M) + Phi(M)^T = M gives P + P^T = -L^-T M L^-1 in closed form:

* a pair ``-tril(p1 q1^T) - tril(p2 q2^T)`` with p1 = L^-T q2 and p2 = L^-T q1 (the two solves of
  a ``cho_solve``: L^T times it is q2 q1^T + q1 q2^T) gives S ``-Phi(p1 p2^T + p2 p1^T)``;
* one term ``-tril(p q^T)`` with p = L^-T (c q), c a nonzero number (a sum of squares of
  ``L^-1 b``: L^T times it is c q q^T) gives S ``-Phi(p p^T) / c``.

``solve_pair_adjoint(w, x)`` (rules/triangular.py) is Phi(w x^T + x w^T): one product of the
solves' answers where the terms took two, and none of `cholesky_adjoint`'s O(d^3) products for
them (none at all where nothing else reaches L; the log determinant's diagonal is the rest).
Here, in the function's own body, where L, p, q (and the solves' right-hand sides) are assigned
once and never written into, and the adjoint ``G`` collecting the terms is read only by its own
sums and one ``cholesky_adjoint(G, L)``, the terms' statements go and that call becomes
``cholesky_adjoint(G, L) - <the folds>`` (or the folds alone).  The solves with L^-T are
recognised as `repeated_solves` leaves them (a scaled forward answer, else the solve).  It rounds
differently (as `triangular_solves` does); not for numba nor code srcdiff reads back.
"""

from __future__ import annotations

import ast
import copy

from .liveness import added_term, assigned_name, fresh_name, is_compound, is_pure, mentions, single_definitions
from .repeated_solves import fixed_names, plain, read_names, replace_in, scaled_form, solve_of

#: the call this pass rewrites: where it is not spelled, it has nothing to do
CALLS = frozenset({"cholesky_adjoint"})


def _tril_product(expr: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """(p, q) of ``np.tril(np.reshape(p, (s[0], -1)) @ np.reshape(q, (s[0], -1)).T, 0)``."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "tril"
            and _is_np(expr.func.value) and len(expr.args) == 2 and not expr.keywords
            and isinstance(expr.args[1], ast.Constant) and expr.args[1].value == 0):
        return None
    product = expr.args[0]
    if not (isinstance(product, ast.BinOp) and isinstance(product.op, ast.MatMult)
            and isinstance(product.right, ast.Attribute) and product.right.attr == "T"):
        return None
    p, q = _columns(product.left), _columns(product.right.value)
    return (p, q) if p and q else None


def _is_np(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Name) and expr.id == "np"


def _columns(expr: ast.expr) -> ast.expr | None:
    """p of ``np.reshape(p, (s[0], -1))``."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "reshape" \
            and _is_np(expr.func.value) and len(expr.args) == 2:
        return expr.args[0]
    return None


def _term(stmt: ast.stmt, name: str) -> tuple[tuple[ast.expr, ast.expr], bool] | None:
    """((p, q), whether it is G's first value) where `stmt` takes ``tril(p q^T)`` off G (`name`)."""
    if assigned_name(stmt) == name and isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.UnaryOp) \
            and isinstance(stmt.value.op, ast.USub):
        found = _tril_product(stmt.value.operand)
        return (found, True) if found else None
    term = added_term(stmt, name)
    subtracts = isinstance(getattr(stmt, "op", None), ast.Sub) or isinstance(getattr(stmt, "value", None), ast.BinOp) \
        and isinstance(stmt.value.op, ast.Sub) and not isinstance(stmt, ast.AugAssign)
    found = _tril_product(term) if term is not None and subtracts else None
    return (found, False) if found else None


def _back_solves(body: list[ast.stmt], defs: dict, fixed) -> dict[str, tuple[str, tuple]]:
    """name -> (L, (k, r, transposed)) of the names assigned an expression `back_solve` reads."""
    found: dict[str, tuple[str, tuple]] = {}
    for stmt in body:
        target = assigned_name(stmt) if isinstance(stmt, ast.Assign) else None
        if target is not None and fixed(target):
            solved = back_solve(stmt.value, found, defs, fixed)
            if solved is not None:
                found[target] = solved
    return found


def back_solve(value: ast.expr, found: dict, defs: dict, fixed) -> tuple[str, tuple] | None:
    """(L, (k, r, transposed)) where `value` is L^-T (k r), r (or its transpose) a name:
    ``solve_triangular(L, <k r>, lower=True, trans=1)``, `repeated_solves`' ``s * x if s is not None
    else <that solve>``, a name `found` holds such a value of, or ``c * x`` of one."""
    if isinstance(value, ast.Name):
        return found.get(value.id)
    if isinstance(value, ast.IfExp):
        value = value.orelse
    solved = solve_of(value)
    if solved is not None:
        system, rhs = solved
        form = scaled_form(rhs, defs, fixed)
        if system.transposed and system.lower and not system.unit and system.factor is None and form:
            return system.matrix, form
    elif isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        for num, other in ((value.left, value.right), (value.right, value.left)):
            if isinstance(num, ast.Constant) and type(num.value) in (int, float) and num.value != 0 \
                    and isinstance(other, ast.Name) and other.id in found:
                matrix, (k, r, t) = found[other.id]
                return matrix, (k * num.value, r, t)
    return None


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def cholesky_pairs(func: ast.FunctionDef) -> bool:
    """Fold, in place, the terms of Cholesky factors' adjoints that depend on the factor through
    its matrix alone (module docstring); whether any was."""
    fixed = fixed_names(func).__contains__
    body = func.body
    defs = single_definitions(func)
    solves = _back_solves(body, defs, fixed)

    def form(expr: ast.expr) -> tuple | None:  # (k, r, transposed): `expr` is k r as written
        return scaled_form(expr, defs, fixed)

    def back(expr: ast.expr) -> tuple | None:  # (L, (k, r, transposed)) where `expr` is L^-T (k r)
        return back_solve(expr, solves, defs, fixed)

    def steady(expr: ast.expr) -> bool:  # (read later, at the factor's adjoint: the same value)
        return all(fixed(n) for n in read_names(expr)) and (plain(expr) or is_pure(expr))

    changed = False
    for stmt in list(body):
        for call in [n for n in ast.walk(stmt) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                     and n.func.id == "cholesky_adjoint" and len(n.args) == 2 and not n.keywords
                     and all(isinstance(a, ast.Name) for a in n.args)]:
            changed |= _fold(body, stmt, call, (form, back, steady), fixed)
    return changed


def _fold(body, use: ast.stmt, call: ast.Call, reading, fixed) -> bool:
    form, back_solve_of, steady = reading
    adjoint, factor = call.args[0].id, call.args[1].id
    if not fixed(factor) or any(is_compound(s) and adjoint in mentions(s) for s in body) \
            or sum(1 for n in ast.walk(use) if isinstance(n, ast.Name) and n.id == adjoint) != 1:
        return False
    own = [s for s in body if adjoint in mentions(s) and s is not use]
    if not own or not all(_sums_into(s, adjoint, first=i == 0) for i, s in enumerate(own)):
        return False
    products = {id(s): found[0] for s in own if (found := _term(s, adjoint)) is not None}

    def back(p: ast.expr) -> tuple | None:  # (k, r, transposed) where p = L^-T (k r), this factor
        found = back_solve_of(p)
        return found[1] if found and found[0] == factor else None

    folds, gone = [], set()
    keys = list(products)
    for i, a in enumerate(keys):
        p1, q1 = products[a]
        if a in gone or not (steady(p1) and steady(q1)):
            continue
        r1, f1 = back(p1), form(q1)
        for b in keys[i + 1:]:
            p2, q2 = products[b]
            if b not in gone and steady(p2) and steady(q2) and r1 and r1 == form(q2) and f1 and back(p2) == f1:
                folds.append((-1.0, _call("solve_pair_adjoint", p1, p2)))
                gone |= {a, b}
                break
        else:  # p = L^-T (c q): c the ratio of the numbers of one name's multiples
            if r1 and f1 and r1[1:] == f1[1:]:
                if not isinstance(p1, ast.Name):  # (solved once, read twice)
                    taken = {n.id for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.Name)}
                    held = fresh_name("solved", taken)
                    body.insert(body.index(use), ast.fix_missing_locations(
                        ast.copy_location(ast.Assign([ast.Name(held, ast.Store())], p1), use)))
                    p1 = _load(held)
                folds.append((-0.5 * f1[0] / r1[0], _call("solve_pair_adjoint", p1, copy.deepcopy(p1))))
                gone.add(a)
    if not folds:
        return False
    remaining = [s for s in own if id(s) not in gone]
    if id(own[0]) in gone and remaining:
        body[body.index(remaining[0])] = _as_first(remaining[0], adjoint)
    total = _call("cholesky_adjoint", _load(adjoint), _load(factor)) if remaining else None
    for k, fold in folds:
        if total is None:
            total = _scale(k, fold)
        else:  # (the number's sign as the operator: ``a - 0.5 * e``, not ``a + -0.5 * e``)
            total = ast.BinOp(total, ast.Sub() if k < 0 else ast.Add(), _scale(abs(k), fold))
    replace_in(use, call, total)
    for node in ast.walk(use):  # (``S_bar + -e``, where the folds are all there is: ``S_bar - e``)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and node.right is total \
                and isinstance(total, ast.UnaryOp):
            node.op, node.right = ast.Sub(), total.operand
    body[:] = [s for s in body if id(s) not in gone]
    ast.fix_missing_locations(use)
    return True


def _scale(k: float, expr: ast.expr) -> ast.expr:
    if k in (1.0, -1.0):
        return expr if k == 1.0 else ast.UnaryOp(ast.USub(), expr)
    return ast.BinOp(ast.Constant(k), ast.Mult(), expr)


def _sums_into(stmt: ast.stmt, name: str, first: bool) -> bool:
    """Whether `stmt` gives G (`name`) its first value (not reading it) or adds a term to it that
    does not read it: G's statements are a sum and nothing else."""
    term = added_term(stmt, name)
    if term is not None:
        return not first and name not in mentions(term)
    return first and isinstance(stmt, ast.Assign) and assigned_name(stmt) == name and name not in mentions(stmt.value)


def _as_first(stmt: ast.stmt, name: str) -> ast.stmt:
    """``G = G + e`` / ``G += e`` -> ``G = e`` (``-e`` for a difference): G's first value now."""
    term = added_term(stmt, name)
    sub = isinstance(stmt.op if isinstance(stmt, ast.AugAssign) else stmt.value.op, ast.Sub)
    new = ast.Assign([ast.Name(name, ast.Store())], ast.UnaryOp(ast.USub(), term) if sub else term)
    return ast.fix_missing_locations(ast.copy_location(new, stmt))
