"""Which ``u > 0`` tests are the point guard ``d != 0`` spelled another way.

``np.abs(d) > 0``, ``d ** 2 > 0``, ``d * d > 0``, ``np.sqrt(d * d) > 0`` (and ``u <= 0``, ``0 < u``)
hold exactly where ``d != 0``: at ``d == 0`` the branch taken there gives its own derivative,
which is the truth only by chance (``np.where(np.abs(x) > 0, x, 0.0)``: 0 where the truth is 1,
``np.expm1(x) / x`` guarded so: 0 where it is 1/2).  Such a test is lowered as the equality guard
(point_guards.py): NaN at the point, for directions that move `d`, exact elsewhere.  The guard is
put on `d` itself, since ``np.sqrt(d * d)``'s own rule selects an exact 0 at ``d == 0``, which
would drop the NaN; `guard_target` does the same for ``u == 0`` of such a `u`.

`d` must be made smoothly from the arguments within `DEPTH` nodes: a `d` through a kink or a
select (``np.maximum(y, 0.0) ** 2 > 0``), or a difference of two values of one argument (the
diagonal of ``X[:, None] - X[None, :]``), may be 0 on a whole region, where the branch taken
is the function: such a test stays as written.  Measures of several values (``np.hypot``, a
norm, a sum of squares) are not read as guards: their branch at 0 is often exactly right
(``np.where(n > 0, n ** 3, 0.0)``), docs/guarantees.md says when it is not.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..ir.nodes import Const, Node, Operand, Var
from .state import LoweringState

DEPTH = 8  # nodes searched back from `u`: a guard is written next to what it measures

#: Never negative, and 0 exactly where the operand is 0, element by element.
ELEMENTWISE_MEASURES = frozenset({"numpy.absolute", "abs", "numpy.fabs", "math.fabs", "numpy.square"})
#: Smooth: what they make from the arguments is 0 on a set without interior (unless it is constant).
SMOOTH = frozenset({"getitem", "operator.add", "operator.sub", "operator.mul", "operator.truediv",
                    "operator.neg", "numpy.add", "numpy.subtract", "numpy.multiply", "numpy.divide",
                    "numpy.negative", "numpy.diff", "operator.matmul", "numpy.dot", "ndarray.T",
                    "numpy.transpose", "numpy.sum", "numpy.mean", "numpy.sin", "numpy.cos", "numpy.exp",
                    "numpy.tanh", "math.sin", "math.cos", "math.exp", "numpy.stack", "numpy.reshape"})
_MIRROR = {ast.Gt: ast.Lt, ast.Lt: ast.Gt, ast.GtE: ast.LtE, ast.LtE: ast.GtE}


def compares_with_zero(test: ast.expr) -> bool:
    """Whether `test` is written ``u > 0``, ``0 < u``, ``u <= 0`` or ``0 >= u`` (a quick look
    before lowering, so that no other condition takes this path)."""
    return compare_test(test) is not None


def compare_test(test) -> tuple[ast.expr, type] | None:
    """``(u, op)`` with the test read as ``u op 0``, for op ``>`` or ``<=``; None otherwise."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, type(test.ops[0]), test.comparators[0]
    if is_zero(right):
        u = left
    elif is_zero(left):
        u, op = right, _MIRROR.get(op)
    else:
        return None
    return (u, op) if op in (ast.Gt, ast.LtE) else None


def is_zero(expr: ast.expr) -> bool:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        expr = expr.operand
    return isinstance(expr, ast.Constant) and type(expr.value) in (int, float) and expr.value == 0


def guarded_zero(state: LoweringState, value: Operand | None, condition_of: bool = False,
                 lower_expr: Callable[[ast.expr], Operand] | None = None) -> tuple[Var, bool] | None:
    """``(target, at_the_point)`` when `value` (or, with `condition_of`, the condition of the
    ``np.where`` that made `value`) is a test ``u > 0`` / ``u <= 0`` of a `u` that qualifies;
    `target` is what to guard (`guard_target`), `at_the_point` whether the test holds where
    ``u == 0`` (``<=``).  A number's test is
    one node over the user's expression (``abs(x) > 0``): `lower_expr` lowers its `u` again,
    when that is a pure expression (calls of rules, arithmetic, subscripts)."""
    node = producer(state, value)
    if condition_of:
        node = producer(state, node.inputs[0]) if node is not None and node.inputs else None
    if node is None or node.rule.name not in ("compare", "nograd"):
        return None
    found = compare_test(node.expr)
    if found is None:
        return None
    if isinstance(found[0], ast.Name):
        u = next((v for v in node.input_vars if v.name == found[0].id), None)
    elif lower_expr is not None and pure_expression(found[0]):
        with BoundNames(state, node.input_vars):  # (the test as lowered reads the values' own names)
            u = lower_expr(found[0])
    else:
        return None
    target = elementwise_measure(state, u, DEPTH) if isinstance(u, Var) else None
    return None if target is None else (target, found[1] is ast.LtE)


_PURE = (ast.Name, ast.Attribute, ast.Call, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Subscript, ast.Slice,
         ast.Tuple, ast.Load, ast.operator, ast.unaryop, ast.keyword)


