"""Which arrays of a generated function certainly have the same shape, and what that buys.

The signature a gradient is compiled for gives each axis as "length one" or "longer", and a
slice ``x[1:]`` may be either, so the reverse pass often has to call ``unbroadcast`` or
fill a whole array (``np.full(np.shape(t), g)``) to be safe.  Read from the generated code,
many shapes are provably equal: ``t3 = t2 * t2`` has `t2`'s shape, ``x[1:]`` and ``x[:-1]``
have the same length, ``unbroadcast(g, t)`` has `t`'s.  `ShapeClasses` groups names by that relation:
names assigned once (in a loop too), and names all of whose assignments agree.  The rewrites:

* ``unbroadcast(e, t) -> e`` where `e` has `t`'s shape;
* ``np.shape(t)``/``np.size(t)`` read the earliest name of `t`'s class, so `t` itself may
  die, and become ``t.shape``/``t.size`` where `t` is certainly an array;
* ``n = np.full(np.shape(t), s)`` becomes ``n = s`` when every use of `n` (and of values
  computed from it) only combines it elementwise with arrays of `t`'s shape, where
  broadcasting the number gives bitwise the same result as the filled array.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable

from ...ir.shapes import MANY, UNKNOWN_DIM, Shape
from . import liveness
from .liveness import assigned_name, bodies, is_comment, is_compound, is_pure, nodes, reads, writes
from .shape_calls import int_value, is_conversion, is_ufunc, shape_of_call

ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
SCALAR, FAIL = "scalar", "fail"


class ShapeClasses:
    """Union-find over names (and slice keys) that hold arrays of one shape."""

    def __init__(self, func: ast.FunctionDef, is_scalar: Callable[[str], bool], params: frozenset[str],
                 shape_of: Callable[[str], Shape]):
        self.is_scalar = is_scalar
        self.shape_of = shape_of
        self.parent: dict[object, object] = {}
        self.merged: set[str] = set()  # assigned more than once, always an array of one class
        # where each name is first defined; parameters first, in the signature's order (a set's
        # order would make the chosen representative, and so the source, vary between runs)
        signature = [a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs]
        self.order: dict[str, int] = {p: -1 for p in signature + sorted(params) if p in params}
        stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        # A name joins a class only where its one definition is a top-level ``name = ...``:
        # one a tuple target, a loop or a branch assigns has no known place in the order.
        plain = {assigned_name(stmt) for stmt in func.body} - {None}
        self.single = {name for name, count in stores.items() if count == 1 and name in plain
                       and name not in params}
        self.single |= {p for p in params if not stores[p]}
        # A name assigned once in a loop or branch body has one shape whenever it is defined
        # (``t1 = x * i``); its statement may not run, so it proves no shapes equal, stands in for none.
        inner = [stmt for body in list(bodies(func.body))[1:] for stmt in body]
        restored_counts = liveness.restored(func)
        self.inner = {name for name in {assigned_name(stmt) for stmt in inner} - {None}
                      if stores[name] - restored_counts[name] == 1 and name not in params}
        self.single |= self.inner
        for _ in range(2):  # a class found later (names a branch merges) may decide earlier ones
            self._top_level(func)
            for stmt in inner:
                key = self.of(stmt.value) if assigned_name(stmt) in self.inner else None
                if key not in (None, SCALAR):
                    self.union(assigned_name(stmt), key)
            self._merge(func, stores, params)

    def _top_level(self, func: ast.FunctionDef) -> None:
        for index, stmt in enumerate(func.body):
            # after a possible early return, later statements may not run: facts they imply
            # may not hold (after a raise they do: when it raises, nothing is returned)
            if is_compound(stmt) and any(isinstance(n, ast.Return) for n in nodes(stmt)):
                break
            name = assigned_name(stmt)
            if name is None or name not in self.single:
                continue
            self.order.setdefault(name, index)
            self._equate_operands(stmt.value)
            key = self.of(stmt.value)
            if key not in (None, SCALAR):
                self.union(name, key)

    def _merge(self, func: ast.FunctionDef, stores: Counter, params) -> None:
        """Names every assignment gives one class: both sides of a branch (``y = x * 2.0``, ``y = x * x``),
        or ``x_bar = np.zeros(x.shape)`` then ``x_bar = x_bar + e`` (``-``, ``+=``), `e` of it or a number."""
        updates: dict[str, list] = {}
        for n in nodes(func):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                updates.setdefault(n.targets[0].id, []).append(n)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                updates.setdefault(n.target.id, []).append(n)
        for name, found in updates.items():
            starts = [u for u in found if isinstance(u, ast.Assign) and not reads(u.value)[name]]
            if name in self.single | self.merged or name in params or stores[name] != len(found) or not starts:
                continue
            keys = {self.of(u.value) for u in starts}
            terms = [liveness.added_term(u, name) for u in found if u not in starts]
            key = keys.pop() if len(keys) == 1 else None
            if key not in (None, SCALAR) and all(e is not None and self.of(e) in (key, SCALAR) for e in terms):
                self.merged.add(name)
                self.union(name, key)

    def find(self, key):
        while self.parent.get(key, key) != key:
            key = self.parent[key]
        return key

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def of(self, expr: ast.expr):
        """The class of `expr`'s shape, SCALAR for a number, or None when not known."""
        if isinstance(expr, ast.Constant):
            return SCALAR if type(expr.value) in (int, float) else None
        if isinstance(expr, ast.Name):
            if self.is_scalar(expr.id):
                return SCALAR
            return self.find(expr.id) if expr.id in self.single or expr.id in self.merged else None
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            return self.of(expr.operand)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ELEMENTWISE):
            return self._combine([expr.left, expr.right])
        if isinstance(expr, ast.Subscript):
            return self._slice(expr)
        if isinstance(expr, ast.Call) and not expr.keywords:
            return self._call(expr)
        if is_conversion(expr):  # np.asarray(e, dtype=d): e's shape
            return self.of(expr.args[0])
        return None

    def _equate_operands(self, value: ast.expr) -> None:
        """``a * b`` ran, with `a` and `b` of one ndim and every axis "longer than one" in
        both or of length one in both: broadcasting them succeeded, so their shapes are equal."""
        if isinstance(value, ast.BinOp) and isinstance(value.op, ELEMENTWISE):
            operands = [value.left, value.right]
        elif isinstance(value, ast.Call) and is_ufunc(value):
            operands = value.args
        else:
            return
        names = [e.id for e in operands if isinstance(e, ast.Name) and e.id in self.single
                 and not self.is_scalar(e.id) and self._holds_its_shape(e.id)]
        found = [self.shape_of(n) for n in names]
        if len(names) < 2 or not all(f.known and UNKNOWN_DIM not in f.dims for f in found) \
                or len({f.dims for f in found}) != 1:
            return
        for other in names[1:]:
            self.union(names[0], other)

    def _holds_its_shape(self, name: str) -> bool:
        """Whether `name` still holds its inferred shape: a fill the optimizer made a number
        (``t6_bar = t7_bar``) keeps the array's inferred shape, but joins the class of what it
        copies, whose inferred dims differ."""
        dims, root = self.shape_of(name).dims, self.find(name)
        return all(not (shape := self.shape_of(other)).known or shape.dims == dims
                   for other in self.order if other != name and self.find(other) == root)

    def _combine(self, operands: list[ast.expr]):
        """Elementwise operands: the shape is the arrays' when they are all one class."""
        keys = {self.of(e) for e in operands} - {SCALAR}
        if None in keys or len(keys) > 1:
            return None
        return keys.pop() if keys else SCALAR

    def _call(self, call: ast.Call):
        func = call.func
        if isinstance(func, ast.Name) and func.id == "unbroadcast" and len(call.args) == 2:
            return self.of(call.args[1])
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"):
            return None
        if is_ufunc(call):
            return self._combine(call.args)
        if func.attr in ("full", "zeros", "ones") and call.args and shape_of_call(call.args[0]) is not None:
            return self.of(shape_of_call(call.args[0]))
        if func.attr in ("zeros_like", "ones_like") and len(call.args) == 1:
            return self.of(call.args[0])
        return None

    def _slice(self, expr: ast.Subscript):
        """``x[j:-k]`` (steps of one) has length ``max(len(x) - j - k, 0)``: keyed on j + k."""
        s = expr.slice
        if not (isinstance(expr.value, ast.Name) and isinstance(s, ast.Slice) and s.step is None):
            return None
        base = self.of(expr.value)
        start = 0 if s.lower is None else int_value(s.lower)
        stop = 0 if s.upper is None else int_value(s.upper)
        if base in (None, SCALAR) or start is None or stop is None or start < 0 or stop > 0 \
                or (s.upper is not None and stop == 0):
            return None
        key = ("slice", base, start - stop)
        self.parent.setdefault(key, key)
        return self.find(key)

    def earliest(self, name: str, before: float = float("inf")) -> str:
        """The name of `name`'s class defined first (a parameter if one is in it), before the top-level
        statement `before`.  A name without a place in the order (defined after a statement that may
        return) is left as it is: an earlier member would have to be defined before it to stand in."""
        if name not in self.order:
            return name
        found = self.earliest_of(self.find(name), before)
        return found if found is not None else name

    def earliest_of(self, key, before: float = float("inf")) -> str | None:
        """The first-defined name of class `key` defined before the top-level statement `before`
        (None: no such name), never the one the statement itself assigns."""
        if key in (None, SCALAR):
            return None
        root = self.find(key)
        members = [n for n in self.order if self.find(n) == root and self.order[n] < before]
        return min(members, key=lambda n: self.order[n]) if members else None


