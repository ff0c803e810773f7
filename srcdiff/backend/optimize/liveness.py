"""What the optimizer needs to know about generated statements: reads, writes, runs, purity.

The optimizer works on the generated Python AST, whatever control flow codegen emitted, so
every question here has a conservative answer for statements it does not understand:

* a *simple* statement is ``name = expr``, ``name += expr``, ``del name``..., an expression
  statement (a call such as ``stack.append(v)``, or a comment marker) or a ``return``;
* anything else (``for``, ``while``, ``if``, ``with``, ``try``...) is *compound*: it counts
  as reading every name it mentions and writing every name it assigns anywhere inside, and
  nothing is moved into, out of or across it;
* a *straight-line run* is a sequence of simple statements of one body; statements are
  moved or merged only within one.
"""

from __future__ import annotations

import ast
import math
from collections import Counter
from collections.abc import Iterator

import numpy as np

from ...rules import MODULES, method_rule, spelled_rule
from ...rules.runtime import EFFECTS, HELPERS

COMMENT = "__srcdiff_comment__"  # codegen's marker call that renders as a ``# ...`` line

# What calls do is read off the rule table (each rule's `pure` and `fresh` facts), for the
# functions of the modules generated code names (``np.exp``, ``math.sin``: `MODULES`) and
# for array methods (``x.sum()``: `METHODS`), and off the run-time helpers' `EFFECTS`.
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult, ast.FloorDiv, ast.Mod)


def is_comment(stmt: ast.stmt) -> bool:
    """Whether `stmt` is codegen's comment marker (it reads and writes nothing)."""
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
        and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == COMMENT


def is_compound(stmt: ast.stmt) -> bool:
    """Statements with bodies of their own (and anything else not known to be simple)."""
    return not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return,
                                 ast.Delete, ast.Pass))


def assigned_name(stmt: ast.stmt) -> str | None:
    """`name` when `stmt` is exactly ``name = expr`` (one plain target), else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return None


#: fields that never hold a node the optimizer asks about: names and flags, and a name's
#: Load/Store context (read from the name itself: ``n.ctx``)
_LEAF_FIELDS = frozenset({"ctx", "id", "attr", "arg", "kind", "level", "is_async", "conversion", "type_comment",
                          "name"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}


def nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of `tree` but the names' contexts (like `ast.walk`, without its generators:
    this is the optimizer's hot loop)."""
    found, stack = [], [tree]
    append, pop, AST, fields_of = stack.append, stack.pop, ast.AST, _CHILD_FIELDS.get
    while stack:
        node = pop()
        found.append(node)
        fields = fields_of(type(node))
        if fields is None:
            fields = _CHILD_FIELDS[type(node)] = tuple(f for f in node._fields if f not in _LEAF_FIELDS)
        for field in fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        append(item)
            elif isinstance(value, AST):
                append(value)
    return found


def reads(node: ast.AST) -> Counter:
    """How often each name is read in `node` (an AugAssign's target counts as a read)."""
    found = Counter()
    for n in nodes(node):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                found[n.id] += 1
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            found[n.target.id] += 1
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Subscript) \
                and isinstance(n.target.value, ast.Name) and not isinstance(n.target.value.ctx, ast.Load):
            found[n.target.value.id] += 1  # ``x[i] += v`` reads x (codegen spells its base as stored)
        elif isinstance(n, (ast.FunctionDef, ast.Lambda)):
            found.update(a.arg for a in nodes(n.args) if isinstance(a, ast.arg))
    return found


