"""The logistic function's derivative read from its value: ``g * s / d * e -> g * s * (1.0 - s)``.

A sigmoid written out, ``s = 1.0 / (1.0 + np.exp(-x))``, is lowered as ``e = np.exp(-x)``,
``d = 1.0 + e``, ``s = 1.0 / d``, and the reverse pass chains the adjoints of those three
operations into ``x_bar = s_bar * s / d * e``.  Since ``e / (1 + e) = 1 - 1 / (1 + e)`` (for any
``e``, not only an exponential), the two factors ``/ d * e`` are ``* (1.0 - s)``, the form a
careful hand writes: one operation fewer, `e` no longer kept for the backward sweep, `d` no
longer recomputed there, and exact where the sigmoid saturates: for ``x < -709`` `e` overflows
to inf and ``s / d * e`` is ``0 * inf = NaN``, while ``s * (1.0 - s)`` is 0, the derivative's
value.  Where no ``s = 1.0 / d`` is read by the same product, ``1.0 / d`` is written in its
place (the NaN is gone, at the cost of that division).

The pair may be split over two statements (``t = -(s_bar * s / d)`` then ``x_bar = t * e``, as the
sweep writes the adjoints of arrays read through an index): it is followed through names read once,
each a product of the last (`_across_statements`).  A pullback (vjp's code) is optimised as a function
of its own, which does not see the forward sweep's ``d = 1.0 + e``: the driver runs this pass again on
the function that defines it.  Forward mode has the same ``inf / inf``: the tangent ``-(d_dot * s / d)``
of a ``d_dot`` that is ``u_dot * e``; `_tangents` rewrites it to ``-(u_dot * s * (1.0 - s))``.

Only products in the backward sweep and tangents are rewritten (forward values are the user's computation),
and only names the generated code binds one way (every plain assignment the same expression;
else restored from a loop stack, which gives back the value it held when pushed).  The value is
the same up to rounding, of another kind: like the frameworks' ``s * (1 - s)``, ``1.0 - s``
carries the rounding of s, an error of a unit in the last place of s.  Where s rounds to 1
(``x > 37``) the derivative ``e^-x`` (below 1e-16) is given as 0, and near ``x = 20`` with
half its digits, where ``s / d * e`` had them all: an absolute error below 2.2e-16 times the
seed, never a NaN (tests/transforms/test_redteam_wave21.py).
"""

from __future__ import annotations

import ast
from collections import Counter

from .liveness import is_comment, nodes, reads, single_definitions

Chain = tuple[bool, list[tuple[bool, ast.expr]]]  # (negated, [(divides, factor)]) in order


def logistic_factors(func: ast.FunctionDef, headers=("backward",)) -> bool:
    """Rewrite ``/ d * e`` to ``* (1.0 - s)`` in the products of `func`'s backward sweep (also
    the sweep of a pullback `func` defines and returns, as vjp's code does)."""
    sweeps = [(body, start) for body in (func.body, *(s.body for s in func.body if isinstance(s, ast.FunctionDef)))
              if (start := _header(body, headers)) is not None]
    if not any(isinstance(n, ast.Assign) and _sum_with_one(n.value) for n in nodes(func)):
        return False  # (the cheap test first: no ``d = 1.0 + e`` at all)
    definitions = single_definitions(func)
    if not any(_sum_with_one(v) for v in definitions.values()):
        return False
    changed = False
    for body, start in sweeps:
        for stmt in body[start:]:
            for node in nodes(stmt):
                if isinstance(node, (ast.Assign, ast.AugAssign)):
                    new = _rewrite(node.value, definitions)
                    if new is not None:
                        node.value = new
                        changed = True
        changed |= _across_statements(func, body[start:], definitions)
    return _tangents(func, definitions) or changed


def _header(body: list[ast.stmt], headers) -> int | None:
    return next((i for i, s in enumerate(body) if is_comment(s) and s.value.args
                 and getattr(s.value.args[0], "value", None) in headers), None)


