"""What arrays of certainly one shape buy (shape_classes.py finds them).

The signature a gradient is compiled for gives each axis as "length one" or "longer", and a
slice ``x[1:]`` may be either, so the reverse pass often has to call ``unbroadcast`` or
fill a whole array (``np.full(np.shape(t), g)``) to be safe.  Where `ShapeClasses` proves
shapes equal:

* ``unbroadcast(e, t) -> e`` where `e` has `t`'s shape;
* ``g[t6.shape[0]:t6.shape[0] + t9.shape[0]] -> g[1:-1]`` where `t6` and `t9` are pieces of `g`'s
  class (a join's adjoint cut back into its operands' pieces);
* ``np.shape(t)``/``np.size(t)`` read the earliest name of `t`'s class, so `t` itself may
  die, and become ``t.shape``/``t.size`` where `t` is certainly an array;
* ``n = np.full(np.shape(t), s)`` becomes ``n = s`` when every use of `n` (and of values
  computed from it) only combines it elementwise with arrays of `t`'s shape, where
  broadcasting the number gives bitwise the same result as the filled array.
"""

from __future__ import annotations

import ast

from ...ir.shapes import MANY, UNKNOWN_DIM
from . import liveness
from .liveness import assigned_name, bodies, is_comment, is_compound, is_pure, nodes, reads, writes
from .shape_calls import is_size_arithmetic, is_ufunc, self_operand, shape_of_call
from .shape_classes import ELEMENTWISE, SCALAR, ShapeClasses
from .shape_pieces import constant_bound

FAIL = "fail"


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


def drop_zero_fills(func: ast.FunctionDef, classes: ShapeClasses) -> bool:
    """``a + (zeros_like(t) + b) -> a + b`` where `a` has `t`'s shape: the zeros only gave `b`
    (a popped list item, which may be a number) `t`'s shape, which `a` gives it as well (the same
    elements, but for the sign of a zero: ``0.0 + -0.0`` is ``0.0``)."""
    changed = False

    class Drop(ast.NodeTransformer):
        def visit_BinOp(self, node: ast.BinOp):
            nonlocal changed
            self.generic_visit(node)
            if not isinstance(node.op, ast.Add):
                return node
            for other, filled in ((node.left, node.right), (node.right, node.left)):
                if isinstance(filled, ast.BinOp) and isinstance(filled.op, ast.Add) and _zeros_of(filled.left):
                    like = _zeros_of(filled.left)
                    key = classes.of(like)
                    if (key not in (None, SCALAR) and classes.of(other) == key) or _same_dims(other, like, classes):
                        changed = True
                        return ast.BinOp(node.left if other is node.left else filled.right, ast.Add(),
                                         filled.right if other is node.left else node.right)
            return node

    Drop().visit(func)
    return changed


def _same_dims(a: ast.expr, b: ast.expr, classes: ShapeClasses) -> bool:
    """Names of arrays whose inferred shapes are known and equal, every axis longer than one or
    of length one: within one broadcast expression, of one shape (or NumPy raises there)."""
    if not (isinstance(a, ast.Name) and isinstance(b, ast.Name)):
        return False
    x, y = classes.shape_of(a.id), classes.shape_of(b.id)
    return x.known and not x.scalar and x == y and UNKNOWN_DIM not in x.dims


def _zeros_of(expr: ast.expr) -> ast.expr | None:
    """`t` of ``zeros_like(t)`` (codegen's helper, or NumPy's), else None."""
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords and (
            (isinstance(expr.func, ast.Name) and expr.func.id == "zeros_like")
            or (isinstance(expr.func, ast.Attribute) and expr.func.attr == "zeros_like"
                and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np")):
        return expr.args[0]
    return None


def constant_bounds(func: ast.FunctionDef, classes: ShapeClasses) -> bool:
    """``g[t6.shape[0]:t6.shape[0] + t9.shape[0]] -> g[1:-1]`` where `t6` and `t9` are pieces of the
    class of `g` (``x[:1]``, ``x[1:-1]``: a join's adjoint cut back into its operands) and the
    constant bounds take the same places for every length `g` may have (shape_pieces.py): a
    slice of known class, read without computing its bounds."""
    changed = False

    class Bounds(ast.NodeTransformer):
        def visit_Subscript(self, node: ast.Subscript):
            nonlocal changed
            self.generic_visit(node)
            s = node.slice
            if not (isinstance(node.value, ast.Name) and isinstance(s, ast.Slice) and s.step is None) \
                    or all(b is None or isinstance(b, ast.Constant) for b in (s.lower, s.upper)):
                return node
            key = classes.of(node.value)
            dims = classes.dims(key) if key not in (None, SCALAR) else None
            if not dims:
                return node
            base = classes.find(key)
            bounds = [_constant_bound(b, base, dims[0], classes) if b is not None else (None,)
                      for b in (s.lower, s.upper)]
            if None in bounds:
                return node
            changed = True
            node.slice = ast.Slice(*[None if b[0] is None or (i == 0 and b[0] == 0) else ast.Constant(b[0])
                                     if b[0] >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-b[0]))
                                     for i, b in enumerate(bounds)])
            return node

    Bounds().visit(func)
    return changed


