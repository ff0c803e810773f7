"""What a value computed from a promoted one (joins.py: a number made an array of ones' shape) may
flow into and keep the values the number gives: elementwise operators and NumPy functions, whole
reductions, the backward sweep's ``unbroadcast(g, y)``, renames, a loop's stack (`use`); and the check
of every such use in the order the statements run (`in_order`), where a name assigned again from
values the promotion does not reach holds the same array it would hold had the number stayed one."""

from __future__ import annotations

import ast

from . import kindflow, kinds, ufuncs

#: NumPy's comparisons and logical functions (the masks an adjoint computes: ``np.equal(t2, 0.0)``)
COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
               "logical_or", "logical_xor", "logical_not"}
#: calls whose result is tainted when an argument is, and which keep values elementwise
ELEMENTWISE = kinds.UNARY | kinds.BINARY | COMPARISONS | {"where", "full_like", "zeros_like", "ones_like"} | \
    {ufuncs.PREFIX + name for name in ufuncs.NAMES} | {"present"}  # (NumPy's loops for large arrays; optionals.py)
#: those whose result has the shape their arguments broadcast to (not the first argument's alone)
BROADCASTING = ELEMENTWISE - {"full_like", "zeros_like", "ones_like"}
WHOLE = {"sum", "mean", "max", "min", "prod", "amax", "amin"}
HELPERS_OF_SHAPE = {"zeros_like", "full", "stop_gradient"}



def use(node: ast.Name, parents: dict, tainted: set = frozenset(), wide=None):
    """(the names a tainted load taints, the (list, position)s it is appended at), or False
    where its use may change a value."""
    child, parent = node, parents.get(id(node))
    while True:
        if wide is not None and isinstance(parent, ast.BinOp) and not isinstance(parent.op, ast.MatMult):
            other = parent.right if child is parent.left else parent.left
            if not any(isinstance(n, ast.Name) and n.id in tainted for n in ast.walk(other)) \
                    and _covers(wide, other, statement(parent, parents)):
                return set(), set()  # the shape and values the number gave
        if wide is not None and isinstance(parent, ast.Call) and called_name(parent.func) in BROADCASTING \
                and child in parent.args and not parent.keywords:
            others = [a for a in parent.args if a is not child]
            if not any(isinstance(n, ast.Name) and n.id in tainted for a in others for n in ast.walk(a)) \
                    and any(_covers(wide, a, statement(parent, parents)) for a in others):
                return set(), set()  # (``np.logical_and(np.equal(prod, 0.0), np.not_equal(t2, 0.0))``: t2's shape)
        if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp)) and child is not getattr(
                parent, "test", None):
            child, parent = parent, parents.get(id(parent))
            continue
        if isinstance(parent, ast.Call) and child is node and parent.args == [node] and not parent.keywords \
                and isinstance(parent.func, ast.Attribute) and parent.func.attr == "append" \
                and isinstance(parent.func.value, ast.Name):
            return set(), {(parent.func.value.id, None)}  # pushed alone (``stack.append(v)``): popped alone
        if isinstance(parent, ast.Call) and child in parent.args:
            called = called_name(parent.func)
            if called in ELEMENTWISE or called in HELPERS_OF_SHAPE:
                child, parent = parent, parents.get(id(parent))
                continue
            if (called in WHOLE or called == "size") and len(parent.args) == 1 and not parent.keywords:
                return set(), set()  # a number, the same one (axes of length one hold no more items)
            if called == "unbroadcast" and len(parent.args) == 2:
                if child is parent.args[0]:
                    return set(), set()  # summed to the other's shape: the same values
                child, parent = parent, parents.get(id(parent))
                continue
            if called == "shape" and isinstance(parents.get(id(parent)), ast.Call) \
                    and called_name(parents[id(parent)].func) in ("full", "zeros", "ones"):
                child, parent = parents[id(parent)], parents.get(id(parents[id(parent)]))
                continue
            if called == "shape" and isinstance(parents.get(id(parent)), ast.Assign):
                child, parent = parent, parents.get(id(parent))  # a shape kept (unused: forward mode's)
                continue
            if called == "add_adjoints" and len(parent.args) == 2 and not parent.keywords \
                    and all(_not_a_list(a, tainted) for a in parent.args):
                child, parent = parent, parents.get(id(parent))  # two arrays or numbers: ``a + b``
                continue
            return False
        if isinstance(parent, ast.Tuple) and child is node and isinstance(parents.get(id(parent)), ast.Call):
            call = parents[id(parent)]
            if isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
                    and isinstance(call.func.value, ast.Name) and call.args == [parent]:
                return set(), {(call.func.value.id, parent.elts.index(child))}
            return False
        if isinstance(parent, ast.Call) and child is parent.func and isinstance(child, ast.Attribute) \
                and child.attr in WHOLE and not parent.args and not parent.keywords:
            return set(), set()
        if isinstance(parent, ast.Attribute) and parent.attr in WHOLE and child is parent.value:
            child, parent = parent, parents.get(id(parent))
            continue
        if isinstance(parent, (ast.Assign, ast.AugAssign)) and child is parent.value:
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if all(isinstance(t, (ast.Name, ast.Tuple)) for t in targets):
                return {n for t in targets for n in kindflow.bound(t)}, set()
            if all(isinstance(t, ast.Subscript) for t in targets) and child is node:
                # written into an element or a row: an array of ones' shape broadcasts there as the
                # number does (into one element, numba refuses it: never another value)
                return set(), set()
            return False
        return False