def _across_statements(func: ast.FunctionDef, sweep: list[ast.stmt], definitions: dict[str, ast.expr]) -> bool:
    """The same pair split over two products of the backward sweep: ``n = g * s / d`` then
    ``x_bar = n * e``, linked by names each read once and each a product of the last (the sweep
    keeps an adjoint of an array in a statement of its own).  ``/ d`` becomes ``* (1.0 - s)`` where
    it is (which multiplies the linked names by `e`) and ``* e`` goes where it was: the linked
    names are read nowhere else, so only the last product's value is the same, now without the
    ``0 * inf`` of a saturated sigmoid (a threshold of ``-np.inf``, an argument below -709).
    A product may be an ``unbroadcast(p, like)`` whose `like` has `e`'s shape (``d``, ``s``, `e`,
    the exponent ``u`` of ``e = np.exp(u)``): it sums `p` over axes along which `e` is constant,
    so it commutes with ``* e`` (a pullback keeps them: its shapes are not known)."""
    partner = {e: d for d, v in definitions.items() if (e := _sum_with_one(v)) is not None and e in definitions}
    if not partner:
        return False
    stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    uses = reads(func)
    changed = False
    for e, d in partner.items():
        shaped = _same_shape(e, d, definitions)
        products = _products(sweep, stores, shaped)
        for stmt in sweep:
            place = _place(stmt, shaped)
            if place is None or not _is_product(_get(place)):
                continue
            neg, factors = _flatten(_get(place))
            k = next((k for k, (f_d, f) in enumerate(factors)
                      if not f_d and isinstance(f, ast.Name) and f.id == e), None)
            if k is None or any(f_d and isinstance(f, ast.Name) and f.id == d for f_d, f in factors):
                continue
            upstream = _upstream(factors, d, True, products, uses)
            if upstream is None:
                continue
            up_neg, up_factors = _flatten(_get(upstream))
            _one_minus(up_factors, d, definitions)
            _set(upstream, _build(up_neg, up_factors))
            del factors[k]
            _set(place, _build(neg, factors or [(False, ast.Constant(1.0))]))
            changed = True
    return changed


def _same_shape(e: str, d: str, definitions: dict[str, ast.expr]) -> frozenset[str]:
    """The names of `e`'s shape: `e`, ``d = 1.0 + e``, ``s = 1.0 / d``, and ``u`` of ``e = np.exp(u)``."""
    found = {e, d, *(name for name, v in definitions.items() if _reciprocal_of(v) == d)}
    made = definitions.get(e)
    if isinstance(made, ast.Call) and len(made.args) == 1 and not made.keywords and isinstance(made.args[0], ast.Name) \
            and isinstance(made.func, ast.Attribute) and made.func.attr == "exp":
        found.add(made.args[0].id)
    return frozenset(found)


def _place(stmt: ast.stmt, shaped: frozenset[str]):
    """Where the product of an assignment is: its value, or the first argument of its
    ``unbroadcast(p, like)`` with `like` one of `shaped` (None: not an assignment of a name)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    v = stmt.value
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "unbroadcast" and len(v.args) == 2 \
            and not v.keywords and isinstance(v.args[1], ast.Name) and v.args[1].id in shaped:
        return v.args, 0
    return stmt, None


def _get(place) -> ast.expr:
    holder, key = place
    return holder.value if key is None else holder[key]


def _set(place, value: ast.expr) -> None:
    holder, key = place
    if key is None:
        holder.value = value
    else:
        holder[key] = value


def _is_product(e: ast.expr) -> bool:
    return isinstance(e, (ast.BinOp, ast.UnaryOp)) and len(_flatten(e)[1]) > 1 or isinstance(e, ast.Name) or \
        isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub)


def _tangents(func: ast.FunctionDef, definitions: dict[str, ast.expr]) -> bool:
    """Forward mode's form of the pair: the tangent ``s_dot = -(d_dot * s / d)`` of ``s = 1.0 / d``
    reads ``d_dot``, a copy of ``e_dot = u_dot * e`` (linked by tangents read once, each a product
    of the last).  ``* e`` leaves ``e_dot`` (which only `s_dot` reads, through the links) and ``/ d``
    becomes ``* (1.0 - s)``: `s_dot` is the same, without ``inf / inf`` where the sigmoid saturates.
    Only tangents (``..._dot``) are rewritten, the forward values are the user's."""
    stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    tangents = [n for n in nodes(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name) and n.targets[0].id.endswith("_dot")]
    products = _products(tangents, stores)
    if len(products) < 2:
        return False
    uses = reads(func)
    changed = False
    for stmt in tangents:
        if not _is_product(stmt.value):
            continue
        neg, factors = _flatten(stmt.value)
        for divides, factor in factors:
            e = _sum_with_one(definitions.get(factor.id)) if isinstance(factor, ast.Name) and divides else None
            if e is None or e not in definitions or any(
                    not f_d and isinstance(f, ast.Name) and f.id == e for f_d, f in factors):
                continue
            upstream = _upstream(factors, e, False, products, uses)
            if upstream is None:
                continue
            up_neg, up_factors = _flatten(_get(upstream))
            del up_factors[next(i for i, (f_d, f) in enumerate(up_factors)
                                if not f_d and isinstance(f, ast.Name) and f.id == e)]
            _set(upstream, _build(up_neg, up_factors or [(False, ast.Constant(1.0))]))
            _one_minus(factors, factor.id, definitions)
            stmt.value = _build(neg, factors)
            changed = True
            break
    return changed


