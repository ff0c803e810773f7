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
from ..ir.nodes import Const
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


def member_attribute(state, node: ast.Attribute):
    """``mode.value`` / ``mode.name`` of a member: its value, else MISSING.  While a callee is analysed
    (its static parameters stand-ins, not values) a parameter's is a stand-in too."""
    if node.attr not in ("value", "name") or not isinstance(node.value, (ast.Name, ast.Attribute)):
        return MISSING
    member = enum_member(state, node.value)
    if member is not None:
        return getattr(member, node.attr)
    if not state.facts.statics_known and static_parameter(state, node.value) is not None:
        return 1.0  # any value lets the analysis run to the end (callee_facts.py)
    return MISSING


def enum_test(state, node: ast.Compare):
    """The value of ``mode is Act.RELU`` (``==``, ``is not``, ``!=``, ``mode.name == "RELU"``) where one
    side is written as a member, or a member's ``.value`` / ``.name``, and the other is a member, a
    parameter (then static) or a literal; else MISSING."""
    if len(node.ops) != 1 or type(node.ops[0]) not in _TESTS:
        return MISSING
    sides = (node.left, node.comparators[0])
    if not any(isinstance(e, ast.Attribute) and _side(state, e, probe=True) is not MISSING for e in sides):
        return MISSING  # nothing of an enum written here
    values = [_side(state, e) for e in sides]  # a parameter: its value, static from now on
    if any(v is MISSING for v in values):
        return MISSING
    return _TESTS[type(node.ops[0])](*values)


def _side(state, node: ast.expr, probe: bool = False):
    """What a side of a test is: a member, a member's ``.value``/``.name``, a literal (or, unless
    `probe`, a parameter that holds a member); MISSING otherwise."""
    if isinstance(node, ast.Constant):
        return MISSING if probe else node.value
    if isinstance(node, ast.Attribute) and node.attr in ("value", "name"):
        owner = _member_or_none(state, node.value, probe)
        if owner is not None:
            return getattr(owner, node.attr)
    member = _member_or_none(state, node, probe)
    return MISSING if member is None else member


def _member_or_none(state, node: ast.expr, probe: bool):
    if probe and static_parameter(state, node) is not None:
        return None  # a parameter alone does not say the test is of an enum
    if isinstance(node, ast.Name) and static_parameter(state, node) is None and node.id in state.env:
        bound = state.env[node.id]  # a local variable: a static value only when it holds a member
        return bound.value if isinstance(bound, Const) and isinstance(bound.value, enum.Enum) else None
    return enum_member(state, node)


def enum_item(state, node: ast.Subscript):
    """``Act[name]`` of an enum class, `name` a constant (or a static parameter's value): the member,
    else MISSING (a key known only when the function runs: read as written, with no gradient)."""
    owner = static_value(state, node.value) if isinstance(node.value, (ast.Name, ast.Attribute)) else MISSING
    if not isinstance(owner, enum.EnumMeta):
        return MISSING
    try:
        return owner[constant(state, node.slice)]
    except StaticParameter:
        raise
    except (SrcDiffError, KeyError, TypeError):
        return MISSING


def enum_called(state, node: ast.Call):
    """``Act(value)`` of an enum class, `value` a constant (or a static parameter's value): the member,
    else MISSING (a value known only when the function runs: the call is kept, with no gradient)."""
    owner = static_value(state, node.func, record=False) if isinstance(node.func, (ast.Name, ast.Attribute)) \
        else MISSING
    if not isinstance(owner, enum.EnumMeta) or len(node.args) != 1 or node.keywords:
        return MISSING
    try:
        value = constant(state, node.args[0])
    except StaticParameter:
        raise
    except SrcDiffError:
        return MISSING
    static_value(state, node.func)  # (the gradient is then built on the class)
    try:
        return owner(value)
    except ValueError:
        return MISSING  # (Python raises: the call is kept, and raises when the function runs)


def is_enum_class(state, node: ast.expr) -> bool:
    """Whether `node` names an enum class (``Act`` of ``Act[name]``)."""
    return isinstance(node, (ast.Name, ast.Attribute)) \
        and isinstance(static_value(state, node, record=False), enum.EnumMeta)
