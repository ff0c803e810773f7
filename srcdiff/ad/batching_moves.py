"""Batching rules of the functions that move, join or contract axes: `np.swapaxes`,
`np.moveaxis`, `np.flip`, `np.roll`, `np.diff`, a write into a copy (``y[i] = v``),
`np.tril`/`np.triu`, `np.concatenate`/`np.stack`,
`np.einsum`, `np.cross`, the value copied under a new name, and NumPy's linear algebra of stacks
(`np.linalg.cholesky`, `np.linalg.slogdet`).

Each writes the call anew from the rule's static arguments (the user may have spelled it as a
method, with keywords or positionally): an axis counted from the front moves one place for the
batch axis, one counted from the back stays; an operand without a batch axis joins a batched
one as the same value for every row.  What NumPy would read differently with a batch axis in
front (a flattening ``axis=None``, a vector's triangle, ``einsum`` with implicit output and
``...``) is refused, and jacobian/hessian then make their rows another way.
"""

from __future__ import annotations

import ast
import copy
import string

import numpy as np

from ..ir.nodes import Const, Var
from .batching_each_row import each_row_call, each_row_rule
from .batching_rules import call, elementwise, literal, np_call
from .tangent_node import instantiate


def _moved(axis, rank: int):
    """`axis` (a number or a tuple of them) of a row of `rank` axes, counted in the batch."""
    if isinstance(axis, (tuple, list)):
        return tuple(_moved(a, rank) for a in axis)
    return axis % rank + 1


def _array_operand(node, state):
    x = node.inputs[0]
    if any(state.batched(v) for v in node.inputs[1:]) or isinstance(x, Const):
        state.refuse(node, f"{node.rule.name} with a batched shift or axis has no batching rule")
    return x, state.ndim(x, node)


def moved(node, state):
    """``np.swapaxes``, ``np.moveaxis``, ``np.flip``, ``np.roll``, ``np.diff`` of each row."""
    x, rank = _array_operand(node, state)
    s, X, name = node.static, state.ref(x), node.rule.name.rsplit(".", 1)[-1]
    if rank == 0:
        state.refuse(node, f"{node.rule.name} of a number has no batching rule")
    if name == "swapaxes":
        return np_call("swapaxes", X, literal(_moved(s["axis1"], rank)), literal(_moved(s["axis2"], rank))), True
    if name == "moveaxis":
        return np_call("moveaxis", X, literal(_moved(s["source"], rank)), literal(_moved(s["destination"], rank))), True
    axis = s.get("axis")
    if name == "diff":
        if any(not (isinstance(v, Const) and v.value is None) for v in node.inputs[1:]):
            state.refuse(node, "np.diff with prepend= or append= has no batching rule")
        along = _moved(-1 if axis is None else axis, rank)
        return np_call("diff", X, literal(s.get("n", 1)), axis=literal(along)), True
    if name == "flip":
        every = tuple(range(1, rank + 1))
        return np_call("flip", X, axis=literal(every if axis is None else _moved(axis, rank))), True
    if name == "roll":
        if axis is None and rank > 1:  # rolls the flattened row
            state.refuse(node, "np.roll without an axis of a batch of arrays has no batching rule", "give axis=")
        along = 1 if axis is None else _moved(axis, rank)
        return np_call("roll", X, state.ref(node.inputs[1]), axis=literal(along)), True
    state.refuse(node, f"{node.rule.name} has no batching rule")


def triangle(node, state):
    """``np.tril(x, k)`` / ``np.triu``: NumPy takes the last two axes, so rows of matrices (or
    stacks) keep their meaning; a vector's triangle (a matrix made from it) is refused."""
    x, rank = _array_operand(node, state)
    if rank < 2:
        state.refuse(node, f"{node.rule.name} of a vector has no batching rule")
    return np_call(node.rule.name.rsplit(".", 1)[-1], state.ref(x), literal(node.static.get("k", 0))), True


def joined(node, state):
    """``np.concatenate(arrays, axis)`` / ``np.stack``: every operand with rows, the axis moved."""
    name = node.rule.name.split(" ")[0].rsplit(".", 1)[-1]
    axis = node.static.get("axis", 0)
    ranks = [state.ndim(v, node) for v in node.inputs]
    if name not in ("concatenate", "stack") or axis is None or not ranks or len(set(ranks)) != 1:
        state.refuse(node, f"{node.rule.name} written this way has no batching rule")
    out_rank = ranks[0] + (name == "stack")
    parts = ast.List([state.rows(v) for v in node.inputs], ast.Load())
    return np_call(name, parts, axis=literal(_moved(axis, out_rank))), True


