"""Dicts merged from others: ``{**defaults, **overrides}``, ``dict(defaults, k=v)``,
``defaults | overrides``, ``cfg |= extra``; and ``dict(zip(("a", "b"), values))``.

Right after parsing (`rewrite_dict_merges`, python_forms.py) the call and operator spellings are
written as the display Python's own merge is: ``dict(a, k=v)`` / ``dict(**a, k=v)`` is ``{**a, "k": v}``
and ``a | b`` is ``{**a, **b}`` where ``a`` or ``b`` is certainly a dict (a display, a ``dict(...)``,
a module-level dict, or a name the function binds only to those) -- elsewhere ``|`` may be an
array's or a number's.  When the function's trees are read (flatten.py), `DictMerges.merged_dict`
reads the display: each ``**d`` must be a dict srcdiff knows the keys of (built in the function,
passed in, or module-level), later keys replacing earlier ones as in Python; its values are the
same entries (a dict's copy shares its values).  Anything else after ``**`` is refused at the line.
"""

from __future__ import annotations

import ast
import builtins
import copy

from .naming import FreeNames, assigned_names
from .tree_entries import Bad, Node, Read
from .trees import Struct


def has_dict_merges(tree: ast.FunctionDef) -> bool:
    return any(isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, ast.BitOr) or isinstance(n, ast.Call)
               and isinstance(n.func, ast.Name) and n.func.id == "dict" and n.args for n in ast.walk(tree))


def rewrite_dict_merges(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, ``dict(a, k=v)`` and ``|`` of dicts as displays (see the module's doc)."""
    dicts = _dict_names(tree, names)
    params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}

    class Merge(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if names.calls(node, builtins.dict) and len(node.args) == 1 and (
                    _is_dict(node.args[0], dicts, names) or isinstance(node.args[0], ast.Name)
                    and node.args[0].id in params):  # (a parameter: refused at the line unless a dict)
                keys = [None] + [None if k.arg is None else ast.Constant(k.arg) for k in node.keywords]
                values = [node.args[0]] + [k.value for k in node.keywords]
                return ast.copy_location(ast.Dict(keys, values), node)
            return _zipped(node, names, tree) or node

        def visit_BinOp(self, node):
            self.generic_visit(node)
            if isinstance(node.op, ast.BitOr) and any(_is_dict(e, dicts, names) for e in (node.left, node.right)):
                return ast.copy_location(ast.Dict([None, None], [node.left, node.right]), node)
            return node

        def visit_AugAssign(self, node):
            self.generic_visit(node)
            if isinstance(node.op, ast.BitOr) and isinstance(node.target, ast.Name) and node.target.id in dicts:
                merged = ast.Dict([None, None], [ast.Name(node.target.id, ast.Load()), node.value])
                return ast.copy_location(ast.Assign([ast.Name(node.target.id, ast.Store())],
                                                    ast.copy_location(merged, node)), node)
            return node
    Merge().visit(tree)


def _zipped(node: ast.Call, names: FreeNames, tree: ast.FunctionDef) -> ast.Dict | None:
    """``dict(zip(("a", "b"), values))``, keys written as strings or a module-level tuple of them
    (``NAMES``, then a dependency of the gradient): the display ``{"a": values[0], "b": values[1]}``
    (of a tuple or list display of values, its items), which reads as a dict of trees does; None
    where the values might not be read again alike (a call of a function of the user's)."""
    if not (names.calls(node, builtins.dict) and len(node.args) == 1 and not node.keywords
            and names.calls(node.args[0], builtins.zip) and len(node.args[0].args) == 2 and not node.args[0].keywords):
        return None
    keys, values = node.args[0].args
    if isinstance(keys, ast.Name) and isinstance(named := names.resolve(keys), tuple) \
            and all(isinstance(k, str) for k in named):
        # (a tuple, compared by value: rebinding the name builds the gradient again, parse.py)
        tree.read_statically = getattr(tree, "read_statically", set()) | {keys.id}
        keys = ast.copy_location(ast.Tuple([ast.Constant(k) for k in named], ast.Load()), keys)
    if not (isinstance(keys, ast.Tuple | ast.List) and keys.elts and all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) for k in keys.elts)):
        return None
    if isinstance(values, ast.Tuple | ast.List) and not any(isinstance(v, ast.Starred) for v in values.elts):
        items = values.elts[:len(keys.elts)]  # (zip stops at the shorter)
    elif _pure(values, names):
        items = [ast.copy_location(ast.Subscript(copy.deepcopy(values), ast.Constant(i), ast.Load()), values)
                 for i in range(len(keys.elts))]
    else:
        return None
    return ast.copy_location(ast.Dict(list(keys.elts[:len(items)]), items), node)


