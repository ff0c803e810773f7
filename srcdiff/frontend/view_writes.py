"""Writes through a view or a second name of an array, read as writes into the array (desugar.py).

In NumPy a view shares its array's memory: after ``flat = Y.reshape(-1)``, ``Yt = Y.T``,
``evens = z[::2]`` or plainly ``b = a``, a write through the view (``flat *= w``, ``Yt[0] = v``,
``evens[:] = v``, ``b += v``) changes the array, and a write into the array changes what the
view shows.  srcdiff reads every value as a new array, so such a view is rewritten, right after
parsing, where that is exactly what NumPy does: the view's statement goes, each later read of
the view reads the view of the array *now* (``Y.reshape(-1)``), and each write through it
becomes a write into the array itself, through the view's inverse::

    Y = X.copy()                        Y = X.copy()
    flat = Y.reshape(-1)        ==>
    flat[::2] = v                       flat_1 = Y.reshape(-1).copy()
                                        flat_1[::2] = v
                                        Y[:] = flat_1.reshape(Y.shape)
    s = np.sum(flat)                    s = np.sum(Y.reshape(-1))

``V op= v`` becomes ``Y[:] = (view of Y op v)`` through the inverse (a part ``z[s]``:
``z[s] op= v``; a second name: ``Y[:] = Y op v``), and an update of the array itself while the
view is alive, ``Y op= v``, becomes ``Y[:] = Y op v``.  (``Y[:]``, not ``Y[...]``: the same write
for an array of one axis or more, and one the numba backend compiles.)  Every change so is a write by index
into ``Y``, which lowering accepts only into an array the function made that nothing else
holds (writes.py): a number, an argument, a list or any name still sharing ``Y`` is refused
there, at the user's line, as before.

Only an array the function makes itself is rewritten so: every assignment of its name is
``x.copy()``, ``np.array(x)``, ``np.copy(x)``, ``np.zeros/ones/empty/full(...)`` or their ``_like``
forms (a number's second name, ``t = s; t += 1.0``, keeps Python's meaning; an argument's view is
left for lowering, which refuses to write into the caller's array).  Which expressions are views,
for sure:

* ``b = a`` (the same object); ``a[...]`` with a slice (or ``...``) and ints (views.py's test);
* ``a.T``, ``a.transpose()``, ``np.transpose(a)`` and ``a.transpose(p)`` with constant axes;
* ``a.reshape(...)``, ``np.reshape(a, ...)``, ``a.ravel()``, ``np.ravel(a)`` *only* when ``a`` is
  C-contiguous for sure: every assignment of ``a`` in the function is ``x.copy()`` or
  ``np.zeros/ones/empty/full(...)`` without ``order=`` (of another array, or a transpose,
  NumPy's reshape may copy, and a write through the copy would not reach ``a``).

The view must be assigned once, read and written only after its statement in the same block,
and nothing there may rebind the array (other than ``a op= v``) or the index's names; a nested
function must not see either name.  Anything else is left as written.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

import numpy as np

from .depends import MISSING
from .naming import SCOPES, own_nodes
from .views import basic_part, range_counters, statement_blocks

_MADE_CONTIGUOUS = {np.zeros, np.ones, np.empty, np.full}
_MADE = _MADE_CONTIGUOUS | {np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.array, np.copy}


@dataclass
class _View:
    name: str  # the view's name
    base: str  # the array's name
    expr: ast.expr  # the view of the array, as written
    kind: str  # "alias", "part", "reshape" or "transpose"
    axes: tuple | None = None  # the inverse permutation of a transpose with axes


def rewrite_view_writes(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, each view of `tree` written through (or whose array is written while it
    is alive) as reads and writes of its array."""
    counters = range_counters(tree)
    contiguous = _made_names(tree, names, True)
    changed = True
    while changed:  # a view of a view is rewritten once the inner one is written through
        changed = False
        made = _made_names(tree, names, False)
        made |= _view_names(tree, counters, contiguous, names, made)
        for block in statement_blocks(tree):
            k = 0
            while k < len(block):
                view = _view_of(block[k], counters, contiguous, names)
                if view is not None and view.base in made and _usable(tree, block, k, view):
                    through = _Through(view, names.namer)
                    block[k:] = [t for s in block[k + 1:] for t in _as_list(through.visit(s))]
                    changed = True
                    continue
                k += 1
    ast.fix_missing_locations(tree)


def _view_names(tree: ast.FunctionDef, counters: set, contiguous: set, names, made: set) -> set[str]:
    """Names assigned a view of an array the function made (or of such a view, and so on)."""
    views: set[str] = set()
    statements = [n for n in own_nodes(tree) if isinstance(n, ast.stmt)]
    while True:
        found = {v.name for v in (_view_of(s, counters, contiguous, names) for s in statements)
                 if v is not None and v.base in made | views}
        if found <= views:
            return views
        views |= found