def einsum(node, state):
    """``np.einsum(subscripts, *operands)``: a label of its own for the batch axis, first in each
    batched operand and in the output."""
    subscripts = node.static.get("subscripts")
    if not isinstance(subscripts, str):
        state.refuse(node, "np.einsum in the sublist form has no batching rule", "write the subscripts as a string")
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(node.inputs):
        state.refuse(node, "np.einsum's subscripts do not match its operands")
    if not arrow:
        if "..." in spec:
            state.refuse(node, "np.einsum with '...' and an implicit output has no batching rule", "write '->'")
        letters = [c for c in inputs if c.isalpha()]
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))  # NumPy's implicit output
    label = next(c for c in string.ascii_letters if c not in spec)
    terms = [label + t if state.batched(v) else t for t, v in zip(terms, node.inputs)]
    new = ",".join(terms) + "->" + label + output
    return np_call("einsum", ast.Constant(new), *[state.ref(v) for v in node.inputs]), True


def cross(node, state):
    """``np.cross(x, y)`` along axes counted from the back: elementwise over the rows."""
    s = node.static
    if s.get("axis") is not None and s["axis"] >= 0 or any(s.get(k, -1) >= 0 for k in ("axisa", "axisb", "axisc")):
        state.refuse(node, "np.cross along an axis counted from the front has no batching rule", "use axis=-1")
    return elementwise(node, state)


def setitem(node, state):
    """``x[index] = v`` (a functional update: a copy written into): each row's copy written at
    the index, the batch axis first (set_item_rows); an index read from a batched value is refused."""
    x, v, *parts = node.inputs
    if any(state.batched(p) for p in parts):
        state.refuse(node, "an index computed from a batched value cannot be batched",
                     "index with values that are the same for every example")
    given = ast.parse(f"_[{node.static['index']}]", mode="eval").body.slice
    refs = {f"i{k}": state.ref(p) for k, p in enumerate(parts)}

    def spelled(part):  # an index part as an expression: ``1:`` as slice(1, None, None)
        if isinstance(part, ast.Slice):
            ends = (part.lower, part.upper, part.step)
            args = [ast.Constant(None) if e is None else spelled(e) for e in ends]
            return ast.Call(ast.Name("slice", ast.Load()), args, [])
        if isinstance(part, ast.Name) and part.id in refs:
            return refs[part.id]
        return part
    index = ast.Tuple([spelled(e) for e in (given.elts if isinstance(given, ast.Tuple) else [given])], ast.Load())
    flags = [ast.Constant(state.batched(x)), ast.Constant(state.batched(v)), ast.Name(state.size, ast.Load())]
    return ast.Call(ast.Name("set_item_rows", ast.Load()), [state.ref(x), index, state.ref(v), *flags], []), True


def same(node, state):
    """The value copied under a new name: itself, rows and all."""
    return state.ref(node.inputs[0]), state.batched(node.inputs[0])


#: where a function of the "along" kind takes its axis, counted from 0 among its arguments
_AXIS_AT = {"sort": 1, "argsort": 1, "take_along_axis": 2, "take_along_axis_adjoint": 3, "argmax": 1, "argmin": 1}
#: those whose axis left out is None (the flattened array), not the last axis
_FLAT_BY_DEFAULT = {"argmax", "argmin"}


