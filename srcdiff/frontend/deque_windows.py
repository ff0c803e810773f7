"""A sliding window kept in ``collections.deque(maxlen=K)`` (K written as a number), rewritten
(python_forms.py, right after parsing) as K variables, the newest last, and a count::

    window = deque(maxlen=2)                 window_0, window_1, window_n = 0.0, 0.0, 0
    for v in x:                              for v in x:
        window.append(v)                         window_0, window_1 = window_1, v
                                                 window_n = window_n + 1 if window_n < 2 else 2
        total = total + sum(window) ** 2         total = total + (window_0 + window_1) ** 2

A slot not filled yet holds 0.0 and every such slot is older than the filled ones (an append
shifts the slots left, ``popleft`` empties the oldest filled one), so the sum of all slots is the
sum of the window's items, exactly.  Read so: ``window.append(e)`` and ``window.popleft()`` as
statements (an empty window raises ``IndexError``, as Python does), ``sum(window)``,
``np.sum(window)``, ``np.mean(window)`` and ``len(window)``.  A window whose width is computed
(``deque(maxlen=width)``) holds numbers: an array of ``width`` of them, shifted the same way.  A
window used any other way (indexed, iterated) is left as written, and lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import builtins
import collections

import numpy as np

from .naming import FreeNames, own_nodes


def has_deques(tree: ast.FunctionDef) -> bool:
    """A cheap test: a call of a name or attribute spelled ``deque``."""
    return any(isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) == "deque"
               for n in ast.walk(tree))


def rewrite_deques(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, each window the function keeps in a deque as the module's doc says."""
    for node in list(own_nodes(tree)):
        width = _window(node, names)
        if width is not None and _only_read_so(tree, node.targets[0].id, names):
            kind = _Slots if isinstance(width, int) else _Ring
            kind(node.targets[0].id, width, names).rewrite(tree)


