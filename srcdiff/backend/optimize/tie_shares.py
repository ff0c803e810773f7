"""A tie's half shares as the rare case: ``np.maximum(a, b)``'s adjoint without a pass for ties
where nothing is tied.

The adjoint of ``np.maximum(a, b)`` (and of minimum, fmax, fmin) gives each side half the
gradient where ``a == b`` (``s = np.where(a == b, 0.5 * g, g)``) and selects each side where it
holds the value.  Where both sides flow into one value (the pinball loss's
``np.maximum(tau * r, (tau - 1.0) * r)``, a leaky ReLU's ``np.maximum(r, 0.1 * r)``), that value's
adjoint is

    s = np.where(a == b, 0.5 * g, g)
    x = np.where(a <= b, E(s), 0.0)
    x = x + np.where(a >= b, F(s), 0.0)

three selections over the arrays, two of them on a condition a branch predictor cannot guess.
Where no element is tied and none is NaN, ``a <= b`` and ``a >= b`` are each other's negation
and `s` is `g`: the three statements are ``x = np.where(a <= b, E(g), F(g))``, one selection.
So the statements become

    x_below = a <= b
    if any_equal(x_below, a >= b):
        ...the three statements, as they were...
    else:
        x = np.where(x_below, E(g), F(g))

The `else` branch gives every element the value the three statements give it, except the sign
of a zero (``0.0 + -0.0`` is ``0.0``, where the branch keeps ``-0.0``).  `s` is replaced by `g`
only as a term or factor of E and F (``+``, ``-``, ``*``, a sign), so the shapes are those of
the selection on ``a <= b`` either way, and only where every argument is float64 or a Python
number and the code makes no narrower value (then `g` and `s` have one dtype).  Not in code
srcdiff differentiates again (its ``if`` would be a branch of the derivative), nor for numba or
another library's arrays.
"""

from __future__ import annotations

import ast
import copy

from .liveness import COMMENT, assigned_name, bodies, fresh_name, is_comment, is_pure, mentions, reads

#: the mirror of each order: the other side's selection
MIRROR = {ast.LtE: ast.GtE, ast.GtE: ast.LtE}
ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult)


#: what makes a value narrower than float64 inside code whose arguments are all float64
NARROW = frozenset({"float32", "float16", "single", "half", "csingle", "astype"})
#: dtypes a ``dtype=`` keyword may name without making anything narrower than float64
WIDE = frozenset({"float", "np.float64", "np.double"})


def fast_ties(func: ast.FunctionDef) -> bool:
    """Rewrite every tie's shares read by one value's two selections (see the module)."""
    if _narrows(func):
        return False
    loads = reads(func)
    taken = mentions(func)
    changed = False
    for block in list(bodies(func.body)):  # (not the branches made here: the rare one keeps the shares)
        i = 0
        while i < len(block):
            if _rewrite_at(block, i, loads, taken) or _rewrite_nested(block, i, taken):
                changed = True
            i += 1
    return changed


def guard_shares(func: ast.FunctionDef) -> bool:
    """Every other share of a name ``g``, ``s = np.where(a == b, 0.5 * g, g)`` (np.clip's two bounds,
    a share inside a larger expression), as the rare case of ``any_equal(a, b, g)``: where nothing
    ties and a, b broadcast to g's shape, ``s`` is ``g`` itself (a share in an expression is
    taken out into a statement of its own first).  Exact: the test's else branch is only taken
    where the selection would give each element g's value, in g's shape and dtype."""
    if _narrows(func):
        return False
    guarded = {id(b) for n in ast.walk(func) if isinstance(n, ast.If) and _is_any_equal(n.test)
               for b in (n.body, n.orelse)}
    taken = mentions(func)
    changed = False
    for block in [b for b in bodies(func.body) if id(b) not in guarded]:
        i = 0
        while i < len(block):
            done, inserted = _guard_at(block, i, taken)
            changed |= done
            i += 1 + inserted  # (a share taken out of a statement: the statement comes after its branch)
    return changed


