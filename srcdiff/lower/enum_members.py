"""Members of an ``enum.Enum`` as static values: an argument ``mode=Act.TANH``, a global, a
class attribute ``Act.RELU``.

A member decides code (``if mode is Act.RELU:``), never carries a gradient, and is one object;
so the gradient is specialised on it like any other static argument (the cache key holds it),
and a test of two members (``is``, ``is not``, ``==``, ``!=``) or its ``.value`` / ``.name`` is
decided when the gradient is built -- the generated code (numba's too) never sees the class.
"""

from __future__ import annotations

import ast
import enum
import operator

from ..errors import SrcDiffError
from ..frontend.depends import MISSING
from .static_values import StaticParameter, constant, static_parameter, static_value

_TESTS = {ast.Is: operator.is_, ast.IsNot: operator.is_not, ast.Eq: operator.eq, ast.NotEq: operator.ne}


def enum_member(state, node: ast.expr):
    """The member `node` names (``Act.TANH``, a global, a static parameter's value), or None.
    A parameter asked for the first time raises `StaticParameter`: lowered again with its value."""
    if isinstance(node, ast.Attribute):
        owner = static_value(state, node.value)
        if isinstance(owner, type) and issubclass(owner, enum.Enum):
            member = getattr(owner, node.attr, None)
            return member if isinstance(member, enum.Enum) else None
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    try:
        value = constant(state, node)
    except StaticParameter:
        raise
    except SrcDiffError:
        return None
    return value if isinstance(value, enum.Enum) else None


def enum_test(state, node: ast.Compare):
    """The value of ``mode is Act.RELU`` (``==``, ``is not``, ``!=``) where one side names a member
    and the other a member or a parameter (then static); else MISSING."""
    if len(node.ops) != 1 or type(node.ops[0]) not in _TESTS:
        return MISSING
    left, right = node.left, node.comparators[0]
    if not any(isinstance(e, ast.Attribute) and enum_member(state, e) is not None for e in (left, right)):
        return MISSING  # neither side is written as a member: nothing to decide here
    if not all(enum_member(state, e) is not None or static_parameter(state, e) is not None for e in (left, right)):
        return MISSING
    a, b = enum_member(state, left), enum_member(state, right)  # a parameter: its value, static from now on
    return _TESTS[type(node.ops[0])](a, b)
