"""Statement passes of the optimizer that drop, merge and share values: copies propagated,
dead and overwritten assignments removed, single-use temporaries inlined, common reads shared
(in-place accumulation and releases are in `memory`, the final tidying in `tidy`).

Each pass is one function that edits a statement list in place and says whether it changed
anything.  They move, merge or drop statements only inside straight-line runs (see
`liveness`), so loops, branches and loop stacks emitted by codegen stay correct: a compound
statement is never entered by a rewrite that needs to know what happens around it, and
counts as reading every name it mentions.
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from collections.abc import Callable

from .liveness import (
    assigned_name,
    bodies,
    is_comment,
    is_compound,
    is_pure,
    mentions,
    nodes,
    reads,
    writes,
)
from .simplify import is_number


class _Replace(ast.NodeTransformer):
    def __init__(self, name: str, by: Callable[[], ast.expr]):
        self.name, self.by, self.count = name, by, 0

    def visit_Name(self, node: ast.Name):
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            self.count += 1
            return self.by()
        return node


def _replace_loads(tree: ast.AST, name: str, by: Callable[[], ast.expr]) -> int:
    """Replace every read of `name` in `tree` by ``by()``; the number replaced."""
    replace = _Replace(name, by)
    replace.visit(tree)
    return replace.count


def propagate_copies(body: list[ast.stmt]) -> bool:
    """After ``a = b`` or ``a = 1.0``, later reads of `a` read `b` / ``1.0`` instead.

    This is how the seed ``f_bar = 1.0`` reaches its uses (where folding removes it) and how
    identity adjoints (``t7_bar = f_bar``) disappear.  A copy stops applying when either
    name is assigned again.  It applies inside a loop or branch that assigns neither name
    (never inside a nested function, which runs later).  Returns are left reading the
    gradient names, for readability.
    """
    changed = False
    for block in bodies(body):
        copies: dict[str, ast.expr] = {}
        for stmt in block:
            if is_comment(stmt):
                continue
            written = writes(stmt)
            nested = any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
                         for n in nodes(stmt))
            if copies and not isinstance(stmt, ast.Return) and not nested:
                read = reads(stmt)
                for name, value in copies.items():
                    if not read[name]:
                        continue
                    if is_compound(stmt) and (name in written or _name_of(value) in written):
                        continue
                    changed |= _replace_loads(stmt, name, lambda v=value: copy.deepcopy(v)) > 0
            for name, value in list(copies.items()):
                if name in written or _name_of(value) in written:
                    del copies[name]
            target = assigned_name(stmt)
            if target is not None and (is_number(stmt.value) or (
                    isinstance(stmt.value, ast.Name) and stmt.value.id != target)):
                copies[target] = stmt.value
    return changed


def sink_constants(body: list[ast.stmt]) -> bool:
    """``x = 0.0`` right before an ``if`` whose test does not read `x` moves into both of its
    sides, where `propagate_copies` and folding make ``x = x + e`` read ``x = e``: an adjoint
    reset before a branch of a loop's backward body (the branch then assigns it once)."""
    changed = False
    for block in bodies(body):
        i = 0
        while i + 1 < len(block):
            stmt, nxt = block[i], block[i + 1]
            name = assigned_name(stmt)
            if name is not None and is_number(stmt.value) and isinstance(nxt, ast.If) \
                    and name not in mentions(nxt.test) and name in mentions(nxt):
                for side in (nxt.body, nxt.orelse):
                    side.insert(0, copy.deepcopy(stmt))
                del block[i]
                changed = True
                continue
            i += 1
    return changed


def _name_of(expr: ast.expr) -> str | None:
    return expr.id if isinstance(expr, ast.Name) else None


def remove_overwritten(body: list[ast.stmt]) -> bool:
    """Drop ``name = expr`` (pure) when a later statement of the same run assigns `name`
    again before anything reads it."""
    changed = False
    for block in bodies(body):
        i = 0
        while i < len(block):
            name = assigned_name(block[i])
            if name is not None and is_pure(block[i].value) and _overwritten(block, i, name):
                del block[i]
                changed = True
            else:
                i += 1
    return changed