def has_view_writes(tree: ast.FunctionDef) -> bool:
    """A cheap test: a name bound to another name, or to ``.T``/``.reshape``/``.ravel``/
    ``.transpose`` or a slice of one, and some write by index in the function."""
    viewed = writes = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Subscript):
                writes = True
            value = node.value
            if isinstance(value, ast.Call):
                value = value.func.value if isinstance(value.func, ast.Attribute) else value
            viewed = viewed or isinstance(value, (ast.Name, ast.Subscript, ast.Attribute))
        elif isinstance(node, ast.AugAssign):
            writes = True
        elif isinstance(node, ast.keyword) and node.arg == "out":
            writes = True
    return viewed and writes


def _as_list(result) -> list:
    return result if isinstance(result, list) else [result]


def _made_names(tree: ast.FunctionDef, names, contiguous: bool) -> set[str]:
    """Names every assignment of which makes a new array (``x.copy()``, ``np.zeros(...)``,
    ``np.array(x)``...): C-contiguous for sure when `contiguous` (``x.copy()`` and ``np.zeros``
    and kin only).  Parameters never are: the caller's array is not the function's to write
    (and may be of any layout)."""
    made: dict[str, bool] = {}
    augmented = {id(n.target) for n in own_nodes(tree) if isinstance(n, ast.AugAssign)}
    assigned = {id(n.targets[0]): n.value for n in own_nodes(tree)
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}
    for node in own_nodes(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in augmented:
            made[node.id] = made.get(node.id, True) and _made(assigned.get(id(node)), names, contiguous)
    params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    return {name for name, sure in made.items() if sure and name not in params}


def _made(value: ast.expr | None, names, contiguous: bool) -> bool:
    if not isinstance(value, ast.Call) or any(k.arg in (None, "order", "like") for k in value.keywords):
        return False
    if isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args \
            and not value.keywords and names.resolve(value.func.value) is MISSING:
        return True  # ``x.copy()`` of a local value: ndarray.copy's order is "C"
    if value.args and isinstance(value.args[0], ast.Tuple) and not value.args[0].elts:
        return False  # ``np.zeros(())``: a 0-d array, which no index write (``y[:] = ...``) can write whole
    return names.resolve(value.func) in (_MADE_CONTIGUOUS if contiguous else _MADE)


def _view_of(stmt: ast.stmt, counters: set, contiguous: set, names) -> _View | None:
    """The view ``name = ...`` of `stmt` makes, if it makes one for sure; else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    name, value = stmt.targets[0].id, stmt.value
    if isinstance(value, ast.Name):
        return _View(name, value.id, value, "alias") if value.id != name else None
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        if not any(isinstance(p, ast.Slice) or isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts) \
                or any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in ast.walk(value.slice)):
            return None
        others = [p for p in parts if not isinstance(p, ast.Slice)]
        slices = [p for p in parts if isinstance(p, ast.Slice)]
        bounds = [b for s in slices for b in (s.lower, s.upper, s.step) if b is not None]
        if not all(basic_part(p, counters) for p in others + bounds):
            return None  # (a name in a slice may be None or an int; elsewhere an index array: a copy)
        return _View(name, value.value.id, value, "part") if value.value.id != name else None
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.attr == "T":
        return _View(name, value.value.id, value, "transpose") if value.value.id != name else None
    if not isinstance(value, ast.Call) or value.keywords or any(isinstance(a, ast.Starred) for a in value.args):
        return None
    func = names.resolve(value.func)
    if isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name) and func is MISSING:
        base, method, args = value.func.value.id, value.func.attr, value.args
    elif func in (np.transpose, np.reshape, np.ravel) and value.args and isinstance(value.args[0], ast.Name):
        base, method, args = value.args[0].id, func.__name__, value.args[1:]
    else:
        return None
    if base == name:
        return None
    if method == "transpose":
        axes = _constant_axes(args)
        if axes is None:
            return None
        inverse = tuple(int(a) for a in np.argsort(axes)) if axes else None
        return _View(name, base, value, "transpose", inverse)
    if (method == "reshape" and args and all(_plain(a) for a in args) or method == "ravel" and not args) \
            and base in contiguous:
        return _View(name, base, value, "reshape")
    return None


def _plain(arg: ast.expr) -> bool:
    """A reshape's argument that reads no call (so reading it again reads the same value)."""
    return not any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in ast.walk(arg))


def _constant_axes(args: list) -> tuple | None:
    """() for no axes, else the axes of ``transpose(1, 0)`` / ``transpose((1, 0))`` written as
    constants; None otherwise."""
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = args[0].elts
    if not all(isinstance(a, ast.Constant) and type(a.value) is int for a in args):
        return None
    axes = tuple(a.value for a in args)
    return axes if sorted(axes) == list(range(len(axes))) else None


