"""Comparisons of sympy values, and the truth of branch tests, for code running on symbols.

A comparison of symbols (``x > y``) is a `Truth`: 1 or 0 in arithmetic (a ``Piecewise``),
but it has no truth value, so a branch on it raises `NotSymbolic` instead of taking one side
for every value of the symbols.  `NotSymbolic` is what every part of the symbolic run raises
when it reaches something sympy cannot evaluate.
"""

from __future__ import annotations

import ast
import builtins
import operator
from dataclasses import dataclass

import numpy as np
import sympy as sp


class NotSymbolic(Exception):
    """The code reached something sympy cannot evaluate; the message says what."""


@dataclass
class Truth:
    """A comparison of sympy values: 1 or 0 in arithmetic, but it has no truth value."""

    relation: object

    def as_number(self):
        """1 where the comparison holds, 0 elsewhere, as a sympy ``Piecewise``."""
        return self.select(1, 0)

    def select(self, x, y):
        """`x` where the comparison holds, `y` elsewhere, as a sympy ``Piecewise``.  (sympy 1.14
        recurses without end putting an equation of floats such as ``Eq(0.3*r, -0.7*r)`` in
        canonical form inside a ``Piecewise``; the difference compared with 0 is the same
        condition, and it does not.)"""
        relation = self.relation
        if isinstance(relation, sp.core.relational.Relational) and relation.rhs != 0:
            relation = relation.func(sp.expand(relation.lhs - relation.rhs), 0)
        try:
            return sp.Piecewise((x, relation), (y, True))
        except RecursionError:
            relation = self.relation
            if not isinstance(relation, sp.core.relational.Relational):
                raise
            return sp.Piecewise((x, relation.func(relation.lhs - relation.rhs, 0)), (y, True))

    def __bool__(self):
        raise NotSymbolic(f"a branch depends on the symbolic comparison {self.relation}")

    def __mul__(self, other):
        return self.as_number() * other

    def __rmul__(self, other):
        return other * self.as_number()

    def __add__(self, other):
        return self.as_number() + other

    def __radd__(self, other):
        return other + self.as_number()

    def __sub__(self, other):
        return self.as_number() - other

    def __rsub__(self, other):
        return other - self.as_number()

    def __truediv__(self, other):
        return self.as_number() / other

    def __neg__(self):
        return -self.as_number()

    # ---- logic between comparisons (``(x > y) | np.isnan(y)``) stays a comparison ----

    def __and__(self, other):
        return Truth(sp.And(self.relation, relation(other)))

    __rand__ = __and__

    def __or__(self, other):
        return Truth(sp.Or(self.relation, relation(other)))

    __ror__ = __or__

    def __invert__(self):
        return Truth(sp.Not(self.relation))


def relation(value):
    """The sympy relation of a `Truth`, or a plain truth value as sympy's true/false."""
    return value.relation if isinstance(value, Truth) else sp.sympify(bool(value))


# `==` on sympy values compares structure (x == Max(x, y) is False): Eq/Ne compare values.
COMPARE = {ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Eq: sp.Eq, ast.NotEq: sp.Ne}


def compare_one(op, a, b):
    """``op(a, b)`` on two values: a bool when it is decided, a `Truth` when it depends on symbols."""
    result = op(a, b)
    if isinstance(result, sp.logic.boolalg.BooleanAtom):
        return bool(result)
    if isinstance(result, sp.Basic):
        return Truth(result)
    return result


def compare(name: str, a, b):
    """``a <op> b`` for generated code: elementwise on object arrays, `Truth` when symbolic."""
    op = COMPARE[getattr(ast, name)]
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.frompyfunc(lambda p, q: compare_one(op, p, q), 2, 1)(a, b)
    return compare_one(op, a, b)


def truth(value=False):
    """The truth of a branch test; a symbolic one (``if x:``, ``bool(x > y)``) refuses."""
    if isinstance(value, np.ndarray) and value.dtype == object and value.size == 1:
        return truth(value.reshape(-1)[0])
    if isinstance(value, Truth):
        return bool(value)  # raises NotSymbolic
    if isinstance(value, sp.Basic) and not isinstance(value, sp.logic.boolalg.BooleanAtom) \
            and not value.is_number:
        raise NotSymbolic(f"a branch depends on the truth of the symbolic value {value}")
    return builtins.bool(value)
