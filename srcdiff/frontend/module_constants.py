"""Keys and loop items a function taking trees computes from constants (`constant`: a literal, a name bound
to one, ``f"w{i}"``, ``"w%d" % i``, ``"w" + str(i)`` of them) and from module-level data (`constant` and
flatten_items.py's `items_of` ask here last):

    for i in range(len(SIZES) - 1): params[f"w{i}"]      # the length of a module list
    total + p["c{}".format(k)]                           # str.format of constants
    for name in Cfg.NAMES: p[name]                       # a class attribute's list of strings
    for group in GROUPS: for name in group: p[name]      # a module list of lists of strings
    for pair in [["a", "b"], ["b", "c"]]: p[pair[0]]     # a display of displays of constants
    for key in couplings: couplings[key]                 # a tuple key (i, j), or couplings[0, 1]

Each is known when the gradient is built; the list (or class attribute) it was read from is a
dependency, so rebinding it or changing it in place builds the gradient again (depends.py compares a
list by its items).
"""

from __future__ import annotations

import ast
import enum
import inspect
import operator

from ..errors import SrcDiffError
from . import depends
from .key_parameters import key_value
from .naming import assigned_names
from .parse import parse_function
from .tree_entries import Const, Node, Static
from .trees import Struct


def _plain(value) -> bool:
    """A string or an integer (not a bool): what a tree's key may be."""
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _nested(value) -> bool:
    """A list or tuple of keys, or of lists or tuples of keys (a list of lists of names)."""
    return isinstance(value, (list, tuple)) and all(_plain(v) or _nested(v) for v in value)


def as_entry(value):
    """A key as a constant, a list of keys as a list tree of constants."""
    if _plain(value):
        return Const(value)
    children = {k: as_entry(v) for k, v in enumerate(value)}
    return Node(Struct("list" if isinstance(value, list) else "tuple", tuple(children)), children)


def entry_value(entry):
    """The key a constant entry is (a tuple of keys for a tuple tree of constants), or None."""
    if isinstance(entry, Const) and _plain(entry.value):
        return entry.value
    if isinstance(entry, Node) and entry.struct.kind == "tuple" \
            and all(isinstance(c, Const) and _plain(c.value) for c in entry.children.values()):
        return tuple(c.value for c in entry.children.values())
    return None