def along(node, state):
    """``np.sort``, ``np.argsort``, ``np.argmax``/``np.argmin``, ``np.take_along_axis`` (and its
    adjoint) along an axis of each row: every array operand with rows, the axis moved past the
    batch axis.  ``axis=None`` (the flattened array) is a row's own axis only for a vector."""
    expr = copy.deepcopy(node.expr)
    name = expr.func.attr if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) else \
        expr.func.id if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) else None
    method = isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
        not (isinstance(expr.func.value, ast.Name) and expr.func.value.id in ("np", "numpy"))
    arrays = [v for v in node.inputs if isinstance(v, Var)]
    if name not in _AXIS_AT or method or not arrays or any(isinstance(v, Const) and np.ndim(v.value)
                                                           for v in node.inputs):
        state.refuse(node, f"{node.rule.name} written this way has no batching rule")
    position = _AXIS_AT[name]
    given = expr.args[position] if len(expr.args) > position else \
        next((k.value for k in expr.keywords if k.arg == "axis"),
             ast.Constant(None if name in _FLAT_BY_DEFAULT else -1))
    rank = state.ndim(arrays[0], node)
    try:
        axis = ast.literal_eval(given)  # (-1 is written as a unary minus of 1)
    except ValueError:
        axis = "unknown"
    if not (axis is None or type(axis) is int) or (axis is None and rank != 1) or rank == 0:
        state.refuse(node, f"{node.rule.name} along this axis has no batching rule", "give axis= a number")
    new = ast.Constant(1 if axis is None else axis % rank + 1)
    expr = instantiate(expr, {v.name: state.rows(v) for v in arrays})
    if len(expr.args) > position:
        expr.args[position] = new
    else:
        expr.keywords = [k for k in expr.keywords if k.arg != "axis"] + [ast.keyword("axis", new)]
    return expr, True


def diag(node, state):
    """``np.diag(x, k)`` of each row: a vector's matrix, or a matrix's diagonal (diag_rows)."""
    x, rank = _array_operand(node, state)
    k = node.static.get("k", 0)
    if rank not in (1, 2) or type(k) is not int:
        state.refuse(node, f"{node.rule.name} of this kind has no batching rule")
    return call("diag_rows", state.ref(x), literal(k)), True


def conversion(node, state):
    """``np.float32(x)`` of rows: ``x.astype(np.float32)``, the same array in NumPy, and what numba
    compiles (it has no np.float32 of an array)."""
    expr = node.expr
    if not (isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords):
        state.refuse(node, f"{node.rule.name} written this way has no batching rule")
    astype = ast.Attribute(state.ref(node.inputs[0]), "astype", ast.Load())
    return ast.Call(astype, [copy.deepcopy(expr.func)], []), True


def solve(node, state):
    """``np.linalg.solve(a, b)`` of each row: a matrix, and a vector (a one-column matrix) or a
    matrix (solve_rows)."""
    a, b = node.inputs[:2]
    ra, rb = state.ndim(a, node), state.ndim(b, node)
    if ra < 2 or rb < 1 or len(node.inputs) != 2:
        state.refuse(node, "np.linalg.solve of a number has no batching rule")
    if ra == 2 and rb in (1, 2):
        return call("solve_rows", state.ref(a), state.ref(b), ast.Constant(rb)), True
    # stacks: each operand lined up with its own row (rules/batching_linalg_helpers.py)
    return call("solve_stack_rows", state.ref(a), state.ref(b), ast.Constant(state.batched(a)),
                ast.Constant(state.batched(b)), ast.Constant(rb), ast.Name(state.size, ast.Load())), True


def stacked(node, state):
    """NumPy's linear algebra of stacks of matrices (``np.linalg.cholesky``, ``np.linalg.slogdet``, ``svd``,
    ``qr``, ``pinv``, ``matrix_power``, the Cholesky factor's adjoint): the call as written, each operand
    a stack of matrices, the batch axis first (an operand without one broadcast to every row, so no
    helper meets a single matrix beside a stack).  A row may be a stack of matrices itself (``det`` of
    ``np.stack([A, B])``) when every operand's rows have one number of axes; an operand whose rows are
    not matrices (NumPy would read the batch axis as a row's) is refused."""
    expr = node.expr
    arrays = [v for v in node.inputs if isinstance(v, Var)]
    ranks = {state.ndim(v, node) for v in arrays}
    # (a row's stack of matrices too: NumPy's linear algebra runs over every axis before the last two, and
    # operands of one rank line a row's stack axes up with the same row's)
    if not isinstance(expr, ast.Call) or any(isinstance(v, Const) and np.ndim(v.value) for v in node.inputs) \
            or len(ranks) > 1 or min(ranks, default=2) < 2:
        state.refuse(node, f"{node.rule.name} of operands that are not matrices or stacks of matrices of one "
                           "depth has no batching rule")
    return instantiate(expr, {v.name: state.rows(v) for v in arrays}), True