def _constant_bound(expr: ast.expr, base, first: str, classes: ShapeClasses):
    pieces: list = []
    extra = [0]

    def add(e: ast.expr, depth: int) -> bool:
        if isinstance(e, ast.Constant) and type(e.value) is int:
            extra[0] += e.value
            return True
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
            return add(e.left, depth) and add(e.right, depth)
        if isinstance(e, ast.Name) and depth < 4 and classes.definition(e.id) is not None:
            return add(classes.definition(e.id), depth + 1)
        if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant) and e.slice.value == 0 \
                and shape_of_call(e.value) is not None:
            found, piece = classes.piece(shape_of_call(e.value))
            pieces.append(piece)
            return found == base
        return False

    return constant_bound(pieces, extra[0], first) if add(expr, 0) else None


def earliest_shape_reads(func: ast.FunctionDef, classes: ShapeClasses) -> bool:
    """``np.shape(t)``/``np.size(t)`` read the first-defined name with `t`'s shape instead, as the attribute
    ``r.shape``/``r.size`` where that name is certainly an array of one or more dimensions (no function call;
    a 0-d value may be a number); ``t.shape`` too, where that name is such an array (a fill read only for its
    shape is then unread)."""
    changed = False
    before = float("inf")  # the index of the top-level statement being read

    class Earliest(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call):
            nonlocal changed
            self.generic_visit(node)
            func = node.func
            if isinstance(func, ast.Name) and func.id == "unbroadcast" and len(node.args) == 2 \
                    and isinstance(node.args[1], ast.Name) and node.args[1].id in classes.single:
                # (only its shape is read: one spelling for every name of a class, so two sums
                # of one adjoint to one shape are seen to be the same: statements.reuse_common)
                like = node.args[1].id
                earlier = classes.earliest(like, before)
                if earlier != like and _array_of_axes(classes.shape_of(like)) \
                        and _array_of_axes(classes.shape_of(earlier)):
                    node.args[1] = ast.Name(earlier, ast.Load())
                    changed = True
                return node
            if not (isinstance(func, ast.Attribute) and func.attr in ("shape", "size")
                    and isinstance(func.value, ast.Name) and func.value.id == "np"
                    and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Name)):
                return node
            name = node.args[0].id
            if name in classes.single:
                name = classes.earliest(name, before)
            shape = classes.shape_of(name)
            changed = True
            if _array_of_axes(shape):  # 0-d may be a NumPy scalar
                return ast.Attribute(ast.Name(name, ast.Load()), func.attr, ast.Load())
            changed = name != node.args[0].id
            node.args[0] = ast.Name(name, ast.Load())
            return node

        def visit_Attribute(self, node: ast.Attribute):
            """``(a + b).shape`` computed only for its shape: an earlier name's instead."""
            nonlocal changed
            self.generic_visit(node)
            if node.attr != "shape" or not isinstance(node.ctx, ast.Load) or not is_pure(node.value):
                return node
            if isinstance(node.value, ast.Name):  # ``z.shape`` of ``z = np.zeros(t6)``: an earlier array's
                name = node.value.id
                if name not in classes.single:
                    return node
                earlier = classes.earliest(name, before)
                shape = classes.shape_of(earlier)
                if earlier == name or not _array_of_axes(shape):
                    return node
                changed = True
                return ast.Attribute(ast.Name(earlier, ast.Load()), "shape", ast.Load())
            if (same := self_operand(node.value)) is not None:  # ``(h * h).shape``: h's, the product not made
                changed = True
                return ast.Attribute(ast.Name(same, ast.Load()), "shape", ast.Load())
            name = classes.earliest_of(classes.of(node.value), before)
            if name is None:
                return node
            changed = True
            shape = classes.shape_of(name)
            if _array_of_axes(shape):
                return ast.Attribute(ast.Name(name, ast.Load()), "shape", ast.Load())
            return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "shape", ast.Load()),
                            [ast.Name(name, ast.Load())], [])

    # from a name defined before the statement (a slice's class may hold the adjoint it defines)
    for index, stmt in enumerate(func.body):
        before = index
        func.body[index] = Earliest().visit(stmt)
    return changed


def _array_of_axes(shape) -> bool:
    """An array certainly of one or more axes (a 0-d value may be a number: ``unbroadcast`` then returns one)."""
    return shape.known and not shape.scalar and shape.ndim > 0