def _not_a_list(node: ast.expr, tainted) -> bool:
    """Whether `node` is never a list where it is an adjoint added by ``add_adjoints`` (which adds lists
    item by item, and anything else with ``+``): a value computed from the promoted one (an array), an
    ``unbroadcast`` or ``full`` (an array or a number), arithmetic or an elementwise call of a value computed
    from the promoted one, or a number written."""
    if isinstance(node, ast.Name):
        return node.id in tainted
    reads = any(isinstance(n, ast.Name) and n.id in tainted for n in ast.walk(node))
    if isinstance(node, ast.Call):  # (``full(np.shape(h), 1.0)``; ``zeros_like`` of a list is a list)
        called = called_name(node.func)
        return called in ("unbroadcast", "full") or reads and called in ELEMENTWISE | HELPERS_OF_SHAPE
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):  # (of a promoted value: an array; ``[0.0] * n`` is not)
        return reads
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _covers(wide, operand: ast.expr, where: ast.stmt | None) -> bool:
    """Whether `operand` is an array of at least the promoted value's axes (`wide`): one itself, or an
    elementwise result of one (``np.not_equal(t2, 0.0)``, ``t2 * 2.0``), which broadcasts to its axes at least."""
    if wide.covers(operand, where):
        return True
    if isinstance(operand, ast.Call) and called_name(operand.func) in BROADCASTING and not operand.keywords:
        return any(_covers(wide, a, where) for a in operand.args)
    if isinstance(operand, ast.BinOp) and not isinstance(operand.op, ast.MatMult):
        return _covers(wide, operand.left, where) or _covers(wide, operand.right, where)
    if isinstance(operand, ast.Compare) and len(operand.comparators) == 1:
        return _covers(wide, operand.left, where) or _covers(wide, operand.comparators[0], where)
    if isinstance(operand, ast.UnaryOp):
        return _covers(wide, operand.operand, where)
    return False


def statement(node: ast.AST, parents: dict) -> ast.stmt | None:
    while node is not None and not isinstance(node, ast.stmt):
        node = parents.get(id(node))
    return node


def called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("np", "numpy"):
        return func.attr
    if isinstance(func, ast.Attribute):
        return func.attr if func.attr in ("append",) else None
    return None


