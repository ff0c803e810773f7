"""``np.array`` of nested lists written in the code (``[[1, 0], [0, np.cos(c)]]``), made of
tuples for numba: numba types a list of lists as lists of one item type, and a row of int
literals beside a row of floats then fails when it is built (an ``AssertionError`` in numba's
lowering).  Tuples keep each row's own types, and numba's ``np.array`` of nested tuples
promotes them as NumPy does (ints and floats: a float array; ints only: an int array).

Generated code names each row (``t1 = [1, 0, 0]``, ``t9 = [t1, t5, t8]``,
``R = np.array(t9)``): a row, or the list of rows, held in a name becomes a tuple only if
that name is bound once and read nowhere but in the list or call that holds it (a list also
read as a list elsewhere is left as it is).
"""

from __future__ import annotations

import ast
import collections


def rewrite(func: ast.FunctionDef) -> bool:
    """Make the nested lists `func` passes to ``np.array`` / ``np.asarray`` tuples; whether
    any was."""
    bound = {}  # name -> its one ``name = [...]``
    stores = collections.Counter()
    readers = collections.defaultdict(list)  # name -> the nodes that read it
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.List):
            bound[node.targets[0].id] = node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                readers[child.id].append(node)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] += 1
    bound = {name: assign for name, assign in bound.items() if stores[name] == 1}
    changed = False
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and _is_array_call(node) and len(node.args) == 1:
            lists = _rows(node.args[0], node, bound, readers)
            if lists and any(_rows(e, lst, bound, readers) for lst in lists for e in lst.elts):
                for lst in lists:
                    lst.tupled = True
                changed = True
    if changed:
        _Tupler().visit(func)
    return changed


def _is_array_call(node: ast.Call) -> bool:
    func = node.func
    return isinstance(func, ast.Attribute) and func.attr in ("array", "asarray") \
        and isinstance(func.value, ast.Name) and func.value.id in ("np", "numpy") and not node.keywords


def _rows(expr: ast.expr, holder: ast.AST, bound: dict, readers: dict) -> list | None:
    """The list literals `expr` stands for (itself, or the one its name is bound to, and the
    lists among their items, recursively), if each name on the way is read by its holder
    only; None if `expr` is no list literal or a name on the way is read elsewhere."""
    if isinstance(expr, ast.Name):
        if expr.id not in bound or readers[expr.id] != [holder]:
            return None
        expr = bound[expr.id].value
    if not isinstance(expr, ast.List):
        return None
    found = [expr]
    for item in expr.elts:
        if isinstance(item, (ast.List, ast.Name)):
            inner = _rows(item, expr, bound, readers)
            if inner is None and (isinstance(item, ast.List) or item.id in bound):
                return None  # a nested list that must stay a list: the whole stays
            found += inner or []
    return found


class _Tupler(ast.NodeTransformer):
    def visit_List(self, node: ast.List) -> ast.expr:
        self.generic_visit(node)
        if not getattr(node, "tupled", False):
            return node
        return ast.copy_location(ast.Tuple(node.elts, ast.Load()), node)
