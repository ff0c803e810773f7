"""The batching rule of each primitive kind (`Rule.batching`): one call, run over a leading
batch axis of some of its operands.

A rule gets the node and the batching state (ad/batching.py) and returns the batched
call's expression and whether its value has a batch axis.  Shapes are a row's (the
unbatched signature the code is compiled for): axes are remapped by one, operands of fewer
dimensions than the result get axes of length one after the batch axis, so NumPy's
broadcasting (which aligns from the right) lines rows up with rows.
"""

from __future__ import annotations

import ast
import copy

import numpy as np

from ..ir.nodes import Const, Var
from .batching_math import math_to_numpy
from .static_index import static_index
from .tangent_node import instantiate


def np_call(name: str, *args: ast.expr, **keywords: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load()), list(args),
                    [ast.keyword(k, v) for k, v in keywords.items()])


def call(name: str, *args: ast.expr) -> ast.Call:
    """``name(*args)``; a dotted name (``np.ndim``) is an attribute."""
    head, _, attr = name.rpartition(".")
    func = ast.Attribute(ast.Name(head, ast.Load()), attr, ast.Load()) if head else ast.Name(name, ast.Load())
    return ast.Call(func, list(args), [])


def literal(value) -> ast.expr:
    """`value` (a number, a tuple of them, None) as an expression."""
    return ast.parse(repr(value), mode="eval").body


def elementwise(node, state):
    """Operands broadcast: a batched operand of fewer dimensions than the result gets axes of
    length one after its batch axis.  ``math.sin`` of a batched number becomes ``np.sin``."""
    unsure = any(isinstance(v, Var) and v.name in state.asked | state.unsure for v in node.inputs)  # (a zero item
    rank = None if unsure else state.ndim(node.out, node, required=False)  # of an adjoint list: its result's too)
    if rank is None:
        rank = state.rank_expr([v for v in node.inputs if not isinstance(v, Const)], node)
    state.unsure |= {node.out.name} if unsure else set()
    replace = {v.name: state.expanded(v, rank, node) for v in node.inputs if isinstance(v, Var) and state.batched(v)}
    expr = instantiate(node.expr, replace)
    if node.rule.func is not None and getattr(node.rule.func, "__module__", None) == "math":
        expr = math_to_numpy(expr, node, state)
    return expr, True


def float_math(node, state):
    """A function of numbers (``math.exp``): its NumPy ufunc over the batch; ``float(x)`` of rows of one
    number each: `float_rows`."""
    if node.rule.func is float and len(node.inputs) == 1 and state.ndim(node.inputs[0], node, required=False) == 0:
        return call("float_rows", state.ref(node.inputs[0])), True
    if getattr(node.rule.func, "__module__", None) != "math":
        state.refuse(node, f"{node.rule.name} of a batched value has no batching rule")
    return elementwise(node, state)


def like(node, state):
    """The call as it is (``zeros_like(x)``, ``copy_array(x)``): its value has x's batch axis."""
    return copy.deepcopy(node.expr), True


def reduce(node, state):
    """``np.sum(x, axis)`` and its kin: the axis moved past the batch axis (None: all of a row's axes)."""
    x = node.inputs[0]
    if any(state.batched(v) for v in node.inputs[1:]):
        state.refuse(node, f"{node.rule.name}'s other arguments cannot be batched")
    if np.ndim(node.static.get("q", 0.0)):  # one result per level, stacked before the batch axis
        state.refuse(node, f"{node.rule.name} of a sequence of levels has no batching rule")
    rank = state.ndim(x, node)
    axis = node.static.get("axis")
    if axis is None:
        if node.rule.name.endswith("norm") and rank > 1 and node.static.get("ord") not in (None, "fro"):
            state.refuse(node, "a matrix norm of a batch of matrices with this ord has no batching rule")
        if node.rule.name.endswith(("cumsum", "cumprod")) and rank > 1:
            state.refuse(node, f"{node.rule.name} without an axis flattens each row: no batching rule")
        new = 1 if rank == 1 else tuple(range(1, rank + 1))
    elif isinstance(axis, tuple):
        new = tuple(a + 1 if a >= 0 else a for a in axis)
    else:
        new = axis + 1 if axis >= 0 else axis
        if node.rule.name == "numpy.sum" and new in (rank, -1) and set(node.static) <= {"axis", "keepdims"}:
            keep = bool(node.static.get("keepdims", False))  # the last axis of a row: slice by slice
            return ast.Call(ast.Name("sum_last", ast.Load()), [state.ref(x)],
                            [ast.keyword("keepdims", literal(keep))]), True
    expr = copy.deepcopy(node.expr)
    if not isinstance(expr, ast.Call):
        state.refuse(node, f"{node.rule.name} written this way has no batching rule")
    method = isinstance(expr.func, ast.Attribute) and _called_on_operand(expr.func.value, node)
    params = ["x", *node.rule.static] if not method else list(node.rule.static)
    if "axis" not in params:
        state.refuse(node, f"{node.rule.name} written this way has no batching rule")
    axis_position = params.index("axis")
    if len(expr.args) > axis_position:
        expr.args[axis_position] = literal(new)
    else:
        expr.keywords = [k for k in expr.keywords if k.arg != "axis"] + [ast.keyword("axis", literal(new))]
    return expr, True


