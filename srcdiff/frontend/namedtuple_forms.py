"""``p._replace(a=v)`` of a namedtuple the function builds (``p = Params(w, b)``), rewritten
(python_forms.py, right after parsing) as the constructor it stands for: ``Params(a=v, b=p.b)``
-- every field, the new value or the old one.  Then the namedtuple is one the function builds
from computed values, read field by field (frontend/built_objects.py).

Rewritten when every binding of the name builds the same class (``p = Params(...)``, or
``p = p._replace(...)``), so whichever binding reaches the call, its fields are the class's.  A
name that is a parameter, or bound otherwise, is left as written (lowering refuses the call).
"""

from __future__ import annotations

import ast
import copy

from .naming import FreeNames
from .trees import is_namedtuple_class


def has_replace(tree: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "_replace"
               for n in ast.walk(tree))


def rewrite_replace(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, each ``name._replace(...)`` of a namedtuple the function builds."""
    params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}

    class Replace(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            func = node.func
            if not (isinstance(func, ast.Attribute) and func.attr == "_replace" and isinstance(func.value, ast.Name)
                    and not node.args and all(k.arg is not None for k in node.keywords)) or func.value.id in params:
                return node
            built = _class_of(tree, func.value.id, names)
            if built is None or {k.arg for k in node.keywords} - set(built[0]._fields):
                return node  # a name that is no field: _replace raises ValueError, lowering refuses it
            given = {k.arg: k.value for k in node.keywords}
            keywords = [ast.keyword(f, given.get(f, ast.Attribute(ast.Name(func.value.id, ast.Load()), f, ast.Load())))
                        for f in built[0]._fields]
            made = ast.Call(copy.deepcopy(built[1]), [], keywords)
            for n in ast.walk(made):
                ast.copy_location(n, node)
            return made
    Replace().visit(tree)


def _class_of(tree: ast.FunctionDef, name: str, names: FreeNames):
    """``(cls, the expression naming it)`` if every binding of `name` builds that namedtuple class."""
    found = None
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension, ast.NamedExpr)) else []
        if not any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
            continue
        value = node.value if isinstance(node, ast.Assign) and len(node.targets) == 1 \
            and isinstance(node.targets[0], ast.Name) else None
        if not isinstance(value, ast.Call):
            return None
        if isinstance(value.func, ast.Attribute) and value.func.attr == "_replace" \
                and isinstance(value.func.value, ast.Name) and value.func.value.id == name:
            continue  # a _replace of itself: the same class
        cls = names.resolve(value.func)
        if not is_namedtuple_class(cls) or found is not None and found[0] is not cls:
            return None
        found = (cls, value.func)
    return found


__all__ = ["has_replace", "rewrite_replace"]