def _guard_at(block: list[ast.stmt], i: int, taken: set[str]) -> tuple[bool, int]:
    """(whether a share at `block[i]` was guarded, how many statements went in before it)."""
    stmt = block[i]
    share = _share(stmt)
    if share is not None and isinstance(share[3], ast.Name):
        name, left, right, g = share
        block[i] = _guarded(name, stmt.value, left, right, g)
        return True, 0
    if not isinstance(stmt, (ast.Assign, ast.AugAssign)) or not is_pure(stmt.value) or any(
            isinstance(n, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.comprehension)) for n in ast.walk(stmt.value)):
        return False, 0
    inner = next((n for n in ast.walk(stmt.value) if isinstance(n, ast.Call) and _is_np(n, "where", 3)
                  and (found := _share(ast.Assign([ast.Name("_", ast.Store())], n))) is not None
                  and isinstance(found[3], ast.Name)), None)
    if inner is None:
        return False, 0
    _, left, right, g = _share(ast.Assign([ast.Name("_", ast.Store())], inner))
    name = fresh_name((g.id[:-4] if g.id.endswith("_bar") else g.id) + "_shared", taken)
    stmt.value = _Replace(inner, ast.Name(name, ast.Load())).visit(stmt.value)
    block[i:i] = [_guarded(name, inner, left, right, g)]
    return True, 1


class _Replace(ast.NodeTransformer):
    def __init__(self, old: ast.AST, new: ast.expr):
        self.old, self.new = old, new

    def visit(self, node):
        return self.new if node is self.old else super().visit(node)


def _guarded(name: str, share: ast.expr, left: ast.expr, right: ast.expr, g: ast.Name) -> ast.If:
    note = ast.Expr(ast.Call(ast.Name(COMMENT, ast.Load()), [ast.Constant("a tie: half the gradient each side")], []))
    test = _any_equal(copy.deepcopy(left), copy.deepcopy(right))
    test.args.append(ast.Name(g.id, ast.Load()))
    return ast.fix_missing_locations(ast.If(test, [note, ast.Assign([ast.Name(name, ast.Store())], share)],
                                            [ast.Assign([ast.Name(name, ast.Store())], ast.Name(g.id, ast.Load()))]))


def _is_any_equal(test: ast.expr) -> bool:
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "any_equal"


def _narrows(func: ast.FunctionDef) -> bool:
    """Whether `func` may make a value narrower than float64 (``r.astype(np.float32)``, a
    ``dtype=`` keyword, ``np.float32(0.3)``): then `g` and `s` may differ in dtype (a Python
    number's `g` times a float32 factor is float32, the float64 share's product float64), and
    the quick branch would round the gradient to float32 where the three statements do not."""
    for node in ast.walk(func):
        if isinstance(node, ast.keyword) and node.arg == "dtype" and ast.unparse(node.value) not in WIDE:
            return True  # (``dtype=float``, a copy of an adjoint made float64, narrows nothing)
        word = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if word is None and isinstance(node, ast.Constant) and isinstance(node.value, str):
            word = node.value
        if word in NARROW:
            return True
    return False


def _rewrite_at(block: list[ast.stmt], i: int, loads, taken: set[str]) -> bool:
    share = _share(block[i])
    found = None if share is None else _next_two(block, i, share[0])
    if found is None:
        return False
    name, left, right, g = share
    (j, first), (k, second) = found
    one = _selection(first, None)
    two = None if one is None else _selection(second, one[0])
    if (
        two is None
        or two[1] is not MIRROR[one[1]]
        or not (_compares(one[3], left, right) and _compares(two[3], left, right))
    ):
        return False
    target, kept = one[0], (one[2], two[2])
    fast = [_with_g(e, name, g) for e in kept]
    used = sum(reads(e)[name] for e in kept)
    if (
        None in fast
        or loads[name] != used
        or name == target
        or target in mentions(block[i].value) | mentions(kept[0]) | mentions(kept[1])
    ):
        return False
    three = (i, j, k)
    inputs = set().union(*(mentions(block[m]) for m in three))
    between = [block[m] for m in range(i + 1, k) if m != j]
    if any(_unmovable(stmt, inputs) for stmt in between):
        return False
    stem = target[:-4] if target.endswith("_bar") else target
    below = fresh_name(stem + ("_below" if one[1] is ast.LtE else "_above"), taken)
    condition = one[3]
    first.value.args[0] = ast.Name(below, ast.Load())
    test = _any_equal(ast.Name(below, ast.Load()), copy.deepcopy(two[3]))
    quick = ast.Assign(
        [ast.Name(target, ast.Store())], ast.Call(_np("where"), [ast.Name(below, ast.Load()), *fast], [])
    )
    note = ast.Expr(
        ast.Call(
            ast.Name(COMMENT, ast.Load()), [ast.Constant("a tie or a NaN: each side its share, half at a tie")], []
        )
    )
    branch = ast.If(test, [note] + [block[m] for m in three], [quick])
    block[i : k + 1] = between + [ast.Assign([ast.Name(below, ast.Store())], condition), branch]
    return True


