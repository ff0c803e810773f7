"""The adjoint of a decomposition's tuple result as one name per part, for numba.

The gradient collects the adjoints of ``w, v = np.linalg.eigh(a)`` in a list and hands it to
the decomposition's helper::

    t3_bar = [0.0] * len(t3)
    t3_bar[1] = t3_bar[1] + v_bar
    t3_bar[0] = t3_bar[0] + w_bar
    a_bar = eigh_adjoint(t3_bar, t3, 'L')

numba types a list's items alike, and these are a vector and a matrix (or 0.0 for a part the
program never read).  Where the list is used only so (parts read and written at constant
positions, the whole passed to one of the helpers below), each part becomes a name of its
own and the helper gets their tuple::

    t3_bar_0 = 0.0
    t3_bar_1 = 0.0
    t3_bar_1 = t3_bar_1 + v_bar       (``t3_bar[1] += v_bar`` too)
    ...
    a_bar = eigh_adjoint((t3_bar_0, t3_bar_1), t3, 'L')

(numba types each assignment of a name on its own, so a part may be 0.0, then an array.)
decompositions.py's helpers take such tuples.
"""

from __future__ import annotations

import ast

#: the helpers that take a tuple result's adjoint first, with the number of parts
PARTS = {"eigh_adjoint": 2, "svd_adjoint": 3, "qr_adjoint": 2, "lstsq_adjoint_x": 4, "lstsq_adjoint_y": 4}


def split(func: ast.FunctionDef) -> None:
    """Rewrite, in place, each tuple adjoint of `func` that `PARTS`' helpers take."""
    for name, count in _candidates(func).items():
        _rewrite(func, name, count)


def _zeros_of_length(value: ast.expr) -> bool:
    """``[0.0] * len(t)``."""
    return isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult) and isinstance(value.left, ast.List) \
        and len(value.left.elts) == 1 and isinstance(value.left.elts[0], ast.Constant) \
        and value.left.elts[0].value == 0.0 and isinstance(value.right, ast.Call) \
        and isinstance(value.right.func, ast.Name) and value.right.func.id == "len"


def _candidates(func: ast.FunctionDef) -> dict[str, int]:
    made, passed = {}, {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _zeros_of_length(node.value):
            made[node.targets[0].id] = made.get(node.targets[0].id, 0) + 1
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PARTS \
                and node.args and isinstance(node.args[0], ast.Name):
            passed.setdefault(node.args[0].id, []).append(PARTS[node.func.id])
    # (lstsq's adjoint goes to two helpers when both its operands are differentiated)
    found = {n: counts[0] for n, counts in passed.items() if made.get(n) == 1 and len(set(counts)) == 1}
    for name, count in list(found.items()):
        if not _only_parts(func, name, count):
            del found[name]
    return found


def _only_parts(func: ast.FunctionDef, name: str, count: int) -> bool:
    """Whether `name` is read and written only at constant positions below `count`, made
    once, passed to the helpers, and deleted."""
    allowed = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name:
            index = node.slice
            if not (isinstance(index, ast.Constant) and type(index.value) is int and 0 <= index.value < count):
                return False
            allowed.add(id(node.value))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id == name:
            allowed.add(id(node.targets[0]))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PARTS \
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            allowed.add(id(node.args[0]))
        elif isinstance(node, ast.Delete):
            allowed |= {id(t) for t in node.targets if isinstance(t, ast.Name) and t.id == name}
    return all(id(n) in allowed for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name)


class _Parts(ast.NodeTransformer):
    def __init__(self, name: str, count: int):
        self.name, self.count = name, count

    def part(self, k: int, ctx) -> ast.Name:
        return ast.Name(f"{self.name}_{k}", ctx)

    def visit_Assign(self, node: ast.Assign):
        self.generic_visit(node)
        target = node.targets[0] if len(node.targets) == 1 else None
        if isinstance(target, ast.Name) and target.id == self.name and _zeros_of_length(node.value):
            return [ast.copy_location(ast.Assign([self.part(k, ast.Store())], ast.Constant(0.0)), node)
                    for k in range(self.count)]
        return node

    def visit_AugAssign(self, node: ast.AugAssign):
        # ``t3_bar[0] += w_bar`` (the optimiser's in-place form): numba has no in-place add of an
        # array into the part's 0.0; ``part = part + w_bar`` types the name again
        self.generic_visit(node)
        target = node.target
        parts = {f"{self.name}_{k}" for k in range(self.count)}
        if isinstance(target, ast.Name) and target.id in parts and isinstance(node.op, ast.Add):
            added = ast.BinOp(ast.Name(target.id, ast.Load()), ast.Add(), node.value)
            return ast.copy_location(ast.Assign([ast.Name(target.id, ast.Store())], added), node)
        return node

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == self.name:
            return ast.copy_location(self.part(node.slice.value, node.ctx), node)
        return node

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in PARTS and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == self.name:
            parts = ast.Tuple([self.part(k, ast.Load()) for k in range(self.count)], ast.Load())
            node.args = [parts, *node.args[1:]]
        return node

    def visit_Delete(self, node: ast.Delete):
        node.targets = [t for t in node.targets if not (isinstance(t, ast.Name) and t.id == self.name)]
        return node if node.targets else None


def _rewrite(func: ast.FunctionDef, name: str, count: int) -> None:
    _Parts(name, count).visit(func)  # (spelling.py fills a body a dropped ``del`` left empty)
