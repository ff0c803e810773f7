"""What a ``for`` loop of a function taking trees unrolls over (flatten_statements.py).

A loop over a tree (``for W, b in layers``, ``for k, v in p.items()``), over a tuple of
constants (``for k in ("W1", "W2")``), over ``range`` of constants when the body reads a
tree, or over a module-level tuple of functions (``for act in ACTS``), also in the order
``sorted``/``reversed`` give (``for k in sorted(params)``), is unrolled: the body
is repeated once per item, each item bound to a name as an entry (tree_entries.py).
"""

from __future__ import annotations

import ast
import types

from .global_objects import Items, object_struct, user_object
from .tree_entries import Const, DictView, Node, Static
from .trees import Struct


class LoopItems:
    """The part of the rewriter (an `ExprRewriter`) that lists a loop's items."""

    def functions_of(self, node: ast.Name):
        """``for act in ACTS`` over a module-level tuple (or list) of functions: unrolled, each
        item a callee known when the gradient is built (rebinding ACTS builds it again)."""
        found = self.parsed.resolve(node.id)
        if not isinstance(found, (tuple, list)) or not found or not all(callable(f) for f in found):
            return None
        self.deps.append(self.parsed_dependency(node.id, found))
        items = []
        for k, func in enumerate(found):
            if user_object(func):  # a layer object: a tree whose call is its class's __call__
                items.append(self.object_tree(func, f"{node.id}_{k}", object_struct(func), Items(found), k))
                continue
            cell = self.names.fresh(f"{node.id}_{k}")
            self.cells[cell] = types.CellType(func)
            items.append(Static(cell, func))
        return items

    def items_of(self, node, force: bool):
        """The entries a `for` over `node` binds, when srcdiff unrolls it; None to keep the loop."""
        found = self.entry(node)
        if isinstance(found, Node):
            kind = found.struct.kind
            if kind == "dict":
                return [Const(k) for k in found.children]
            if kind in ("list", "tuple", "namedtuple"):
                return list(found.children.values())
            raise self.error(node, f"looping over {found.struct.describe()} is not supported",
                             "read its fields by name")
        if isinstance(found, DictView):
            children = found.node.children
            if found.which == "keys":
                return [Const(k) for k in children]
            if found.which == "values":
                return list(children.values())
            return [Node(Struct("tuple", (0, 1)), {0: Const(k), 1: v}) for k, v in children.items()]
        if isinstance(node, ast.Name) and node.id not in self.env:
            return self.functions_of(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            consts = [self.constant(e) for e in node.elts]
            if all(c is not None for c in consts) and force:
                return [Const(c) for c in consts]
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in self.env:
            func = self.parsed.resolve(node.func.id)
            if func is enumerate and len(node.args) == 1 and not node.keywords:
                inner = self.items_of(node.args[0], force)
                return None if inner is None else [
                    Node(Struct("tuple", (0, 1)), {0: Const(i), 1: v}) for i, v in enumerate(inner)]
            if func is zip and node.args and not node.keywords:
                inner = [self.items_of(a, force) for a in node.args]
                if any(i is None for i in inner):
                    return None
                return [Node(Struct("tuple", tuple(range(len(t)))), dict(enumerate(t))) for t in zip(*inner)]
            if func in (sorted, reversed, list, tuple) and len(node.args) == 1:
                return self.ordered_items(node, func, force)
            if func is range and force and not node.keywords:
                bounds = [self.constant(a) for a in node.args]
                if bounds and all(isinstance(b, int) for b in bounds):
                    return [Const(i) for i in range(*bounds)]
        return None

    def ordered_items(self, node: ast.Call, func, force: bool):
        """``sorted(p)``, ``sorted(p.items())``, ``reversed(layers)``, ``list(p)`` of a tree: its
        items in that order (keys are constants; items are ordered by key); None otherwise."""
        reverse = False
        for k in node.keywords:
            if func is not sorted or k.arg != "reverse" or not isinstance(k.value, ast.Constant):
                return None  # sorted(p, key=...): not unrolled
            reverse = bool(k.value.value)
        inner = self.items_of(node.args[0], force)
        if inner is None or func in (list, tuple):
            return inner
        if func is reversed:
            return inner[::-1]
        if all(isinstance(i, Const) for i in inner):
            return sorted(inner, key=lambda i: i.value, reverse=reverse)
        if all(isinstance(i, Node) and i.struct.kind == "tuple" and isinstance(i.children.get(0), Const)
               for i in inner):  # (key, value) pairs of p.items(): by key (keys differ)
            return sorted(inner, key=lambda i: i.children[0].value, reverse=reverse)
        return None


__all__ = ["LoopItems"]