def _rewrite_nested(block: list[ast.stmt], i: int, taken: set[str]) -> bool:
    """``np.where(a >= b, np.where(a == b, 0.5 * g, g) * k, 0.0)`` (a maximum's or minimum's side
    whose other side is not differentiated, ``np.maximum(x, 0.0)``): where nothing ties the
    inner selection is `g`, so it is made only where something does::

        if any_equal(a, b):
            s = np.where(a == b, 0.5 * g, g)
        else:
            s = g
        ... np.where(a >= b, s * k, 0.0) ...

    A NaN fails both comparisons either way: the outer selection gives 0.0 there.  The inner
    selection is reached through ``+``, ``-``, ``*`` and signs only, so the outer one's shape is
    that of ``a >= b`` and `g` either way.  (The statement itself stays plain: accumulated in
    place, released, as before.)"""
    stmt = block[i]
    if not isinstance(stmt, (ast.Assign, ast.AugAssign)):
        return False
    outer = next((node for node in ast.walk(stmt.value) if _outer(node) is not None), None)
    if outer is None:
        return False
    share = _outer(outer)
    g = share.args[2]
    stem = g.id[:-4] if isinstance(g, ast.Name) and g.id.endswith("_bar") else getattr(g, "id", "tie")
    name = fresh_name(stem + "_shared", taken)
    outer.args[1] = _without_share(outer.args[1], share, ast.Name(name, ast.Load()))
    note = ast.Expr(ast.Call(ast.Name(COMMENT, ast.Load()), [ast.Constant("a tie: half the gradient each side")], []))
    made = ast.Assign([ast.Name(name, ast.Store())], share)
    kept = ast.Assign([ast.Name(name, ast.Store())], copy.deepcopy(g))
    tied = share.args[0]
    test = _any_equal(copy.deepcopy(tied.left), copy.deepcopy(tied.comparators[0]))
    block[i:i] = [ast.If(test, [note, made], [kept])]
    return True


def _outer(node: ast.AST) -> ast.Call | None:
    """For ``np.where(a >= b, E, 0.0)`` (or ``<=``) whose E reaches a share of a and b through
    ``+``, ``-``, ``*`` and signs: the share (``np.where(a == b, 0.5 * g, g)``)."""
    if not (_is_np(node, "where", 3) and _constant(node.args[2], 0.0)):
        return None
    test = node.args[0]
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in MIRROR):
        return None
    share = _reached(node.args[1])
    if share is None or not _compares(test, share.args[0].left, share.args[0].comparators[0]):
        return None
    return share


def _reached(expr: ast.expr) -> ast.Call | None:
    if _share(ast.Assign([ast.Name("_", ast.Store())], expr)) is not None:
        return expr
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ELEMENTWISE):
        return _reached(expr.left) or _reached(expr.right)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _reached(expr.operand)
    return None


def _without_share(expr: ast.expr, share: ast.Call, name: ast.Name) -> ast.expr:
    """`expr` with the node `share` replaced by `name`."""
    if expr is share:
        return name
    if isinstance(expr, ast.BinOp):
        expr.left, expr.right = _without_share(expr.left, share, name), _without_share(expr.right, share, name)
    elif isinstance(expr, ast.UnaryOp):
        expr.operand = _without_share(expr.operand, share, name)
    return expr