def _overwritten(block: list[ast.stmt], i: int, name: str) -> bool:
    for later in block[i + 1:]:
        if is_comment(later):
            continue
        if is_compound(later) or reads(later)[name]:
            return False
        if assigned_name(later) == name:
            return True
        if name in writes(later):
            return False
    return False


def remove_dead(body: list[ast.stmt], pure: Callable[[ast.expr], bool] = is_pure) -> bool:
    """Drop ``name = expr`` at the top level where nothing reads `name` later and `expr` is
    `pure`: an adjoint no wrt argument needs, a forward value nobody reads, a spent copy."""
    live: set[str] = set()
    kept: list[ast.stmt] = []
    local = {assigned_name(stmt) for stmt in body} - {None}
    for stmt in reversed(body):
        name = assigned_name(stmt)
        if name is not None and name not in live and pure(stmt.value):
            continue
        if _dead_item_update(stmt, live, local):
            continue
        if is_compound(stmt):
            live |= mentions(stmt)
        else:
            if name is not None:
                live.discard(name)
            if isinstance(stmt, ast.Delete):
                live |= writes(stmt)
            live |= set(reads(stmt))
        kept.append(stmt)
    changed = len(kept) != len(body)
    body[:] = kept[::-1]
    return changed


def _dead_item_update(stmt: ast.stmt, live: set[str], local: set[str]) -> bool:
    """``x[i] += e`` into an array this body made that nothing reads later (an adjoint no
    wrt argument needs), with a pure index and value."""
    target = stmt.target if isinstance(stmt, ast.AugAssign) else None
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
        and target.value.id in local and target.value.id not in live \
        and is_pure(stmt.value) and is_pure(target.slice)


def remove_dead_in_loops(body: list[ast.stmt]) -> bool:
    """Drop ``name = expr`` (pure) from the body of a loop of `body` where nothing reads `name`:
    not the loop (any iteration) nor anything after it (``t4 = t1 - t3`` computed again by a
    backward loop for its shape only, once the shape is read from another name)."""
    changed = False
    after: set[str] = set()  # what the statements after the one at hand read (or delete)
    for stmt in reversed(body):
        read = set(reads(stmt))
        if isinstance(stmt, (ast.For, ast.While)) and not stmt.orelse:
            live = read | after
            kept = [s for s in stmt.body if (name := assigned_name(s)) is None or name in live or not is_pure(s.value)]
            changed |= len(kept) != len(stmt.body)
            stmt.body[:] = kept
        after |= read
        if isinstance(stmt, ast.Delete) or is_compound(stmt):
            after |= {n for d in nodes(stmt) if isinstance(d, ast.Delete) for n in writes(d)}
    return changed


def remove_unread(func: ast.FunctionDef) -> bool:
    """Drop ``name = expr`` anywhere (loop bodies too) when no statement of the function
    reads `name` at all but its own assignments (an accumulation ``k_bar = k_bar + e`` in a
    loop whose total nothing needs), and self-copies ``name = name``."""
    loads = reads(func)
    own: Counter = Counter()  # reads of a name by the assignments of that name
    plain = set()  # the targets of ``name = expr`` with a pure expr
    for node in nodes(func):
        name = assigned_name(node) if isinstance(node, ast.stmt) else None
        if name is not None and is_pure(node.value):
            own[name] += reads(node.value)[name]
            plain.add(id(node.targets[0]))
    # names stored otherwise (or deleted): kept
    other = {n.id for n in nodes(func) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
             and id(n) not in plain}
    changed = False
    for block in bodies(func.body):
        kept = []
        for stmt in block:
            name = assigned_name(stmt)
            if name is not None and is_pure(stmt.value) and (
                    loads[name] == 0 or (isinstance(stmt.value, ast.Name) and stmt.value.id == name)
                    or (name not in other and loads[name] == own[name])):
                changed = True
                continue
            kept.append(stmt)
        block[:] = kept
    return changed