def _window(node, names: FreeNames):
    """K of ``name = deque(maxlen=K)``: an int written in the code (at least 1), or the expression
    that computes it; else None."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
        return None
    call = node.value
    if not (isinstance(call, ast.Call) and names.resolve(call.func) is collections.deque and not call.args
            and [k.arg for k in call.keywords] == ["maxlen"]):
        return None
    width = call.keywords[0].value
    if isinstance(width, ast.Constant):
        return width.value if type(width.value) is int and width.value >= 1 else None
    return width


#: the calls that read a whole window, and what each becomes
_READS = {builtins.sum: "sum", np.sum: "np.sum", np.mean: "np.mean", builtins.len: "len"}


def _only_read_so(tree: ast.FunctionDef, name: str, names: FreeNames) -> bool:
    """Whether every use of `name` is one the rewrite covers, the deque its only binding, and no
    nested scope reads it."""
    allowed, bound = set(), 0
    for node in own_nodes(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and _method(node.value, name) is not None:
            method, call = _method(node.value, name), node.value
            if (method, len(call.args)) not in (("append", 1), ("popleft", 0)) or call.keywords:
                return False
            allowed.add(id(call.func.value))
        elif isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            if _read(node, names) is None:
                return False
            allowed.add(id(node.args[0]))
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            bound += 1
    if names.resolve(ast.Name("np")) is not np or names.resolve(ast.Name("IndexError")) is not IndexError:
        return False  # the rewrite writes np.sum / np.size and raises IndexError by these names
    uses = [n for n in own_nodes(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    nested = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name]
    return bound == 1 and len(nested) == len(uses) + 1 and all(id(n) in allowed for n in uses)


def _read(call: ast.Call, names: FreeNames) -> str | None:
    """Which of `_READS` `call` calls, or None."""
    func = names.resolve(call.func)
    return next((kind for f, kind in _READS.items() if func is f), None)


def _method(call: ast.Call, name: str) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name:
        return func.attr
    return None


class _Slots(ast.NodeTransformer):
    """The rewrite of one window `name` of `width` slots."""

    def __init__(self, name: str, width: int, names: FreeNames):
        self.name, self.width = name, width
        self.names, self.slots = names, [names.namer.fresh(f"{name}_{j}") for j in range(width)]
        self.count = names.namer.fresh(f"{name}_n")

    def rewrite(self, tree: ast.FunctionDef) -> None:
        self.generic_visit(tree)  # (visit(tree) would stop at the function itself: a nested scope)
        ast.fix_missing_locations(tree)

    def visit_FunctionDef(self, node):
        return node  # a nested scope does not read the window (checked)

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_Assign(self, node):
        if isinstance(node.targets[0], ast.Name) and node.targets[0].id == self.name:
            values = [ast.Constant(0.0)] * self.width + [ast.Constant(0)]
            return self._at(_assign(self.slots + [self.count], values), node)
        return self.generic_visit(node)

    def visit_Expr(self, node):
        method = _method(node.value, self.name) if isinstance(node.value, ast.Call) else None
        if method == "append":
            item = self.visit(node.value.args[0])
            shift = _assign(self.slots, [_load(s) for s in self.slots[1:]] + [item])
            full = ast.Compare(_load(self.count), [ast.Lt()], [ast.Constant(self.width)])
            grown = ast.IfExp(full, ast.BinOp(_load(self.count), ast.Add(), ast.Constant(1)), ast.Constant(self.width))
            return [self._at(shift, node), self._at(_assign([self.count], [grown]), node)]
        if method == "popleft":  # the oldest filled slot is width - n: emptied, as if never filled
            empty = ast.Raise(ast.Call(ast.Name("IndexError", ast.Load()), [ast.Constant("pop from an empty deque")],
                                       []), None)
            chain = [empty]
            for j in reversed(range(self.width)):
                test = ast.Compare(_load(self.count), [ast.Eq()], [ast.Constant(self.width - j)])
                chain = [ast.If(test, [_assign([self.slots[j]], [ast.Constant(0.0)])], chain)]
            less = _assign([self.count], [ast.BinOp(_load(self.count), ast.Sub(), ast.Constant(1))])
            return [self._at(chain[0], node), self._at(less, node)]
        return self.generic_visit(node)

    def visit_Call(self, node):
        if len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id == self.name:
            return ast.copy_location(self._read(_read(node, self.names)), node)
        return self.generic_visit(node)

    def _read(self, func: str) -> ast.expr:
        if func == "len":
            return _load(self.count)
        items = [_load(s) if func == "sum" else _np("sum", _load(s)) for s in self.slots]  # np.sum, np.mean: all
        total = items[0]
        for item in items[1:]:
            total = ast.BinOp(total, ast.Add(), item)
        if func == "np.mean":  # every item has the newest one's size
            size = ast.BinOp(_load(self.count), ast.Mult(), _np("size", _load(self.slots[-1])))
            return ast.BinOp(total, ast.Div(), size)
        return total

    def _at(self, made, where):
        for n in ast.walk(made):
            ast.copy_location(n, where)
        return made


class _Ring(_Slots):
    """A window of numbers whose width is computed (``deque(maxlen=width)``): an array of that many
    numbers, the newest last, and a count; the width is read once, where the deque is made."""

    def __init__(self, name: str, width: ast.expr, names: FreeNames):
        self.name, self.width, self.names = name, width, names
        self.buf, self.count, self.size = (names.namer.fresh(f"{name}_{part}") for part in ("buf", "n", "k"))

    def _code(self, text: str, where, item=None) -> list:
        made = _Put(item).visit(ast.parse(text.format(buf=self.buf, n=self.count, k=self.size))).body
        return [self._at(m, where) for m in made]

    def visit_Assign(self, node):
        if isinstance(node.targets[0], ast.Name) and node.targets[0].id == self.name:
            return self._code("{k} = ITEM\nif {k} < 1:\n    raise ValueError('srcdiff reads a deque window of "
                              "maxlen 1 or more')\n{buf}, {n} = np.zeros({k}), 0", node, self.width)
        return self.generic_visit(node)

    def visit_Expr(self, node):
        method = _method(node.value, self.name) if isinstance(node.value, ast.Call) else None
        if method == "append":  # (an item that is not a number fails in np.reshape, as no window of numbers)
            return self._code("{buf} = np.concatenate(({buf}[1:], np.reshape(ITEM, (1,))))\n"
                              "{n} = {n} + 1 if {n} < {k} else {k}", node, self.visit(node.value.args[0]))
        if method == "popleft":
            return self._code("if {n} == 0:\n    raise IndexError('pop from an empty deque')\n"
                              "{buf} = np.concatenate(({buf}[:{k} - {n}], np.zeros(1), {buf}[{k} - {n} + 1:]))\n"
                              "{n} = {n} - 1", node)
        return self.generic_visit(node)

    def _read(self, func: str) -> ast.expr:
        total = _np("sum", _load(self.buf))
        return _load(self.count) if func == "len" else ast.BinOp(total, ast.Div(), _load(self.count)) \
            if func == "np.mean" else total


class _Put(ast.NodeTransformer):
    """The template's ``ITEM``: the user's expression."""

    def __init__(self, item):
        self.item = item

    def visit_Name(self, node):
        return self.item if node.id == "ITEM" else node


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _np(func: str, arg: ast.expr) -> ast.expr:
    return ast.Call(ast.Attribute(_load("np"), func, ast.Load()), [arg], [])


def _assign(targets: list, values: list) -> ast.Assign:
    if len(targets) == 1:
        return ast.Assign([ast.Name(targets[0], ast.Store())], values[0])
    return ast.Assign([ast.Tuple([ast.Name(t, ast.Store()) for t in targets], ast.Store())],
                      ast.Tuple(values, ast.Load()))


__all__ = ["has_deques", "rewrite_deques"]