def _products(statements, stores: Counter, shaped: frozenset[str] = frozenset()) -> dict:
    """Where the statements binding a name once to a product (or a copy) hold it, by that name."""
    found = {}
    for stmt in statements:
        place = _place(stmt, shaped)
        if place is not None and stores[stmt.targets[0].id] == 1 and _is_product(_get(place)):
            found[stmt.targets[0].id] = place
    return found


def _upstream(factors: list, name: str, divides: bool, products: dict, uses: Counter,
              depth: int = 4):
    """The product reached from `factors` through names read once, each a product of the next,
    that divides by `name` (`divides`) or multiplies by it (None: none within `depth` links)."""
    if depth == 0:
        return None
    for f_divides, factor in factors:
        found = products.get(factor.id) if isinstance(factor, ast.Name) and not f_divides else None
        if found is None or uses[factor.id] != 1:
            continue
        inner = _flatten(_get(found))[1]
        if any(f_d == divides and isinstance(f, ast.Name) and f.id == name for f_d, f in inner):
            return found
        deeper = _upstream(inner, name, divides, products, uses, depth - 1)
        if deeper is not None:
            return deeper
    return None


def _is_one(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) in (int, float) and e.value == 1


def _sum_with_one(e: ast.expr) -> str | None:
    """``1.0 + e`` or ``e + 1.0`` of a name `e`: that name."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        for one, other in ((e.left, e.right), (e.right, e.left)):
            if _is_one(one) and isinstance(other, ast.Name):
                return other.id
    return None


def _reciprocal_of(e: ast.expr) -> str | None:
    """``1.0 / d`` of a name `d`: that name."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Div) and _is_one(e.left) and isinstance(e.right, ast.Name):
        return e.right.id
    return None


def _flatten(e: ast.expr) -> Chain:
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Mult, ast.Div)):
        left_neg, left = _flatten(e.left)
        right_neg, right = _flatten(e.right)
        if isinstance(e.op, ast.Div):
            right = [(not divides, f) for divides, f in right]
        return left_neg != right_neg, left + right
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        neg, factors = _flatten(e.operand)
        return not neg, factors
    return False, [(False, e)]


def _rewrite(e: ast.expr, definitions: dict[str, ast.expr]) -> ast.expr | None:
    """`e` with each ``/ d * e`` of its products rewritten (None: nothing to do)."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Mult, ast.Div)) or \
            isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        neg, factors = _flatten(e)
        inner = [_rewrite(f, definitions) for _, f in factors]
        factors = [(d, new or f) for (d, f), new in zip(factors, inner)]
        if _rewrite_chain(factors, definitions) or any(new is not None for new in inner):
            return _build(neg, factors)
        return None
    changed = False
    for field, value in ast.iter_fields(e):
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            new = _rewrite(item, definitions) if isinstance(item, ast.expr) else None
            if new is not None:
                items[i] = new
                changed = True
        if not isinstance(value, list) and changed:
            setattr(e, field, items[0])
    return e if changed else None


def _rewrite_chain(factors: list, definitions: dict[str, ast.expr]) -> bool:
    """Replace, in place, each pair ``/ d`` and ``* e`` with ``d = 1 + e`` by ``* (1.0 - s)``."""
    changed = False
    while True:
        found = None
        for i, (divides, factor) in enumerate(factors):
            if not (divides and isinstance(factor, ast.Name)):
                continue
            e = _sum_with_one(definitions.get(factor.id))
            j = next((j for j, (d, f) in enumerate(factors) if not d and isinstance(f, ast.Name) and f.id == e), None)
            if e is not None and e in definitions and j is not None:
                found = i, j, factor.id
                break
        if found is None:
            return changed
        i, j, d = found
        _one_minus(factors, d, definitions)
        del factors[j]
        changed = True


def _one_minus(factors: list, d: str, definitions: dict[str, ast.expr]) -> None:
    """Replace, in place, the factor ``/ d`` of `factors` by ``* (1.0 - s)``."""
    i = next(i for i, (divides, f) in enumerate(factors) if divides and isinstance(f, ast.Name) and f.id == d)
    # the value s = 1.0 / d, where this product reads it already (so it is live here)
    s = next((f.id for divides, f in factors if not divides and isinstance(f, ast.Name)
              and _reciprocal_of(definitions.get(f.id)) == d), None)
    one = ast.Name(s, ast.Load()) if s else ast.BinOp(ast.Constant(1.0), ast.Div(), ast.Name(d, ast.Load()))
    factors[i] = (False, ast.BinOp(ast.Constant(1.0), ast.Sub(), one))


def _build(neg: bool, factors: list) -> ast.expr:
    first = factors[0][1] if not factors[0][0] else ast.BinOp(ast.Constant(1.0), ast.Div(), factors[0][1])
    out = first
    for divides, f in factors[1:]:
        out = ast.BinOp(out, ast.Div() if divides else ast.Mult(), f)
    return ast.UnaryOp(ast.USub(), out) if neg else out
