"""Iteration spellings of the red team's eleventh wave, rewritten right after parsing (desugar.py
calls `rewrite_iteration_forms` early, and list_joins.py's rewrite after the per-field lists):

- ``itertools.chain(a, b)`` where Python iterates it once (a ``for``, a comprehension, ``sum``,
  ``list``, ``islice``, ..., directly or through a name read once there): the list ``list(a) +
  list(b)`` (its items, in order), which list_joins.py builds with ``append``;
- ``itertools.islice(xs, stop)`` / ``islice(xs, start, stop[, step])``: the comprehension
  ``[xs[k] for k in range(start, min(stop, len(xs)), step)]`` of the items it yields (``xs`` a name:
  a list, a tuple, an array's rows; another iterable is first made a list, ``list(...)``, where
  Python always computes the statement);
- ``reversed(xs)`` of a list the function builds, as a value (``list(reversed(hs))``, ``sum(reversed(xs))``):
  ``[xs[k] for k in range(len(xs) - 1, -1, -1)]`` (a loop over ``reversed(xs)`` is lowering's own); of
  any other name (an array, a sequence given), ``x[::-1]`` (``zip(reversed(x), y)``);
- ``for i, v in enumerate(xs, start=<expression>)``: the start computed once before the loop, in a
  name (then desugar.py's rewrite of a named start);
- ``np.maximum.at`` / ``np.minimum.at`` / ``np.multiply.at``: the loop NumPy runs (ufunc_loops.py);
- ``sorted(set(xs))`` iterated (a loop's or a comprehension's iterable, or ``enumerate``'s):
  ``[u.item() for u in np.unique(xs)]``, the same values in the same order, Python's numbers as
  ``sorted`` gives them (a group's labels, ``for g in sorted(set(groups)): ... x[groups == g]``; of a
  list of labels, ``groups == g`` stays Python's False, never NumPy's elementwise comparison).
"""

from __future__ import annotations

import ast
import builtins
import copy
import itertools

from .key_selections import make_call, numpy_name
from .list_joins import has_list_joins, list_names
from .naming import FreeNames, inner_blocks, own_nodes
from .ufunc_loops import has_ufunc_loops, rewrite_ufunc_loops

_CALLED = {"chain", "islice", "enumerate", "reversed", "sorted"}


