"""Solves with a Cholesky factor, as triangular solves.

``np.linalg.solve`` knows nothing of its matrix: given a Cholesky factor ``L`` (or ``L.T``) it
factors it again by Gaussian elimination, O(n³) for what a triangular solve does in O(n²).  A
Gaussian-process likelihood written ``np.linalg.solve(L.T, np.linalg.solve(L, y))`` makes four
of them in its gradient (two in the forward pass, two in the adjoints of those), a third of the
gradient's time at n = 200.  Here, where ``L = np.linalg.cholesky(...)`` is assigned once and
never written into:

* ``np.linalg.solve(L, b)`` -> ``solve_lower(L, b)``; ``np.linalg.solve(L.T, b)`` (or of a
  name holding ``L.T``) -> ``solve_lower(L, b, transpose=True)``;
* ``np.linalg.inv(L)`` -> ``lower_inverse(L)``.

Then, where a log determinant or an inverse of a matrix is taken besides another solve,
inverse or log determinant of it (a likelihood; a plain solve keeps its textbook adjoint),
``np.linalg.solve(a, b)``, ``np.linalg.inv(a)`` and ``np.linalg.slogdet(a)`` become
``spd_solve``/``spd_inverse``/``spd_slogdet`` (rules/symmetric.py): through a's Cholesky factor
when, at run time, a is one matrix of 32 rows or more, exactly symmetric and positive definite
(a GP's kernel matrix), NumPy's own call otherwise.  A matrix assigned once in the function's
body, never written into, is factored once: ``K_factor = spd_factor(K)`` after its assignment,
passed to each of its calls (a likelihood's slogdet, solve, and their adjoints' solve and
inverse would factor it four times).

The helpers (rules/triangular.py, rules/symmetric.py) fall back to NumPy's own call where the
operands are not one matrix and a vector or matrix (a stack of factors) or SciPy is missing.
A triangular or Cholesky solve rounds differently from elimination: like ``e ** 2 -> e * e``,
this step changes the last bits of the values it touches.  Not for code srcdiff reads back,
nor for numba (no SciPy there).
"""

from __future__ import annotations

import ast
from collections import Counter

from .liveness import nodes
from .repeated_solves import fixed_names

#: the calls this pass rewrites (the factors it looks for are those of solves): where none is
#: spelled, it has nothing to do
CALLS = frozenset({"solve", "inv", "slogdet"})

def _is_call(node: ast.AST, *path: str) -> bool:
    """Whether `node` is a call of ``np.linalg.<name>`` spelled with `path` (np, linalg, name)."""
    if not isinstance(node, ast.Call):
        return False
    func, parts = node.func, []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    return isinstance(func, ast.Name) and tuple([func.id] + parts[::-1]) == path