def _usable(tree: ast.FunctionDef, block: list, k: int, view: _View) -> bool:
    """Whether the view is assigned only at ``block[k]``, read and written only after it in the
    block, nothing there rebinds the array (but ``array op= v``) or the names the view reads, no
    nested scope sees them, and something writes through the view or into the array."""
    inside = {id(n) for s in block[k + 1:] for n in ast.walk(s)}
    fixed = {n.id for n in ast.walk(view.expr) if isinstance(n, ast.Name)} - {view.base}
    augmented = {id(n.target) for n in ast.walk(tree) if isinstance(n, ast.AugAssign)}
    written = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Subscript) and not isinstance(n.ctx, ast.Load)}
    written |= {id(n.target.value) for n in ast.walk(tree)
                if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Subscript)}
    wrote = False
    for node in ast.walk(tree):
        if isinstance(node, SCOPES) and node is not tree and any(
                isinstance(n, ast.Name) and n.id in (view.name, view.base) for n in ast.walk(node)):
            return False  # a nested scope may read or write them at any time
        if not isinstance(node, ast.Name) or node is block[k].targets[0]:
            continue
        load = isinstance(node.ctx, ast.Load)
        if node.id == view.name:
            if id(node) not in inside or not load and id(node) not in augmented:
                return False
            wrote = wrote or not load or id(node) in written
        elif node.id == view.base and id(node) in inside:
            if not load and id(node) not in augmented:
                return False  # the array rebound: the view shows the old one
            wrote = wrote or not load or id(node) in written
        elif node.id in fixed and not load and id(node) in inside:
            return False
    return wrote


class _Through(ast.NodeTransformer):
    """Reads of the view as the view of the array now; writes through it as writes into the array."""

    def __init__(self, view: _View, namer):
        self.view, self.namer = view, namer

    def visit_FunctionDef(self, node):
        return node  # (never reached: no nested scope sees the names)

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Name(self, node: ast.Name):
        if node.id == self.view.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(copy.deepcopy(self.view.expr), node)
        return node

    def visit_Assign(self, node: ast.Assign):
        target = node.targets[0]
        if len(node.targets) == 1 and self._through(target):
            return self._write(node, target.slice, None, self.visit(node.value))
        return self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign):
        view, target = self.view, node.target
        value = self.visit(node.value)
        if self._through(target):
            return self._write(node, target.slice, node.op, value)
        if isinstance(target, ast.Name) and target.id in (view.name, view.base):
            if target.id == view.base or view.kind == "alias":  # the array's own update: a write into it
                return self._put(node, ast.Slice(), ast.BinOp(self._load(view.base), node.op, value))
            if view.kind == "part":  # ``head += v``: ``z[s] += v`` (views.py)
                return ast.copy_location(ast.AugAssign(self._store_view(), node.op, value), node)
            changed = ast.BinOp(self._view(), node.op, value)
            return self._put(node, ast.Slice(), self._inverse(changed))
        node.target, node.value = self.visit(target), value
        return node

    def _through(self, target: ast.expr) -> bool:
        return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
            and target.value.id == self.view.name

    def _write(self, node: ast.stmt, index: ast.expr, op, value: ast.expr) -> list | ast.stmt:
        """``view[index] = value`` (``op=`` when `op`) as writes into the array."""
        view = self.view
        index = self.visit(copy.deepcopy(index))
        if view.kind == "alias":
            target = ast.Subscript(self._load(view.base), index, ast.Store())
            made = ast.Assign([target], value) if op is None else ast.AugAssign(target, op, value)
            return ast.copy_location(made, node)
        temp = self.namer.fresh(view.name)
        copied = ast.Call(ast.Attribute(self._view(), "copy", ast.Load()), [], [])
        target = ast.Subscript(ast.Name(temp, ast.Load()), index, ast.Store())
        written = ast.Assign([target], value) if op is None else ast.AugAssign(target, op, value)
        if view.kind == "part":
            back = ast.Assign([self._store_view()], ast.Name(temp, ast.Load()))
        else:
            back = ast.Assign([ast.Subscript(self._load(view.base), ast.Slice(), ast.Store())],
                              self._inverse(ast.Name(temp, ast.Load())))
        return [ast.copy_location(s, node) for s in (ast.Assign([ast.Name(temp, ast.Store())], copied), written, back)]

    def _put(self, node, index, value):
        target = ast.Subscript(self._load(self.view.base), index, ast.Store())
        return ast.copy_location(ast.Assign([target], value), node)

    def _inverse(self, value: ast.expr) -> ast.expr:
        """The array's value whose view is `value`."""
        view = self.view
        if view.kind == "reshape":
            shape = ast.Attribute(self._load(view.base), "shape", ast.Load())
            return ast.Call(ast.Attribute(value, "reshape", ast.Load()), [shape], [])
        if view.axes is None:
            return ast.Attribute(value, "T", ast.Load())
        axes = ast.Tuple([ast.Constant(a) for a in view.axes], ast.Load())
        return ast.Call(ast.Attribute(value, "transpose", ast.Load()), [axes], [])

    def _view(self) -> ast.expr:
        return copy.deepcopy(self.view.expr)

    def _store_view(self) -> ast.expr:
        target = copy.deepcopy(self.view.expr)
        target.ctx = ast.Store()
        return target

    @staticmethod
    def _load(name: str) -> ast.Name:
        return ast.Name(name, ast.Load())


__all__ = ["has_view_writes", "rewrite_view_writes"]
