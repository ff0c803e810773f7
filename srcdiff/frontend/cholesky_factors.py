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
or as ``np.linalg.solve`` where the module has none.

A factor made otherwise (``np.linalg.cholesky``, a matrix of the user's) is solved with the same
way when the pair is written with a constant flag, ``cho_solve((L, True), b)``: SciPy reads the
triangle the flag names and no other, and so do the triangular solves (``np.tril(L)`` /
``np.triu(L)`` where ``np.linalg.solve`` stands for them).  ``scipy.linalg.cholesky(A, lower=...)``
is NumPy's factor of the triangle SciPy reads (``np.linalg.cholesky(A)``, or
``np.transpose(np.linalg.cholesky(A.T))`` for SciPy's default upper factor).  Each call is
recognised by what it refers to, however it was imported.  Any other use (``overwrite_a``, a
flag computed when run) is left as written, and lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import copy
import sys

import numpy as np

from .naming import own_nodes

_NAMES = ("cho_factor", "cho_solve", "cholesky")


def has_cholesky_factors(tree: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr in _NAMES and not _numpy_spelled(n) or isinstance(n, ast.Name)
               and n.id in _NAMES for n in ast.walk(tree))


def _numpy_spelled(node: ast.Attribute) -> bool:
    """``np.linalg.cholesky``: NumPy's own (a cheap test, before any name is resolved)."""
    return isinstance(node.value, ast.Attribute) and node.value.attr == "linalg" \
        and isinstance(node.value.value, ast.Name) and node.value.value.id in ("np", "numpy")


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
    _rewrite_plain_calls(tree, names, sl, linalg)


def _rewrite_plain_calls(tree: ast.FunctionDef, names, sl, linalg) -> None:
    """``cholesky(A, lower=...)`` as NumPy's factor of the triangle SciPy reads, and
    ``cho_solve((c, low), b)`` of any factor, with `low` a constant, as two triangular solves
    reading the triangle `low` names (SciPy reads no other), in place."""
    for call in [n for n in own_nodes(tree) if isinstance(n, ast.Call)]:
        found = names.resolve(call.func)
        if found is sl.cholesky and len(call.args) == 1 and _reads_lower(call) is not None \
                and all(k.arg in ("lower", "check_finite") or _kept(k, "overwrite_a") for k in call.keywords):
            factor = _cholesky(call)
            if _reads_lower(call):
                call.func, call.args, call.keywords = factor.func, factor.args, []
            else:  # SciPy's upper factor: U = L.T, L the lower factor of the upper triangle's transpose
                call.func, call.args, call.keywords = _np("transpose"), [factor], []
        elif found is sl.cho_solve and len(call.args) == 2 and isinstance(call.args[0], ast.Tuple) \
                and len(call.args[0].elts) == 2 and isinstance(call.args[0].elts[1], ast.Constant) \
                and isinstance(call.args[0].elts[1].value, bool) \
                and all(k.arg == "check_finite" or _kept(k, "overwrite_b") for k in call.keywords):
            _as_triangular_solves(call, linalg, call.args[0].elts[1].value, exact=False)


def _kept(keyword: ast.keyword, name: str) -> bool:
    """``overwrite_a=False``: SciPy's default spelled out (it writes into nothing)."""
    return keyword.arg == name and isinstance(keyword.value, ast.Constant) and keyword.value.value is False


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
        if _attribute(value, "linalg") is sl:
            return ast.Attribute(ast.Name(name, ast.Load()), "linalg", ast.Load())
    return None


def _attribute(value, name: str):
    """``getattr(value, name, None)``, None too where a user's ``__getattr__`` raises another error
    (a KeyError of a dict it reads from)."""
    try:
        return getattr(value, name, None)
    except Exception:  # noqa: BLE001  (the user's code, run only to look for a module)
        return None


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _as_triangular_solves(call: ast.Call, linalg: ast.expr | None, lower: bool = True, exact: bool = True) -> None:
    """``m.cho_solve((c, low), b)`` as ``m.solve_triangular(c, m.solve_triangular(c, b, lower=True),
    lower=True, trans=1)`` (for ``low`` False: ``c`` upper, the two solves the other way round), in
    place; where the function has no name for ``scipy.linalg`` (it imported ``cho_solve`` alone),
    ``np.linalg.solve(T.T, np.linalg.solve(T, b))`` of the triangle ``T = np.tril(c)`` (``np.triu``; `exact`:
    c itself, NumPy's factor, whose other triangle is 0)."""
    held = call.args[0]
    factor, b = held.elts[0] if isinstance(held, ast.Tuple) else held, call.args[1]
    module = call.func.value if isinstance(call.func, ast.Attribute) else linalg
    if module is None:
        triangle = copy.deepcopy(factor) if exact else ast.Call(_np("tril" if lower else "triu"), [factor], [])
        np_solve = ast.Attribute(_np("linalg"), "solve", ast.Load())
        transposed = ast.Attribute(copy.deepcopy(triangle), "T", ast.Load())
        first, second = (triangle, transposed) if lower else (transposed, triangle)
        inner = ast.Call(copy.deepcopy(np_solve), [first, b], [])
        call.func, call.args, call.keywords = np_solve, [second, inner], []
        return

    def solve(rhs, transposed):
        keywords = [ast.keyword("lower", ast.Constant(lower))] + ([ast.keyword("trans", ast.Constant(1))]
                                                                   if transposed else [])
        return ast.Call(ast.Attribute(copy.deepcopy(module), "solve_triangular", ast.Load()),
                        [copy.deepcopy(factor), rhs], keywords)
    # A = L L^T: L^T x = (L^-1 b); A = U^T U: U x = (U^-T b)
    inner = solve(b, not lower)
    call.func, call.args, call.keywords = inner.func, [copy.deepcopy(factor), inner], solve(b, lower).keywords


def left_as_written(func, node: ast.Call) -> tuple[str, str] | None:
    """Why a call of SciPy's Cholesky functions the rewrites above left as written (``node``, a
    call of `func`) is not differentiated, and what to write instead; None for other functions."""
    sl = sys.modules.get("scipy.linalg")
    if sl is None or func not in (sl.cho_solve, sl.cho_factor, sl.cholesky):
        return None
    call = ast.unparse(node)
    if func is sl.cho_solve:
        return (f"{call}: scipy.linalg.cho_solve is differentiated when its factor is written with a constant "
                "flag, cho_solve((L, True), b), or comes from cho_factor in this function and is read only by "
                "cho_solve (and np.diag); not with overwrite_b=True",
                "write cho_solve((L, True), b) for a lower factor L (np.linalg.cholesky's), cho_solve((U, False), "
                "b) for an upper one, or the two solves: solve_triangular(L.T, solve_triangular(L, b, "
                "lower=True), lower=False)")
    if func is sl.cholesky:
        return (f"{call}: scipy.linalg.cholesky is differentiated with a constant lower= and without "
                "overwrite_a", "write scipy.linalg.cholesky(A, lower=True) (or False), or np.linalg.cholesky(A)")
    return (f"{call}: scipy.linalg.cho_factor's factor holds arbitrary numbers in its other triangle, so it is "
            "differentiated only where cho_solve (or np.diag) reads it, with a constant lower=",
            "write L = np.linalg.cholesky(A) and use L (cho_solve((L, True), b) solves with it)")


def _np(attr: str) -> ast.Attribute:
    return ast.Attribute(ast.Name("np", ast.Load()), attr, ast.Load())


def _insert_after(tree: ast.FunctionDef, stmt: ast.stmt, new: ast.stmt) -> None:
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(s is stmt for s in block):
                block.insert(next(k for k, s in enumerate(block) if s is stmt) + 1, new)
                return


__all__ = ["has_cholesky_factors", "left_as_written", "rewrite_cholesky_factors"]
