"""Common factors of a sum of adjoint contributions taken out: ``g * a + g * b -> g * (a + b)``.

An adjoint that several contributions add up (``s_bar = s_1_bar * a * math.cos(s) +
s_1_bar * 0.9``) often multiplies each by the same incoming adjoint.  Taking the common
name out saves one multiplication per extra term — on floats in a loop that is a good part
of the work, on arrays one ufunc call and one temporary each.  Only names are taken out
(evaluating them has no effect), only from products of ``*`` (never ``@``), and only in the
backward sweep: forward values are the user's computation, kept exactly as written.  The
value is the same up to rounding (a product distributed over a sum rounds differently).
"""

from __future__ import annotations

import ast
from collections import Counter

from .liveness import bodies, is_comment, is_compound, is_pure, mentions, nodes, writes, written_into
from .statements import mutated

Term = tuple[bool, list[ast.expr]]  # (negated, factors); one factor: the term as written


def factor_backward(func: ast.FunctionDef, headers=("backward",)) -> bool:
    """Factor the sums assigned in `func`'s backward sweep (after its header comment)."""
    start = next((i for i, s in enumerate(func.body) if is_comment(s) and s.value.args
                  and getattr(s.value.args[0], "value", None) in headers), None)
    if start is None:
        return False
    changed = _merge_pairs(func.body, start)
    changed |= _merge_apart(func, start)
    for stmt in func.body[start:]:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Assign, ast.AugAssign)) and not isinstance(node, ast.FunctionDef):
                new = _factor(node.value)
                if new is not None:
                    node.value = new
                    changed = True
    return changed


def _merge_pairs(body: list[ast.stmt], start: int = 0) -> bool:
    """``x = g * a`` then ``x = x + g * b`` -> ``x = g * (a + b)``: two contributions to an
    adjoint (arrays: numbers are merged by inline_single_use already) that share a factor are
    one sum, when that gives one operation fewer (the factor taken out)."""
    changed = False
    i = start
    while i < len(body):
        stmt = body[i]
        for inner in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
            if isinstance(inner, list) and not isinstance(stmt, ast.FunctionDef):
                changed |= _merge_pairs(inner)
        j = i + 1
        while j < len(body) and is_comment(body[j]):
            j += 1
        name = _assigned(stmt)
        if name is not None and j < len(body) and _assigned(body[j]) == name:
            later = body[j].value
            if isinstance(later, ast.BinOp) and isinstance(later.op, (ast.Add, ast.Sub)) \
                    and isinstance(later.left, ast.Name) and later.left.id == name \
                    and not _reads(later.right, name) and not _reads(stmt.value, name):
                merged = _factor(ast.BinOp(stmt.value, later.op, later.right))
                if merged is not None:
                    stmt.value = merged
                    del body[j]
                    changed = True
                    continue
        i += 1
    return changed


def _merge_apart(func: ast.FunctionDef, start: int) -> bool:
    """``x = g * a``, other statements, ``x = x - t`` with ``t = g * b`` made between and read only
    there: ``x = g * (a - b)`` in the last one's place (a GRU's ``h = (1 - z) * h + z * c`` gives
    ``z_bar`` so).  The first value moves down to the last statement past statements that neither
    read `x` nor rebind or write into what it reads; a temporary read once (``t``, or ``-t``) is
    taken into the sum where nothing between its statement and the sum changes what it reads."""
    stores, loads = Counter(), Counter()
    for n in nodes(func):
        if isinstance(n, ast.Name):
            (stores if isinstance(n.ctx, ast.Store) else loads)[n.id] += 1
    changed = False
    nested = [inner for stmt in func.body[start:] for inner in list(bodies([stmt]))[1:]]  # the backward's only
    for body in [func.body, *nested]:
        i = start if body is func.body else 0
        while i < len(body):
            changed |= _merge_apart_at(body, i, stores, loads)
            i += 1
    return changed


def _merge_apart_at(body: list[ast.stmt], i: int, stores: Counter, loads: Counter) -> bool:
    name = _assigned(body[i])
    if name is None or not is_pure(body[i].value) or _reads(body[i].value, name):
        return False
    j = next((j for j in range(i + 1, len(body)) if name in mentions(body[j])), None)
    if j is None or _assigned(body[j]) != name or any(is_compound(s) for s in body[i:j]):
        return False
    later = body[j].value
    if not (isinstance(later, ast.BinOp) and isinstance(later.op, (ast.Add, ast.Sub))
            and isinstance(later.left, ast.Name) and later.left.id == name and not _reads(later.right, name)):
        return False
    if not _still(body[i].value, body[i + 1:j]):
        return False
    moved = {i: body[i].value}  # statement index -> the value it takes to the sum
    left = _temporary(body, body[i].value, range(i), j, stores, loads, moved)
    right = _temporary(body, later.right, range(i + 1, j), j, stores, loads, moved)
    merged = _factor(ast.BinOp(left, later.op, right))
    if merged is None:
        return False
    body[j].value = merged
    for k in sorted(moved, reverse=True):
        del body[k]
    return True


