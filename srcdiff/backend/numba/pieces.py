"""The pieces of a join (``np.concatenate([[0.0], x])``) as numba types them: AST rewrites of
one function, run by spelling.py before its own.

numba types a list literal as a list of one type: ``[[0.0], x]`` (a list of numbers beside an
array) or ``[x, y]`` of a float32 and a float64 array has none.  NumPy makes each piece an
array, so:

* a join's list written in the call becomes a tuple (numba joins tuples of arrays of any
  dtypes), each list of numbers in it an array (``np.array([0.0])``);
* a name bound to a list of numbers (``t1 = [0.0]``, as lowering names a piece) that is
  read only as a piece of such a join, by ``np.shape``/``len``/``np.size``, or kept for the
  backward sweep (appended in a tuple, unpacked again) becomes that array.  A list put to
  any other use stays a list (``t1 * 2`` repeats a list, but doubles an array).
"""

from __future__ import annotations

import ast

JOINS = ("concatenate", "stack", "hstack", "vstack", "column_stack", "row_stack", "dstack")
SIZES = ("shape", "size", "len")


def rewrite(func: ast.FunctionDef) -> None:
    """Rewrite `func` in place (see the module's docstring)."""
    _named_lists(func)
    for node in ast.walk(func):
        if _join(node) and isinstance(node.args[0], ast.List) and node.args[0].elts:
            node.args[0] = ast.Tuple([_as_array(e) for e in node.args[0].elts], ast.Load())


def _join(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _np_name(node.func) in JOINS and bool(node.args)


def _np_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np":
        return func.attr
    if isinstance(func, ast.Name) and func.id == "len":
        return "len"
    return None


def _numbers(node: ast.expr) -> bool:
    return isinstance(node, ast.List) and bool(node.elts) and all(
        isinstance(e, ast.Constant) and type(e.value) in (int, float) for e in node.elts)


def _as_array(node: ast.expr) -> ast.expr:
    if not _numbers(node):
        return node
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "array", ast.Load()), [node], [])


def _named_lists(func: ast.FunctionDef) -> None:
    made: dict[str, list] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _numbers(node.value):
            made.setdefault(node.targets[0].id, []).append(node)
    if not made:
        return
    fine = set()
    for node in ast.walk(func):
        if _join(node) and isinstance(node.args[0], (ast.List, ast.Tuple)):
            fine.update(id(e) for e in node.args[0].elts if isinstance(e, ast.Name))
        elif isinstance(node, ast.Call) and _np_name(node.func) in SIZES and len(node.args) == 1:
            fine.add(id(node.args[0]))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Tuple):
            fine.update(id(e) for e in node.args[0].elts if isinstance(e, ast.Name))
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and node.id in made and (len(made[node.id]) > 1 or (
                isinstance(node.ctx, ast.Load) and id(node) not in fine)):
            made.pop(node.id)
    for (assign,) in made.values():
        assign.value = _as_array(assign.value)
