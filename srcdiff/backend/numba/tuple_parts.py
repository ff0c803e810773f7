"""The adjoint of a tuple whose items are of different kinds (a float and an array), for numba.

A helper returning ``s, x * s`` gives its caller a tuple; the gradient collects the adjoints
of its items in a container made of zeros and written at constant positions::

    t1_bar = zeros_like(t1)          # or [0.0] * len(t1)
    t1_bar[1] += b_bar
    t1_bar[0] += a_bar
    x_bar = helper_vjp_pullback(t1_pullback, t1_bar)

numba's lists hold items of one type, and its tuples cannot be written into.  So the zeros of
a tuple of two kinds are a tuple of zeros, one per item and of the item's kind (runtime.py's
``zeros_like``), and each write at a constant position makes the container again::

    t1_bar = set_part(t1_bar, 1, t1_bar[1] + b_bar)

``set_part`` writes into a list or an array in place (what the statement did) and makes a
new tuple with one item replaced; reads at constant positions and the container passed whole
are numba's own.  Only a container made of zeros and read or written nowhere but at constant
positions (or passed whole) is rewritten: a list popped, sliced or indexed by a variable is
left as written.
"""

from __future__ import annotations

import ast

from numba import types

from .list_adjoints import list_add, lists_add
from .naming import made, overload
from .pads import index_add


def set_part(items, k, value):
    """`items` with its item `k` set to `value` (in place for a list or an array)."""
    items[k] = value
    return items


@overload(set_part, prefer_literal=True)
def _set_part(items, k, value):
    if isinstance(items, (types.List, types.Array)):
        def in_place(items, k, value):
            items[k] = value
            return items
        return in_place
    if isinstance(items, types.BaseTuple) and isinstance(k, types.IntegerLiteral):
        n = len(items)
        if not -n <= k.literal_value < n:
            return None
        at = k.literal_value % n
        parts = "".join("value, " if j == at else f"items[{j}], " for j in range(n))
        return made(f"def impl(items, k, value):\n    return ({parts})\n")
    return None


def index_read(a, index):
    return a[index[0]]


def _one_position(base, index):
    """The constant position `index` (a tuple of one literal integer) reads in the tuple `base`."""
    if not (isinstance(base, types.BaseTuple) and isinstance(index, types.BaseTuple) and len(index) == 1
            and isinstance(index[0], types.IntegerLiteral) and -len(base) <= index[0].literal_value < len(base)):
        return None
    return index[0].literal_value % len(base)


@overload(index_add, prefer_literal=True)
def _index_add_part(base, index, value):
    """A derivable gradient's ``index_add(t_bar, (1,), v)`` into a tuple's adjoint: a new
    tuple with `v` added to one item (rules/runtime.py's, for a list)."""
    at = _one_position(base, index)
    if at is None:
        return None
    parts = "".join("base[%d] + value, " % j if j == at else f"base[{j}], " for j in range(len(base)))
    return made(f"def impl(base, index, value):\n    return ({parts})\n")


@overload(list_add, prefer_literal=True)
def _list_add_part(xs, i, v):
    """Forward mode over a gradient's ``list_add(t_bar, 1, v)`` into a tuple's adjoint of items of two
    kinds (a number and an array): a new tuple with `v` added to one item (list_adjoints.py's makes a
    list, whose items numba types alike)."""
    if not (isinstance(xs, types.Tuple) and isinstance(i, types.IntegerLiteral)
            and -len(xs) <= i.literal_value < len(xs)):
        return None
    at = i.literal_value % len(xs)
    parts = "".join("xs[%d] + v, " % j if j == at else f"xs[{j}], " for j in range(len(xs)))
    return made(f"def impl(xs, i, v):\n    return ({parts})\n")


@overload(lists_add)
def _lists_add_parts(a, b):
    """Two contributions to such a tuple's adjoint, added item by item."""
    if not (isinstance(a, types.Tuple) and isinstance(b, types.BaseTuple) and len(a) == len(b)):
        return None
    parts = "".join(f"a[{j}] + b[{j}], " for j in range(len(a)))
    return made(f"def impl(a, b):\n    return ({parts})\n")


