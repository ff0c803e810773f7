"""An array rebuilt whole from its own pieces, the array: joins of its two ends, slices of every axis.

A cell whose pre-activations are written into a preallocated array block by block (``pre[:, :n] =
...``, ``pre[:, n:] = ...``) gets in the backward sweep that array's adjoint written block by block,
read back as the same blocks, and joined again for the products the joins of adjacent blocks made
one (joined_scatters.py, adjacent_products.py)::

    t11_bar = pre_bar[:, :n]
    t17_bar = pre_bar[:, n:]                                  t9_joined = pre_bar
    t9_joined = np.concatenate([t11_bar, t17_bar], axis=-1)   -->
    U_bar[:, :] += h.T @ t9_joined                            U_bar += h.T @ t9_joined
    h_bar = h_bar + t9_joined @ U[:, :].T                     h_bar = h_bar + t9_joined @ U.T

a copy of the whole adjoint per step where there was none to make; and the joined blocks of a
matrix spanning it all, ``U[:, :]``, a view made per use, and ``U_bar[:, :] += c`` a write through
the view and back (a copy of the whole matrix, as ``U_bar += c`` is not).  Where:

* ``np.concatenate([x[:, :k], x[:, k:]], axis=-1)`` (the pieces written there or bound once to
  those slices) of `x` known to have two axes: the two pieces are all of x's columns, in order, for
  every k (a negative one, or one past the end, too), so the join has x's elements; it becomes x
  itself where x is bound once, to a new array, the join is bound once to a name read only after it
  in the same straight run, and from the join on nothing in the run writes into x, its pieces or the
  join (the join is then x, not a copy, for as long as anything reads it);
* ``x[:, :]`` (a slice of each axis, no bounds) of `x` known to have that many axes: a view of all
  of x, which a read gets from x itself and an in-place sum writes into x.

NumPy code only (run after the joins of the products).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .adjacent_products import same_bound
from .liveness import bodies, is_fresh, nodes, writes, written_into
from .long_axes import ndim, single_assignments


def whole_arrays(func: ast.FunctionDef, dims_of: Callable[[str], tuple | None]) -> bool:
    """Make each join of an array's two ends the array, and each slice of all of an array the
    array (see the module); `dims_of` gives a name's dims where it is certainly an array."""
    definitions = single_assignments(func)
    loads = [n for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    changed = False
    for body in bodies(func.body):
        for i, stmt in enumerate(body):
            whole = _joined_whole(stmt, definitions, dims_of)
            if whole is not None and _stays(body, i, whole, loads, definitions):
                stmt.value = ast.copy_location(ast.Name(whole[0], ast.Load()), stmt.value)
                changed = True
    return _whole_slices(func, definitions, dims_of) | changed


def _joined_whole(stmt: ast.stmt, definitions: dict, dims_of):
    """For ``j = np.concatenate([x[:, :k], x[:, k:]], axis=-1)``: (x, j, the pieces' names)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    e = stmt.value
    if not (isinstance(e, ast.Call) and ast.unparse(e.func) == "np.concatenate" and len(e.args) == 1
            and isinstance(e.args[0], ast.List) and len(e.args[0].elts) == 2
            and [ast.unparse(k) for k in e.keywords] in (["axis=-1"], ["axis=1"])):
        return None
    pieces = []
    for item in e.args[0].elts:
        value = definitions.get(item.id) if isinstance(item, ast.Name) else item
        columns = _columns(value)
        if columns is None:
            return None
        pieces.append(columns)
    (x1, lo1, hi1), (x2, lo2, hi2) = pieces
    if x1 != x2 or lo1 is not None or hi2 is not None or hi1 is None or lo2 is None \
            or not same_bound(hi1, lo2, definitions) or ndim(ast.Name(x1, ast.Load()), dims_of, definitions) != 2:
        return None
    names = {item.id for item in e.args[0].elts if isinstance(item, ast.Name)}
    return x1, stmt.targets[0].id, names


def _columns(e: ast.expr | None):
    """``x[:, lo:hi]`` of a name x, the bounds absent, names or numbers: (x, lo, hi)."""
    if not (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and isinstance(e.slice, ast.Tuple)
            and len(e.slice.elts) == 2):
        return None
    rows, cols = e.slice.elts
    if not (isinstance(rows, ast.Slice) and rows.lower is None and rows.upper is None and rows.step is None
            and isinstance(cols, ast.Slice) and cols.step is None
            and all(b is None or isinstance(b, (ast.Name, ast.Constant)) for b in (cols.lower, cols.upper))):
        return None
    return e.value.id, cols.lower, cols.upper


def _stays(body: list[ast.stmt], i: int, whole, loads: list[ast.Name], definitions: dict) -> bool:
    """Whether the join at statement i may be the array itself (see the module)."""
    x, joined, pieces = whole
    if x not in definitions or not is_fresh(definitions[x]) or joined not in definitions:
        return False
    after = {id(n) for s in body[i + 1:] for n in nodes(s)}
    if any(n.id == joined and id(n) not in after for n in loads):
        return False  # (read elsewhere: perhaps in the next step, when x is another array)
    kept = {x, joined} | pieces
    return not any(kept & (writes(s) | written_into(s)) for s in body[i + 1:])


def _whole_slices(func: ast.FunctionDef, definitions: dict, dims_of) -> bool:
    changed = False

    def whole(e: ast.expr) -> bool:
        if not (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and isinstance(e.slice, ast.Tuple)):
            return False
        every = all(isinstance(s, ast.Slice) and s.lower is None and s.upper is None and s.step is None
                    for s in e.slice.elts)
        return every and ndim(e.value, dims_of, definitions) == len(e.slice.elts)

    class Whole(ast.NodeTransformer):
        def visit_Subscript(self, node: ast.Subscript):
            nonlocal changed
            self.generic_visit(node)
            if isinstance(node.ctx, ast.Load) and whole(node):
                changed = True
                return node.value
            return node

        def visit_AugAssign(self, node: ast.AugAssign):
            nonlocal changed
            self.generic_visit(node)
            if whole(node.target):  # (x[:, :] += c: x += c, in place in the same array)
                changed = True
                node.target = ast.copy_location(ast.Name(node.target.value.id, ast.Store()), node.target)
            return node

    Whole().visit(func)
    return changed
