"""``np.einsum`` of a list operand (``np.einsum("ij,jk->ik", A, [[1.0, 2.0], [3.0, -1.0]])``), made
an array for numba: NumPy's einsum takes the list as its array, numba's einsum helper (einsum.py)
takes arrays only, and numba's ``np.array`` takes no list of lists.  The generated code names the
list (``t1 = [[1.0, 2.0], [3.0, -1.0]]``, read by the call and by its adjoint's): where the name is
bound once to a display of numbers (rows of one length) and read only as einsum operands, it is bound
to ``np.array`` of the same rows as tuples, the array NumPy makes of the list; a display written in
the call itself likewise.  Any other list is left as it is (numba then refuses it at its line).
"""

from __future__ import annotations

import ast
import collections


def rewrite(func: ast.FunctionDef) -> None:
    """Make, in place, the number displays `func` passes to ``np.einsum`` arrays (above)."""
    stores = collections.Counter(n.id for n in ast.walk(func) if isinstance(n, ast.Name)
                                 and isinstance(n.ctx, ast.Store))
    operands = [call.args[1:] for call in ast.walk(func) if _is_einsum(call)]
    in_calls = {id(a) for args in operands for a in args}
    loads = collections.defaultdict(list)
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id].append(id(node) in in_calls)
    for call in (c for c in ast.walk(func) if _is_einsum(c)):
        call.args[1:] = [_array(a) if _numbers(a) else a for a in call.args[1:]]
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and stores[node.targets[0].id] == 1 and _numbers(node.value) \
                and loads[node.targets[0].id] and all(loads[node.targets[0].id]):
            node.value = _array(node.value)


def _is_einsum(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "einsum" \
        and isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "numpy") and not node.keywords


def _numbers(node) -> int | None:
    """The number of axes of a rectangular list display of numbers (nested), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, ast.Constant):
        return 0 if type(node.value) in (int, float) else None
    if not isinstance(node, ast.List) or not node.elts:
        return None
    inner = [_numbers(e) for e in node.elts]
    if None in inner or len(set(inner)) != 1:
        return None
    if inner[0] and len({len(e.elts) for e in node.elts}) != 1:
        return None
    return inner[0] + 1


def _array(node: ast.List) -> ast.expr:
    class Tupled(ast.NodeTransformer):
        def visit_List(self, lst):
            self.generic_visit(lst)
            return ast.copy_location(ast.Tuple(lst.elts, ast.Load()), lst)
    rows = Tupled().visit(node)
    call = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "array", ast.Load()), [rows], [])
    return ast.copy_location(call, node)


__all__ = ["rewrite"]