def diagonal(node, state):
    """``np.trace(x, offset)``, ``np.diagonal(x, offset, axis1, axis2)`` of each row: the two axes moved
    past the batch axis."""
    x, rank = _array_operand(node, state)
    offset = node.static.get("offset", 0)
    first, second = node.static.get("axis1", 0), node.static.get("axis2", 1)
    if rank < 2 or any(type(v) is not int for v in (offset, first, second)):
        state.refuse(node, f"{node.rule.name} of this kind has no batching rule")
    name = "trace" if node.rule.name.endswith("trace") else "diagonal"
    return np_call(name, state.ref(x), offset=literal(offset), axis1=literal(first % rank + 1),
                   axis2=literal(second % rank + 1)), True


def solve_adjoint(node, state):
    """``solve_adjoint_y(g, x, y)``, ``solve_adjoint_x(g, x, y, r)`` (a solve's adjoints where shapes are
    known only when run) of each row: y read for its number of axes alone."""
    g, x, y = node.inputs[:3]
    nx, ny = state.ndim(x, node), state.ndim(y, node)
    if nx < 2 or ny < 1 or (ny == 1 and nx != 2):
        state.refuse(node, f"{node.rule.name} of this kind has no batching rule")
    size = ast.Name(state.size, ast.Load())
    if node.rule.name.endswith("_y"):
        return call("solve_adjoint_y_rows", state.ref(g), state.ref(x), ast.Constant(state.batched(g)),
                    ast.Constant(state.batched(x)), ast.Constant(ny), size), True
    r = node.inputs[3]
    flags = literal(tuple(state.batched(v) for v in (g, x, r)))
    return call("solve_adjoint_x_rows", state.ref(g), state.ref(x), state.ref(r), flags, ast.Constant(ny), size), True


def tensordot(node, state):
    """``np.tensordot(x, y, axes)`` per row: with x's rows, the batch axis a free axis of x's in front (its
    contracted axes one further on); with y's rows, the batch axis a free one of y's, moved to the front
    after; with both, ``np.einsum`` with a label of its own for the batch axis."""
    x, y = node.inputs
    nx, ny = state.ndim(x, node), state.ndim(y, node)
    axes = node.static.get("axes", 2)
    try:
        if isinstance(axes, int):
            ax, ay = list(range(nx - axes, nx)), list(range(axes))
        else:
            ax, ay = ([a] if isinstance(a, int) else list(a) for a in axes)
        ax, ay = [a % nx for a in ax], [a % ny for a in ay]
    except (TypeError, ValueError, ZeroDivisionError):
        state.refuse(node, "np.tensordot with these axes has no batching rule")
    if len(ax) != len(ay):
        state.refuse(node, "np.tensordot's axes do not pair up")
    bx, by = state.batched(x), state.batched(y)
    if bx and by:
        letters = string.ascii_letters[1:]
        xs, ys = letters[:nx], list(letters[nx:nx + ny])
        for a, b in zip(ax, ay):
            ys[b] = xs[a]
        out = "".join(c for k, c in enumerate(xs) if k not in ax) + "".join(c for k, c in enumerate(ys) if k not in ay)
        return np_call("einsum", ast.Constant(f"a{xs},a{''.join(ys)}->a{out}"), state.ref(x), state.ref(y)), True
    shifted = (literal(tuple(a + bx for a in ax)), literal(tuple(b + by for b in ay)))
    product = np_call("tensordot", state.ref(x), state.ref(y), axes=ast.Tuple(list(shifted), ast.Load()))
    return (product if bx else np_call("moveaxis", product, ast.Constant(nx - len(ax)), ast.Constant(0))), True


def pointwise(node, state):
    """``np.interp(x, xp, fp)`` (and its slope): a value for each element of x, whatever x's shape, so
    the call as it is where x alone has a batch axis (the knots and values the same for every row)."""
    if any(state.batched(v) for v in node.inputs[1:]):  # (each example's own table: the call row by row)
        if each_row_rule(node, state) is None:
            state.refuse(node, f"{node.rule.name} of knots or values with a batch axis has no batching rule")
        return each_row_call(node, state)
    return copy.deepcopy(node.expr), True


KINDS = {"pointwise": pointwise, "tensordot": tensordot, "along": along, "diagonal": diagonal,
         "solve_adjoint": solve_adjoint, "conversion": conversion, "diag": diag, "solve": solve, "moved": moved,
         "triangle": triangle, "joined": joined, "einsum": einsum, "cross": cross, "same": same, "setitem": setitem,
         "stacked": stacked}

__all__ = ["KINDS"]
