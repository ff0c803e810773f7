"""Which arrays of a generated function certainly have the same shape (the facts the same-shape
rewrites of sameshape.py use).

The signature a gradient is compiled for gives each axis as "length one" or "longer", and a
slice ``x[1:]`` may be either.  Read from the generated code, many shapes are provably equal:
``t3 = t2 * t2`` has `t2`'s shape, ``x[1:]`` and ``x[:-1]`` have the same length,
``unbroadcast(g, t)`` has `t`'s.  `ShapeClasses` groups names by that relation: every value a
name of a class ever holds has the class's one shape.  Its members are names assigned once (in
a loop too), names all of whose assignments agree, and a loop-carried name whose every new
value keeps its first one's shape (`shape_classes`: ``u = np.concatenate([u[:1], u[1:-1] + d,
u[-1:]])``, ``u = u + kappa * np.pad(lap, 1)``), proved by induction over its assignments.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ...ir.shapes import MANY, ONE, UNKNOWN_DIM, Shape
from . import liveness
from .liveness import assigned_name, is_compound
from .shape_calls import is_conversion, is_ufunc, shape_of_call
from .shape_pieces import index_read_as_subscript, piece_of_slice, tiles
from .shape_syntax import Syntax

ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
SCALAR = "scalar"


def shape_classes(func: ast.FunctionDef, is_scalar: Callable[[str], bool], params: frozenset[str],
                  shape_of: Callable[[str], Shape]) -> ShapeClasses:
    """`ShapeClasses` of `func`, with each loop-carried name (``u = u0`` before a loop, ``u = u_1``
    in it, restored from a loop stack after) in its first value's class where that holds.

    It is proved by induction: assume every value of `u` has the shape of ``u0``, derive the
    classes, and check that each assignment of `u` then gives a value of that class.  Each
    value is computed from values made before it, which have their classes (induction
    hypothesis), so the assumption holds for every value (of every name assumed at once: the
    first value to break one would have been made from values that kept them all).  A name
    whose check fails is left out and the rest checked again."""
    refuted: set[str] = set()
    syntax = Syntax.of(func)
    while True:
        found = ShapeClasses(func, is_scalar, params, shape_of, carried=True, refuted=frozenset(refuted),
                             syntax=syntax)
        broken = found.broken()
        if not broken:
            return found
        refuted |= broken


class ShapeClasses:
    """Union-find over names (and slice keys) that hold arrays of one shape."""

    def __init__(self, func: ast.FunctionDef, is_scalar: Callable[[str], bool], params: frozenset[str],
                 shape_of: Callable[[str], Shape], assumed: dict[str, ast.expr] | None = None,
                 carried: bool = False, refuted: frozenset[str] = frozenset(), syntax: Syntax | None = None):
        """`assumed`: loop-carried names taken to be of their start value's class; `carried`: so
        are all of them but the `refuted` (`shape_classes`)."""
        syntax = syntax or Syntax.of(func)
        self.func = func
        self.is_scalar = is_scalar
        self.shape_of = shape_of
        self.parent: dict[object, object] = {}
        self.merged: set[str] = set()  # assigned more than once, always an array of one class
        # where each name is first defined; parameters first, in the signature's order (a set's
        # order would make the chosen representative, and so the source, vary between runs)
        signature = [a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs]
        self.order: dict[str, int] = {p: -1 for p in signature + sorted(params) if p in params}
        stores = syntax.stores
        # A name joins a class only where its one definition is a top-level ``name = ...``:
        # one a tuple target, a loop or a branch assigns has no known place in the order.
        plain = {assigned_name(stmt) for stmt in func.body} - {None}
        self.single = {name for name, count in stores.items() if count == 1 and name in plain
                       and name not in params}
        self.single |= {p for p in params if not stores[p]}
        # A name assigned once in a loop or branch body has one shape whenever it is defined
        # (``t1 = x * i``); its statement may not run, so it proves no shapes equal, stands in for none.
        inner = syntax.inner
        restored_counts = syntax.restored
        self.inner = {name for name in {assigned_name(stmt) for stmt in inner} - {None}
                      if stores[name] - restored_counts[name] == 1 and name not in params}
        self.single |= self.inner
        # a list or tuple has no elementwise shape: a parameter of no known array shape may be one
        self.sequences = syntax.sequences | {p for p in params if not shape_of(p).known}
        self.stores, self.restored, self.params = stores, restored_counts, params
        self._members: dict | None = None
        self._values, self._written, self._bodies = syntax.values, syntax.written, syntax.bodies
        self.assumed = dict(assumed or {})
        if carried:
            self.assumed.update({n: v for n, v in self._carried_starts().items() if n not in refuted})
        for _ in range(2):  # a class found later (names a branch merges) may decide earlier ones
            for name, start in self.assumed.items():
                key = self.of(start)
                if key not in (None, SCALAR):
                    self.merged.add(name)
                    self.union(name, key)
            self._top_level(func, syntax.returns)
            for stmt in inner:
                key = self.of(stmt.value) if assigned_name(stmt) in self.inner else None
                if key not in (None, SCALAR):
                    self.union(assigned_name(stmt), key)
            for body in self._bodies:
                self._equate_in_body(body)
            self._merge(syntax.merges, params)

    def _carried_starts(self) -> dict[str, ast.expr]:
        """Names assigned more than once (not parameters, not assigned once), every time by a plain
        ``name = ...`` (or restored from a loop stack), first by a top-level one: that value, the
        start an induction assumes (`shape_classes`)."""
        found: dict[str, ast.expr] = {}
        written = self._written  # (``x[i] += v`` writes into x: no new value of x)
        for stmt in self.func.body:
            name = assigned_name(stmt)
            values = self._values.get(name, [])
            if name is None or name in found or name in self.single or name in self.params \
                    or self.stores[name] - self.restored[name] - written[name] != len(values) or len(values) < 2:
                continue
            # an accumulation of products (``k_bar = k_bar + t18_bar * t17``) is `_merge`'s: the terms'
            # classes decide it, and assuming it would mostly cost a second attempt (`shape_classes`);
            # one of names (``u_bar = u_bar + new_bar``) may need the assumption to class its terms
            terms = [liveness.added_term(ast.Assign([ast.Name(name, ast.Store())], v), name) for v in values]
            if all(term is None or isinstance(term, ast.Name) for term in terms):
                found[name] = stmt.value
        return found

    def broken(self, assumed: dict[str, ast.expr] | None = None) -> set[str]:
        """The names assumed (and given a class: their start's was known) some assignment of which
        gives a value of another class."""
        return {name for name in (self.assumed if assumed is None else assumed) if name in self.merged
                and any(self.of(v) != self.find(name) for v in self._values[name])} \
            | {name for name in (assumed or {}) if name not in self.merged}

    def definition(self, name: str) -> ast.expr | None:
        """The value of the one assignment of a name of `single` (None for another name)."""
        if not hasattr(self, "_definitions"):
            self._definitions = {name: values[0] for name, values in self._values.items()
                                 if len(values) == 1 and name in self.single}
        return self._definitions.get(name)

    def _single_value(self, node: ast.expr) -> ast.expr | None:
        return self.definition(node.id) if isinstance(node, ast.Name) and node.id in self.single else node

    def _equate_in_body(self, body: list[ast.stmt]) -> None:
        """``r = a * t`` in a loop body, `t` assigned earlier in the same straight-line run, `a`'s class
        and `t` of one ndim with every axis longer than one (or both of length one): each value of
        `t` met `a` there (no branch, loop, ``break`` or ``return`` between), and broadcasting
        succeeded, so they had one shape (a statement that never runs defines no `t` either)."""
        defined: set[str] = set()
        for stmt in body:
            if is_compound(stmt) or isinstance(stmt, ast.Return):
                defined.clear()
                continue
            name = assigned_name(stmt)
            value = getattr(stmt, "value", None)
            if isinstance(value, ast.BinOp) and isinstance(value.op, ELEMENTWISE):
                operands = [value.left, value.right]
                for mine, other in (operands, operands[::-1]):
                    if isinstance(mine, ast.Name) and mine.id in defined and mine.id in self.inner \
                            and not self.is_scalar(mine.id) and self._holds_its_shape(mine.id):
                        key, dims = self.of(other), self.shape_of(mine.id).dims
                        if key not in (None, SCALAR) and dims and UNKNOWN_DIM not in dims \
                                and self.dims(key) == dims:
                            self.union(mine.id, key)
            if name is not None:
                defined.add(name)

    def _top_level(self, func: ast.FunctionDef, returns: int) -> None:
        # after a possible early return (the statement at `returns`), later statements may not run:
        # facts they imply may not hold (after a raise they do: when it raises, nothing is returned)
        for index, stmt in enumerate(func.body[:returns]):
            name = assigned_name(stmt)
            if name is None or name not in self.single:
                continue
            self.order.setdefault(name, index)
            self._equate_operands(stmt.value)
            key = self.of(stmt.value)
            if key not in (None, SCALAR):
                self.union(name, key)

    def _merge(self, merges: dict, params) -> None:
        """Names every assignment gives one class: both sides of a branch (``y = x * 2.0``, ``y = x * x``),
        or ``x_bar = np.zeros(x.shape)`` then ``x_bar = x_bar + e`` (``-``, ``+=``), `e` of it or a number."""
        for name, (starts, terms) in merges.items():
            if name in self.single or name in self.merged or name in params:
                continue
            keys = {self.of(value) for value in starts}
            key = keys.pop() if len(keys) == 1 else None
            if key not in (None, SCALAR) and all(e is not None and self.of(e) in (key, SCALAR) for e in terms):
                self.merged.add(name)
                self.union(name, key)

    def find(self, key):
        while self.parent.get(key, key) != key:
            key = self.parent[key]
        return key

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb
            self._members = None

    def of(self, expr: ast.expr):
        """The class of `expr`'s shape, SCALAR for a number, or None when not known."""
        if isinstance(expr, ast.Constant):
            return SCALAR if type(expr.value) in (int, float) else None
        if liveness.is_size(expr) or (isinstance(expr, ast.Subscript) and shape_of_call(expr.value) is not None
                                      and isinstance(expr.slice, ast.Constant)):
            return SCALAR  # an int: ``1.0 / x.size * 2 * x``, ``x.shape[0]``
        if isinstance(expr, ast.Name):
            if self.is_scalar(expr.id):
                return SCALAR
            if expr.id in self.sequences:
                return None
            return self.find(expr.id) if expr.id in self.single or expr.id in self.merged else None
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd, ast.Invert)):
            return self.of(expr.operand)  # (``~mask``: a boolean mask's negation, of its shape)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ELEMENTWISE):
            return self._combine([expr.left, expr.right])
        if isinstance(expr, ast.Subscript):
            return self._slice(expr)
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1:  # (booleans of the operands' broadcast shape)
            return self._combine([expr.left, *expr.comparators])
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "astype":
            return self.of(expr.func.value)  # (copy=False too: the array or a copy, of its shape)
        if isinstance(expr, ast.Call) and not expr.keywords:
            return self._call(expr)
        if is_conversion(expr):  # np.asarray(e, dtype=d): e's shape
            return self.of(expr.args[0])
        return None

    def _equate_operands(self, value: ast.expr) -> None:
        """``a * b`` ran, with `a` and `b` of one ndim and every axis "longer than one" in
        both or of length one in both: broadcasting them succeeded, so their shapes are equal."""
        if isinstance(value, ast.BinOp) and isinstance(value.op, ELEMENTWISE):
            operands = [value.left, value.right]
        elif isinstance(value, ast.Call) and is_ufunc(value):
            operands = value.args
        else:
            return
        names = [e.id for e in operands if isinstance(e, ast.Name) and e.id in self.single
                 and not self.is_scalar(e.id) and self._holds_its_shape(e.id)]
        found = [self.shape_of(n) for n in names]
        if len(names) < 2 or not all(f.known and UNKNOWN_DIM not in f.dims for f in found) \
                or len({f.dims for f in found}) != 1:
            return
        for other in names[1:]:
            self.union(names[0], other)

    def _holds_its_shape(self, name: str) -> bool:
        """Whether `name` still holds its inferred shape: a fill the optimizer made a number
        (``t6_bar = t7_bar``) keeps the array's inferred shape, but joins the class of what it
        copies, whose inferred dims differ."""
        dims, root = self.shape_of(name).dims, self.find(name)
        return all(not (shape := self.shape_of(other)).known or shape.dims == dims
                   for other in self.order if other != name and self.find(other) == root)

    def _combine(self, operands: list[ast.expr]):
        """Elementwise operands: the shape is the arrays' when they are all one class, or one
        operand's class when each other's axes (inferred) broadcast to it: where its axis is
        longer than one, or theirs is of length one (``u + t8``, both vectors longer than one)."""
        keys = [self.of(e) for e in operands]
        arrays = set(keys) - {SCALAR}
        if None not in arrays and len(arrays) <= 1:
            return arrays.pop() if arrays else SCALAR
        for key in keys:
            dims = self.dims(key) if key not in (None, SCALAR) else None
            if dims is not None and all(k in (key, SCALAR) or self._broadcasts_to(e, dims)
                                        for e, k in zip(operands, keys)):
                return key
        return None

    def _broadcasts_to(self, expr: ast.expr, dims: tuple[str, ...]) -> bool:
        if not isinstance(expr, ast.Name):
            return False
        shape = self.shape_of(expr.id)
        if not shape.known or shape.scalar or len(shape.dims) > len(dims):
            return False
        return all(mine == MANY or theirs == ONE for mine, theirs in zip(dims[::-1], shape.dims[::-1]))

    def dims(self, key) -> tuple[str, ...] | None:
        """The axes of class `key` as its names' inferred shapes know them (None: not known)."""
        root = self.find(key)
        if self._members is None:  # (each class's names, made again after a union)
            self._members = {}
            for name in self.parent:
                if isinstance(name, str):
                    self._members.setdefault(self.find(name), []).append(name)
        members = self._members.get(root, [])
        found = [self.shape_of(n) for n in members + ([root] if isinstance(root, str) and root not in members else [])
                 if not self.is_scalar(n)]
        found = [f.dims for f in found if f.known and not f.scalar]
        if not found or len({len(d) for d in found}) != 1:
            return None
        dims = []
        for axis in zip(*found):
            said = set(axis) - {UNKNOWN_DIM}
            if len(said) > 1:
                return None
            dims.append(said.pop() if said else UNKNOWN_DIM)
        return tuple(dims)

    def _call(self, call: ast.Call):
        func = call.func
        if isinstance(func, ast.Name) and func.id == "unbroadcast" and len(call.args) == 2:
            return self.of(call.args[1])
        if isinstance(func, ast.Name) and (func.id, len(call.args)) in (("copy_array", 1), ("set_item", 3),
                                                                         ("zero_item", 2), ("index_add", 3)):
            return self.of(call.args[0])  # a copy (written into): the array's shape
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not call.args:
            return self.of(func.value)
        if isinstance(func, ast.Name) and func.id == "held_still" and len(call.args) == 2:
            return self._combine(call.args)  # (a selection: the broadcast of its operands, as np.where's)
        if isinstance(func, ast.Name) and func.id == "index_read" and len(call.args) == 2:
            read = index_read_as_subscript(call.args[0], call.args[1], self._single_value)
            return self._slice(read) if read is not None else None
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"):
            return None
        if is_ufunc(call) or (func.attr in ("clip", "where") and len(call.args) == 3 and not call.keywords):
            return self._combine(call.args)  # (clip and where broadcast their operands, as ufuncs do)
        if func.attr in ("full", "zeros", "ones") and call.args:
            shape = call.args[0]
            if isinstance(shape, ast.Name) and shape.id in self.single:  # ``t6 = x.shape; np.zeros(t6)``
                shape = self.definition(shape.id)
            if shape is not None and shape_of_call(shape) is not None:
                return self.of(shape_of_call(shape))
        if func.attr in ("zeros_like", "ones_like") and len(call.args) == 1:
            return self.of(call.args[0])
        if func.attr == "concatenate" and len(call.args) == 1 and isinstance(call.args[0], (ast.List, ast.Tuple)):
            return self._joined(call.args[0].elts)
        return None

    def _joined(self, operands: list[ast.expr]):
        """``np.concatenate([x[:1], m, x[-1:]])`` with `m` of class ``x[1:-1]``: x's class, where the
        pieces have x's length for every length x's first axis may have (`shape_pieces.tiles`)."""
        pieces = [self.piece(e) for e in operands]
        bases = {base for base, _ in pieces if base is not None}
        if None in [base for base, _ in pieces] or len(bases) != 1:
            return None
        base = bases.pop()
        dims = self.dims(base)
        if not dims or not tiles([piece for _, piece in pieces], dims[0]):
            return None
        return base

    def piece(self, expr: ast.expr) -> tuple[object, tuple[str, int] | None]:
        """(the class of the array `expr` is a piece of, which piece), or (None, None)."""
        key = self.of(expr)
        if key in (None, SCALAR):
            return None, None
        root = self.find(key)
        for other in self.parent:
            if isinstance(other, tuple) and other[0] != "axes" and self.find(other) == root:
                return self.find(other[1]), (other[0], other[2])
        return root, ("whole", 0)

    def _slice(self, expr: ast.Subscript):
        """``x[j:-k]`` (steps of one) has length ``max(len(x) - j - k, 0)``: keyed on j + k;
        ``x[:k]`` and ``x[-k:]`` have length ``min(len(x), k)`` (shape_pieces.py); so along each
        axis of ``x[1:-1, :-2]``."""
        parts = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        pieces = [piece_of_slice(part) for part in parts]
        while len(pieces) > 1 and pieces[-1] == ("slice", 0):
            pieces.pop()  # (``x[1:-1, :]`` is ``x[1:-1]``)
        if None in pieces:
            return None
        base = self.of(expr.value)  # (a name's, or an expression's: ``(u_bar * k)[1:-1, 1:-1]``)
        if base in (None, SCALAR):
            return None
        # one axis: (kind, base, p); several (``u[1:-1, :-2]``): ("axes", base, the pieces), the
        # same shape as every slice of the base with the same lengths along each axis
        key = (pieces[0][0], base, pieces[0][1]) if len(pieces) == 1 else ("axes", base, tuple(pieces))
        self.parent.setdefault(key, key)
        return self.find(key)

    def earliest(self, name: str, before: float = float("inf")) -> str:
        """The name of `name`'s class defined first (a parameter if one is in it), before the top-level
        statement `before`.  A name without a place in the order (defined after a statement that may
        return) is left as it is: an earlier member would have to be defined before it to stand in."""
        if name not in self.order:
            return name
        found = self.earliest_of(self.find(name), before)
        return found if found is not None else name

    def earliest_of(self, key, before: float = float("inf")) -> str | None:
        """The first-defined name of class `key` defined before the top-level statement `before`
        (None: no such name), never the one the statement itself assigns."""
        if key in (None, SCALAR):
            return None
        root = self.find(key)
        members = [n for n in self.order if self.find(n) == root and self.order[n] < before]
        return min(members, key=lambda n: self.order[n]) if members else None
