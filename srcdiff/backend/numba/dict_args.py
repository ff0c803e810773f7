"""A dict argument the gradient reads at keys (``rates[(0, 1)]`` of ``rates=PAIRS``, a default dict
keyed by pairs), for numba, which takes no Python dict ("non-precise type pyobject").

Where the signature says a parameter of the main function is a dict and the code reads it only as
``d[key]``, each read becomes ``dict_item(d, key)`` and the call passes the dict as the pair (its
keys, its values) of dict_items.py (`given`), made again on every call: a dict changed in place is
seen.  A dict read any other way, or whose keys or values are not of one type, is left as it is:
numba refuses it at the user's line, as before.
"""

from __future__ import annotations

import ast

from . import dict_items, joins


def rewrite(built, made, key) -> tuple:
    """(`built` (module.py's `NumbaModule`) with the main function's reads of its dict parameters
    spelled ``dict_item(d, key)``, the positions of those parameters): (`built`, ()) where there is none."""
    if not isinstance(key, tuple) or made is None:
        return built, ()
    names = [a.arg for a in ast.parse(made.source).body[0].args.args]
    if len(names) != len(key):
        return built, ()
    dicts = {n for n, part in zip(names, key) if part is dict}
    module = ast.parse(built.source)
    top = next((f for f in module.body if isinstance(f, ast.FunctionDef) and f.name == built.main), None)
    if not dicts or top is None:
        return built, ()
    parents = {id(c): p for p in ast.walk(top) for c in ast.iter_child_nodes(p)}
    reads: dict = {n: [] for n in dicts}
    for node in ast.walk(top):
        if isinstance(node, ast.Name) and node.id in reads and reads[node.id] is not None:
            parent = parents.get(id(node))
            if isinstance(node.ctx, ast.Load) and isinstance(parent, ast.Subscript) and parent.value is node \
                    and isinstance(parent.ctx, ast.Load) and not isinstance(parent.slice, ast.Slice):
                reads[node.id].append(parent)
            else:
                reads[node.id] = None  # (read whole, stored, deleted: left to numba)
    found = {id(s) for subs in reads.values() if subs for s in subs}
    if not found:
        return built, ()

    class Spelled(ast.NodeTransformer):
        def visit_Subscript(self, node):
            self.generic_visit(node)
            if id(node) not in found:
                return node
            call = ast.Call(ast.Name("dict_item", ast.Load()), [node.value, node.slice], [])
            return ast.copy_location(call, node)
    Spelled().visit(top)
    again = joins.rewritten(built, module)
    again.imports["dict_item"] = (dict_items.__name__, "dict_item")
    return again, tuple(i for i, n in enumerate(names) if reads.get(n))


def given(value):
    """A dict argument as the code `rewrite` spelled reads it: the pair (keys, values) where
    dict_items.py can read it, else the dict itself (numba refuses it at its line)."""
    return dict_items.pair(value) if isinstance(value, dict) and dict_items.readable(value) else value


__all__ = ["given", "rewrite"]
