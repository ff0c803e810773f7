"""Shape checks for the forward statements a gradient leaves out.

The forward sweep drops every value the backward sweep does not read (``X @ w`` in
``np.sum(X @ w - y)``: the adjoint of ``w`` needs ``X`` and the seed only).  Left out with
the value is the check NumPy would have made while computing it: with ``w`` of the wrong
length the function raises, and a gradient that skipped ``X @ w`` would silently return an
array of another shape.  So each dropped primitive whose shapes can disagree (broadcasting
arithmetic, ``@``/``np.matmul``/``np.dot``) keeps a check of its operands' lengths instead of
its work: a guard ``if X.shape[1] != w.shape[0]: raise ValueError(...)`` in the forward sweep,
plain integer comparisons that numba compiles and that srcdiff reads back (a guard) when it
differentiates the gradient again.  A dropped value's lengths are expressions over values
the gradient has (``X.shape[0]`` for ``X @ w``), so a chain of dropped statements is checked
link by link.  Which axes have length one is known from the signature the code is compiled
for; an axis that may be either is checked as NumPy broadcasts it.
"""

from __future__ import annotations

import ast
import copy
import operator

import numpy as np

from ..ir import shapes
from ..ir.nodes import Const, Global, Node, Var
from ..ir.program import Run
from ..rules.guard_helpers import measure_guard
from ..rules.runtime import index_add

_MATMUL = (operator.matmul, np.matmul)
#: elementwise operations that carry no gradient (so their rules are not marked elementwise)
_COMPARISONS = (operator.gt, operator.ge, operator.lt, operator.le, operator.eq, operator.ne, np.greater,
                np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal, np.logical_and, np.logical_or)
_REDUCTIONS = (np.sum, np.mean, np.max, np.min, np.amax, np.amin, np.std, np.var, np.prod)
#: calls of a list of arrays
_JOINS = (np.concatenate, np.stack, np.hstack, np.vstack, np.dstack, np.column_stack, np.block)
#: ``np.stack(xs)``/``np.array(xs)`` and ``sum(xs)`` of a list made before (rules/structural.py)
_LIST_RULES = ("stack(list)", "sum(list)")
#: calls of several arrays that take any shapes; and the scatter-add of srcdiff's own gradients,
#: whose operands' shapes the gradient that wrote it made agree
_NEVER_RAISE = (np.outer, np.kron, np.multiply.outer, measure_guard, index_add)  # (measure_guard: the identity)