def has_iteration_forms(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether a rewrite here, or list_joins.py's, could apply."""
    return has_ufunc_loops(tree) or has_list_joins(tree) or any(
        isinstance(n, ast.Call) and (getattr(n.func, "attr", None) or getattr(n.func, "id", None)) in _CALLED
        for n in ast.walk(tree))


def rewrite_iteration_forms(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, the spellings of the module's doc (list joins apart)."""
    rewrite_ufunc_loops(tree, names)
    _sorted_labels(tree, names)
    _block(tree.body, names, _Chains(names, _read_once(tree, names)))  # first: islice reads the lists made
    params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    _block(tree.body, names, _Slices(names, list_names(tree, names), params))
    ast.fix_missing_locations(tree)


def _sorted_labels(tree: ast.FunctionDef, names: FreeNames) -> None:
    """``sorted(set(xs))`` where it is iterated: ``np.unique(xs)`` (module doc)."""
    numpy = numpy_name(names)
    if numpy is None:
        return
    for node in own_nodes(tree):
        if not isinstance(node, (ast.For, ast.comprehension)):
            continue
        holder, field = node, "iter"
        if names.calls(node.iter, builtins.enumerate) and node.iter.args:
            holder, field = node.iter.args, 0
        it = holder[field] if field == 0 else getattr(holder, field)
        if names.calls(it, builtins.sorted) and len(it.args) == 1 and not it.keywords \
                and names.calls(it.args[0], builtins.set) and len(it.args[0].args) == 1 \
                and not it.args[0].keywords and not isinstance(it.args[0].args[0], ast.Starred):
            label = names.namer.fresh("label")
            unique = make_call(ast.Attribute(copy.deepcopy(numpy), "unique", ast.Load()), it.args[0].args[0])
            item = make_call(ast.Attribute(ast.Name(label, ast.Load()), "item", ast.Load()))
            made = ast.ListComp(item, [ast.comprehension(ast.Name(label, ast.Store()), unique, [], 0)])
            for n in ast.walk(made):
                ast.copy_location(n, it)
            if field == 0:
                holder[0] = made
            else:
                setattr(holder, field, made)


def _read_once(tree: ast.FunctionDef, names: FreeNames) -> set:
    """Local names assigned once and read once, where that read iterates them once (an iterator a
    name holds, consumed where it is read)."""
    stores, loads, consumed = {}, {}, set()
    parents = {id(child): n for n in own_nodes(tree) for child in ast.iter_child_nodes(n)}
    for node in own_nodes(tree):
        if isinstance(node, ast.Name):
            counts = stores if isinstance(node.ctx, (ast.Store, ast.Del)) else loads
            counts[node.id] = counts.get(node.id, 0) + 1
            if isinstance(node.ctx, ast.Load) and _consumed(node, parents.get(id(node)), names):
                consumed.add(node.id)
    return {n for n, c in stores.items() if c == 1 and loads.get(n, 0) == 1 and n in consumed}


#: what iterates its argument once, to the end (or as far as islice reads)
_CONSUMERS = (builtins.list, builtins.tuple, builtins.sum, builtins.sorted, builtins.min, builtins.max,
              builtins.enumerate, builtins.zip, itertools.islice)


def _consumed(node: ast.expr, parent, names: FreeNames) -> bool:
    """Whether `node` is iterated once where it stands: a loop's or a comprehension's iterable, or an
    argument of one of _CONSUMERS."""
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
        return True
    return isinstance(parent, ast.Call) and node in parent.args and any(
        names.resolve(parent.func) is f for f in _CONSUMERS)


def _block(body: list, names: FreeNames, visitor) -> None:
    k = 0
    while k < len(body):
        stmt = body[k]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            k += 1
            continue
        for inner in inner_blocks(stmt):
            _block(inner, names, visitor)
        before: list = []
        if isinstance(stmt, ast.For):
            _enumerate_start(stmt, names, before)
        visitor.statement(stmt, before)
        for made in before:
            for node in ast.walk(made):
                if not hasattr(node, "lineno"):  # (the user's own nodes keep their places)
                    ast.copy_location(node, stmt)
        body[k:k] = before
        k += len(before) + 1


def _enumerate_start(stmt: ast.For, names: FreeNames, before: list) -> None:
    call = stmt.iter
    if not names.calls(call, builtins.enumerate) or len(call.args) + len(call.keywords) != 2 or not call.args:
        return
    given = call.args[1:] + [k.value for k in call.keywords if k.arg == "start"]
    if len(given) != 1 or isinstance(given[0], (ast.Constant, ast.Name)):
        return
    held = names.namer.fresh("start")
    before.append(ast.Assign([ast.Name(held, ast.Store())], given[0]))
    call.args, call.keywords = call.args[:1], [ast.keyword("start", ast.Name(held, ast.Load()))]


class _Calls(ast.NodeTransformer):
    """The calls of one statement, innermost first; `depth` counts the conditional or repeated parts
    of the statement (an arm of ``a if c else b``, ``and``/``or``, a comprehension's element) the
    visit is in, where nothing may be computed before the statement."""

    def __init__(self, names: FreeNames):
        self.names, self.before, self.depth, self.stmt = names, [], 0, None

    def statement(self, stmt: ast.stmt, before: list) -> None:
        self.before, self.depth, self.stmt = before, 0 if _always_run(stmt) else 1, stmt
        self.iterated = {id(n.iter) for n in ast.walk(stmt) if isinstance(n, (ast.For, ast.comprehension))}
        self.parents = {id(child): n for n in ast.walk(stmt) for child in ast.iter_child_nodes(n)}
        for field in ("value", "iter", "test"):
            if isinstance(getattr(stmt, field, None), ast.expr):
                setattr(stmt, field, self.visit(getattr(stmt, field)))

    def visit_Lambda(self, node):
        return node

    def generic_visit(self, node):
        if isinstance(node, (ast.IfExp, ast.BoolOp)):
            self.depth += 1
            super().generic_visit(node)
            self.depth -= 1
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            first = node.generators[0]
            first.iter = self.visit(first.iter)  # computed once, where the comprehension is made
            self.depth += 1
            for field in ("elt", "key", "value"):
                if getattr(node, field, None) is not None:
                    setattr(node, field, self.visit(getattr(node, field)))
            first.ifs = [self.visit(c) for c in first.ifs]
            for later in node.generators[1:]:
                self.visit(later)
            self.depth -= 1
        else:
            super().generic_visit(node)
        return node


class _Chains(_Calls):
    """``itertools.chain(a, b)`` iterated once: ``list(a) + list(b)``."""

    def __init__(self, names: FreeNames, once: set):
        super().__init__(names)
        self.once = once

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if self.names.resolve(node.func) is not itertools.chain or not node.args or node.keywords \
                or any(isinstance(a, ast.Starred) for a in node.args):
            return node
        held = self.stmt.value is node and len(self.stmt.targets) == 1 and self.stmt.targets[0] \
            if isinstance(self.stmt, ast.Assign) else None
        if held:
            if not (isinstance(held, ast.Name) and held.id in self.once):
                return node  # an iterator a name keeps and reads twice: Python's second read finds it spent
        elif not _consumed(node, self.parents.get(id(node)), self.names):
            return node  # given to something that may iterate it twice, or call next() on it
        joined = ast.Call(ast.Name("list", ast.Load()), [node.args[0]], [])
        for part in node.args[1:]:
            joined = ast.BinOp(joined, ast.Add(), ast.Call(ast.Name("list", ast.Load()), [part], []))
        return ast.copy_location(joined, node)


def _sliced(node: ast.expr) -> bool:
    """Whether `node` is a slice of a name (``xs[-k:]``, a list's or an array's): a new sequence, which
    ``reversed`` reads last to first as ``xs[-k:][::-1]`` does."""
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and isinstance(node.value, ast.Name)


class _Slices(_Calls):
    """``itertools.islice(xs, ...)``: the comprehension of the items it yields."""

    def __init__(self, names: FreeNames, lists: set, params: set):
        super().__init__(names)
        self.lists, self.params = lists, params

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        lists = self.lists
        if self.names.resolve(node.func) is builtins.reversed and len(node.args) == 1 and not node.keywords \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in lists \
                and id(node) not in self.iterated:  # (a loop over reversed(xs) is lowering's own)
            seq, k = node.args[0].id, self.names.namer.fresh("k")
            last = ast.BinOp(ast.Call(ast.Name("len", ast.Load()), [ast.Name(seq, ast.Load())], []), ast.Sub(),
                             ast.Constant(1))
            steps = ast.Call(ast.Name("range", ast.Load()), [last, ast.Constant(-1), ast.Constant(-1)], [])
            item = ast.Subscript(ast.Name(seq, ast.Load()), ast.Name(k, ast.Load()), ast.Load())
            made = ast.ListComp(item, [ast.comprehension(ast.Name(k, ast.Store()), steps, [], 0)])
            return self._made(made, node, "flipped")
        if self.names.resolve(node.func) is builtins.reversed and len(node.args) == 1 and not node.keywords \
                and (_sliced(node.args[0]) or isinstance(node.args[0], ast.Name) and node.args[0].id not in lists) \
                and id(node) not in self.iterated:  # an array (or a sequence given, a slice): its items last to first
            flipped = ast.Subscript(node.args[0], ast.Slice(None, None, ast.Constant(-1)), ast.Load())
            return ast.copy_location(flipped, node)
        if self.names.resolve(node.func) is not itertools.islice or not 2 <= len(node.args) <= 4 \
                or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return node
        seq, bounds = node.args[0], node.args[1:]
        start, stop, step = (ast.Constant(0), bounds[0], None) if len(bounds) == 1 else \
            (bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else None)
        if not (isinstance(seq, ast.Name) and seq.id in self.lists):  # (a dict's items are its keys)
            if self.depth or isinstance(seq, ast.Name) and seq.id in self.names.local - self.params:
                return node  # (a local iterator: Python's islice leaves the rest of it for later reads)
            held = self.names.namer.fresh("sliced")
            self.before.append(ast.Assign([ast.Name(held, ast.Store())],
                                          ast.Call(ast.Name("list", ast.Load()), [seq], [])))
            seq = ast.Name(held, ast.Load())
        length = ast.Call(ast.Name("len", ast.Load()), [ast.Name(seq.id, ast.Load())], [])
        if _none(start):
            start = ast.Constant(0)
        end = length if _none(stop) else ast.Call(ast.Name("min", ast.Load()), [stop, length], [])
        k = self.names.namer.fresh("k")
        steps = [start, end] + ([] if step is None or _none(step) else [step])
        item = ast.Subscript(ast.Name(seq.id, ast.Load()), ast.Name(k, ast.Load()), ast.Load())
        made = ast.ListComp(item, [ast.comprehension(ast.Name(k, ast.Store()),
                                                     ast.Call(ast.Name("range", ast.Load()), steps, []), [], 0)])
        return self._made(made, node, "sliced")

    def _made(self, made: ast.expr, node: ast.expr, base: str) -> ast.expr:
        """`made` in `node`'s place: named before the statement where Python always computes it (a
        comprehension's own iterable, an argument of ``list``), else written in place."""
        if self.depth:
            return ast.copy_location(made, node)
        held = self.names.namer.fresh(base)
        self.before.append(ast.Assign([ast.Name(held, ast.Store())], made))
        return ast.copy_location(ast.Name(held, ast.Load()), node)


def _none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _always_run(stmt: ast.stmt) -> bool:
    """Whether Python computes the statement's expression once, where it runs (not a `while` test)."""
    return isinstance(stmt, (ast.Assign, ast.Expr, ast.Return, ast.AugAssign, ast.For, ast.If))


__all__ = ["has_iteration_forms", "rewrite_iteration_forms"]