def _assigned_once(func: ast.FunctionDef) -> list[ast.Assign]:
    """The assignments of a name assigned nowhere else and never written into."""
    stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    written = {n.value.id for n in nodes(func) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
               and isinstance(n.value, ast.Name)}
    written |= {k.value.id for n in nodes(func) if isinstance(n, ast.Call) for k in n.keywords
                if k.arg == "out" and isinstance(k.value, ast.Name)}
    written |= {n.target.id for n in nodes(func) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    return [n for n in nodes(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name) and stores[n.targets[0].id] == 1
            and n.targets[0].id not in written]


def _factors(func: ast.FunctionDef) -> tuple[set[str], dict[str, str]]:
    """The names holding a Cholesky factor (assigned once, never written into), and the names
    holding its transpose (name -> factor)."""
    assigns = _assigned_once(func)
    lower = {a.targets[0].id for a in assigns if _is_call(a.value, "np", "linalg", "cholesky")
             and len(a.value.args) == 1 and not a.value.keywords}
    upper = {a.targets[0].id: a.value.value.id for a in assigns
             if isinstance(a.value, ast.Attribute) and a.value.attr == "T" and isinstance(a.value.value, ast.Name)
             and a.value.value.id in lower}
    return lower, upper


def _as_factor(expr: ast.expr, lower: set[str], upper: dict[str, str]) -> tuple[str, bool] | None:
    """(the factor's name, whether `expr` is its transpose), or None."""
    if isinstance(expr, ast.Name):
        if expr.id in lower:
            return expr.id, False
        if expr.id in upper:
            return upper[expr.id], True
    if isinstance(expr, ast.Attribute) and expr.attr == "T" and isinstance(expr.value, ast.Name):
        found = _as_factor(expr.value, lower, upper)
        if found is not None:
            return found[0], not found[1]
    return None


#: NumPy's linear algebra -> the helper that tries a Cholesky factor first
_SYMMETRIC = {"solve": ("spd_solve", 2), "inv": ("spd_inverse", 1), "slogdet": ("spd_slogdet", 1)}


def triangular_solves(func: ast.FunctionDef) -> bool:
    """Rewrite, in place, the solves with and inverses of Cholesky factors in `func`, then the
    other solves, inverses and log determinants."""
    lower, upper = _factors(func)
    changed = False
    for node in nodes(func):
        if _is_call(node, "np", "linalg", "solve") and len(node.args) == 2 and not node.keywords:
            found = _as_factor(node.args[0], lower, upper)
            if found is not None:
                name, transposed = found
                node.func = ast.Name("solve_lower", ast.Load())
                node.args[0] = ast.Name(name, ast.Load())
                if transposed:
                    node.keywords = [ast.keyword("transpose", ast.Constant(True))]
                changed = True
        elif _is_call(node, "np", "linalg", "inv") and len(node.args) == 1 and not node.keywords:
            found = _as_factor(node.args[0], lower, upper)
            if found is not None and not found[1]:
                node.func = ast.Name("lower_inverse", ast.Load())
                changed = True
    calls = [(node, name) for node in nodes(func) for name, (_, count) in _SYMMETRIC.items()
             if _is_call(node, "np", "linalg", name) and len(node.args) == count and not node.keywords]
    reads = Counter(_matrix(node) for node, _ in calls)
    likelihood = {_matrix(node) for node, name in calls if name != "solve"} - {None}
    shared = [(node, name) for node, name in calls if _matrix(node) in likelihood and reads[_matrix(node)] > 1]
    for node, name in shared:
        node.func = ast.Name(_SYMMETRIC[name][0], ast.Load())
        changed = True
    _factor_once(func, [node for node, _ in shared])
    return changed


def _factor_once(func: ast.FunctionDef, calls: list[ast.Call]) -> None:
    """Give the ``spd_*`` calls on one matrix assigned once in the function's own body (not in a
    loop or branch: its one value is every call's) the factor it finds once, right after it."""
    fixed = fixed_names(func)
    top = {stmt.targets[0].id: i for i, stmt in enumerate(func.body) if isinstance(stmt, ast.Assign)
           and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in fixed}
    after = {id(node): i for i, stmt in enumerate(func.body) for node in ast.walk(stmt)}
    by_matrix: dict[str, list[ast.Call]] = {}
    for call in calls:
        by_matrix.setdefault(_matrix(call), []).append(call)
    # (every call after the assignment: a parameter assigned again has another value before it)
    by_matrix = {m: reads for m, reads in by_matrix.items() if all(after[id(c)] > top.get(m, len(func.body))
                                                                   for c in reads)}
    taken = {n.id for n in nodes(func) if isinstance(n, ast.Name)} | {a.arg for a in ast.walk(func.args)
                                                                    if isinstance(a, ast.arg)}
    for matrix, reads in sorted(by_matrix.items(), key=lambda item: -top.get(item[0], -1)):
        if matrix not in top or len(reads) < 2:
            continue
        name = f"{matrix}_factor"
        while name in taken:
            name += "_"
        taken.add(name)
        for call in reads:
            call.keywords = [ast.keyword("factor", ast.Name(name, ast.Load()))]
        found = ast.Assign([ast.Name(name, ast.Store())],
                           ast.Call(ast.Name("spd_factor", ast.Load()), [ast.Name(matrix, ast.Load())], []))
        func.body.insert(top[matrix] + 1, ast.fix_missing_locations(ast.copy_location(found, func.body[top[matrix]])))


def _matrix(call: ast.Call) -> str | None:
    """The name of the matrix a solve, inverse or log determinant reads (``K`` or ``K.T``)."""
    a = call.args[0]
    a = a.value if isinstance(a, ast.Attribute) and a.attr == "T" else a
    return a.id if isinstance(a, ast.Name) else None
