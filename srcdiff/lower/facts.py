"""What the arguments of the call a gradient is specialised for tell lowering before it runs.

A gradient is compiled per argument signature (type; for arrays ndim, dtype kind and which
axes have length one).  Library code branches on exactly such facts: ``if b is None``,
``axis = tuple(range(a.ndim)) if axis is None else axis``, ``out[()] if out.ndim == 0 else
out``.  Lowering decides those at specialisation time, as the reader of the code would:

- a parameter whose argument is None or a bool is that constant (the transform is keyed on
  them: `constant_arguments`), so ``b is None`` is True, ``if return_sign:`` takes one side,
  and ``b is not None`` of an array is False;
- ``x.ndim`` of a value whose shape follows from the parameters' signatures is a constant
  (the transform is then keyed on the whole signature: `ParamFacts.used_shapes`).

Without arguments (``.source`` before a call) nothing is known and both stay run-time values.
"""

from __future__ import annotations

import ast
import inspect
import operator
from dataclasses import dataclass, field

import numpy as np

from ..frontend.depends import MISSING, static_ok
from ..frontend.parse import unwrap
from ..ir import shapes
from ..ir.nodes import Const, Operand, Var, typed
from ..ir.shape_inference import made_shape
from ..ir.shapes import Shape


class _NotNone:
    """The value a call gives a parameter is an array or a number (a caller's fact)."""

    def __repr__(self) -> str:
        return "<not None>"


#: In ``Specialised.statics``: the call passes this parameter a value that is not None.
NOT_NONE = _NotNone()


def none_tested(tree: ast.FunctionDef) -> set[str]:
    """The names a function compares with None (``if b is not None:``)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            sides = (node.left, node.comparators[0])
            if any(_is_none_literal(e) for e in sides):
                found |= {e.id for e in sides if isinstance(e, ast.Name)}
    return found


@dataclass
class ParamFacts:
    """The facts lowering may use, and whether it used the shapes (then part of the key)."""

    constants: dict[str, object] = field(default_factory=dict)  # parameters whose argument is None or a bool
    known: bool = False  # `constants` is complete: any other parameter is not None
    param_shapes: dict[str, Shape] | None = None  # the parameters' shapes; None: not known
    used_shapes: bool = False  # lowering read a shape fact, so the signature decides the code
    shapes: dict[str, Shape] = field(default_factory=dict)  # Var name -> shape, as far as known
    statics_known: bool = True  # the static parameters' values are real (not an analysis's stand-ins)
    statics: dict = field(default_factory=dict)  # this variant's static parameters' values
    given_statics: dict = field(default_factory=dict)  # ... as a caller gives them before lowering asks
    not_none: frozenset[str] = frozenset()  # parameters a caller passes a value that is not None

    def start(self, params: list[Var], statics) -> None:
        """Before lowering: the parameters' shapes are the first known ones."""
        self.statics = {**self.given_statics, **(statics or {})}
        self.shapes = dict(self.param_shapes or {})
        self.used_shapes = False
        self.params = {p.name for p in params}

    def note(self, out: Var, rule, static: dict, inputs, expr: ast.expr | None = None) -> None:
        """The shape of a node's value, from its rule and the shapes of its inputs (and, for an
        array made from a shape, the call's text `expr`)."""
        if self.param_shapes is None:
            return
        operands = [self.shape_of(v) for v in inputs]
        try:
            shape = made_shape(rule.name, expr, operands) or rule.result_shape(static, operands)
        except Exception:  # an axis out of range: the forward pass will say so itself
            shape = shapes.UNKNOWN
        if shape.known or shape.none:
            self.shapes[out.name] = shape
        else:
            self.shapes.pop(out.name, None)

    def shape_of(self, operand: Operand) -> Shape:
        if isinstance(operand, Var):
            return self.shapes.get(operand.name, shapes.UNKNOWN)
        if isinstance(operand, Const):
            return shapes.of_constant(operand.value)
        return shapes.UNKNOWN

    def ndim(self, operand: Operand):
        """The number of axes of `operand` if the signature decides it, else MISSING."""
        shape = self.shape_of(operand)
        if shape.known and not shape.scalar and shape.shape_of is None:
            if isinstance(operand, Var):
                self.used_shapes = True
            return shape.ndim
        return MISSING

    def is_none(self, operand: Operand):
        """Whether `operand` is None, when the specialisation decides it; else MISSING."""
        if isinstance(operand, Const):
            return operand.value is None
        if isinstance(operand, Var) and operand.name in self.params and operand.name in self.statics \
                and self.statics_known:
            return self.statics[operand.name] is None  # a static parameter (``axis=axis``)
        if isinstance(operand, Var) and operand.name in self.not_none and operand.name in self.params:
            return False
        if isinstance(operand, Var) and self.known and operand.name in self.params - set(self.constants):
            return False  # a parameter bound to a Var: its argument is not None
        return MISSING


class ConstDict(dict):
    """A dict of constants as a `Const` value: hashable by its items, written as a dict literal
    (lower/static_dicts.py reads it with constant keys)."""

    def __hash__(self):
        return hash(tuple(self.items()))


