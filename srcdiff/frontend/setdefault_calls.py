"""``d.setdefault(k, default)`` as the test and write it stands for (python_forms.py)::

    groups.setdefault(lab, []).append(v)
becomes
    if lab not in groups:
        groups[lab] = []
    groups[lab].append(v)

A call in a plain statement (an expression statement, an assignment, a ``return``) of a dict held
by a name is rewritten, its key a name or a constant (read twice: neither may change in between),
or computed first into a name of its own (``int(s)``, by NumPy's or Python's functions only).  The
default is computed only when the key is missing (Python computes it every time: the same unless
computing it has an effect, so a default calling a function of the user's is left as written).  In
a loop over keys known when the gradient is built (``for lab in LABELS``) the tree rewrite then
decides each test (flatten_statements.py); with keys known only when the function runs, the test
is refused at its line, as the same code written out is.  A call anywhere else (a conditional
expression, a comprehension, a lambda) is left as written: lowering refuses it at its line.
"""

from __future__ import annotations

import ast

from .desugar_reduce import HIDDEN, SIMPLE, replace_node
from .naming import rewrite_blocks


def has_setdefault(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether the function calls a ``.setdefault`` method."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "setdefault"
               for n in ast.walk(tree))


def rewrite_setdefault(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, each such call of the function's statements (see the module's doc)."""
    rewrite_blocks(tree.body, lambda stmt: _before(stmt, names) if isinstance(stmt, SIMPLE) else [])


def _before(stmt: ast.stmt, names) -> list:
    """The tests and writes `stmt`'s calls stand for, put before it; the calls become reads."""
    out = []
    for node in _visible(stmt):
        if not _rewritable(node, names):
            continue
        held, key = node.func.value, node.args[0]
        if not _key(key):  # groups.setdefault(int(s), []): the key computed once, into a name of its own
            name = names.namer.fresh("key")
            out.append(ast.fix_missing_locations(ast.copy_location(
                ast.Assign([ast.Name(name, ast.Store())], key), stmt)))
            key = ast.Name(name, ast.Load())
        default = node.args[1] if len(node.args) == 2 else ast.Constant(None)
        missing = ast.Compare(ast.Name(key.id, ast.Load()) if isinstance(key, ast.Name) else key,
                              [ast.NotIn()], [ast.Name(held.id, ast.Load())])
        missing.setdefault = ast.unparse(node)  # (named in a refusal of the test: tree_reads.py)
        write = ast.Assign([ast.Subscript(ast.Name(held.id, ast.Load()), _copy(key), ast.Store())], default)
        out.append(ast.fix_missing_locations(ast.copy_location(ast.If(missing, [write], []), stmt)))
        read = ast.Subscript(ast.Name(held.id, ast.Load()), _copy(key), ast.Load())
        if isinstance(stmt, ast.Expr) and stmt.value is node:  # ``d.setdefault(k, 0.0)`` alone: no read left
            read = ast.Constant(None)
        replace_node(stmt, node, ast.copy_location(read, node))
    return out


def _visible(stmt: ast.stmt) -> list:
    """The calls of `stmt` that run each time it runs (not in a hidden scope), innermost first."""
    found, todo = [], [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, HIDDEN):
            continue
        if isinstance(node, ast.Call):
            found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return found[::-1]


def _rewritable(node: ast.Call, names) -> bool:
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "setdefault" and not node.keywords
            and 1 <= len(node.args) <= 2 and isinstance(node.func.value, ast.Name)):
        return False
    if not (_key(node.args[0]) or not any(isinstance(n, (ast.NamedExpr, ast.Await, ast.Yield))
                                         or isinstance(n, ast.Call) and not _library_call(n, names)
                                         for n in ast.walk(node.args[0]))):
        return False
    default = node.args[1] if len(node.args) == 2 else None
    return default is None or not any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Await, ast.Yield))
                                      and not _library_call(n, names) for n in ast.walk(default))


def _key(key: ast.expr) -> bool:
    """Whether `key` reads the same twice with nothing to run: a name, a string or an integer."""
    return isinstance(key, ast.Name) or isinstance(key, ast.Constant) and isinstance(key.value, (str, int))


def _library_call(node: ast.AST, names) -> bool:
    """Whether `node` calls a function of NumPy or of Python's (``np.zeros(3)``, ``list()``): no effect."""
    if not isinstance(node, ast.Call):
        return False
    func = names.resolve(node.func)
    module = getattr(func, "__module__", None) or type(func).__module__ or ""
    return module.split(".")[0] in ("numpy", "builtins", "math")


def _copy(node: ast.expr) -> ast.expr:
    return ast.Name(node.id, ast.Load()) if isinstance(node, ast.Name) else ast.Constant(node.value)


__all__ = ["has_setdefault", "rewrite_setdefault"]