def _called_on_operand(expr: ast.expr, node) -> bool:
    """Whether `expr`, what a function is looked up on, is the node's operand (a method, ``x.sum(0)``,
    which does not take x first) rather than a module (``np.linalg.norm(x, np.inf)``, and a module
    imported under any name, ``special.logsumexp(a, axis=0)``: read as a method of `special`, its first
    argument was replaced by the axis, a silently wrong value)."""
    if not isinstance(expr, (ast.Name, ast.Attribute)):
        return True  # (``(a + b).sum()``)
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name) and any(isinstance(v, Var) and v.name == expr.id for v in node.inputs)


def getitem(node, state):
    """``x[i]``: ``x[:, i]``, the batch axis kept first; an index read from a batched value is refused."""
    x = node.inputs[0]
    if any(state.batched(v) for v in node.inputs[1:]):
        state.refuse(node, "an index computed from a batched value cannot be batched",
                     "index with values that are the same for every example")
    expr = copy.deepcopy(node.expr)
    if not isinstance(expr, ast.Subscript):
        state.refuse(node, "this kind of indexing has no batching rule")
    if isinstance(x, Var) and x.name in state.containers:  # a tuple of batched values
        return expr, True
    parts = list(expr.slice.elts) if isinstance(expr.slice, ast.Tuple) else [expr.slice]
    advanced = [p for p in parts if not isinstance(p, ast.Slice)
                and not (isinstance(p, ast.Constant) and p.value in (None, Ellipsis))]
    held = len(parts) == 1 and isinstance(parts[0], ast.Name)  # x[idx]: idx may be a tuple (np.ix_)
    if held:
        expr.slice = call("rows_index", ast.Tuple(parts, ast.Load()))
        return expr, True
    if len(advanced) > 1 and any(not isinstance(p, ast.Constant) for p in advanced):  # (NumPy may move their axes)
        values = ast.Tuple([index_value(p) for p in parts], ast.Load())
        return call("gather_slices_rows", state.ref(x), values, literal((False,) * len(parts)), ast.Constant(True)), \
            True
    expr.slice = ast.Tuple([ast.Slice(None, None, None), *parts], ast.Load())
    return expr, True


def index_value(part: ast.expr) -> ast.expr:
    """An index part as a value: ``1:`` as ``slice(1, None, None)`` (a slice is written so only
    between brackets)."""
    if not isinstance(part, ast.Slice):
        return part
    ends = [e if e is not None else ast.Constant(None) for e in (part.lower, part.upper, part.step)]
    return ast.Call(ast.Name("slice", ast.Load()), ends, [])


def transpose(node, state):
    """``x.T``: the axes of each row reversed, the batch axis first."""
    x = node.inputs[0]
    rank = state.ndim(x, node)
    if rank <= 1:
        return state.ref(x), True
    return np_call("transpose", state.ref(x), literal((0, *range(rank, 0, -1)))), True


def _sub(e: ast.expr, *parts: ast.expr) -> ast.expr:
    return ast.Subscript(e, ast.Tuple(list(parts), ast.Load()), ast.Load())