def _temporary(body, expr, where: range, j: int, stores, loads, moved: dict) -> ast.expr:
    """`expr`, or the value of the temporary it names (``t`` or ``-t``), made at an index of
    `where`, where that value can move to `j`."""
    negated = isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub)
    inner = expr.operand if negated else expr
    if not isinstance(inner, ast.Name) or stores[inner.id] != 1 or loads[inner.id] != 1:
        return expr
    k = next((k for k in where if _assigned(body[k]) == inner.id), None)
    if k is None or not is_pure(body[k].value) or not _still(body[k].value, body[k + 1:j]):
        return expr
    moved[k] = body[k].value
    return ast.UnaryOp(ast.USub(), body[k].value) if negated else body[k].value


def _still(expr: ast.expr, between: list[ast.stmt]) -> bool:
    """Whether `expr` has the same value after the statements `between` as before them."""
    read = mentions(expr)
    return not any(read & (writes(s) | written_into(s)) for s in between)




def _assigned(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return None


def _reads(expr: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))


def factor_sums(body: list[ast.stmt], assigns) -> bool:
    """Factor the sums of the top-level ``name = ...`` (``name[i] += ...``) of `body` where
    ``assigns(name)``, by a common name or number (``d * -2 * a + e * -2 * b -> -2 * (d * a +
    e * b)``: a tangent's product rule repeats the factors of the product it differentiates).

    A term's factor made as a number times a name (``t4_bar = 200.0 * t4``, both bound once and
    never written into) is read as that product where then every term has a number and a
    value made so is read nowhere else: the numbers come out together (``-400.0 * (t4_dot * t2
    + t4 * t2_dot)``), and the scaled array is not made at all."""
    loads = Counter(n.id for s in body for n in nodes(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    scaled = _scaled_names(body)
    changed, read_later = False, set()
    for stmt in body:
        name = _assigned(stmt)
        if isinstance(stmt, ast.AugAssign):  # ``x_bar_1_dot[:-1] += ...``: a sum into x_bar_1_dot
            root = stmt.target
            while isinstance(root, ast.Subscript):
                root = root.value
            name = root.id if isinstance(root, ast.Name) else None
        if name is not None and assigns(name):
            found = _Sums(scaled, loads)
            stmt.value = found.visit(stmt.value)
            changed |= found.changed
            read_later |= found.read
    if read_later:  # a ``del`` of what an expanded product reads now comes too early (memory.release
        for stmt in body:  # frees each name after its last read again)
            if isinstance(stmt, ast.Delete):
                stmt.targets = [t for t in stmt.targets if not (isinstance(t, ast.Name) and t.id in read_later)]
        body[:] = [s for s in body if not (isinstance(s, ast.Delete) and not s.targets)]
    return changed


class _Sums(ast.NodeTransformer):
    """Each outermost sum of an expression factored (a sum an index_add adds: its argument)."""

    def __init__(self, scaled: dict, loads: Counter):
        self.scaled, self.loads, self.changed, self.read = scaled, loads, False, set()

    def visit_BinOp(self, node: ast.BinOp):
        expanded = _expand_scaled(node, self.scaled, self.loads)
        new = _factor(expanded, numbers=True) if expanded is not None else None
        if new is not None:
            self.read |= mentions(new)
        else:
            new = _factor(node, numbers=True)
        if new is None:
            return self.generic_visit(node)
        self.changed = True
        return _gather_numbers(new)


def _scaled_names(body: list[ast.stmt]) -> dict[str, tuple[ast.expr, ast.Name]]:
    """``n = c * m`` (or ``m * c``) at the top level, c a number, n and m names bound once and
    never written into: n -> (c, m)."""
    stores = Counter(n.id for s in body for n in nodes(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    changing = mutated(body)
    found = {}
    for stmt in body:
        name, value = _assigned(stmt), getattr(stmt, "value", None)
        if name is None or not (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult)):
            continue
        number, operand = (value.left, value.right) if _is_number(value.left) else (value.right, value.left)
        if _is_number(number) and isinstance(operand, ast.Name) and stores[name] == 1 \
                and stores[operand.id] <= 1 and not {name, operand.id} & changing:
            found[name] = (number, operand)
    return found


def _expand_scaled(node: ast.BinOp, scaled: dict, loads: Counter) -> ast.expr | None:
    """The sum `node` with its scaled names read as their products, where that pays (`factor_sums`)."""
    if not isinstance(node.op, (ast.Add, ast.Sub)):
        return None
    terms, dies = [], False
    for negated, factors, _ in _terms(node, False):
        out = []
        for f in factors:
            if isinstance(f, ast.Name) and f.id in scaled:
                number, operand = scaled[f.id]
                out += [number, operand]
                dies |= loads[f.id] == 1
            else:
                out.append(f)
        if not any(_is_number(f) for f in out):
            return None
        terms.append((negated, out))
    return _sum(terms) if dies else None


def _is_number(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _gather_numbers(expr: ast.expr) -> ast.expr:
    """``c1 * (c2 * e) -> (c1 c2) * e`` and ``c * -e -> (-c) * e``: the numbers a factoring took
    out one after another, one multiplication."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _gather_numbers(expr.operand)
        if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mult) and _is_number(inner.left):
            return ast.BinOp(ast.Constant(-inner.left.value), ast.Mult(), inner.right)
        return ast.UnaryOp(ast.USub(), inner)
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult) and _is_number(expr.left)):
        return expr
    right = _gather_numbers(expr.right)
    if isinstance(right, ast.UnaryOp) and isinstance(right.op, ast.USub):
        return _gather_numbers(ast.BinOp(ast.Constant(-expr.left.value), ast.Mult(), right.operand))
    if isinstance(right, ast.BinOp) and isinstance(right.op, ast.Mult) and _is_number(right.left):
        return ast.BinOp(ast.Constant(expr.left.value * right.left.value), ast.Mult(), right.right)
    return ast.BinOp(expr.left, ast.Mult(), right)


def _key(factor: ast.expr, numbers: bool):
    """What identifies a factor that may be taken out: a name, or (with `numbers`) a number."""
    if isinstance(factor, ast.Name):
        return factor.id
    if numbers and isinstance(factor, ast.Constant) and type(factor.value) in (int, float):
        return (type(factor.value), repr(factor.value))  # (0.0 is not -0.0)
    return None


def _factor(expr: ast.expr, numbers: bool = False) -> ast.expr | None:
    """`expr` with a common name (or number) factored out of its terms, or None if nothing to gain."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub))):
        return None
    terms = _terms(expr, False)
    counts = Counter()
    for _, factors, _ in terms:
        if len(factors) > 1:
            counts.update(list(dict.fromkeys(k for k in (_key(f, numbers) for f in factors) if k is not None)))
    best = [key for key, n in counts.items() if n >= 2]
    if not best:
        return None
    key = max(best, key=lambda n: counts[n])  # first of the most shared (Counter keeps order)
    group, rest = [], []
    taken = None
    for negated, factors, written in terms:
        index = next((i for i, f in enumerate(factors) if _key(f, numbers) == key), None)
        if index is None or len(factors) == 1:
            rest.append((negated, [written]))
        else:
            taken = factors[index]
            group.append((negated, factors[:index] + factors[index + 1:]))
    inner = _sum(group)
    inner = _factor(inner, numbers) or inner
    product = ast.BinOp(taken, ast.Mult(), inner)
    if not rest:
        return product
    outer = _sum(rest)
    outer = _factor(outer, numbers) or outer
    if isinstance(outer, ast.UnaryOp) and isinstance(outer.op, ast.USub):
        return ast.BinOp(product, ast.Sub(), outer.operand)
    return ast.BinOp(outer, ast.Add(), product)


def _terms(expr: ast.expr, negated: bool) -> list[Term]:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        right_negated = negated != isinstance(expr.op, ast.Sub)
        return _terms(expr.left, negated) + _terms(expr.right, right_negated)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _terms(expr.operand, not negated)
    factors = _factors(expr)
    if len(factors) > 1 and any(_negation(f) for f in factors):  # ``-g * a``: the sign taken out of g
        flips = sum(1 for f in factors if _negation(f))
        factors = [f.operand if _negation(f) else f for f in factors]
        return [(negated != (flips % 2 == 1), factors, _product(factors))]
    return [(negated, factors, expr)]


def _negation(e: ast.expr) -> bool:
    return isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub)


def _factors(expr: ast.expr) -> list[ast.expr]:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return _factors(expr.left) + _factors(expr.right)
    return [expr]


def _product(factors: list[ast.expr]) -> ast.expr:
    out = factors[0]
    for f in factors[1:]:
        out = ast.BinOp(out, ast.Mult(), f)
    return out


def _sum(terms: list[Term]) -> ast.expr:
    plain = next((i for i, (negated, _) in enumerate(terms) if not negated), 0)
    terms = [terms[plain]] + terms[:plain] + terms[plain + 1:]  # ``b - a``, not ``-a + b``
    first_negated, first = terms[0]
    out = _product(first)
    if first_negated:
        out = ast.UnaryOp(ast.USub(), out)
    for negated, factors in terms[1:]:
        out = ast.BinOp(out, ast.Sub() if negated else ast.Add(), _product(factors))
    return out


__all__ = ["factor_backward", "factor_sums"]
