"""Lists joined, repeated, grown while read, or reversed in place, rewritten (desugar.py, right
after parsing) as new lists built by ``append``, which lowering differentiates item by item::

    sigmas = [mu] + [mu + s for s in cols]      joined = []
                                                joined.append(mu)
                                                for item in [mu + s for s in cols]:
                                                    joined.append(item)
                                                sigmas = joined
    xs * 2 (a list), sum([a, b], [])            the same loops, in Python's order
    xs += [y]                                   xs.append(y)
    for t in range(n):                          for t in range(n):
        ys.append(f(ys[-1]))                        ys_grown = ys       (bound on every path)
                                                    ys_grown = []
                                                    for item in ys:
                                                        ys_grown.append(item)
                                                    ys_grown.append(f(ys[-1]))
                                                    ys = ys_grown
    out.reverse()                               out = [out[k] for k in range(len(out) - 1, -1, -1)]

An operand is taken for a list only where the function says so: a display, a comprehension,
``list(...)``, or a local name every assignment of which is one of those (never a parameter,
which may be an array: ``[a] + arr`` is NumPy's sum).  A list grown while it is read in the same
loop (a history ``ys[-1]``, a KV cache ``np.stack(keys)``) becomes a new list in every iteration
(a copy of the old one and the new item: O(n²) work for n items, and a stack of lists the
gradient keeps), which lowering takes as it takes any list a loop makes.  The list rebuilt or
reversed must have one name (``other = xs``, a helper given it, a list holding it leave the
function as written, for lowering to refuse): a new list would leave the other name's unchanged.
A join is written out where Python always computes it (an assignment, ``return``, an expression
statement, a ``for``'s iterable, an ``if`` test; not inside a conditional expression,
``and``/``or``, a comprehension or a lambda); a join elsewhere is left as written.
"""

from __future__ import annotations

import ast
import builtins
import copy

from .depends import MISSING
from .last_items import carry_last_items
from .list_conversions import rename_conversions
from .list_item_writes import item_written, prepended
from .list_numbers import numbers_named, numbers_rebound, numbers_written, split_numbers
from .list_slices import integer, item_slice, items_loop
from .naming import FreeNames, inner_blocks, own_nodes
from .read_appends import regrow_read_appends

_READERS = ("builtins", "numpy", "math")


def has_list_joins(tree: ast.FunctionDef) -> bool:
    """A cheap test: a ``+``/``*`` with a list display or comprehension, ``sum(..., [])``, or a
    list display assigned and appended to or reversed."""
    displays = changed = joined = False
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.AugAssign)):
            joined = True
            if any(isinstance(side, (ast.List, ast.ListComp)) for side in _sides(node)):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sum" \
                and len(node.args) == 2:
            return True
        displays = displays or isinstance(node, ast.Assign) and any(
            isinstance(v, (ast.List, ast.ListComp)) for v in [node.value] + getattr(node.value, "elts", []))
        changed = changed or isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("append", "reverse")
    return displays and (changed or joined)


def _sides(node) -> list:
    return [node.left, node.right] if isinstance(node, ast.BinOp) else [node.target, node.value]


def rewrite_list_joins(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, the spellings of the module's doc."""
    rename_conversions(tree, names)  # returns = np.array(returns): the array a name of its own
    lists = list_names(tree, names)
    if not lists and not any(isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Mult)) and any(
            isinstance(side, (ast.List, ast.ListComp)) for side in (n.left, n.right)) for n in ast.walk(tree)):
        return  # (no list to join: a display or comprehension joined, `[a] + [b]`, is one)
    single = {n for n in lists if _one_name(tree, n, names)}
    rebound = numbers_rebound(own_nodes(tree)) & lists  # (built item by item, as their other lists are)
    data = numbers_named(own_nodes(tree)) - rebound
    carry_last_items(tree.body, single, names.namer)  # hs.append(f(hs[-1])) in a loop: hs_last (last_items.py)
    regrow_read_appends(tree, single)  # xs.append(v) after xs was read: xs = xs + [v] (read_appends.py)
    _Rewriter(lists, single, names, single - data, rebound).block(tree.body)
    ast.fix_missing_locations(tree)