def _mm(p: ast.expr, q: ast.expr) -> ast.expr:
    return ast.BinOp(p, ast.MatMult(), q)


def matmul(node, state):
    """``x @ y`` (and ``np.dot`` of vectors and matrices) per row."""
    x, y = node.inputs[:2]
    a, b = state.ndim(x, node), state.ndim(y, node)
    bx, by = state.batched(x), state.batched(y)
    X, Y = state.ref(x), state.ref(y)
    if node.rule.name.endswith("dot") and (a not in (1, 2) or b not in (1, 2)):
        state.refuse(node, "np.dot of a batched value with a number or more than two axes has no batching rule",
                     "write it with @")
    if a == 0 or b == 0:
        state.refuse(node, "a matrix product with a number has no batching rule")

    full, none, ell = ast.Slice(None, None, None), ast.Constant(None), ast.Constant(Ellipsis)
    if bx and not by:
        if b > 2:
            state.refuse(node, "a batched matrix times a stack of matrices has no batching rule")
        return _mm(X, Y), True
    if by and not bx:
        if b == 1 and a > 2:  # a stack times each row's vector: (s, n, m) @ (m, B), the batch axis moved first
            return np_call("moveaxis", _mm(X, ast.Attribute(Y, "T", ast.Load())), ast.Constant(-1),
                           ast.Constant(0)), True
        if b == 1:  # each row's vector: (B, n) @ x.T (x a matrix: a stack's .T would reverse its stacking axes)
            return _mm(Y, transpose_of(X, a)), True
        if a > b:  # each row's matrix against the whole stack: axes after the batch axis line them up
            return _mm(X, _sub(Y, full, *[none] * (a - b), ell)), True
        return _mm(X, Y), True
    if a == 1 and b == 1:
        return np_call("sum", ast.BinOp(X, ast.Mult(), Y), axis=ast.Constant(-1)), True
    # (a stack's row against a vector: the vector's batch axis lined up with the stack's, not with its
    # first axis, which NumPy would pair with it where the stack is as long as the batch: silently wrong)
    if b == 1:
        return _sub(_mm(X, _sub(Y, full, *[none] * (a - 2), ell, none)), ell, ast.Constant(0)), True
    if a == 1:
        return _sub(_mm(_sub(X, full, *[none] * (b - 1), full), Y), ell, ast.Constant(0), full), True
    if a != b:
        state.refuse(node, "a product of batched stacks of matrices of different depths has no batching rule")
    return _mm(X, Y), True


def matmul_adjoint(node, state):
    """``matmul_adjoint_x(a, x, y)`` / ``_y`` (and ``dot_adjoint_*`` of vectors and matrices),
    the adjoints of ``x @ y`` a gradient's code computes where shapes are known only when it
    runs: each row's product written with the batch axis first (the runtime helper's cases,
    read for the rows' known ndims), then summed back to the row's shape of x or y.  Where x
    or y has rows too, only matrices are taken: ``A @ Y.T`` pairs each row with its own."""
    a, x, y = node.inputs[:3]
    nx, ny = state.ndim(x, node), state.ndim(y, node)
    if 0 in (nx, ny) or node.rule.name.startswith("dot") and (nx > 2 or ny > 2):
        state.refuse(node, f"{node.rule.name} with a number or a stack has no batching rule")
    A, X, Y = state.ref(a), state.ref(x), state.ref(y)
    if (state.batched(x) or state.batched(y)) and not nx == ny == 2:  # vectors and stacks: each row lined up
        flags = literal(tuple(state.batched(v) for v in (a, x, y)))
        rows = call("matmul_adjoint_rows", A, X, Y, flags, ast.Constant(not node.rule.name.endswith("_x")),
                    ast.Name(state.size, ast.Load()))
        like = node.inputs[1] if node.rule.name.endswith("_x") else node.inputs[2]
        row_like = ast.Subscript(state.ref(like), ast.Constant(0), ast.Load()) if state.batched(like) \
            else state.ref(like)
        return call("unbroadcast_rows", rows, row_like), True
    full, none, ell = ast.Slice(None, None, None), ast.Constant(None), ast.Constant(Ellipsis)

    if node.rule.name.endswith("_x"):
        like = X
        if ny == 1:  # the outer product with y (a number per row when x is a vector too)
            outer = ast.Attribute(np_call("multiply").func, "outer", ast.Load())  # np.multiply.outer
            rows = ast.BinOp(_sub(A, full, none), ast.Mult(), Y) if nx == 1 else ast.Call(outer, [A, Y], [])
        elif nx == 1:
            rows = _sub(_mm(Y, _sub(A, ell, none)), ell, ast.Constant(0))
        else:
            rows = _mm(A, np_call("swapaxes", Y, ast.Constant(-1), ast.Constant(-2)))
    else:
        like = Y
        if nx == 1:
            rows = ast.BinOp(_sub(X, full, none), ast.Mult(), _sub(A, ell, none, full)) if ny > 1 \
                else ast.BinOp(_sub(A, full, none), ast.Mult(), X)
        elif ny == 1:  # every axis of a row meets x's axes but its last
            rows = np_call("tensordot", A, X, axes=ast.Tuple([ast.Constant(list(range(1, nx))),
                                                            ast.Constant(list(range(nx - 1)))], ast.Load()))
        else:
            rows = _mm(np_call("swapaxes", X, ast.Constant(-1), ast.Constant(-2)), A)
    row_like = ast.Subscript(like, ast.Constant(0), ast.Load()) if state.batched(node.inputs[1 + (like is Y)]) else like
    return call("unbroadcast_rows", rows, row_like), True


