"""Forward-mode and batched code made ready for fusion (fusion.py) under ``jit="numba"``.

The code `jvp`, `hvp` and a Hessian's columns run is forward mode over a generated
gradient.  Its NumPy spelling carries what the value needed and the tangent does not
(``x_bar = np.zeros(t6)`` read only for ``x_bar.shape``), renames an array as it is
updated (``x_bar_2_dot = x_bar_1_dot``), and fills fresh zeros by assignment
(``x_bar_1_dot[:-1] = t7_bar_dot``, memory.first_scatter_assigns).  Each of these ends
an elementwise run the fusion pass would otherwise make one loop.  `tidy` rewrites the main
function of the numba module, top-level statements only, into the same computation:

* ``s = a.shape`` with `a` bound once: its reads become ``a.shape``;
* ``z.shape`` of ``z = np.zeros(a.shape)``: ``a.shape``;
* a top-level assignment nothing reads, of an allocation, a shape, a name or a constant:
  dropped (it computes nothing that is used and cannot fail);
* ``b = a`` where `b` is bound only there and `a` is not bound again after it: `b` is `a`;
* the first statement using fresh zeros ``z[i] = v``: ``z[i] += v`` (0 + v is v).

Lines keep their origins (numba's refusals still name the user's line).  The NumPy code
(``.source`` of a jvp) is not changed.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import replace

from .fusion import line_map

ALLOCATIONS = frozenset({"zeros", "empty", "ones", "zeros_like", "empty_like", "ones_like"})


def tidy(built):
    """`built` (module.py's `NumbaModule`) with its main function tidied; `built` itself
    when nothing changes."""
    module = ast.parse(built.source)
    for node in ast.walk(module):
        if isinstance(node, ast.stmt) and node.lineno in built.lines:
            node.origin = built.lines[node.lineno]
    func = next((f for f in module.body if isinstance(f, ast.FunctionDef) and f.name == built.main), None)
    if func is None:
        return built
    changed = False
    for step in (_shape_names, _zeros_shapes, _dead, _aliases, _dead, _first_writes):
        while step(func):
            changed = True
    if not changed:
        return built
    source = ast.unparse(ast.fix_missing_locations(module))
    return replace(built, source=source, lines=line_map(module, source))


def _stores(func: ast.FunctionDef) -> dict[str, int]:
    """How often each name is bound (parameters count once)."""
    counts = {a.arg: 1 for a in func.args.args}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _loads(nodes) -> dict[str, int]:
    counts: dict[str, int] = {}
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _simple_assign(stmt) -> tuple[str, ast.expr] | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value
    return None


def _shape_of_name(value, stores: dict) -> bool:
    """``a.shape`` or ``np.shape(a)`` of a name bound once (its shape the same wherever it is read)."""
    if isinstance(value, ast.Attribute) and value.attr == "shape":
        of = value.value
    elif _numpy_call(value) == "shape" and len(value.args) == 1 and not value.keywords:
        of = value.args[0]
    else:
        return False
    return isinstance(of, ast.Name) and stores.get(of.id, 0) == 1


class _Replace(ast.NodeTransformer):
    def __init__(self, name: str, by: ast.expr | None = None, attribute: str | None = None):
        self.name, self.by, self.attribute, self.count = name, by, attribute, 0

    def visit_Call(self, node):  # ``np.shape(name)``, as ``name.shape``
        if self.attribute == "shape" and _numpy_call(node) == "shape" and len(node.args) == 1 and not node.keywords \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == self.name:
            self.count += 1
            return copy.deepcopy(self.by)
        return self.generic_visit(node)

    def visit_Attribute(self, node):
        if self.attribute is not None and node.attr == self.attribute and isinstance(node.value, ast.Name) \
                and node.value.id == self.name and isinstance(node.ctx, ast.Load):
            self.count += 1
            return copy.deepcopy(self.by)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if self.attribute is None and node.id == self.name and isinstance(node.ctx, ast.Load):
            self.count += 1
            return ast.copy_location(copy.deepcopy(self.by), node)
        return node


def _shape_names(func: ast.FunctionDef) -> bool:
    stores = _stores(func)
    for index, stmt in enumerate(func.body):
        found = _simple_assign(stmt)
        if found and stores.get(found[0]) == 1 and _shape_of_name(found[1], stores):
            swap = _Replace(found[0], found[1])
            func.body[index + 1:] = [swap.visit(s) for s in func.body[index + 1:]]
            if swap.count:
                return True
    return False


def _zeros_shapes(func: ast.FunctionDef) -> bool:
    stores = _stores(func)
    for index, stmt in enumerate(func.body):
        found = _simple_assign(stmt)
        if not (found and stores.get(found[0]) == 1 and _allocation(found[1])):
            continue
        call = found[1]
        if _numpy_call(call) not in ("zeros", "empty", "ones") or len(call.args) != 1 \
                or not _shape_of_name(call.args[0], stores):
            continue
        swap = _Replace(found[0], call.args[0], attribute="shape")
        func.body[index + 1:] = [swap.visit(s) for s in func.body[index + 1:]]
        if swap.count:
            return True
    return False


def _numpy_call(value) -> str | None:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "np":
        return value.func.attr
    return None


def _allocation(value) -> bool:
    return _numpy_call(value) in ALLOCATIONS and all(_pure(a) for a in value.args) \
        and all(k.arg == "dtype" and _pure(k.value) for k in value.keywords)


def _pure(value) -> bool:
    """Computes nothing that can fail or change anything: a name, a constant, a shape, a
    tuple or attribute of those."""
    if isinstance(value, (ast.Name, ast.Constant)):
        return True
    if isinstance(value, ast.Attribute):
        return _pure(value.value)
    if isinstance(value, ast.Tuple):
        return all(_pure(e) for e in value.elts)
    return False


def _dead(func: ast.FunctionDef) -> bool:
    stores, loads = _stores(func), _loads(func.body)
    for index, stmt in enumerate(func.body):
        found = _simple_assign(stmt)
        if found and stores.get(found[0]) == 1 and not loads.get(found[0]) \
                and (_pure(found[1]) or _allocation(found[1])):
            del func.body[index]
            return True
    return False


def _aliases(func: ast.FunctionDef) -> bool:
    stores = _stores(func)
    params = {a.arg for a in func.args.args}
    for index, stmt in enumerate(func.body):
        found = _simple_assign(stmt)
        if not (found and isinstance(found[1], ast.Name)):
            continue
        new, old = found[0], found[1].id
        if stores.get(new) != 1 or new in params or _loads(func.body[:index]).get(new):
            continue
        later = [n for s in func.body[index + 1:] for n in ast.walk(s)
                 if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id == old]
        if later:
            continue
        swap = _Replace(new, ast.Name(old, ast.Load()))
        func.body[index + 1:] = [swap.visit(s) for s in func.body[index + 1:]]
        del func.body[index]
        return True
    return False


def _first_writes(func: ast.FunctionDef) -> bool:
    stores = _stores(func)
    changed = False
    for index, stmt in enumerate(func.body):
        found = _simple_assign(stmt)
        if not (found and stores.get(found[0]) == 1 and _numpy_call(found[1]) == "zeros"
                and not found[1].keywords):
            continue
        name = found[0]
        for later_index in range(index + 1, len(func.body)):
            later = func.body[later_index]
            if not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(later)):
                continue
            if _plain_write(later, name):
                target = copy.deepcopy(later.targets[0])
                augmented = ast.AugAssign(target, ast.Add(), later.value)
                augmented.origin = getattr(later, "origin", None)
                func.body[later_index] = ast.copy_location(augmented, later)
                changed = True
            break
    return changed


def _plain_write(stmt, name: str) -> bool:
    """``name[index] = value`` where neither the index nor the value reads `name`."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)):
        return False
    target = stmt.targets[0]
    if not (isinstance(target.value, ast.Name) and target.value.id == name):
        return False
    return not any(isinstance(n, ast.Name) and n.id == name for part in (target.slice, stmt.value)
                   for n in ast.walk(part))


__all__ = ["tidy"]
