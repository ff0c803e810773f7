"""``scipy.linalg.cho_factor`` / ``cho_solve`` as the Cholesky factor and two triangular solves.

SciPy wraps both in a batching decorator whose source srcdiff does not read.  Used the way
the documentation shows, they compute a lower factor ``L`` of ``A`` and solve with it, which
the rules of ``np.linalg.cholesky`` and ``scipy.linalg.solve_triangular`` differentiate::

    c, low = scipy.linalg.cho_factor(K)            c = np.linalg.cholesky(K.T)
                                           ==>     low = False
    alpha = scipy.linalg.cho_solve((c, low), y)    alpha = scipy.linalg.solve_triangular(c,
                                                       scipy.linalg.solve_triangular(c, y, lower=True),
                                                       lower=True, trans=1)

(the pair kept whole, ``cf = cho_factor(K)`` then ``cho_solve(cf, y)``, the same way).  SciPy
reads K's upper triangle by default and its lower one with ``lower=True``; ``np.linalg.cholesky``
reads the lower one, so it is given ``K.T`` unless ``lower=True`` (a ``lower`` that is not a
constant is left as written).  Given ``K`` always, the gradient with respect to K lay in the
triangle SciPy does not read (the transpose of the right one), and a K that is not symmetric
had another value than SciPy's.

SciPy's factor holds ``L`` or ``L.T`` in one triangle and arbitrary numbers in the other; so
the rewrite is made only when every read of ``c`` is a ``cho_solve((c, low), b)`` or its
diagonal (``np.diag(c)``, ``np.diagonal(c)``; ``np.diag(cf[0])`` of the pair kept whole), the
same numbers for either triangle.  Imported by name alone (``from scipy.linalg import
cho_factor, cho_solve``), the solves are written with the module's name for ``scipy.linalg``,
or as ``np.linalg.solve`` where the module has none.  Any
other use (or ``overwrite_a``) is left as written, and lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import copy

import numpy as np

from .naming import own_nodes

_NAMES = ("cho_factor", "cho_solve")


def has_cholesky_factors(tree: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "cho_factor" or isinstance(n, ast.Name)
               and n.id == "cho_factor" for n in ast.walk(tree))


def rewrite_cholesky_factors(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, each ``c, low = <scipy.linalg>.cho_factor(A)`` of `tree`'s own body
    (and the solves reading it) whose factor is read only as described above."""
    try:
        import scipy.linalg as sl
    except ImportError:  # (no SciPy: no call of it to rewrite)
        return
    if names.resolve(ast.Name("np")) is not np:
        return
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    linalg = _linalg_module(names, sl)
    for stmt in [n for n in own_nodes(tree) if isinstance(n, ast.Assign)]:
        call = stmt.value
        if not (isinstance(call, ast.Call) and names.resolve(call.func) is sl.cho_factor and len(call.args) == 1
                and all(k.arg in ("lower", "check_finite") for k in call.keywords) and len(stmt.targets) == 1):
            continue
        if _reads_lower(call) is None:  # which triangle it reads is decided when run: left as written
            continue
        target = stmt.targets[0]
        if isinstance(target, ast.Name):  # c = cho_factor(K), read only as cho_solve(c, b)
            found = _whole_solves(tree, target.id, names, sl, parents)
            if found is None:
                continue
            solves, factors = found
            for solve in solves:
                _as_triangular_solves(solve, linalg)
            for diagonal in factors:  # np.diag(cf[0]): of the factor itself now
                diagonal.args = [ast.Name(target.id, ast.Load())]
            stmt.value = ast.copy_location(_cholesky(call), call)
            continue
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2
                and all(isinstance(t, ast.Name) for t in target.elts)):
            continue
        factor, low = (t.id for t in target.elts)
        lower = next((k.value for k in call.keywords if k.arg == "lower"), ast.Constant(False))
        solves = _solves(tree, factor, (low, lower), names, sl, parents)
        if solves is None:
            continue
        for solve in solves:
            _as_triangular_solves(solve, linalg)
        stmt.targets = [ast.Name(factor, ast.Store())]
        stmt.value = ast.copy_location(_cholesky(call), call)
        flag = ast.copy_location(ast.Assign([ast.Name(low, ast.Store())], lower), stmt)
        _insert_after(tree, stmt, flag)


def _reads_lower(call: ast.Call) -> bool | None:
    """Whether ``cho_factor(A, ...)`` reads A's lower triangle (``lower=True``) or its upper one
    (SciPy's default); None where ``lower`` is not a constant."""
    flag = next((k.value for k in call.keywords if k.arg == "lower"), ast.Constant(False))
    return bool(flag.value) if isinstance(flag, ast.Constant) else None


def _cholesky(call: ast.Call) -> ast.Call:
    """The lower factor of the triangle ``cho_factor(A, ...)`` reads: ``np.linalg.cholesky(A)``
    (which reads A's lower triangle) for ``lower=True``, else ``np.linalg.cholesky(A.T)``; the
    gradient then lies in the triangle SciPy reads, and a matrix that is not symmetric gives
    SciPy's value."""
    matrix = call.args[0] if _reads_lower(call) else ast.Attribute(call.args[0], "T", ast.Load())
    return ast.Call(ast.Attribute(ast.Attribute(ast.Name("np", ast.Load()), "linalg", ast.Load()),
                                  "cholesky", ast.Load()), [matrix], [])