def in_order(func: ast.FunctionDef, starts: list, wide=None) -> bool:
    """Whether every value computed from the promoted assignments `starts` is used only the ways
    `use` allows, following the statements in the order they run: a name assigned again from
    untainted values is untainted from there on (``v = v_2`` at the end of a power iteration's
    loop: after a loop that runs, `v` holds what the number's code would hold), a loop's body is
    followed to its fixed point, and a ``for`` over a range of constant, non-zero length runs."""
    parents = {id(child): node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    started = {id(s) for s in starts}
    piled: set = set()

    def loads_ok(node: ast.AST, tainted: set, grown: set) -> bool:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in tainted:
                found = use(n, parents, tainted, wide)
                if found is False:
                    return False
                grown.update(found[0])
                piled.update(found[1])
        return True

    def run(stmts: list, tainted: set):
        for stmt in stmts:
            if isinstance(stmt, (ast.For, ast.While)):
                grown: set = set()
                header = stmt.iter if isinstance(stmt, ast.For) else stmt.test
                if not loads_ok(header, tainted, grown) or grown or \
                        any(isinstance(n, ast.Name) and n.id in {s for s, _ in piled} for n in ast.walk(header)):
                    return None  # (a loop over a stack holding the value: its items are not followed)
                entry = set(tainted) - (set(kindflow.bound(stmt.target)) if isinstance(stmt, ast.For) else set())
                for _ in range(12):
                    out = run(stmt.body, entry)
                    if out is None:
                        return None
                    if out <= entry:
                        break
                    entry = entry | out
                else:
                    return None
                tainted = out if isinstance(stmt, ast.For) and runs(stmt) else tainted | out
                if stmt.orelse:
                    tainted = run(stmt.orelse, tainted)
            elif isinstance(stmt, ast.If):
                grown = set()
                if not loads_ok(stmt.test, tainted, grown) or grown:
                    return None
                sides = run(stmt.body, tainted), run(stmt.orelse, tainted)
                if sides[0] is None or sides[1] is None:
                    return None
                tainted = sides[0] | sides[1]
            elif isinstance(stmt, (ast.FunctionDef, ast.Try, ast.With)):
                return None
            else:
                grown = set()
                if not loads_ok(stmt, tainted, grown):
                    return None
                after = set(tainted)
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    target = stmt.targets[0]
                    if isinstance(target, (ast.Name, ast.Tuple)):
                        after -= set(kindflow.bound(target))
                    stack = kindflow.stack_of(stmt.value)
                    if isinstance(target, ast.Tuple) and stack is not None:
                        grown.update(n for i, e in enumerate(target.elts) if (stack, i) in piled
                                     for n in kindflow.bound(e))
                    elif isinstance(target, ast.Name) and stack is not None and (stack, None) in piled:
                        grown.add(target.id)  # (a value pushed alone, popped alone)
                    elif stack is not None and any(s == stack for s, _ in piled):
                        return None
                    if id(stmt) in started:
                        grown.update(kindflow.bound(target))
                tainted = after | grown
            if tainted is None:
                return None
        return tainted

    before = None
    for _ in range(3):  # again with the stacks piled by a later statement (the backward sweep pops them)
        known = set(piled)
        if run(func.body, set()) is None:
            return False
        if piled == known and before is not None:
            return True
        before = known
    return False


def runs(loop: ast.For) -> bool:
    """Whether `loop` is a ``for`` over ``range`` of integer constants that is not empty."""
    it = loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords
            and 1 <= len(it.args) <= 3):
        return False
    values = []
    for a in it.args:
        if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub) and isinstance(a.operand, ast.Constant):
            a = ast.Constant(-a.operand.value)
        if not (isinstance(a, ast.Constant) and type(a.value) is int):
            return False
        values.append(a.value)
    try:
        return len(range(*values)) > 0
    except ValueError:
        return False