class ModuleConstants:
    """The part of the rewriter (an `ExprRewriter`) that reads keys from module-level data."""

    def constant(self, node):
        """The string or integer `node` is when the rewrite is built (a constant, a name bound to one, a key
        spelled ``f"w{i}"``, ``"w%d" % i``, ``"w" + str(i)``, ``i + 1`` of them, module data), else None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
                and type(node.operand.value) is int:
            return -node.operand.value
        entry = self.entry(node) if isinstance(node, (ast.Name, ast.Call)) else None
        if isinstance(entry, Const) and isinstance(entry.value, (str, int)):
            return entry.value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in self.env \
                and self.parsed.resolve(node.func.id) is str and len(node.args) == 1 and not node.keywords:
            found = self.constant(node.args[0])  # "w" + str(i)
            return str(found) if type(found) is int else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in self.env \
                and self.parsed.resolve(node.func.id) in (min, max) and len(node.args) > 1 and not node.keywords:
            found = [self.constant(a) for a in node.args]  # max(len(ps) - 1, 0): a list slice's bound
            if all(type(f) is int for f in found):
                return self.parsed.resolve(node.func.id)(found)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Mod, ast.FloorDiv)):
            left, right = self.constant(node.left), self.constant(node.right)  # "W" + k, i + 1, i % 2
            if isinstance(node.op, ast.Mod) and type(left) is str and right is not None:
                try:  # "w%d" % i
                    return left % right
                except (TypeError, ValueError):
                    return None
            if left is not None and right is not None and type(left) is type(right) \
                    and (isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)) or type(left) is int and right != 0):
                apply = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Mod: operator.mod,
                         ast.FloorDiv: operator.floordiv}[type(node.op)]
                value = apply(left, right)
                return value if isinstance(value, (str, int)) else None
        if isinstance(node, ast.JoinedStr):  # f"W{k}"
            parts = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    parts.append(str(part.value))
                    continue
                inner = self.constant(part.value) if isinstance(part, ast.FormattedValue) \
                    and part.conversion == -1 and part.format_spec is None else None
                if inner is None:
                    return None
                parts.append(str(inner))
            return "".join(parts)
        return self.module_constant(node)  # len(SIZES), "w{}".format(k), Cfg.DEPTH: module_constants.py

    def passed_key(self, func, name: str, entry, item):
        """A "key" structure for parameter `name` of helper `func` given `entry` (or the expression `item`):
        an int or a tuple of strings known now that `func` iterates to make keys (key_parameters.py), else None."""
        value = entry.value if isinstance(entry, Const) else None
        if value is None and item is not None:
            value = self.displayed_constants(item) if isinstance(item, (ast.Tuple, ast.List)) else self.constant(item)
        if not isinstance(value, (int, tuple, list)):
            return None
        try:
            found = key_value(name, value, parse_function(func))
        except SrcDiffError:
            return None
        return None if found is None else Struct("key", cls=found)

    def module_data(self, node: ast.expr):
        """The value of `node` when it names module-level data (``SIZES``, ``Cfg.NAMES``) of keys or of
        lists of keys, its dependency recorded; None otherwise."""
        if isinstance(node, ast.Name) and node.id not in self.env:
            found = self.parsed.resolve(node.id)
            if not _nested(found) and not isinstance(found, str):
                return None
            self.deps.append(self.parsed_dependency(node.id, found))
            return found
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id not in self.env:
            cls = self.parsed.resolve(node.value.id)
            owner = next((k for k in getattr(cls, "__mro__", ()) if node.attr in vars(k)), None) \
                if isinstance(cls, type) else None
            found = vars(owner)[node.attr] if owner is not None else None
            if owner is None or not (_nested(found) or _plain(found)):
                return None
            self.deps.append(self.parsed_dependency(node.value.id, cls))
            self.deps.extend(depends.class_dependency(cls, node.attr, found))
            return found
        return None

    def module_constant(self, node: ast.expr):
        """``len(SIZES)`` of module data, ``"w{}".format(k)`` of constants, ``Cfg.DEPTH``, ``pair[0]`` of a list
        of keys: the string or integer it is; None otherwise."""
        if isinstance(node, ast.Attribute):
            found = self.module_data(node)
            return found if _plain(found) else None
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):  # pair[0] of a list of keys
            base, key = self.entry(node.value), self.constant(node.slice)
            if base is None and isinstance(node.value, (ast.Name, ast.Attribute)):
                found = self.module_data(node.value)  # Net.KEYS[0], NAMES[-1]
                base = as_entry(found) if isinstance(found, (list, tuple)) else None
            if isinstance(base, Node) and base.struct.kind in ("list", "tuple") and type(key) is int:
                found = base.children.get(key + len(base.children) if key < 0 else key)
                return found.value if isinstance(found, Const) and _plain(found.value) else None
            return None
        if not isinstance(node, ast.Call) or node.keywords:
            return None
        func = node.func
        if isinstance(func, ast.Name) and func.id not in self.env and self.parsed.resolve(func.id) is len \
                and len(node.args) == 1:
            found = self.module_data(node.args[0])
            return None if found is None or _plain(found) and not isinstance(found, str) else len(found)
        if isinstance(func, ast.Attribute) and func.attr == "format" and isinstance(func.value, ast.Constant) \
                and isinstance(func.value.value, str) and not any(isinstance(a, ast.Starred) for a in node.args):
            args = [self.constant(a) for a in node.args]
            if all(a is not None for a in args):
                try:
                    return func.value.value.format(*args)
                except (IndexError, KeyError, ValueError):
                    return None
        return None

    def key_constant(self, node: ast.expr):
        """A key to read a tree at: a `constant`, or a tuple of them (``p[(0, 1)]``, ``p[i, j]``, ``p[key]`` of
        a loop over a tuple-keyed dict), a float or an Enum member (`other_key`); None otherwise."""
        value = self.constant(node)
        if value is None:
            value = self.other_key(node)
        if value is not None:
            return value
        if isinstance(node, ast.Tuple):
            found = tuple(self.constant(e) for e in node.elts)
            return found if all(_plain(f) for f in found) else None
        return entry_value(self.entry(node)) if isinstance(node, ast.Name) else None

    def other_key(self, node: ast.expr):
        """A dict key known now that is not a string or an integer: a float written out (``300.0``) or an Enum
        member (``Term.FIT``, or a name bound to one); else None."""
        if isinstance(node, ast.Constant) and type(node.value) is float:
            return node.value
        bound = self.env.get(node.id) if isinstance(node, ast.Name) else None
        if isinstance(bound, Const) and (type(bound.value) is float or isinstance(bound.value, enum.Enum)):
            return bound.value
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id not in self.env:
            owner = self.parsed.resolve(node.value.id)
            if isinstance(owner, type) and issubclass(owner, enum.Enum) and isinstance(
                    member := inspect.getattr_static(owner, node.attr, None), enum.Enum):
                self.deps.append(self.parsed_dependency(node.value.id, owner))
                return member
        return None

    def other_keyed_dict(self, value: ast.Dict, where):
        """``{300.0: 0.2, 320.0: 0.35}`` or ``{Term.FIT: fit, Term.REG: reg}`` built in the function: keyed by
        floats or Enum members (`other_key`).  Of numbers written out, it is data held whole (read at a key
        known only when the function runs too, as a module dict is); of computed values, a tree with those keys
        (read at keys known now).  Any other key is refused at the line."""
        keys = [self.constant(k) if self.constant(k) is not None else self.other_key(k) for k in value.keys]
        if None in keys:
            key = ast.unparse(value.keys[keys.index(None)])
            raise self.error(where, f"a dict built in the differentiated function needs keys known when the gradient "
                             f"is built (strings, numbers, Enum members), not {key}",
                             "key it by strings ({'W': W}) or integers, or build it at module level")
        try:
            data = {k: ast.literal_eval(v) for k, v in zip(keys, value.values)}
        except ValueError:
            data = None
        if data is not None and all(type(v) in (int, float, bool, str) for v in data.values()):
            held = self.inject(data, self.target_base or "table")
            return Static(held.name, data)
        children = {k: self.element(v, k, where) for k, v in zip(keys, value.values)}
        return self.owning(Node(Struct("dict", tuple(children)), children, local=True, depth=self.depth))

    def constant_items(self, node: ast.expr, force: bool):
        """The items of a loop over module data of lists of keys (``GROUPS``, ``Cfg.NAMES``) or over a
        display of displays of constants, each a constant or a list tree of constants; None otherwise."""
        if not force:
            return None
        if isinstance(node, (ast.List, ast.Tuple)) and any(isinstance(e, (ast.List, ast.Tuple)) for e in node.elts):
            found = self.displayed_constants(node)
            return None if found is None else [as_entry(v) for v in found]
        found = self.module_data(node) if isinstance(node, (ast.Name, ast.Attribute)) else self.module_part(node)
        return [as_entry(v) for v in found] if isinstance(found, (list, tuple)) else None

    def module_part(self, node: ast.expr):
        """A part of module data known now: ``ORDER[:-1]`` of a list of keys, ``GRAPH.get(node, [])`` or
        ``GRAPH[node]`` of a module dict of lists of keys at a key known now (a loop's key, unrolled), its
        dependency recorded; None otherwise (a graph's nodes and edges, looped over at their names)."""
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            base = self.module_data(node.value) if isinstance(node.value, (ast.Name, ast.Attribute)) else None
            bounds = [None if b is None else self.constant(b) for b in (node.slice.lower, node.slice.upper,
                                                                       node.slice.step)]
            given = [b is not None for b in (node.slice.lower, node.slice.upper, node.slice.step)]
            if base is None or isinstance(base, str) or any(g and type(b) is not int for g, b in zip(given, bounds)):
                return None
            return base[slice(*bounds)]
        call = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and not node.keywords and 1 <= len(node.args) <= 2
        held = node.func.value if call else node.value if isinstance(node, ast.Subscript) else None
        if not isinstance(held, ast.Name) or held.id in self.env:
            return None
        table = self.parsed.resolve(held.id)
        key = self.constant(node.args[0] if call else node.slice)
        if not isinstance(table, dict) or key is None or not all(_nested(v) for v in table.values()):
            return None
        try:
            default = ast.literal_eval(node.args[1]) if call and len(node.args) == 2 else None
        except ValueError:
            return None
        if key not in table and not (call and _nested(default)):
            return None
        self.deps.append(self.parsed_dependency(held.id, table))
        return table.get(key, default)

    def module_records(self, node: ast.expr):
        """``ARCH``, a module list or tuple of dicts (``[{"size": 4, "act": "tanh"}, ...]``), zipped with a
        tree: its value, its dependency recorded (a list is compared by its items, dicts by value), read by
        index (``ARCH[0]``) where it is zipped; None for anything else."""
        if not isinstance(node, ast.Name) or node.id in self.env or node.id in assigned_names(self.parsed.tree):
            return None
        found = self.parsed.resolve(node.id)
        if type(found) not in (list, tuple) or not found or not all(isinstance(v, dict) for v in found):
            return None
        self.deps.append(self.parsed_dependency(node.id, found))
        return found

    def record_entries(self, node: ast.Name, records, count: int, read) -> list:
        """The first `count` dicts of `records` (what `node` holds): each a dict tree of constants when its
        values are numbers and strings (``spec["act"]`` is then known when the gradient is built), else
        `read` of ``node[k]`` (read when the function runs)."""
        return [Node(Struct("dict", tuple(d)), {k: Const(v) for k, v in d.items()})
                if all(type(v) in (int, float, str) for v in d.values()) and all(_plain(k) for k in d)
                else read(ast.copy_location(ast.Subscript(node, ast.Constant(i), ast.Load()), node))
                for i, d in enumerate(records[:count])]

    def displayed_constants(self, node: ast.expr):
        """``[["a", "b"], ["c"]]`` written out: the nested lists of keys it is, or None."""
        if isinstance(node, (ast.List, ast.Tuple)):
            found = [self.displayed_constants(e) for e in node.elts]
            return None if any(f is None for f in found) else (list if isinstance(node, ast.List) else tuple)(found)
        value = self.constant(node)
        return value if _plain(value) else None


__all__ = ["ModuleConstants", "as_entry", "entry_value"]