def drop_unbroadcasts(func: ast.FunctionDef, classes: ShapeClasses) -> bool:
    """``unbroadcast(e, t) -> e`` where `e` provably has `t`'s shape already."""
    changed = False

    class Drop(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call):
            nonlocal changed
            self.generic_visit(node)
            if isinstance(node.func, ast.Name) and node.func.id == "unbroadcast" and len(node.args) == 2:
                g, x = node.args
                key = classes.of(x)
                same = key not in (None, SCALAR) and classes.of(g) == key
                zero_dim = isinstance(x, ast.Name) and classes.shape_of(x.id).dims == () \
                    and classes.of(g) == SCALAR  # unbroadcast(number, 0-d) is the number
                if same or zero_dim:
                    changed = True
                    return g
            return node

    Drop().visit(func)
    return changed


def earliest_shape_reads(func: ast.FunctionDef, classes: ShapeClasses) -> bool:
    """``np.shape(t)``/``np.size(t)`` read the first-defined name with `t`'s shape instead,
    as the attribute ``r.shape``/``r.size`` where that name is certainly an array of one or
    more dimensions (no function call; a 0-d value may be a number)."""
    changed = False
    before = float("inf")  # the index of the top-level statement being read

    class Earliest(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call):
            nonlocal changed
            self.generic_visit(node)
            func = node.func
            if not (isinstance(func, ast.Attribute) and func.attr in ("shape", "size")
                    and isinstance(func.value, ast.Name) and func.value.id == "np"
                    and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Name)):
                return node
            name = node.args[0].id
            if name in classes.single:
                name = classes.earliest(name, before)
            shape = classes.shape_of(name)
            changed = True
            if shape.known and not shape.scalar and shape.ndim > 0:  # 0-d may be a NumPy scalar
                return ast.Attribute(ast.Name(name, ast.Load()), func.attr, ast.Load())
            changed = name != node.args[0].id
            node.args[0] = ast.Name(name, ast.Load())
            return node

        def visit_Attribute(self, node: ast.Attribute):
            """``(a + b).shape`` computed only for its shape: an earlier name's instead."""
            nonlocal changed
            self.generic_visit(node)
            if node.attr != "shape" or isinstance(node.value, ast.Name) or not isinstance(node.ctx, ast.Load) \
                    or not is_pure(node.value):
                return node
            name = classes.earliest_of(classes.of(node.value), before)
            if name is None:
                return node
            changed = True
            shape = classes.shape_of(name)
            if shape.known and not shape.scalar and shape.ndim > 0:
                return ast.Attribute(ast.Name(name, ast.Load()), "shape", ast.Load())
            return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "shape", ast.Load()),
                            [ast.Name(name, ast.Load())], [])

    # from a name defined before the statement (a slice's class may hold the adjoint it defines)
    for index, stmt in enumerate(func.body):
        before = index
        func.body[index] = Earliest().visit(stmt)
    return changed


