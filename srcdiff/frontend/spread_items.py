"""Small pieces of varargs.py's binding of ``*args`` / ``**opts`` to a call: the items of a
tuple or list display spread into positional arguments, and the names of an unrolled
``for k in opts`` loop read as the item's key or parameter."""

from __future__ import annotations

import ast
import copy


def literal_items(node) -> list | None:
    """The items of a tuple/list display, or of a comprehension over one (unrolled); else None."""
    if isinstance(node, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return node.elts
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        gen = node.generators[0]
        items = literal_items(gen.iter)
        if items is None or gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name):
            return None
        return [SubstituteName(gen.target.id, item).visit(copy.deepcopy(node.elt)) for item in items]
    return None


def fresh_names(base: str, count: int, taken: set) -> list[str]:
    """`count` names ``base_0``, ``base_1``, ... none of them in `taken`."""
    names = []
    for i in range(count):
        name = f"{base}_{i}"
        while name in taken:
            name += "_"
        names.append(name)
    return names


class BindNames(ast.NodeTransformer):
    """Reads of the loop's names as the item's key (a constant) or parameter (a name)."""

    def __init__(self, values: dict):
        self.values = values

    def visit_Name(self, node):
        if node.id in self.values:
            return ast.copy_location(copy.deepcopy(self.values[node.id]), node)
        return node


class SubstituteName(ast.NodeTransformer):
    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return copy.deepcopy(self.value)
        return node


__all__ = ["BindNames", "SubstituteName", "fresh_names", "literal_items"]