def transpose_of(e: ast.expr, rank: int) -> ast.expr:
    if rank <= 1:
        return e
    if rank == 2:
        return ast.Attribute(e, "T", ast.Load())
    return np_call("swapaxes", e, ast.Constant(-1), ast.Constant(-2))


def outer(node, state):
    """``np.outer(x, y)`` per row: each row's flattened x times each row's flattened y, by
    ``np.einsum`` (it writes the batch of products in one pass; NumPy's broadcast multiply of
    a column by a row takes about twice as long on large batches)."""
    x, y = node.inputs[:2]
    size = ast.Name(state.size, ast.Load())

    def flat(v):
        if not state.batched(v):
            return np_call("ravel", state.ref(v)), "i"
        return np_call("reshape", state.ref(v), ast.Tuple([size, ast.Constant(-1)], ast.Load())), "bi"

    (left, a), (right, b) = flat(x), flat(y)
    return np_call("einsum", ast.Constant(f"{a},{b.replace('i', 'j')}->bij"), left, right), True


def unbroadcast(node, state):
    """``unbroadcast(g, like)``: each row of g summed back to a row of like's shape; when
    only `like` is batched, its shape is a row's and the value has no batch axis."""
    g, like = node.inputs[:2]
    row_like = ast.Subscript(state.ref(like), ast.Constant(0), ast.Load()) if state.batched(like) else state.ref(like)
    if not state.batched(g):
        return call("unbroadcast", state.ref(g), row_like), False
    return call("unbroadcast_rows", state.ref(g), row_like), True


def select(node, state):
    """``select(condition, value)`` / ``select_whole``: each row's selection (select_rows), the
    value given a batch axis when only the condition has one."""
    condition, value = node.inputs[:2]
    whole = node.rule.name.endswith("select_whole")
    args = [state.ref(condition), state.ref(value), ast.Constant(state.batched(condition)),
            ast.Constant(state.batched(value)), ast.Name(state.size, ast.Load())]
    return ast.Call(ast.Name("select_rows", ast.Load()), args, [ast.keyword("whole", ast.Constant(whole))]), True


def index_read(node, state):
    """``index_read(a, index)``: the index applied to each row; an index of slices and numbers
    known when the code is made (a slice's adjoint) is written out, ``a[:, 1:]``."""
    a, index = node.inputs[:2]
    if state.batched(index):
        state.refuse(node, "an index computed from a batched value cannot be batched")
    parts = static_index(index, state.statics)
    if parts is not None:
        return ast.Subscript(state.ref(a), ast.Tuple([ast.Slice(None, None, None), *parts], ast.Load()),
                             ast.Load()), True
    return call("index_read_rows", state.ref(a), state.ref(index)), True