def scalar_fills(func: ast.FunctionDef, classes: ShapeClasses) -> bool:
    """``n = np.full(np.shape(t), s) -> n = s`` where every use allows it (module docstring).

    `s` may be a number or an array that broadcasts to `t`'s shape (the fill of a reduction
    with ``keepdims``): broadcasting it in each use gives the same elements."""
    changed = False
    loads = reads(func)
    for block in bodies(func.body):
        for index, stmt in enumerate(block):
            name = assigned_name(stmt)
            value = getattr(stmt, "value", None)
            if name is None or name not in classes.single or not _is_fill(value):
                continue
            key = classes.of(shape_of_call(value.args[0]))
            if key in (None, SCALAR) or not _uses_allow(block[index + 1:], name, key, classes, loads):
                continue
            stmt.value = value.args[1]
            changed = True
    return changed


def _is_fill(value) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        and value.func.attr == "full" and isinstance(value.func.value, ast.Name) \
        and value.func.value.id == "np" and len(value.args) == 2 and not value.keywords \
        and shape_of_call(value.args[0]) is not None and is_pure(value.args[1])


def _uses_allow(rest: list[ast.stmt], root: str, key, classes: ShapeClasses, loads) -> bool:
    """Whether `root` (a filled array of class `key`) may be a number in every later statement
    of its body, and every read of it (and of values computed from it) is one of those (in a
    loop body, not one of an earlier statement that reads the last iteration's)."""
    filled = {root}
    seen = reads(ast.Module(body=rest, type_ignores=[]))
    return _block_allows(rest, filled, key, classes) and all(seen[name] == loads[name] for name in filled)