class ShapeChecks:
    """Guards for dropped nodes, in program order; `dims` records each dropped value's axes as
    (length expression, kind) pairs, kind one of `shapes.ONE`, `shapes.MANY`, `shapes.UNKNOWN_DIM`."""

    def __init__(self, shape_of: dict, location, statements: dict | None = None, sources: dict | None = None):
        self.shape_of = shape_of
        #: values whose axes are parameters' (ad/shape_sources.py): a check reads those, so a
        #: value kept for its shape alone (a gradient's scatter-adds) is not computed for it
        self.sources = sources or {}
        self.location = location
        self.dims: dict[str, list | None] = {}
        #: id of a statement -> the node it computes, where the statements are not the nodes
        #: themselves (forward mode writes each node as an assignment beside its tangent)
        self.statements = statements or {}

    def node_of(self, stmt) -> Node | None:
        """The primitive call `stmt` computes, or None."""
        return stmt if isinstance(stmt, Node) else self.statements.get(id(stmt))

    def kept(self, node: Node) -> None:
        """Record a computed value's axes as its operands' where a rule says how (``x > 0.0``
        has ``x``'s): a check comparing it with ``x`` then compares ``x`` with itself, and is
        left out."""
        result = self._result(node, [])
        if result is not None:
            self.dims[node.out.name] = result

    def dropped(self, node: Node) -> list:
        """The guard statements standing for the dropped `node` (maybe none)."""
        tests = []
        result = self._result(node, tests)
        self.dims[node.out.name] = result if result is not None else self._known_dims(node.out.name)
        tests = [t for t in tests if not _never(t)]  # (``r @ r``: a length against itself)
        if not tests:
            return []
        where = self.location(node.line)
        message = f"{where.short}: the operands' shapes do not match (f raises here too)"
        test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests)
        raise_ = ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()), [ast.Constant(message)], []), None)
        return [Run(ast.If(test, [raise_], []), node.line)]

    def must_run(self, node: Node) -> bool:
        """Whether `node`, unused, must still be computed: a call of two or more arrays whose
        shapes can disagree in a way no check here compares (``np.linalg.solve(A, w)``,
        ``np.einsum``, ``np.concatenate``), as f raises there."""
        rule = node.rule
        if rule is None or getattr(rule, "elementwise", False) or getattr(rule, "func", None) in _NEVER_RAISE:
            return False
        if getattr(rule, "func", None) is list and isinstance(getattr(node, "expr", None), (ast.Tuple, ast.List)):
            return False  # pair = (loss, g), written as a literal: Python builds it whatever its items hold
        arrays = [v for v in node.inputs if isinstance(v, (Var, Global)) and not self._scalar(v)]
        joined = getattr(rule, "func", None) in _JOINS or getattr(rule, "name", "") in _LIST_RULES  # one list
        return (len(arrays) >= 2 or joined) and self._result(node, []) is None

    def _scalar(self, operand) -> bool:
        shape = operand.shape if isinstance(operand, Global) else self.shape_of.get(operand.name, shapes.UNKNOWN)
        return shape is not None and shape.known and not shape.none and shape.scalar

    def _result(self, node: Node, tests: list) -> list | None:
        """The axes of `node`'s value, adding to `tests` the comparisons its shapes need."""
        operands = [self._operand_dims(v) for v in node.inputs]
        if None in operands:
            return None
        func = getattr(node.rule, "func", None)
        name = getattr(node.rule, "name", "")
        if getattr(node.rule, "elementwise", False) or func in _COMPARISONS or name == "compare":
            result = operands[0] if operands else []
            for dims in operands[1:]:
                result = _broadcast(result, dims, tests)
            return result
        if name in ("ndarray.T", "numpy.transpose") and len(operands) == 1 and not node.static.get("axes"):
            return list(reversed(operands[0]))
        if func in _MATMUL or (func is np.dot and all(len(d) <= 2 for d in operands)):
            return _matmul(operands, tests) if len(operands) == 2 else None
        if func in _REDUCTIONS and len(operands) == 1 and set(node.static) <= {"axis", "keepdims", "ddof"}:
            return _reduced(operands[0], node.static.get("axis"), node.static.get("keepdims", False))
        return None

    def _operand_dims(self, operand) -> list | None:
        if isinstance(operand, Const):
            if isinstance(operand.value, (tuple, list)):
                return None  # (a tuple of tuples of different lengths has no np.ndim: a ValueError)
            return [] if np.ndim(operand.value) == 0 and not isinstance(operand.value, (str, type(None))) else None
        if isinstance(operand, Var) and operand.name in self.dims:
            return self.dims[operand.name]
        if isinstance(operand, Var):
            shape = self.shape_of.get(operand.name, shapes.UNKNOWN)
        elif isinstance(operand, Global) and operand.shape is not None:
            shape = operand.shape
        else:
            return None
        if not shape.known or shape.none or shape.shape_of is not None:
            return None
        if shape.scalar or not shape.dims:
            return []
        axes = self.sources.get(operand.name) if isinstance(operand, Var) else None
        if axes is not None and len(axes) == len(shape.dims):
            return [(copy.deepcopy(axis), kind) for axis, kind in zip(axes, shape.dims)]
        name = ast.Name(operand.name, ast.Load())
        return [(_length(name, i), kind) for i, kind in enumerate(shape.dims)]

    def _known_dims(self, name: str) -> list | None:
        """A dropped value's axes where its shape says all of them without a length (a
        number, or axes of length one), else None (checks that need it are left out)."""
        shape = self.shape_of.get(name, shapes.UNKNOWN)
        if not shape.known or shape.none or shape.shape_of is not None:
            return None
        if all(kind == shapes.ONE for kind in shape.dims):
            return [(ast.Constant(1), shapes.ONE) for _ in shape.dims]
        return None