def scalar_fills(func: ast.FunctionDef, classes: ShapeClasses) -> bool:
    """``n = np.full(np.shape(t), s) -> n = s`` where every use allows it (module docstring).

    `s` may be a number or an array that broadcasts to `t`'s shape (the fill of a reduction
    with ``keepdims``): broadcasting it in each use gives the same elements."""
    changed = False
    loads = reads(func)
    for block in bodies(func.body):
        rebound = liveness.plainly_rebound(func) if block is func.body else set()
        touched: set[str] = set()  # names the fills made numbers in this pass flow through
        for index, stmt in enumerate(block):
            name = assigned_name(stmt)
            value = getattr(stmt, "value", None)
            if name is None or name not in classes.single or not _is_fill(value):
                continue
            key = classes.of(shape_of_call(value.args[0]))
            # a name rebound from it holds the fill's value until rebound: only a number (an array of
            # keepdims's narrower shape there would meet ``x_bar += e``, which cannot widen it)
            number = is_size_arithmetic(value.args[1]) or classes.of(value.args[1]) == SCALAR
            if key in (None, SCALAR) or not _uses_allow(block[index + 1:], name, key, classes, loads,
                                                        rebound if number else frozenset()):
                continue
            # (a fill meeting what another made a number in this pass waits for the next, its classes read
            # again: ``x_bar = t3_bar * 2.0; x_bar = x_bar + t1_bar * 0.7``, x_bar returned, not both)
            involved = liveness.flowing_names(block[index + 1:], name)
            if involved & touched:
                continue
            touched |= involved
            stmt.value = value.args[1]
            changed = True
    return changed


def _is_fill(value) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        and value.func.attr == "full" and isinstance(value.func.value, ast.Name) \
        and value.func.value.id == "np" and len(value.args) == 2 and not value.keywords \
        and shape_of_call(value.args[0]) is not None and is_pure(value.args[1])


def _uses_allow(rest: list[ast.stmt], root: str, key, classes: ShapeClasses, loads, rebound=frozenset()) -> bool:
    """Whether `root` (a filled array of class `key`) may be a number in every later statement
    of its body, and every read of it (and of values computed from it) is one of those (in a
    loop body, not one of an earlier statement that reads the last iteration's).  A name of
    `rebound` computed from it may be assigned again: an array of class `key` from there on."""
    filled = {root}
    seen = reads(ast.Module(body=rest, type_ignores=[]))
    return _block_allows(rest, filled, key, classes, rebound) and all(seen[name] == loads[name] for name in filled)


def _block_allows(rest: list[ast.stmt], filled: set[str], key, classes: ShapeClasses, rebound=frozenset()) -> bool:
    """`_uses_allow` over the statements of one body (and of the branches in it)."""
    for stmt in rest:
        if is_comment(stmt):
            continue
        mentioned = {n.id for n in nodes(stmt) if isinstance(n, ast.Name)}
        if not mentioned & filled:
            continue
        if isinstance(stmt, ast.Assign) and assigned_name(stmt) in filled & rebound:
            kind = _kind(stmt.value, filled, key, classes)  # (``m_bar = m_bar + e``: the elements e gives it)
            if kind == FAIL:
                return False
            if kind != "filled":
                filled.discard(assigned_name(stmt))
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
            if target is None or target not in classes.single and target not in rebound:
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
        return "array" if classes.of(other) == key or _same_long_dims(other, key, classes) \
            or _decides_shape(other, key, classes) else FAIL
    if _decides_shape(expr, key, classes):
        # a selection on a comparison of arrays of the fill's shape has that shape at least,
        # whatever its branches are: a fill there may be the number (``np.where(t2 == t4, 0.5 * g, g)``)
        kinds = [_kind(branch, filled, key, classes) for branch in expr.args[1:]]
        return FAIL if FAIL in kinds else "array"
    if isinstance(expr, (ast.BinOp, ast.Call)) and not _mentions(getattr(expr, "func", None), filled):
        # ``X.T @ (g + e)``, ``np.sum(g * e)``: the fill only inside operands already arrays of
        # their own shape (kind "array"), whose values the number leaves as they were
        parts = [expr.left, expr.right] if isinstance(expr, ast.BinOp) else \
            [*expr.args, *(k.value for k in expr.keywords)]
        if all(_kind(p, filled, key, classes) == "array" for p in parts if _mentions(p, filled)):
            return "array"
    if _mentions(expr, filled):
        return FAIL
    return "array"


def _mentions(expr, filled: set[str]) -> bool:
    return expr is not None and any(isinstance(n, ast.Name) and n.id in filled for n in nodes(expr))


def _decides_shape(expr: ast.expr, key, classes: ShapeClasses) -> bool:
    """``np.where(l op r, x, y)`` whose comparison reads names of class `key` (one at least)
    and numbers: of `key`'s shape or one it broadcasts to, whatever the branches."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "where"
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np"
            and len(expr.args) == 3 and not expr.keywords and isinstance(expr.args[0], ast.Compare)):
        return False
    condition = expr.args[0]
    operands = [condition.left, *condition.comparators]
    found = [classes.of(o) for o in operands]
    return all(isinstance(o, (ast.Name, ast.Constant)) for o in operands) and any(f != SCALAR for f in found) \
        and all(f in (key, SCALAR) or _same_long_dims(o, key, classes) for o, f in zip(operands, found))


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
