"""More iterables whose items the rewrite knows (flatten_items.py's `items_of` asks here last):

    {k: w * x for k, w in WEIGHTS.items()}        # a module-level dict of constants (or of arrays)
    {n: a for n, a in zip(NAMES, (x ** 2, np.sin(x)))}   # a display of computed values
    for a, b in ((x, y), (x ** 2, np.sin(x))):    # a tuple of tuples of computed arrays

A module dict with string (or integer) keys gives its keys as constants and its values as
constants (numbers, strings) or reads ``WEIGHTS['k']`` (arrays): rebinding it, or changing its keys
or its constants in place, builds the gradient again (dependencies).  A display's items are computed before the
statement, in order, as Python computes a display before the loop or comprehension runs over it
(passed_sequences.py's `sequence_node`); it is read so only where the statement can take them
(not inside a lambda, a conditional or another comprehension's body).  A loop over a display of
plain values stays a loop unless its body reads a tree; one over a display of displays (a
tuple of tuples, whose items the lowered loop could not add adjoints back into) is unrolled, and
so is one over a dict tree's view zipped with an array (``zip(params.items(), x)``).
"""

from __future__ import annotations

import ast

from .depends import Dependency
from .tree_entries import Const, DictView, Node, Read
from .trees import Struct

_VIEWS = ("items", "keys", "values")


class DisplayItems:
    """The part of the rewriter (an `ExprRewriter`) that reads module dicts and displays as items."""

    def display_items(self, node: ast.expr, force: bool):
        """The items of `node`, a module dict (or its ``.items()``, ``.keys()``, ``.values()``) or a
        tuple/list display of computed values; None when it is neither (the loop stays a loop)."""
        if isinstance(node, (ast.Tuple, ast.List)):
            return self.computed_display(node, force)
        which = "keys"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _VIEWS \
                and not node.args and not node.keywords:
            which, node = node.func.attr, node.func.value
        if not force or not isinstance(node, ast.Name) or node.id in self.env:
            return None
        found = self.parsed.resolve(node.id)
        if not isinstance(found, dict) or not found \
                or not all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in found):
            return None
        self.deps.append(self.parsed_dependency(node.id, found))  # (rebound)
        self.deps.append(Dependency(_Snapshot(found), "items", _snapshot(found)))  # (changed in place)
        keys = [Const(k) for k in found]
        if which == "keys":
            return keys
        values = [_value(node, k, v) for k, v in found.items()]
        if which == "values":
            return values
        return [Node(Struct("tuple", (0, 1)), {0: k, 1: v}) for k, v in zip(keys, values)]

    def dict_keys_of(self, node: ast.Call, builtin, arg):
        """``list(ASSETS)``, ``tuple(p.keys())``, ``sorted(ASSETS)`` of a dict whose keys srcdiff knows (a module
        dict, a parameter tree): a tuple of its keys as constants, in order or sorted, so that a name bound to it
        is read at constant keys, as a loop over the dict itself is; None for anything else."""
        if builtin not in (list, tuple, sorted) or len(node.args) != 1 or node.keywords:
            return None
        if isinstance(arg, DictView) and arg.which == "keys":
            arg = arg.node
        if isinstance(arg, Node) and arg.struct.kind == "dict":
            keys = list(arg.children)
        elif arg is None and _names_keys(node.args[0]):  # a module dict of arrays: its keys, as a loop reads them
            keys = [k.value for k in self.display_items(node.args[0], True) or ()] or None
        else:
            keys = None
        if keys is None:
            return None
        if builtin is sorted:
            try:
                keys = sorted(keys)
            except TypeError:  # (keys of mixed kinds: Python's sorted raises as the function runs)
                return None
        return Node(Struct("tuple", tuple(range(len(keys)))), {i: Const(k) for i, k in enumerate(keys)}, local=True)

    def computed_display(self, node: ast.expr, force: bool):
        """``(x ** 2, np.sin(x))`` or ``((x, y), (x ** 2, z))``: one entry per item, each computed before
        the statement (a display of displays always, a flat one when `force`); None otherwise."""
        nested = any(isinstance(e, (ast.Tuple, ast.List)) for e in node.elts)
        if not (force or nested) or not self.reads_displays():
            return None
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        saved = self.__dict__.get("pending"), self.__dict__.get("target_base")
        self.pending, self.target_base = self.built, "item"
        try:
            made = self.sequence_node(node, node, nested=True)
        finally:
            self.pending, self.target_base = saved
        return None if made is None else list(made.children.values())

    def over_views(self, node: ast.expr) -> bool:
        """Whether a loop's iterable reads a view of a dict tree, zipped or enumerated
        (``zip(params.items(), x)``): the loop is unrolled, its pairs bound item by item."""
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _VIEWS
                   and isinstance(self.entry(n.func.value), Node) for n in ast.walk(node))


def _names_keys(node: ast.expr) -> bool:
    """``D`` or ``D.keys()`` of a name `D`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" \
            and not node.args and not node.keywords:
        node = node.func.value
    return isinstance(node, ast.Name)


class _Snapshot:
    """A dependency's scope: ``get("items")`` is what of the dict the gradient holds now (`_snapshot`)."""

    def __init__(self, d: dict):
        self.d = d

    def get(self, name, default=None):
        return _snapshot(self.d)


def _snapshot(d: dict) -> tuple:
    """The keys of `d` in order, each with its value where the gradient holds it (a constant)."""
    return tuple((k, v) if type(v) in (int, float, str, bool) else (k,) for k, v in d.items())


def _value(name: ast.Name, key, value):
    """A module dict's value: the constant, or a read of it by its key (an array, a tuple)."""
    if type(value) in (int, float, str, bool):
        return Const(value)
    read = ast.Subscript(ast.Name(name.id, ast.Load()), ast.Constant(key), ast.Load())
    return Read(ast.fix_missing_locations(ast.copy_location(read, name)))


__all__ = ["DisplayItems"]