def _length(name: ast.expr, axis: int) -> ast.expr:
    shape = ast.Attribute(name, "shape", ast.Load())
    return ast.Subscript(shape, ast.Constant(axis), ast.Load())


def _broadcast(a: list, b: list, tests: list) -> list:
    """The axes of `a` and `b` broadcast together, adding to `tests` a comparison per pair of
    aligned axes whose lengths may disagree."""
    out = []
    width = max(len(a), len(b))
    a = [None] * (width - len(a)) + list(a)
    b = [None] * (width - len(b)) + list(b)
    for left, right in zip(a, b):
        if left is None or right is None:
            out.append(left or right)
        elif left[1] == shapes.ONE:
            out.append(right)
        elif right[1] == shapes.ONE:
            out.append(left)
        elif ast.dump(left[0]) == ast.dump(right[0]):  # the same length (x * x)
            out.append(left)
        elif left[1] == shapes.MANY and right[1] == shapes.MANY:
            tests.append(_differ(left[0], right[0]))
            out.append(left)
        else:  # one of them may have length one: NumPy broadcasts then
            one = ast.Constant(1)
            tests.append(ast.BoolOp(ast.And(), [_differ(left[0], right[0]), _differ(left[0], one),
                                                _differ(right[0], one)]))
            kind = shapes.MANY if shapes.MANY in (left[1], right[1]) else shapes.UNKNOWN_DIM
            out.append((ast.Call(ast.Name("max", ast.Load()), [left[0], right[0]], []), kind))
    return out


def _matmul(operands: list, tests: list) -> list | None:
    a, b = operands
    if not a or not b:
        return None
    inner_a, inner_b = a[-1], (b[-2] if len(b) > 1 else b[0])
    if shapes.ONE not in (inner_a[1], inner_b[1]) or inner_a[1] != inner_b[1]:
        tests.append(_differ(inner_a[0], inner_b[0]))
    if len(a) == 1:
        return list(b[:-2]) + [b[-1]] if len(b) > 1 else []
    if len(b) == 1:
        return list(a[:-1])
    return _broadcast(a[:-2], b[:-2], tests) + [a[-2], b[-1]]


def _reduced(dims: list, axis, keepdims) -> list | None:
    """The axes of a reduction's value over `axis` (None: all)."""
    if axis is None:
        return [(ast.Constant(1), shapes.ONE) for _ in dims] if keepdims else []
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(isinstance(a, int) and -len(dims) <= a < len(dims) for a in axes):
        return None
    axes = {a % len(dims) for a in axes}
    if keepdims:
        return [(ast.Constant(1), shapes.ONE) if i in axes else d for i, d in enumerate(dims)]
    return [d for i, d in enumerate(dims) if i not in axes]


def _differ(left: ast.expr, right: ast.expr) -> ast.expr:
    """``left != right``, the two in the order of the parameters' names (``X.shape[0] !=
    y.shape[0]`` however the operation spelled them): the same test twice is written once."""
    if ast.unparse(right) < ast.unparse(left) and not isinstance(right, ast.Constant):
        left, right = right, left
    return ast.Compare(left, [ast.NotEq()], [right])


def _never(test: ast.expr) -> bool:
    """Whether `test` is false whatever the shapes: a length compared with the same expression
    (``r.shape[0] != r.shape[0]`` of ``r @ r`` or ``np.dot(d, d)``; lengths are ints), or a
    conjunction holding one."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_never(v) for v in test.values)
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotEq) \
        and ast.dump(test.left) == ast.dump(test.comparators[0])
