"""Products in batched code with their factors that have no batch axis multiplied first.

A value with a batch axis holds a row per example; a value without one holds a single row. The
pullback of a gradient multiplies adjoints by chains of factors, one statement each:
``t19 = t13_bar * t10``, ``t20 = -2.0 * t19``, ``h_bar = t20 * h`` makes three passes over the
whole batch where one is enough: ``h_bar = t13_bar * (-2.0 * t10 * h)`` multiplies the
row-sized factors first.  On a Hessian's rows (the batch is the number of parameters) each pass
saved is a pass over n times the gradient's arrays.

The rewrite takes a product whose batched factor is a temporary used nowhere else and made by
another such product; both written ``a * b`` of names or numbers with nothing inserted to align
axes (a batched operand that needs axes inserted is left alone: its product with the other
factors first might not align the same way).  Every name involved is assigned at most once, and
before the statements joined, so each factor is the same value where it is read now.  Rounding
may change in the last bit (a product in another order), as in any compiler's reassociation.
"""

from __future__ import annotations

import ast
from collections import Counter

from ..ir.program import Assign

_Factor = ast.Name | ast.Constant


def hoist_factors(body: list, output: ast.expr, rows: frozenset, params: tuple, floats: frozenset = frozenset()
                  ) -> list:
    """`body` with chains of products of one batched value by values without a batch axis
    (`rows` names the values with one) made one product each (see the module's docstring), and
    ``1.0 * p`` of a parameter `p` whose rows are floats (`floats`: a Hessian's seeds) read as
    `p` itself: a copy of the whole batch, changing nothing."""
    loads, stores, first_store = Counter(), Counter(), {}
    for index, item in enumerate(body):
        for node in _nodes(item):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    loads[node.id] += 1
        for name in _stored(item):
            stores[name] += 1
            first_store.setdefault(name, index)
    loads.update(n.id for n in ast.walk(output) if isinstance(n, ast.Name))

    def settled(name: str, before: int) -> bool:  # one value, made before `before`
        return stores[name] == 0 and name in params or stores[name] == 1 and first_store[name] < before

    chains: dict[str, tuple[str, list, int]] = {}  # name -> (its batched factor, the others, where)
    dropped: set[int] = set()
    for index, item in enumerate(body):
        unit = _unit_product(item, floats)
        if unit is not None and settled(unit, index):
            item.expr = ast.Name(unit, ast.Load())
            continue
        split = _product(item, rows)
        if split is None:
            continue
        target, batched, others = split
        if not (settled(batched, index) and all(settled(o.id, index) for o in others if isinstance(o, ast.Name))):
            continue
        inner = chains.get(batched)
        if inner is not None and loads[batched] == 1 and stores[target] == 1:  # a temporary of a chain
            batched, others = inner[0], inner[1] + others
            dropped.add(inner[2])
            item.expr = ast.BinOp(ast.Name(batched, ast.Load()), ast.Mult(), _product_of(others))
        chains[target] = (batched, others, index)
    return [item for index, item in enumerate(body) if index not in dropped]


def _product(item, rows: frozenset) -> tuple[str, str, list] | None:
    """(target, its batched factor, the other factor) of ``target = a * b``, one of a and b a
    batched name, the other a name without a batch axis or a number; None for anything else."""
    if not (isinstance(item, Assign) and len(item.targets) == 1 and isinstance(item.expr, ast.BinOp)
            and isinstance(item.expr.op, ast.Mult)):
        return None
    left, right = item.expr.left, item.expr.right
    if not (isinstance(left, _Factor) and isinstance(right, _Factor)):
        return None
    for batched, other in ((left, right), (right, left)):
        if isinstance(batched, ast.Name) and batched.id in rows and _unbatched(other, rows):
            return item.targets[0], batched.id, [other]
    return None


def _unit_product(item, floats: frozenset) -> str | None:
    """The name `p` of ``target = 1.0 * p`` (or ``p * 1.0``) where `p` is in `floats`."""
    if not (isinstance(item, Assign) and len(item.targets) == 1 and isinstance(item.expr, ast.BinOp)
            and isinstance(item.expr.op, ast.Mult)):
        return None
    for one, name in ((item.expr.left, item.expr.right), (item.expr.right, item.expr.left)):
        if isinstance(one, ast.Constant) and type(one.value) is float and one.value == 1.0 \
                and isinstance(name, ast.Name) and name.id in floats:
            return name.id
    return None


def _unbatched(factor, rows: frozenset) -> bool:
    if isinstance(factor, ast.Constant):
        return type(factor.value) in (int, float)
    return factor.id not in rows


def _product_of(factors: list) -> ast.expr:
    out = factors[0]
    for factor in factors[1:]:
        out = ast.BinOp(out, ast.Mult(), factor)
    return out


def _nodes(item):
    """Every AST node of a statement of the batched program, nested blocks included."""
    for value in vars(item).values():
        if isinstance(value, ast.AST):
            yield from ast.walk(value)
        elif isinstance(value, list):
            for part in value:
                if isinstance(part, ast.AST):
                    yield from ast.walk(part)
                elif hasattr(part, "__dataclass_fields__"):
                    yield from _nodes(part)


def _stored(item):
    """The names a statement of the batched program assigns, in nested blocks too."""
    for name in getattr(item, "targets", None) or ():
        yield name
    if getattr(item, "target_name", None):
        yield item.target_name
    for node in _nodes(item):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            yield node.id
    for value in vars(item).values():
        if isinstance(value, list):
            for part in value:
                if hasattr(part, "__dataclass_fields__"):
                    yield from _stored(part)


__all__ = ["hoist_factors"]