def inline_single_use(func: ast.FunctionDef, inlinable: Callable[[str], bool],
                      arrays: Callable[[str], bool]) -> bool:
    """``t = e`` followed in the same run by the only statement reading it: `e` goes there.

    Applies to names `inlinable` accepts (Python numbers: fewer loads and stores is most
    of what scalar code costs), and to arrays read by the very next statement (so no value
    lives longer than before; ``t = -g; u = t * 2.0`` then folds to ``u = g * -2.0``) when
    `arrays` says their shape is known.
    With ``x = a; x = x + b`` this merges an accumulation into ``x = a + b``.  The
    expression keeps its tree, so it evaluates exactly as before; it only moves past plain
    assignments that leave every name it reads alone.
    """
    loads = reads(func)
    changed = False
    value_reads: dict[int, Counter] = {}  # id of a statement -> what its value reads
    for block in bodies(func.body):
        i = 0
        while i < len(block):
            if _inline_at(block, i, loads, inlinable, arrays, value_reads):
                changed = True
            else:
                i += 1
    return changed


def _appends_without(stmt: ast.stmt, name: str, inputs) -> bool:
    """``stack.append(e)`` reading neither `name` nor changing any of `inputs`: a number's
    expression moves past it (``i_1 = i + 1; stack.append(...); i = i_1`` -> ``i = i + 1``)."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
        and isinstance(call.func.value, ast.Name) and call.func.value.id not in inputs \
        and not call.keywords and len(call.args) == 1 and is_pure(call.args[0]) and not reads(call)[name]


def _writes_one_item(stmt: ast.stmt) -> bool:
    """``y[i] = value``: one subscript target."""
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)


def _inline_at(block: list[ast.stmt], i: int, loads: Counter, inlinable, arrays, value_reads) -> bool:
    stmt = block[i]
    name = assigned_name(stmt)
    if name is None or not is_pure(stmt.value):
        return False
    test = next((s for s in block[i + 1:] if not is_comment(s)), None)
    if isinstance(test, ast.If) and isinstance(test.test, ast.Name) and test.test.id == name \
            and loads[name] == 1 and isinstance(stmt.value, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
        test.test = stmt.value  # ``t1 = s > 0.5; if t1:`` -> ``if s > 0.5:``, any kind of value
        del block[i]
        loads[name] -= 1
        return True
    number = inlinable(name)
    if not number and not arrays(name):
        return False
    inputs = set(reads(stmt.value))
    for later in block[i + 1:]:
        if is_comment(later) or (number and _appends_without(later, name, inputs)):
            continue
        if not isinstance(later, (ast.Assign, ast.AugAssign)) or not is_pure(later.value):
            return False  # a barrier: compound, call statement, return...
        target = assigned_name(later)
        if id(later) not in value_reads:
            value_reads[id(later)] = reads(later.value)
        uses = value_reads[id(later)][name]
        if isinstance(later, ast.AugAssign):
            # ``x[i] += t``: t may go into the value if that is its only read anywhere
            if number or uses != 1 or loads[name] != 1 or reads(later.target)[name]:
                return False
        elif target is None:
            # ``y[i] = t``: t may go into the value if that is its only read anywhere
            if not (_writes_one_item(later) and uses == 1 and loads[name] == 1
                    and not reads(later.targets[0])[name]):
                return False
        elif uses == 0:
            if target == name or target in inputs or not number:
                return False
            continue
        elif uses != 1 or not (target == name and number or loads[name] == 1):
            return False  # arrays accumulate in place instead (accumulate_in_place)
        if isinstance(later.value, ast.Name):
            later.value = stmt.value
        else:
            _replace_loads(later.value, name, lambda: stmt.value)
        value_reads.pop(id(later), None)  # changed: read again when next asked
        value_reads.pop(id(stmt), None)
        del block[i]
        loads[name] -= 1
        return True
    return False


def reuse_common(body: list[ast.stmt]) -> bool:
    """``b = e`` after a top-level ``a = e`` becomes ``b = a`` (``x[:-1]`` written twice is
    computed once), where `e` reads a piece of an object (``x[:-1]``, ``X.shape``) that
    nothing in the function changes, nor `a` or `b`, and none of `e`'s names is assigned
    between.  A new object (``[]``, ``np.zeros(n)``) is never shared this way."""
    changing = mutated(body)
    seen: dict[str, tuple[str, set[str]]] = {}  # the expression's dump -> (name, names it reads)
    changed = False
    for stmt in body:
        name = assigned_name(stmt)
        value = getattr(stmt, "value", None)
        key = None
        if name is not None and _piece_or_index(value) \
                and not (mentions(value) - {"slice", "index_read", "unbroadcast"} | {name}) & changing:
            key = ast.dump(value)
        if key in seen:
            stmt.value = ast.Name(seen[key][0], ast.Load())
            changed = True
        elif seen and not is_compound(stmt) and value is not None:
            changed |= _reuse_inside(stmt, seen)
        written = writes(stmt) | (mentions(stmt) if is_compound(stmt) else set())
        for old, (holder, inputs) in list(seen.items()):
            if holder in written or inputs & written:
                del seen[old]
        if key is not None and key not in seen and name not in reads(value):
            seen[key] = (name, set(reads(value)))
    return changed


def _reuse_inside(stmt: ast.stmt, seen: dict) -> bool:
    """A piece `seen` (``unbroadcast(index_read(g, t8), t1)``) read inside `stmt`'s value, as a
    term of a sum say, read as the name that holds it."""
    found = False

    class Reuse(ast.NodeTransformer):
        def generic_visit(self, node):
            nonlocal found
            if isinstance(node, (ast.Call, ast.Subscript)) and _piece_or_index(node) \
                    and not (isinstance(node, ast.Call) and node.func.id == "slice"):  # (an index as written)
                hit = seen.get(ast.dump(node))
                if hit is not None:
                    found = True
                    return ast.Name(hit[0], ast.Load())
            return super().generic_visit(node)

    stmt.value = Reuse().visit(stmt.value)
    return found


def _piece_or_index(value: ast.expr) -> bool:
    """What `reuse_common` shares: a read of a piece (``x[:-1]``, ``X.shape``, ``index_read(g, t8)``,
    ``unbroadcast`` of one: the same sum of the same piece) or an index's immutable parts
    (``slice(None, -1, None)``, ``(t7,)``: made once, a later ``index_read`` of the same index is
    then seen to be the same read)."""
    if isinstance(value, (ast.Subscript, ast.Attribute)):
        return is_pure(value)
    if isinstance(value, ast.Tuple):
        return all(isinstance(e, (ast.Name, ast.Constant)) for e in value.elts)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.keywords:
        if value.func.id == "slice":
            return all(isinstance(a, ast.Constant) for a in value.args)
        if value.func.id == "unbroadcast" and len(value.args) == 2 and isinstance(value.args[1], ast.Name):
            return isinstance(value.args[0], ast.Name) or _piece_or_index(value.args[0])  # (a read of rows)
        return value.func.id == "index_read" and all(isinstance(a, ast.Name) for a in value.args)
    return False


def mutated(body: list[ast.stmt]) -> set[str]:
    """Names whose object may change in place: targets of ``x[i] = ...``, ``x += ...``,
    ``x.attr = ...``, receivers of methods that are not known pure (``x.append``), and
    arguments of calls that are not known pure."""
    found = set()
    for node in nodes(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.AugAssign):
            found |= mentions(node.target)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found |= mentions(node.value)
        elif isinstance(node, ast.Call) and not is_pure(node):
            found |= mentions(node)
    return found