def _pure(expr: ast.expr, names: FreeNames) -> bool:
    """Whether `expr` gives the same value each time it is read: names, constants, items, and
    arithmetic and calls of NumPy's and math's functions of them."""
    for n in ast.walk(expr):
        if isinstance(n, ast.Call):
            module = getattr(names.resolve(n.func), "__module__", None) or ""
            if module.split(".")[0] not in ("numpy", "math"):
                return False
        elif isinstance(n, ast.NamedExpr | ast.Lambda | ast.Await | ast.Yield | ast.YieldFrom):
            return False
    return True


def _is_dict(expr: ast.expr, dicts: set, names: FreeNames) -> bool:
    if isinstance(expr, (ast.Dict, ast.DictComp)) or names.calls(expr, builtins.dict):
        return True
    return isinstance(expr, ast.Name) and (expr.id in dicts or isinstance(names.resolve(expr), dict))


def _dict_names(tree: ast.FunctionDef, names: FreeNames) -> set:
    """The names the function binds only to dicts (displays, ``dict(...)``, merges, ``|=``)."""
    bound: dict[str, bool] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        made = isinstance(t, ast.Name) and (isinstance(node.value, (ast.Dict, ast.DictComp))
                                                           or names.calls(node.value, builtins.dict))
                        bound[n.id] = bound.get(n.id, True) and made
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension, ast.NamedExpr)):
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name) and not (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.BitOr)):
                    bound[n.id] = False
    params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    return {n for n, ok in bound.items() if ok and n not in params}


class DictMerges:
    """A mixin of the tree rewriter (flatten_statements.Rewriter): a display with ``**``."""

    def merged_dict(self, value: ast.Dict, where) -> Node:
        children = {}
        for key, item in zip(value.keys, value.values):
            if key is not None:
                k = self.constant(key)
                if k is None:
                    raise self.error(where, "a dict built in the differentiated function needs constant keys",
                                     "write the keys as strings: {'W': W, 'b': b}")
                children[k] = self.element(item, k, where)  # a key seen before keeps its place
                continue
            found = self.module_dict(item) or self.tree_value(item, where) or self.none_or_dict(item, where)
            if isinstance(found, Bad):
                raise self.error(where, f"**{ast.unparse(item)} spreads a dict srcdiff cannot read here: "
                                 f"{found.reason}", "build the merged dict outside the loop or branch")
            if not (isinstance(found, Node) and found.struct.kind == "dict"):
                raise self.error(where, f"**{ast.unparse(item)} spreads a value srcdiff does not know to be a dict "
                                 "with known keys", "spread a dict built in the function, passed in, or defined "
                                 "at module level, or list the keys one by one")
            # a later key replaces the value, in the earlier key's place; the items the merged dict's own
            children.update(self.own_leaves(found.children, where))
        return self.owning(Node(Struct("dict", tuple(children)), children, local=True, depth=self.depth))

    def none_or_dict(self, item: ast.expr, where) -> Node | None:
        """``**(overrides or {})`` of a name that holds no tree (None, say): a value that is no tree is
        no dict, so Python spreads the display when the name is falsy, and raises TypeError when not
        (a test written before the statement, as Python's error)."""
        if not (isinstance(item, ast.BoolOp) and isinstance(item.op, ast.Or) and isinstance(item.values[-1], ast.Dict)
                and all(isinstance(v, ast.Name) and self.entry(v) is None for v in item.values[:-1])):
            return None
        for v in item.values[:-1]:
            error = ast.Raise(ast.Call(ast.Name("TypeError", ast.Load()),
                                       [ast.Constant(f"{v.id} is not a mapping, so ** cannot spread it")], []), None)
            guard = ast.If(ast.Name(v.id, ast.Load()), [error], [])
            for n in ast.walk(guard):
                ast.copy_location(n, where)
            self.pending.append(guard)
        return self.tree_value(item.values[-1], where)

    def module_dict(self, item: ast.expr) -> Node | None:
        """``**DEFAULTS`` of a module-level dict: its keys now, each value read as ``DEFAULTS["k"]``
        (as the function would read it), else None."""
        if not isinstance(item, ast.Name) or item.id in self.env or item.id in assigned_names(self.parsed.tree):
            return None
        value = self.parsed.resolve(item.id)
        if not (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
            return None
        children = {k: Read(self.expr(ast.copy_location(ast.Subscript(ast.Name(item.id, ast.Load()), ast.Constant(k),
                                                                      ast.Load()), item))) for k in value}
        return Node(Struct("dict", tuple(children)), children, local=False, depth=self.depth)


__all__ = ["DictMerges", "has_dict_merges", "rewrite_dict_merges"]