@overload(index_read, prefer_literal=True)
def _index_read_part(a, index):
    """``index_read(t, (1,))``: the item of a tuple (index_add's adjoint)."""
    at = _one_position(a, index)
    if at is None:
        return None
    return made(f"def impl(a, index):\n    return a[{at}]\n")


def rewrite(func: ast.FunctionDef) -> bool:
    """Spell the writes at constant positions into the zeros of `func`'s tuples as
    ``set_part``, in place; whether there was one."""
    names = _containers(func)
    if not names:
        return False
    _Writes(names).visit(func)
    return True


def _is_zeros(value: ast.expr) -> bool:
    """``zeros_like(t)`` or ``[0.0] * len(t)``."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "zeros_like" \
            and len(value.args) == 1 and not value.keywords:
        return True
    return isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) and isinstance(value.left, ast.List) \
        and len(value.left.elts) == 1 and isinstance(value.left.elts[0], ast.Constant) \
        and value.left.elts[0].value == 0.0 and isinstance(value.right, ast.Call) \
        and isinstance(value.right.func, ast.Name) and value.right.func.id == "len"


def _constant(index: ast.expr) -> bool:
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index = index.operand
    return isinstance(index, ast.Constant) and type(index.value) is int


def _containers(func: ast.FunctionDef) -> set[str]:
    """The names made of zeros, written at a constant position, and otherwise only read at
    constant positions, passed whole to a call or returned."""
    made_of_zeros, written, allowed = set(), set(), set()
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _is_zeros(node.value):
            made_of_zeros.add(node.targets[0].id)
            allowed.add(id(node.targets[0]))
    if not made_of_zeros:
        return set()
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and _constant(node.slice):
            allowed.add(id(node.value))
            if isinstance(node.ctx, ast.Store):
                written.add(node.value.id)
        elif isinstance(node, ast.Call):
            allowed |= {id(a) for a in node.args if isinstance(a, ast.Name)}
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
            allowed.add(id(node.value))
        elif isinstance(node, ast.Delete):
            allowed |= {id(t) for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(func):  # ``state_1_bar = state_bar`` (a pullback's alias), the alias only read
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Name) and node.value.id in made_of_zeros \
                and _read_only(func, node.targets[0].id):
            allowed.add(id(node.value))
    other = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and n.id in made_of_zeros and id(n) not in allowed}
    return (made_of_zeros & written) - other


def _read_only(func: ast.FunctionDef, name: str) -> bool:
    """Whether `name` is never written into (``name[k] = v``, ``name += v``, ``del name[k]``,
    ``name.append(v)``): the alias of a container the rewrite makes anew at each write would not see
    the write."""
    for node in ast.walk(func):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            return False
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return False
    return True


class _Writes(ast.NodeTransformer):
    def __init__(self, names: set[str]):
        self.names = names

    def _target(self, target: ast.expr) -> bool:
        return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
            and target.value.id in self.names and _constant(target.slice)

    def _set(self, node: ast.stmt, target: ast.Subscript, value: ast.expr) -> ast.stmt:
        name = target.value.id
        call = ast.Call(ast.Name("set_part", ast.Load()), [ast.Name(name, ast.Load()), target.slice, value], [])
        new = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], call), node)
        if hasattr(node, "origin"):
            new.origin = node.origin
        return new

    def visit_Assign(self, node: ast.Assign):
        if len(node.targets) == 1 and self._target(node.targets[0]):
            return self._set(node, node.targets[0], node.value)
        return node

    def visit_AugAssign(self, node: ast.AugAssign):
        if self._target(node.target):
            target = node.target
            read = ast.Subscript(ast.Name(target.value.id, ast.Load()), target.slice, ast.Load())
            return self._set(node, target, ast.BinOp(read, node.op, node.value))
        return node


HELPERS = ("set_part", "index_read")

__all__ = ["HELPERS", "index_read", "rewrite", "set_part"]