def constant_dict(value) -> ConstDict | None:
    """A dict of numbers, strings, None and tuples of them (nested dicts of those too: a
    configuration) as a `ConstDict`, or None for any other value."""
    if not isinstance(value, dict) or not all(isinstance(k, (str, int)) for k in value):
        return None
    items = []
    for key, item in value.items():
        nested = constant_dict(item) if isinstance(item, dict) else None
        if nested is None and not static_ok(item):
            return None
        items.append((key, item if nested is None else nested))
    return ConstDict(items)


def is_constant_argument(value) -> bool:
    """None, a bool, or NumPy as an array namespace (``xp=np``): an argument a gradient is
    specialised on (it has no gradient)."""
    return value is None or type(value) is bool or value is np


def constant_arguments(names, value_of) -> tuple:
    """``((name, value), ...)`` for the parameters whose value is None or a bool."""
    return tuple((n, value_of(n)) for n in names if is_constant_argument(value_of(n)))


def callee_facts(func, statics: dict, passed) -> ParamFacts:
    """The facts a called user function is lowered with: the None and bool constants the
    call gives it (`statics`, ir.Specialised) and the defaults of what it does not pass."""
    constants = {n: v for n, v in statics.items() if is_constant_argument(v) and v is not NOT_NONE}
    for name, param in inspect.signature(func).parameters.items():
        if name not in passed and name not in constants and param.default is not inspect.Parameter.empty:
            if is_constant_argument(param.default):
                constants[name] = param.default
            elif constant_dict(param.default) is not None:  # cfg={"l2": 0.1}: read with constant keys
                constants[name] = constant_dict(param.default)
    return ParamFacts(constants, not_none=frozenset(n for n, v in statics.items() if v is NOT_NONE))


def facts_key(func, value_of, args, by_signature) -> tuple:
    """(the parameters whose argument is None or a bool with their values, the arguments'
    signatures or None): what of the arguments a transform is built on besides static
    values (lower/facts.py).  The signatures count only if lowering read a shape from them."""
    constants = constant_arguments(inspect.signature(func).parameters, value_of)
    uses = args is not None and typed(constants) in by_signature.get(unwrap(func), ())
    return typed(constants), tuple(map(shapes.signature, args)) if uses else None


def same_facts(key: tuple, names: list, args: tuple) -> bool:
    """Whether `args` give the facts `key` (`facts_key`) holds: the same None and bool
    arguments, and the same signatures if the key has them."""
    constants, signature = key
    if typed(constant_arguments(names, lambda n: args[names.index(n)])) != constants:
        return False
    return signature is None or tuple(map(shapes.signature, args)) == signature


def argument_facts(func, value_of, args) -> ParamFacts:
    """What lowering may read off the arguments (their defaults without arguments)."""
    names = list(inspect.signature(func).parameters)
    constants = dict(constant_arguments(names, value_of))
    known = all(value_of(n) is not MISSING for n in names)
    param_shapes = None if args is None else {n: shapes.of_signature(shapes.signature(a)) for n, a in zip(names, args)}
    return ParamFacts(constants, known, param_shapes)


_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}


def fold(expr: ast.expr, value_of, facts: ParamFacts):
    """The value of a test (``b is None``, ``x.ndim == 0 and keep``) if the specialisation
    decides it, else MISSING.  `value_of(expr)` gives a leaf's operand, or MISSING."""
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = fold(expr.operand, value_of, facts)
        return MISSING if inner is MISSING else not inner
    if isinstance(expr, ast.BoolOp):
        stop = isinstance(expr.op, ast.Or)  # the value that decides `or` (True) or `and` (False)
        results = [fold(v, value_of, facts) for v in expr.values]
        if any(r is not MISSING and bool(r) is stop for r in results):
            return stop  # (a known decisive value is only folded when all before it are known)
        if all(r is not MISSING for r in results):
            return results[-1]
        return MISSING
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        op, left, right = expr.ops[0], expr.left, expr.comparators[0]
        if isinstance(op, (ast.Is, ast.IsNot)):
            if _is_none_literal(right):
                found = facts.is_none(value_of(left)) if value_of(left) is not MISSING else MISSING
            elif _is_none_literal(left):
                found = facts.is_none(value_of(right)) if value_of(right) is not MISSING else MISSING
            else:
                return MISSING
            return found if found is MISSING or isinstance(op, ast.Is) else not found
        if type(op) in _COMPARE:
            a, b = _known(left, value_of, facts), _known(right, value_of, facts)
            if a is MISSING or b is MISSING:
                return MISSING
            return _COMPARE[type(op)](a, b)
    if isinstance(expr, ast.Attribute | ast.Name):
        return _known(expr, value_of, facts)
    return MISSING


def _is_none_literal(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _known(expr: ast.expr, value_of, facts: ParamFacts):
    """A number, string or bool the specialisation decides: a literal, a name bound to a
    constant, ``x.ndim``."""
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.Attribute) and expr.attr == "ndim":
        operand = value_of(expr.value)
        return MISSING if operand is MISSING else facts.ndim(operand)
    operand = value_of(expr)
    if isinstance(operand, Const) and isinstance(operand.value, (bool, int, float, str, type(None))):
        return operand.value
    return MISSING