def pure_expression(expr: ast.expr) -> bool:
    """Whether lowering `expr` a second time only makes nodes again (no user call is among its
    calls: elementwise_measure accepts only rules, and a call of anything else is not lowered twice)."""
    calls = [n for n in ast.walk(expr) if isinstance(n, ast.Call)]
    return all(isinstance(n, _PURE) for n in ast.walk(expr)) and all(
        isinstance(c.func, (ast.Name, ast.Attribute)) and _dotted(c.func) in _RULE_SPELLINGS for c in calls)


def _dotted(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return f"{_dotted(expr.value)}.{expr.attr}"
    return ""


#: How code spells the calls `elementwise_measure` and `smoothly_made` follow, for a number's test lowered again.
_RULE_SPELLINGS = frozenset({"abs", "np.abs", "np.absolute", "np.fabs", "math.fabs", "np.hypot", "math.hypot", "np.dot",
                             "np.linalg.norm", "np.square", "np.sqrt", "math.sqrt", "np.sum", "math.fsum",
                             "np.sin", "np.cos", "np.exp", "math.sin", "math.cos", "math.exp", "np.tanh"})


def producer(state: LoweringState, value) -> Node | None:
    """The node of the current block (or the function's own) that made `value`, if any."""
    if not isinstance(value, Var):
        return None
    for block in (state.block, state.root_block):
        if block is not None:
            for node in reversed(block.nodes):
                if getattr(node, "out", None) == value:  # (a branch or loop region has no one value)
                    return node
    return None


def elementwise_measure(state: LoweringState, u: Var, depth: int) -> Var | None:
    """What to guard when `u` qualifies (see `guard_target`), None when it does not."""
    node = producer(state, u)
    if node is None or depth <= 0:
        return None
    name, inputs = node.rule.name, node.inputs
    one = inputs[0] if inputs and isinstance(inputs[0], Var) else None
    if name in ELEMENTWISE_MEASURES and len(node.input_vars) == 1 and one is not None:
        return one if smoothly_made(state, one, depth - 1) else None
    if name in ("operator.pow", "numpy.power") and len(inputs) == 2:
        k = inputs[1]
        even = isinstance(k, Const) and type(k.value) in (int, float) and k.value > 0 and k.value % 2 == 0
        return one if even and one is not None and smoothly_made(state, one, depth - 1) else None
    if name in ("operator.mul", "numpy.multiply") and len(inputs) == 2 and same_value(state, *inputs):
        return one if one is not None and smoothly_made(state, one, depth - 1) else None
    if name in ("numpy.sqrt", "math.sqrt") and one is not None:
        inner = elementwise_measure(state, one, depth - 1)
        return None if inner is None else (inner if inner != one else u)
    return None


def same_value(state: LoweringState, a, b) -> bool:
    """`a` and `b` are one value: the same, or the same element read twice (``w[0] * w[0]``)."""
    if a == b:
        return True
    made = [producer(state, v) for v in (a, b)]
    return None not in made and made[0].rule.name == made[1].rule.name == "getitem" \
        and made[0].inputs == made[1].inputs and made[0].static == made[1].static


def guard_target(state: LoweringState, u: Var) -> Var:
    """The value an equality guard of `u` guards: `d` for an elementwise measure of it
    (``np.abs(d)``, ``d ** 2``, ``np.sqrt(d * d)``: ``u == 0`` exactly where ``d == 0``), whose
    kink rule would otherwise select the guard's NaN away (``np.sqrt(d * d)``'s derivative at 0 is
    a selected 0), and `u` itself for anything else."""
    found = elementwise_measure(state, u, DEPTH)
    return u if found is None else found


def smoothly_made(state: LoweringState, v: Var, depth: int) -> bool:
    return _roots(state, v, depth) is not None


def _roots(state: LoweringState, v: Var, depth: int) -> frozenset | None:
    """The parameters `v` is made from smoothly; None when it is not.  A difference of two
    values made from one parameter may be 0 whatever the arguments (the diagonal of
    ``X[:, None] - X[None, :]``, a pairwise distance's 0 that the guard is there for), so it
    does not count: its zero set may have an interior."""
    if v in state.params:
        return frozenset({v.name})
    node = producer(state, v)
    if node is None or depth <= 0 or node.rule.name not in SMOOTH:
        return None
    parts = [_roots(state, w, depth - 1) for w in node.input_vars]
    if any(p is None for p in parts):
        return None
    if node.rule.name in ("operator.sub", "numpy.subtract") and len(parts) == 2 and parts[0] & parts[1]:
        return None
    return frozenset().union(*parts)


class BoundNames:
    """Operands bound to their own names while an expression of them is lowered (a user's
    binding of the same name is put back after)."""

    def __init__(self, state: LoweringState, operands):
        self.state, self.names = state, {v.name: v for v in operands if isinstance(v, Var)}

    def __enter__(self):
        self.before = {k: self.state.env[k] for k in self.names if k in self.state.env}
        self.state.env.update(self.names)

    def __exit__(self, *exc):
        for k in self.names:
            self.state.env.pop(k, None)
        self.state.env.update(self.before)