def _block_allows(rest: list[ast.stmt], filled: set[str], key, classes: ShapeClasses) -> bool:
    """`_uses_allow` over the statements of one body (and of the branches in it)."""
    for stmt in rest:
        if is_comment(stmt):
            continue
        mentioned = {n.id for n in nodes(stmt) if isinstance(n, ast.Name)}
        if not mentioned & filled:
            continue
        if isinstance(stmt, ast.If) and not {n.id for n in nodes(stmt.test) if isinstance(n, ast.Name)} & filled:
            if _block_allows(stmt.body, filled, key, classes) and _block_allows(stmt.orelse, filled, key, classes):
                continue
            return False
        if is_compound(stmt) or filled & writes(stmt):
            return False
        kind = _kind(stmt.value, filled, key, classes) if isinstance(stmt, (ast.Assign, ast.AugAssign)) else FAIL
        if kind == FAIL:
            return False
        target = assigned_name(stmt)
        if kind == "filled":
            if target is None or target not in classes.single:
                return False
            filled.add(target)
        elif isinstance(stmt, ast.AugAssign) or target is None:
            pass  # ``x_bar[:-1] += e`` with e an ordinary array is fine
    return True


def _kind(expr: ast.expr, filled: set[str], key, classes: ShapeClasses):
    """"filled" (stands for the filled array), SCALAR, "array", or FAIL (a use that needs
    the real array)."""
    if isinstance(expr, ast.Name):
        if expr.id in filled:
            return "filled"
        return SCALAR if classes.of(expr) == SCALAR else "array"
    if isinstance(expr, ast.Constant):
        return SCALAR
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _kind(expr.operand, filled, key, classes)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ELEMENTWISE):
        kinds = [_kind(expr.left, filled, key, classes), _kind(expr.right, filled, key, classes)]
        if FAIL in kinds:
            return FAIL
        if "filled" not in kinds:
            return SCALAR if kinds == [SCALAR, SCALAR] else "array"
        other = expr.right if kinds[0] == "filled" else expr.left
        other_kind = kinds[1] if kinds[0] == "filled" else kinds[0]
        if other_kind in (SCALAR, "filled"):
            return "filled"
        # broadcasting gives the same array: `other` has the fill's shape, by its class or by
        # its arrays' dims (every axis longer than one: an adjoint meets a fill only where the
        # forward broadcast their values together, and such axes broadcast only when equal)
        return "array" if classes.of(other) == key or _same_long_dims(other, key, classes) else FAIL
    if any(isinstance(n, ast.Name) and n.id in filled for n in nodes(expr)):
        return FAIL
    return "array"


def _same_long_dims(expr: ast.expr, key, classes: ShapeClasses) -> bool:
    """Whether `expr`, elementwise arithmetic (NumPy ufuncs too) on numbers and arrays, reads
    only numbers and arrays whose inferred dims are those of class `key`, every one MANY."""
    like = classes.earliest_of(key)
    dims = classes.shape_of(like).dims if like is not None else None
    if not dims or any(d != MANY for d in dims):
        return False
    if isinstance(expr, ast.Name):
        shape = classes.shape_of(expr.id)
        return classes.of(expr) == SCALAR or (shape.known and not shape.scalar and shape.dims == dims)
    if isinstance(expr, ast.Constant):
        return type(expr.value) in (int, float)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _same_long_dims(expr.operand, key, classes)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ELEMENTWISE):
        return _same_long_dims(expr.left, key, classes) and _same_long_dims(expr.right, key, classes)
    if isinstance(expr, ast.Call) and is_ufunc(expr) and expr.args:
        return all(_same_long_dims(a, key, classes) for a in expr.args)
    return False