def index_add(node, state):
    """``index_add(base, index, value)``: the same scatter into every row (an unbatched
    base broadcast to the batch)."""
    base, index, value = node.inputs[:3]
    if state.batched(index):
        state.refuse(node, "an index computed from a batched value cannot be batched")
    rows = state.ref(base) if state.batched(base) else call("broadcast_rows", state.ref(base),
                                                             ast.Name(state.size, ast.Load()))
    return call("index_add_rows", rows, state.ref(index), state.ref(value),
                ast.Constant(state.batched(value))), True


def reshape(node, state):
    """``np.reshape(x, shape)``, ``np.ravel(x)``: each row reshaped (the shape a row's)."""
    expr = node.expr
    if any(state.batched(v) for v in node.inputs[1:]) or not isinstance(expr, ast.Call) or not expr.args:
        state.refuse(node, f"{node.rule.name} written this way has no batching rule")
    if node.rule.name.endswith("ravel"):
        shape = ast.Constant(-1)
    elif set(node.static) == {"shape"} and len(node.inputs) == 1:  # (``x.reshape(3, -1)`` too: the shape as lowered)
        shape = literal(node.static["shape"])
    elif len(node.inputs) == 2 and isinstance(node.inputs[1], Var):  # a shape computed when run, unbatched
        shape = state.ref(node.inputs[1])
    else:
        shapes = expr.args[1:2] or [k.value for k in expr.keywords if k.arg in ("shape", "newshape")]
        if len(shapes) != 1 or len(expr.args) + len(expr.keywords) != 2:
            state.refuse(node, f"{node.rule.name} written this way has no batching rule")
        shape = copy.deepcopy(shapes[0])
    return call("reshape_rows", state.ref(node.inputs[0]), shape), True


def axes(node, state):
    """``np.expand_dims(x, axis)``, ``np.transpose(x, axes)``: axes moved past the batch axis."""
    x = node.inputs[0]
    rank = state.ndim(x, node)
    if node.rule.name.endswith("transpose"):
        given = node.static.get("axes")
        order = (0, *range(rank, 0, -1)) if given is None else (0, *(a % rank + 1 for a in given))
        return np_call("transpose", state.ref(x), literal(order)), True
    axis = node.static.get("axis")
    if axis is None:
        state.refuse(node, f"{node.rule.name} without an axis has no batching rule")
    out = rank + (len(axis) if isinstance(axis, tuple) else 1)
    moved = tuple(a % out + 1 for a in axis) if isinstance(axis, tuple) else axis % out + 1
    return np_call("expand_dims", state.ref(x), literal(moved)), True


def full(node, state):
    """``np.full(shape, fill_value)`` with a fill value per row: each row filled with its own."""
    shape, fill = node.inputs[:2]
    if state.batched(shape) or not isinstance(node.expr, ast.Call) or len(node.expr.args) != 2 \
            or node.expr.keywords:
        state.refuse(node, "np.full written this way (or with a batched shape) has no batching rule")
    return call("full_rows", state.ref(shape), state.ref(fill)), True


def first(node, state):
    """``measure_guard(value, ...)``, the identity: its first operand, rows and all."""
    return state.ref(node.inputs[0]), state.batched(node.inputs[0])


def measure_nan(node, state):
    """``measure_nan(bad, d, every)``: each row's NaN from its own guard (measure_nan_rows); one
    guard for every row as it is."""
    bad, d = node.inputs[:2]
    if not state.batched(bad):
        return copy.deepcopy(node.expr), state.batched(d)
    every = copy.deepcopy(node.expr.args[2]) if isinstance(node.expr, ast.Call) and len(node.expr.args) == 3 \
        else state.ref(node.inputs[2])
    return call("measure_nan_rows", state.ref(bad), state.ref(d), every, ast.Constant(state.batched(d)),
                ast.Name(state.size, ast.Load())), True


KINDS = {"elementwise": elementwise, "first": first, "measure_nan": measure_nan, "reduce": reduce, "getitem": getitem,
         "transpose": transpose, "axes": axes, "reshape": reshape, "matmul": matmul, "outer": outer, "full": full,
         "like": like, "unbroadcast": unbroadcast, "index_read": index_read, "index_add": index_add, "select": select,
         "matmul_adjoint": matmul_adjoint}

__all__ = ["KINDS", "call", "float_math", "index_value", "literal", "np_call"]
