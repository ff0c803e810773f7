"""A triangular factor's transpose read as the factor itself, so `cholesky_pairs` sees one spelling.

A Cholesky pair is often written ``solve_triangular(L.T, solve_triangular(L, b, lower=True),
lower=False)``: the back solve with the upper triangle of ``L.T``.  That is
``solve_triangular(L, b, lower=True, trans=1)`` for any matrix L (both read L's lower triangle and
solve with its transpose), and ``trans=1`` with ``L.T`` is ``trans=0`` with L.  The adjoint of
the solve with ``t = L.T`` gives ``t`` the term ``-np.triu(P @ Q.T, 0)``, added to L's adjoint
transposed: ``L_bar += t_bar.T``, which is ``L_bar -= np.tril(Q @ P.T, 0)``, the spelling of the
term the lower solve gives L.  Here

* every ``solve_triangular(t, b, ...)`` (constant flags, ``trans`` 0, 1, 'N' or 'T') with
  ``t = L.T`` assigned once, L a name never written into, becomes the solve with L, ``lower``
  and ``trans`` flipped;
* a term ``G += X.T`` (or ``np.transpose(X)``; ``G = G + ...`` too) of a name X assigned once
  ``-np.triu(P @ Q.T, 0)``, read there alone and reading only names never written into, becomes
  ``G -= np.tril(Q @ P.T, 0)`` and X's statement goes; so does ``G += (-np.triu(P @ Q.T, 0)).T``.

Both round like the code they replace up to the order BLAS and LAPACK sum in; not for numba (no
SciPy) nor code srcdiff reads back.
"""

from __future__ import annotations

import ast

from .liveness import added_term, assigned_name, mentions, single_definitions
from .repeated_solves import fixed_names, read_names, solve_of

#: the call this pass rewrites: where it is not spelled, it has nothing to do
CALLS = frozenset({"solve_triangular"})

_FLIP = {0: 1, "N": 1, 1: 0, "T": 0}


def transposed_factors(func: ast.FunctionDef) -> bool:
    """Rewrite, in place, solves with a factor's transpose and their adjoints' transposed
    terms (module docstring); whether any was."""
    fixed = fixed_names(func)
    defs = single_definitions(func)
    changed = False
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            changed |= _solve_with_factor(node, defs, fixed)
    return _transposed_terms(func, defs, fixed) or changed


def _transposed_of(name: str, defs: dict, fixed) -> str | None:
    """L where `name` is assigned once ``L.T``, L a name never written into."""
    value = defs.get(name)
    if name in fixed and isinstance(value, ast.Attribute) and value.attr == "T" \
            and isinstance(value.value, ast.Name) and value.value.id in fixed:
        return value.value.id
    return None


def _solve_with_factor(call: ast.Call, defs: dict, fixed) -> bool:
    func = call.func
    spelled = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if spelled != "solve_triangular" or solve_of(call) is None:
        return False
    factor = _transposed_of(call.args[0].id, defs, fixed)
    flags = {k.arg: k.value.value for k in call.keywords}
    if factor is None or flags.get("trans", 0) not in _FLIP:
        return False  # (trans=2/'C' solves with the conjugate: not L's own transpose for complex L)
    flipped = {"trans": _FLIP[flags.get("trans", 0)], "lower": not flags.get("lower", False)}
    keywords = [ast.keyword(k.arg, ast.Constant(flipped[k.arg]) if k.arg in flipped else k.value)
                for k in call.keywords]
    keywords += [ast.keyword(arg, ast.Constant(value)) for arg, value in flipped.items() if arg not in flags]
    call.args[0] = ast.copy_location(ast.Name(factor, ast.Load()), call.args[0])
    call.keywords = keywords
    return True


def _upper_product(expr: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """(P, Q) of ``-np.triu(P @ Q.T, 0)``."""
    if not (isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub)):
        return None
    call = expr.operand
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "triu"
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "np" and len(call.args) == 2
            and not call.keywords and isinstance(call.args[1], ast.Constant) and call.args[1].value == 0):
        return None
    product = call.args[0]
    if isinstance(product, ast.BinOp) and isinstance(product.op, ast.MatMult) \
            and isinstance(product.right, ast.Attribute) and product.right.attr == "T":
        return product.left, product.right.value
    return None


def _transposed(expr: ast.expr) -> ast.expr | None:
    """X of ``X.T`` or ``np.transpose(X)``."""
    if isinstance(expr, ast.Attribute) and expr.attr == "T":
        return expr.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "transpose" \
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np" and len(expr.args) == 1 \
            and not expr.keywords:
        return expr.args[0]
    return None


def _np_call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), list(args), [])


def _transposed_terms(func: ast.FunctionDef, defs: dict, fixed) -> bool:
    body = func.body
    reads = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads[node.id] = reads.get(node.id, 0) + 1
    changed = False
    for stmt in list(body):
        target = stmt.target.id if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) \
            else assigned_name(stmt)
        term = added_term(stmt, target) if target else None
        inner = _transposed(term) if term is not None else None
        name = inner.id if isinstance(inner, ast.Name) else None
        if name is None:  # the product written into the term itself: ``G += (-np.triu(P @ Q.T, 0)).T``
            found, definition = (_upper_product(inner) if inner is not None else None), None
            if found is None or target in mentions(inner):
                continue
        else:  # a name assigned the product once and read here alone
            found = _upper_product(defs[name]) if name in defs and name in fixed and reads.get(name) == 1 else None
            if found is None or not read_names(defs[name]) <= fixed or target in mentions(defs[name]):
                continue
            definition = next((s for s in body if assigned_name(s) == name), None)
            if definition is None or body.index(definition) > body.index(stmt):
                continue
        p, q = found
        lower = _np_call("tril", ast.BinOp(q, ast.MatMult(), ast.Attribute(p, "T", ast.Load())), ast.Constant(0))
        subtracts = isinstance(stmt.op if isinstance(stmt, ast.AugAssign) else stmt.value.op, ast.Sub)
        if isinstance(stmt, ast.AugAssign):  # (``G += -e`` as ``G -= e``: the spelling cholesky_pairs reads)
            stmt.op, stmt.value = (ast.Add() if subtracts else ast.Sub()), lower
        else:
            stmt.value.op, stmt.value.right = (ast.Add() if subtracts else ast.Sub()), lower
        ast.fix_missing_locations(stmt)
        if definition is not None:
            body.remove(definition)
        changed = True
    return changed