def _share(stmt: ast.stmt):
    """``s = np.where(a == b, 0.5 * g, g)``: (s, a, b, g), a, b and g names or numbers."""
    name = assigned_name(stmt)
    if name is None or not _is_np(stmt.value, "where", 3):
        return None
    test, half, whole = stmt.value.args
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    left, right = test.left, test.comparators[0]
    if not all(_atom(e) for e in (left, right, whole)):
        return None
    if not (
        isinstance(half, ast.BinOp)
        and isinstance(half.op, ast.Mult)
        and _constant(half.left, 0.5)
        and ast.dump(half.right) == ast.dump(whole)
    ):
        return None
    return name, left, right, whole


def _next_two(block, i, name):
    """The next two statements after `i` that are not comments, if both read `name`."""
    found = []
    for m in range(i + 1, len(block)):
        if is_comment(block[m]):
            continue
        if name not in reads(block[m]) or len(found) == 2:
            break
        found.append((m, block[m]))
    return found if len(found) == 2 else None


def _selection(stmt: ast.stmt, target: str | None):
    """``x = np.where(a <= b, E, 0.0)`` (or, with `target` x, ``x = x + np.where(...)``): (x, the
    order's type, E, the condition)."""
    name = assigned_name(stmt)
    if name is None or (target is not None and name != target):
        return None
    value = stmt.value
    if target is not None:
        if not (
            isinstance(value, ast.BinOp)
            and isinstance(value.op, ast.Add)
            and isinstance(value.left, ast.Name)
            and value.left.id == target
        ):
            return None
        value = value.right
    if not _is_np(value, "where", 3) or not _constant(value.args[2], 0.0) or not is_pure(value.args[1]):
        return None
    test = value.args[0]
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in MIRROR):
        return None
    return name, type(test.ops[0]), value.args[1], test


def _compares(test: ast.Compare, left: ast.expr, right: ast.expr) -> bool:
    return ast.dump(test.left) == ast.dump(left) and ast.dump(test.comparators[0]) == ast.dump(right)


def _with_g(expr: ast.expr, name: str, g: ast.expr) -> ast.expr | None:
    """`expr` with `name` replaced by `g`, or None where `name` is read but not as a term or factor."""
    if isinstance(expr, ast.Name) and expr.id == name:
        return copy.deepcopy(g)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ELEMENTWISE):
        left, right = _with_g(expr.left, name, g), _with_g(expr.right, name, g)
        return None if left is None or right is None else ast.BinOp(left, expr.op, right)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        operand = _with_g(expr.operand, name, g)
        return None if operand is None else ast.UnaryOp(expr.op, operand)
    return None if name in mentions(expr) else copy.deepcopy(expr)


def _unmovable(stmt: ast.stmt, inputs: set[str]) -> bool:
    """Whether `stmt`, standing among the three statements, cannot move before them: it is not a
    comment, a ``del`` or a pure assignment, or it mentions a name they mention."""
    if is_comment(stmt):
        return False
    plain = isinstance(stmt, ast.Delete) or (assigned_name(stmt) is not None and is_pure(stmt.value))
    return not plain or bool(mentions(stmt) & inputs)


def _atom(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) or (isinstance(node, ast.Constant) and type(node.value) in (int, float))


def _constant(node: ast.expr, value: float) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == value


def _is_np(node: ast.expr, attr: str, nargs: int) -> bool:
    return (
        isinstance(node, ast.Call)
        and len(node.args) == nargs
        and not node.keywords
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == attr
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "np"
    )


def _any_equal(left: ast.expr, right: ast.expr) -> ast.expr:
    """``any_equal(left, right)`` (rules/kinks.py): a helper, not ``np.equal(left, right).any()``
    written out, so that srcdiff.check, running this code on symbols, knows the test for what
    it is (the rare case's branch is exact everywhere)."""
    return ast.Call(ast.Name("any_equal", ast.Load()), [left, right], [])


def _np(attr: str) -> ast.expr:
    return ast.Attribute(ast.Name("np", ast.Load()), attr, ast.Load())