def _whole_solves(tree, held: str, names, sl, parents) -> tuple[list, list] | None:
    """The ``cho_solve(held, b)`` calls reading `held` (the pair `cho_factor` gave, kept whole),
    and the ``np.diag(held[0])`` calls reading its factor's diagonal; None if it is read
    otherwise (or assigned more than once)."""
    solves, diagonals = [], []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == held):
            continue
        call = parents.get(node)
        if isinstance(node.ctx, ast.Store):
            assign = parents.get(node)
            if not (isinstance(assign, ast.Assign) and isinstance(assign.value, ast.Call)
                    and names.resolve(assign.value.func) is sl.cho_factor):
                return None
            continue
        if isinstance(call, ast.Call) and call.args[:1] == [node] and len(call.args) == 2 \
                and names.resolve(call.func) is sl.cho_solve and all(k.arg == "check_finite" for k in call.keywords):
            solves.append(call)
            continue
        diagonal = parents.get(call)
        if isinstance(call, ast.Subscript) and isinstance(call.slice, ast.Constant) and call.slice.value == 0 \
                and isinstance(diagonal, ast.Call) and diagonal.args == [call] and not diagonal.keywords \
                and names.resolve(diagonal.func) in (np.diag, np.diagonal):
            diagonals.append(diagonal)
            continue
        return None
    return solves, diagonals


def _solves(tree, factor: str, flags, names, sl, parents) -> list | None:
    """The ``cho_solve((factor, low), b)`` calls reading `factor` (``low`` the flag `cho_factor` gave,
    or the same constant as its ``lower``: `flags`); None if it is read otherwise (or assigned
    more than once)."""
    solves = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Name) and node.id == factor):
            continue
        if isinstance(node.ctx, ast.Store):
            parent = parents.get(parents.get(node))
            if not (isinstance(parent, ast.Assign) and isinstance(parent.value, ast.Call)
                    and names.resolve(parent.value.func) is sl.cho_factor):
                return None
            continue
        pair, call = parents.get(node), parents.get(parents.get(node))
        if isinstance(pair, ast.Call) and pair.args == [node] and not pair.keywords \
                and names.resolve(pair.func) in (np.diag, np.diagonal):
            continue
        if isinstance(pair, ast.Tuple) and len(pair.elts) == 2 and pair.elts[0] is node \
                and ast.dump(pair.elts[1]) in (ast.dump(ast.Name(flags[0], ast.Load())), ast.dump(flags[1])) \
                and isinstance(call, ast.Call) and call.args[:1] == [pair] and len(call.args) == 2 \
                and names.resolve(call.func) is sl.cho_solve \
                and all(k.arg == "check_finite" for k in call.keywords):
            solves.append(call)
            continue
        return None
    return solves


def _linalg_module(names, sl) -> ast.expr | None:
    """An expression for ``scipy.linalg`` in the function's names (``sl``, ``scipy.linalg``),
    or None: ``cho_solve`` imported alone."""
    scope = {**names.func.__globals__, **{n: _contents(c) for n, c in names.closure.items() if n not in names.local}}
    for name, value in scope.items():
        if value is sl:
            return ast.Name(name, ast.Load())
    for name, value in scope.items():
        if getattr(value, "linalg", None) is sl:
            return ast.Attribute(ast.Name(name, ast.Load()), "linalg", ast.Load())
    return None


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _as_triangular_solves(call: ast.Call, linalg: ast.expr | None) -> None:
    """``m.cho_solve((c, low), b)`` as ``m.solve_triangular(c, m.solve_triangular(c, b, lower=True),
    lower=True, trans=1)``, in place; where the function has no name for ``scipy.linalg`` (it
    imported ``cho_solve`` alone), ``np.linalg.solve(c.T, np.linalg.solve(c, b))``."""
    held = call.args[0]
    factor, b = held.elts[0] if isinstance(held, ast.Tuple) else held, call.args[1]
    module = call.func.value if isinstance(call.func, ast.Attribute) else linalg
    if module is None:
        np_solve = ast.Attribute(ast.Attribute(ast.Name("np", ast.Load()), "linalg", ast.Load()), "solve", ast.Load())
        transposed = ast.Attribute(copy.deepcopy(factor), "T", ast.Load())
        inner = ast.Call(copy.deepcopy(np_solve), [copy.deepcopy(factor), b], [])
        call.func, call.args, call.keywords = np_solve, [transposed, inner], []
        return

    def solve(rhs, transposed):
        keywords = [ast.keyword("lower", ast.Constant(True))] + ([ast.keyword("trans", ast.Constant(1))]
                                                                  if transposed else [])
        return ast.Call(ast.Attribute(copy.deepcopy(module), "solve_triangular", ast.Load()),
                        [copy.deepcopy(factor), rhs], keywords)
    inner = solve(b, False)
    call.func, call.args, call.keywords = inner.func, [copy.deepcopy(factor), inner], solve(b, True).keywords


def _insert_after(tree: ast.FunctionDef, stmt: ast.stmt, new: ast.stmt) -> None:
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(s is stmt for s in block):
                block.insert(next(k for k, s in enumerate(block) if s is stmt) + 1, new)
                return


__all__ = ["has_cholesky_factors", "rewrite_cholesky_factors"]