def list_names(tree: ast.FunctionDef, names: FreeNames) -> set:
    """The local names every binding of which makes a list (a fixed point: ``ys = xs + [y]``)."""
    bindings: dict = {}
    for node in own_nodes(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bindings.setdefault(node.id, [])
    for node in own_nodes(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bindings[node.targets[0].id].append(node.value)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple) \
                and isinstance(node.value, (ast.Tuple, ast.List)) \
                and len(node.value.elts) == len(node.targets[0].elts):  # keys, values = [], []
            for target, value in zip(node.targets[0].elts, node.value.elts):
                if isinstance(target, ast.Name):
                    bindings[target.id].append(value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            bindings[node.target.id].append(ast.BinOp(node.target, ast.Add(), node.value))
    stored = {}  # every other binding (a for target, unpacking, annotations) counts as "not a list"
    for node in own_nodes(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stored[node.id] = stored.get(node.id, 0) + 1
    lists = {n for n, values in bindings.items() if values and len(values) == stored[n]}
    params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    lists -= params
    while True:
        kept = {n for n in lists if all(_is_list(v, lists, names) for v in bindings[n])}
        if kept == lists:
            return lists
        lists = kept


def _is_list(expr: ast.expr, lists: set, names: FreeNames) -> bool:
    if isinstance(expr, ast.List):
        return not any(isinstance(e, ast.Starred) for e in expr.elts)
    if isinstance(expr, ast.ListComp):
        return True
    if isinstance(expr, ast.Name):
        return expr.id in lists
    if item_slice(expr):  # buf[1:] of a list
        return _is_list(expr.value, lists, names)
    if isinstance(expr, ast.Call):
        return (names.calls(expr, builtins.list) or names.calls(expr, builtins.sorted)) and len(expr.args) == 1 \
            and not expr.keywords \
            or _sum_of_lists(expr, lists, names) is not None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _is_list(expr.left, lists, names) and _is_list(expr.right, lists, names)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return _is_list(expr.left, lists, names) != _is_list(expr.right, lists, names)
    return False


def _sum_of_lists(call: ast.Call, lists: set, names: FreeNames):
    """The parts of ``sum([a, b], [])`` (a display of lists, started from ``[]``), else None."""
    if not (names.calls(call, builtins.sum) and len(call.args) == 2 and not call.keywords
            and isinstance(call.args[1], ast.List) and not call.args[1].elts
            and isinstance(call.args[0], (ast.List, ast.Tuple))):
        return None
    parts = call.args[0].elts
    return parts if parts and all(_is_list(p, lists, names) for p in parts) else None


def _one_name(tree: ast.FunctionDef, name: str, names: FreeNames) -> bool:
    """Whether every read of `name` is an item, a loop over it, an append, a join, or an argument
    of a library function (none of which makes a second name for the list)."""
    parents = {child: node for node in own_nodes(tree) for child in ast.iter_child_nodes(node)}
    for node in own_nodes(tree):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Subscript) and parent.value is node or isinstance(parent, ast.BinOp) \
                or isinstance(parent, (ast.comprehension, ast.For)) and parent.iter is node \
                or isinstance(parent, ast.Attribute) and parent.attr in ("append", "reverse", "insert") \
                or isinstance(parent, (ast.IfExp, ast.If, ast.While)) and parent.test is node \
                or isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not) \
                or isinstance(parent, ast.Return) or isinstance(parent, ast.Tuple) \
                and isinstance(parents.get(parent), ast.Return):  # (returned: the caller's, no name of it here)
            continue
        if isinstance(parent, ast.Call) and node in parent.args:
            func = names.resolve(parent.func)
            if func is not MISSING and (getattr(func, "__module__", None) or "builtins").split(".")[0] in _READERS:
                continue
        return False
    return True


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _append(name: str, value: ast.expr) -> ast.stmt:
    return ast.Expr(ast.Call(ast.Attribute(_load(name), "append", ast.Load()), [value], []))


class _Rewriter:
    def __init__(self, lists: set, single: set, names: FreeNames, writable: set, rebound: set):
        self.lists, self.single, self.names, self.rebound = lists, single, names, rebound
        self.writable = writable  # lists whose items are written as new lists (list_item_writes.py)
        self.regrown: dict = {}  # a list grown while read in a loop -> the name its new lists are built in

    def block(self, body: list) -> None:
        k = 0
        while k < len(body):
            stmt = body[k]
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                k += 1
                continue
            if isinstance(stmt, ast.For):  # (a `while` loop carrying a list it rebuilds is not differentiated)
                self._grown_while_read(stmt)
            for inner in inner_blocks(stmt):
                self.block(inner)
            written = self._statement(stmt)
            for made in written:
                for node in ast.walk(made):
                    if not hasattr(node, "lineno"):  # (the user's own nodes keep their places)
                        ast.copy_location(node, stmt)
            body[k:k + 1] = written
            k += len(written)

    def _grown_while_read(self, loop) -> None:
        """``L.append(v)`` inside `loop` of a list `loop` also reads: ``L = L + [v]``, a new list (built
        by `_statement` in ``L_grown``)."""
        appended = {n.func.value.id for n in ast.walk(ast.Module(loop.body, [])) if isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
                    and isinstance(n.func.value, ast.Name)}
        for name in sorted(appended & self.single):
            if self._read_besides_appends(loop, name):
                _Regrow(name).visit(loop)
                # the new list is built in a name of its own, bound at the top of the body too, so that
                # an append inside a branch binds it on both sides
                held = self.regrown[name] = self.names.namer.fresh(f"{name}_grown")
                top = ast.Assign([ast.Name(held, ast.Store())], _load(name))
                loop.body.insert(0, ast.copy_location(top, loop.body[0]))

    def _read_besides_appends(self, loop, name: str) -> bool:
        parents = {child: node for node in ast.walk(loop) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(ast.Module(loop.body, [])):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                parent = parents.get(node)
                if not (isinstance(parent, ast.Attribute) and parent.attr == "append"):
                    return True
        return False

    def _statement(self, stmt: ast.stmt) -> list:
        written = item_written(stmt, self.writable, self.names)  # xs[i] = v: the new list
        if written is not None:
            return written
        first = prepended(stmt, self.single)  # xs.insert(0, v): xs = [v] + xs
        if first is not None:
            return self._statement(first)
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and isinstance(stmt.op, ast.Add) \
                and stmt.target.id in self.lists and _is_list(stmt.value, self.lists, self.names):
            before: list = []  # xs += ys extends xs in place: every name of it sees the items
            self._extend(stmt.target.id, stmt.value, before)
            return before
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and not stmt.value.args \
                and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "reverse" \
                and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id in self.single \
                and not stmt.value.keywords:
            name = stmt.value.func.value.id
            k = self.names.namer.fresh("k")
            last = ast.BinOp(ast.Call(_load("len"), [_load(name)], []), ast.Sub(), ast.Constant(1))
            steps = ast.Call(_load("range"), [last, ast.Constant(-1), ast.Constant(-1)], [])
            item = ast.Subscript(_load(name), _load(k), ast.Load())
            flipped = ast.ListComp(item, [ast.comprehension(ast.Name(k, ast.Store()), steps, [], 0)])
            return [ast.Assign([ast.Name(name, ast.Store())], flipped)]
        parts = split_numbers(stmt, self.rebound)  # low, high = [0.0] * 2, [0.0] * 2 of a low rebound elsewhere
        if parts is not None:
            return [made for part in parts for made in self._statement(part)]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and (self._join(stmt.value) or stmt.targets[0].id in self.rebound and numbers_written(stmt.value)):
            return self._built_in(stmt.targets[0].id, stmt.value)
        before = []
        for field in _always_run(stmt):
            setattr(stmt, field, self._joins(getattr(stmt, field), before))
        return before + [stmt]

    def _built_in(self, name: str, join: ast.expr) -> list:
        """``name = <join>`` built in `name` itself (no other name, which a branch would bind on one
        side only); through another name when the join reads `name`."""
        if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(join)):
            held = self.regrown.get(name) or self.names.namer.fresh("joined")
            return self._built_in(held, join) + [ast.Assign([ast.Name(name, ast.Store())], _load(held))]
        out = [ast.Assign([ast.Name(name, ast.Store())], ast.List([], ast.Load()))]
        self._extend(name, join, out)
        return out

    def _joins(self, expr: ast.expr, before: list) -> ast.expr:
        """`expr` with each join Python always computes built before the statement."""
        if self._join(expr):
            held = self.names.namer.fresh("joined")
            before.append(ast.Assign([ast.Name(held, ast.Store())], ast.List([], ast.Load())))
            self._extend(held, expr, before)
            return _load(held)
        sliced = self._slice(expr)
        if sliced is not None:
            return sliced
        if isinstance(expr, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            first = expr.generators[0]  # its iterable is computed once, where the comprehension is made
            first.iter = self._joins(first.iter, before)
            return expr
        if isinstance(expr, (ast.IfExp, ast.BoolOp, ast.Lambda)):
            return expr
        for field, value in ast.iter_fields(expr):
            if isinstance(value, ast.expr):
                setattr(expr, field, self._joins(value, before))
            elif isinstance(value, list):
                setattr(expr, field, [self._joins(v, before) if isinstance(v, ast.expr) else v for v in value])
        return expr

    def _slice(self, expr: ast.expr) -> ast.expr | None:
        """``xs[a:b:c]`` of a list, with literal bounds and a positive step: the comprehension of its
        items, ``[xs[k] for k in range(start, stop, c)]`` with Python's clamped bounds."""
        if not (isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Slice)
                and isinstance(expr.value, ast.Name) and expr.value.id in self.lists):
            return None
        bounds = [integer(b) if b is not None else None for b in (expr.slice.lower, expr.slice.upper, expr.slice.step)]
        given = [b is not None for b in (expr.slice.lower, expr.slice.upper, expr.slice.step)]
        if any(g and b is None for g, b in zip(given, bounds)) or (bounds[2] or 1) <= 0:
            return None
        name = expr.value.id

        def at(bound, default):
            length = ast.Call(_load("len"), [_load(name)], [])
            if bound is None:
                return default
            if bound >= 0:
                return ast.Call(_load("min"), [ast.Constant(bound), length], [])
            return ast.Call(_load("max"), [ast.BinOp(length, ast.Sub(), ast.Constant(-bound)), ast.Constant(0)], [])
        start = at(bounds[0], ast.Constant(0))
        stop = at(bounds[1], ast.Call(_load("len"), [_load(name)], []))
        k = self.names.namer.fresh("k")
        steps = ast.Call(_load("range"), [start, stop] + ([ast.Constant(bounds[2])] if bounds[2] else []), [])
        item = ast.Subscript(_load(name), _load(k), ast.Load())
        return ast.ListComp(item, [ast.comprehension(ast.Name(k, ast.Store()), steps, [], 0)])

    def _join(self, expr: ast.expr) -> bool:
        if isinstance(expr, ast.Call):
            return _sum_of_lists(expr, self.lists, self.names) is not None
        if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Mult))
                and _is_list(expr, self.lists, self.names)):
            return False
        return not numbers_written(expr)

    def _extend(self, held: str, expr: ast.expr, before: list) -> None:
        """Statements appending the items of the list `expr` to the list `held`, in Python's order."""
        parts = _sum_of_lists(expr, self.lists, self.names) if isinstance(expr, ast.Call) else None
        if parts is not None:
            for part in parts:
                self._extend(held, part, before)
        elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            self._extend(held, expr.left, before)
            self._extend(held, expr.right, before)
        elif isinstance(expr, ast.BinOp):  # xs * k, k * xs: k copies (none for k <= 0, as Python)
            seq, times = (expr.left, expr.right) if _is_list(expr.left, self.lists, self.names) \
                else (expr.right, expr.left)
            if not isinstance(seq, (ast.Name, ast.List)):
                named = self.names.namer.fresh("part")
                before.append(ast.Assign([ast.Name(named, ast.Store())], seq))
                seq = _load(named)
            copies: list = []
            self._extend(held, seq, copies)
            count = ast.Call(_load("range"), [times], [])
            before.append(ast.For(ast.Name(self.names.namer.fresh("copy"), ast.Store()), count, copies, [], None))
        elif isinstance(expr, ast.List):
            before.extend(_append(held, copy.deepcopy(e)) for e in expr.elts)
        else:
            if self.names.calls(expr, builtins.list) and len(expr.args) == 1 and not expr.keywords:
                expr = expr.args[0]  # (list(a) + ...: a's items, iterated as list() iterates them)
            before.append(items_loop(expr, held, self.names.namer.fresh))  # (a slice: item by item)


class _Regrow(ast.NodeTransformer):
    """``name.append(v)`` statements as ``name = name + [v]`` (nested scopes left alone)."""

    def __init__(self, name: str):
        self.name = name

    def visit_FunctionDef(self, node):
        return node

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Expr(self, node: ast.Expr):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
                and isinstance(call.func.value, ast.Name) and call.func.value.id == self.name \
                and len(call.args) == 1 and not call.keywords:
            grown = ast.BinOp(_load(self.name), ast.Add(), ast.List([call.args[0]], ast.Load()))
            return ast.copy_location(ast.Assign([ast.Name(self.name, ast.Store())], grown), node)
        return node


def _always_run(stmt: ast.stmt) -> list:
    """The fields of `stmt` holding an expression Python computes once, where the statement runs."""
    if isinstance(stmt, (ast.Assign, ast.Expr, ast.Return)) and stmt.value is not None:
        return ["value"]
    if isinstance(stmt, ast.AugAssign):
        return ["value"]
    if isinstance(stmt, ast.For):
        return ["iter"]
    if isinstance(stmt, ast.If):
        return ["test"]
    return []


__all__ = ["has_list_joins", "list_names", "rewrite_list_joins"]