def writes(node: ast.AST) -> set[str]:
    """Every name `node` binds or deletes, anywhere inside it."""
    return {n.id for n in nodes(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def mentions(node: ast.AST) -> set[str]:
    return {n.id for n in nodes(node) if isinstance(n, ast.Name)}


def plainly_rebound(func: ast.FunctionDef) -> set[str]:
    """Names (not parameters) every store of which is a plain assignment of the function's body
    (``m_bar = -t7_bar; m_bar = m_bar + e``): each rebinding is met in order there."""
    top = {id(s.targets[0]) for s in func.body if isinstance(s, ast.Assign) and len(s.targets) == 1}
    stores = [n for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    params = {a.arg for a in ast.walk(func.args) if isinstance(a, ast.arg)}
    return {n.id for n in stores} - {n.id for n in stores if id(n) not in top} - params


def flowing_names(rest: list[ast.stmt], root: str) -> set[str]:
    """The names mentioned by the statements of `rest` that read `root` or a value computed from it."""
    flow, found = {root}, {root}
    for stmt in rest:
        mentioned = mentions(stmt)
        if mentioned & flow:
            found |= mentioned
            flow |= writes(stmt)
    return found


def vocabulary(node: ast.AST) -> set[str]:
    """Every name and attribute `node` spells (``np.linalg.solve``: np, linalg, solve): a pass
    that rewrites calls of certain functions has nothing to do where none is spelled."""
    return {n.id if isinstance(n, ast.Name) else n.attr for n in nodes(node)
            if isinstance(n, (ast.Name, ast.Attribute))}


def bodies(body: list[ast.stmt]) -> Iterator[list[ast.stmt]]:
    """`body` and every statement list nested in it (loop, branch bodies...)."""
    yield body
    for stmt in body:
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from bodies(inner)
            elif isinstance(inner, list):
                for handler in inner:
                    if isinstance(handler, ast.excepthandler):
                        yield from bodies(handler.body)


def is_pure(expr: ast.expr) -> bool:
    """Whether evaluating `expr` has no effect but its value (so it may move or vanish)."""
    for node in nodes(expr):
        if isinstance(node, ast.Call):
            if not _pure_call(node):
                return False
        elif isinstance(node, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda,
                               ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return False
    return True


#: Writes whose run-time checks (a repeated position, a float written into an int array) guard
#: the adjoint that reads ``g[index]``: kept even where nothing reads the array written, or the
#: check would go and that adjoint be silently wrong (writes.py makes the provably safe ones in place).
CHECKED_WRITES = frozenset({"set_item"})


def _pure_call(call: ast.Call) -> bool:
    """Calls that neither mutate their arguments nor have another effect: anything from `np`
    and `math` (without ``out=``, and no random draw), the run-time helpers but their
    `EFFECTS`, and array methods whose rule is `pure`."""
    func = call.func
    if any(k.arg == "out" for k in call.keywords):
        return False
    if isinstance(func, ast.Name):
        return func.id in HELPERS and func.id not in EFFECTS and func.id not in CHECKED_WRITES
    if isinstance(func, ast.Attribute):
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in MODULES:
            return "random" not in ast.dump(func)  # a random draw is an effect
        return is_pure_method(func.attr)
    return False


def is_pure_method(name: str) -> bool:
    """Whether the array method `name` (``x.sum()``) uses a rule that is `pure`."""
    rule = method_rule(name)
    return rule is not None and rule.pure


def is_fresh_method(name: str) -> bool:
    """Whether the array method `name` (``x.sum()``) uses a rule whose value is `fresh`."""
    rule = method_rule(name)
    return rule is not None and rule.fresh


def is_fresh(expr: ast.expr) -> bool:
    """Whether `expr` makes a new object (or an immutable number) that no other name holds:
    arithmetic, a call of a NumPy ufunc, of a `math` function (a number) or of a function or
    array method whose rule is `fresh`, never an argument or a view of one."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (int, float))
    if isinstance(expr, ast.BinOp):
        return isinstance(expr.op, ARITHMETIC)
    if isinstance(expr, ast.UnaryOp):
        return isinstance(expr.op, (ast.USub, ast.UAdd))
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not _may_share(expr):
        func = expr.func
        if isinstance(func.value, ast.Name) and func.value.id in MODULES:
            module = MODULES[func.value.id]
            rule = spelled_rule(func.value.id, func.attr)
            return module is math or (rule is not None and rule.fresh) \
                or isinstance(getattr(module, func.attr, None), np.ufunc)
        return is_fresh_method(func.attr)
    return False


def _may_share(call: ast.Call) -> bool:
    """``out=`` names the array the result is; ``copy=False`` (or None) may return the operand
    itself (``np.array``, ``x.astype``): the facts of a rule hold for its default copy."""
    return any(k.arg == "out" or k.arg == "copy" and not (isinstance(k.value, ast.Constant) and k.value.value is True)
               for k in call.keywords)


def restored(func: ast.FunctionDef) -> Counter:
    """How often each name is assigned back the value it held when pushed onto a loop stack:
    ``a, b = stack.pop()`` where every ``stack.append((a, b))`` pushes the same names."""
    pushed: dict[str, set] = {}
    for n in nodes(func):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append" \
                and isinstance(n.func.value, ast.Name) and len(n.args) == 1:
            pushed.setdefault(n.func.value.id, set()).add(_layout(n.args[0]))
    found = Counter()
    for n in nodes(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call) \
                and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "pop" and not n.value.args \
                and isinstance(n.value.func.value, ast.Name):
            layout = _layout(n.targets[0])
            if layout is not None and pushed.get(n.value.func.value.id) == {layout}:
                found.update(layout)
    return found


def _layout(expr: ast.expr) -> tuple[str, ...] | None:
    """``a`` or ``(a, b)`` as the names in order; None for anything else."""
    items = expr.elts if isinstance(expr, ast.Tuple) else [expr]
    return tuple(e.id for e in items) if all(isinstance(e, ast.Name) for e in items) else None


def added_term(stmt: ast.stmt, name: str) -> ast.expr | None:
    """`e` when `stmt` is ``name = name + e``, ``name = name - e``, ``name += e`` or ``name -= e``."""
    if isinstance(stmt, ast.AugAssign):
        ok = isinstance(stmt.target, ast.Name) and stmt.target.id == name
        return stmt.value if ok and isinstance(stmt.op, (ast.Add, ast.Sub)) else None
    value = getattr(stmt, "value", None)
    if assigned_name(stmt) == name and isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)) \
            and isinstance(value.left, ast.Name) and value.left.id == name:
        return value.right
    return None


def is_size(node: ast.expr) -> bool:
    """Whether `node` is ``np.size(t)`` or ``t.size`` (an int)."""
    if isinstance(node, ast.Attribute) and node.attr == "size" and isinstance(node.value, ast.Name):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 1 \
        and node.func.attr == "size" and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" \
        and not node.keywords


def single_definitions(func: ast.FunctionDef) -> dict[str, ast.expr]:
    """Names every binding of which is one plain assignment's expression (or a restore of it)."""
    stores, values = Counter(), {}
    for n in nodes(func):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stores[n.id] += 1
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            values.setdefault(n.targets[0].id, []).append(n.value)
    back = restored(func)
    return {name: found[0] for name, found in values.items()
            if stores[name] == len(found) + back[name] and len({ast.dump(v) for v in found}) == 1
            and not any(isinstance(n, ast.Name) and n.id == name for v in found for n in ast.walk(v))}


def written_into(stmt: ast.stmt) -> set[str]:
    """The arrays a statement may change in place: its targets' bases, and whatever a bare call
    reads (a comment marker changes nothing)."""
    if isinstance(stmt, ast.Expr) and not is_comment(stmt):
        return mentions(stmt)
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    found = set()
    for t in targets:
        while isinstance(t, (ast.Subscript, ast.Attribute)):
            t = t.value
            if isinstance(t, ast.Name):
                found.add(t.id)
    return found


def fresh_name(stem: str, taken: set[str]) -> str:
    """`stem`, or `stem` numbered from 2, whichever `taken` does not hold yet (then it does)."""
    name, k = stem, 1
    while name in taken:
        k += 1
        name = f"{stem}{k}"
    taken.add(name)
    return name


def bound_once(func: ast.FunctionDef) -> dict[str, tuple[int, ast.expr]]:
    """Names stored once in all of `func`, by a plain assignment among its top statements, and
    written into by none (no item write, no ``out=``, no method called as a statement): (the
    statement's place, the value); and the parameters never stored nor written into: (-1, the name).
    Such a name holds one value wherever a later top statement reads it."""
    stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    changed = set()
    for n in nodes(func):
        if isinstance(n, ast.stmt):
            changed |= written_into(n) if not isinstance(n, ast.Expr) else set()
        if isinstance(n, ast.keyword) and n.arg == "out":
            changed |= {m.id for m in ast.walk(n.value) if isinstance(m, ast.Name)}
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute):
            changed |= {m.id for m in ast.walk(n.value.func.value) if isinstance(m, ast.Name)}  # ``x.sort()``
    found = {}
    for place, stmt in enumerate(func.body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if stores[name] == 1 and name not in changed:
                found[name] = (place, stmt.value)
    for param in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]:
        if stores[param.arg] == 0 and param.arg not in changed:
            found[param.arg] = (-1, ast.Name(param.arg, ast.Load()))
    return found
