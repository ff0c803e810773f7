"""NumPy spellings whose value lowering already computes another way, rewritten right after parsing:

- ``np.einsum(..., optimize=True)``: the keyword dropped (it chooses the order of the contractions,
  not the value);
- ``np.add.outer(a, b)`` (any two-operand ufunc's ``.outer``): ``np.add(np.reshape(a, np.shape(a) +
  (1,) * np.ndim(b)), b)``, NumPy's definition (every axis of `a` before every axis of `b`);
- ``np.add.accumulate(x[, axis])``: ``np.cumsum(x, axis=axis)``, ``np.multiply.accumulate``:
  ``np.cumprod``; the axis is 0 unless given (``np.cumsum``'s own default flattens);
- ``np.vdot(a, b)``: ``np.dot(np.ravel(np.conj(a)), np.ravel(b))``, its definition (both flattened,
  the first conjugated);
- ``np.where(c)`` of one argument: ``np.nonzero(c)``, which NumPy documents it to be;
- ``x.reshape(s, order="F")`` / ``np.reshape(x, s, order="F")`` with `s` written out:
  ``np.transpose(np.reshape(np.transpose(x), reversed s))``, the same elements in the same places
  (order="C", the default, is dropped); ``np.ravel(x, order="F")``, ``x.ravel("F")``, ``x.flatten("F")``:
  ``np.ravel(np.transpose(x))`` (autograd's and JAX's tests flatten column-major);
- ``np.ediff1d(x, to_begin=u, to_end=v)`` where an end is not a constant:
  ``np.concatenate([np.ravel(u), np.diff(np.ravel(x)), np.ravel(v)])``;
- ``np.fromiter(<generator>, dtype)``: ``np.array([<its items>], dtype=dtype)``, the same numbers (not
  with ``count=``, which reads the first items only);
- ``np.lib.stride_tricks.sliding_window_view(x, w)`` of a vector (a window width, no axis):
  ``x[np.arange(len(x) - w + 1)[:, None] + np.arange(w)]``, the windows as rows (NumPy accepts an
  integer width only for a vector);
- ``np.diagflat(v, k)``: ``np.diag(np.ravel(v), k)``; ``np.logspace(a, b, n, endpoint, base)``:
  ``np.power(base, np.linspace(a, b, n, endpoint=endpoint))``, NumPy's definitions;
- builtin ``max(a, b, c, ...)`` / ``min(...)`` of three or more values: ``max(max(a, b), c)``, the
  same value (each argument read once, in order) through the two-value rule.

An operand read twice by a rewrite must be a name, attribute or item (read twice, the same value);
a call these rewrites do not cover is left as written, and lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect

import numpy as np

from .key_selections import make_call, numpy_name, plain
from .naming import rewrite_blocks

#: ufuncs whose ``.accumulate`` is a NumPy function lowering differentiates
_SCANS = {np.add: "cumsum", np.multiply: "cumprod"}


#: the names of the calls rewritten here whatever their arguments
_ALWAYS = {"outer", "accumulate", "vdot", "fromiter", "sliding_window_view", "diagflat", "logspace"}


def _fromiter_signature(iterable, dtype, count=-1):
    """np.fromiter's parameters (NumPy's own is a builtin without a signature)."""


def _diagflat_signature(v, k=0):
    """np.diagflat's parameters."""


def _logspace_signature(start, stop, num=50, endpoint=True, base=10.0):
    """np.logspace's parameters (without dtype and axis, left as written)."""


def has_numpy_methods(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether `tree` calls anything named like the calls rewritten here."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
            keywords = {k.arg for k in n.keywords}
            if name in _ALWAYS or name == "einsum" and "optimize" in keywords \
                    or name == "reshape" and "order" in keywords or name == "ediff1d" and keywords \
                    or name in ("ravel", "flatten") and (keywords or n.args) \
                    or name == "where" and len(n.args) == 1 or name in ("max", "min") and len(n.args) >= 3:
                return True
    return False


def rewrite_numpy_methods(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, the calls above in `tree`'s own statements."""
    rewrite_blocks(tree.body, lambda stmt: _visit(stmt, names))


def _visit(stmt: ast.stmt, names) -> list:
    _Calls(names).visit(stmt)
    return []


def _attr(base: ast.expr, name: str) -> ast.Attribute:
    return ast.Attribute(copy.deepcopy(base), name, ast.Load())


def _constant(expr: ast.expr) -> bool:
    """A number (or a tuple or list of them) written out."""
    if isinstance(expr, (ast.Tuple, ast.List)):
        return all(_constant(e) for e in expr.elts)
    return isinstance(expr, ast.Constant) or isinstance(expr, ast.UnaryOp) and isinstance(expr.operand, ast.Constant)


class _Calls(ast.NodeTransformer):
    """The calls above, anywhere in a statement (nested defs and lambdas excluded)."""

    def __init__(self, names):
        self.names = names
        self.np = numpy_name(names)

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if self.np is None or any(isinstance(a, ast.Starred) for a in node.args) \
                or any(k.arg is None for k in node.keywords):
            return node
        made = self._rewritten(node)
        if made is None:
            return node
        for n in ast.walk(made):
            ast.copy_location(n, node)
        return made

    def _rewritten(self, node: ast.Call):
        func = self.names.resolve(node.func)
        owner = getattr(func, "__self__", None)
        if func is np.einsum:
            return self._einsum(node)
        if isinstance(owner, np.ufunc) and func.__name__ == "outer":
            return self._outer(node, owner)
        if isinstance(owner, np.ufunc) and func.__name__ == "accumulate" and owner in _SCANS:
            return self._accumulate(node, owner)
        if func is np.vdot and len(node.args) == 2 and not node.keywords:
            a, b = node.args
            return make_call(_attr(self.np, "dot"), make_call(_attr(self.np, "ravel"),
                                                              make_call(_attr(self.np, "conj"), a)),
                             make_call(_attr(self.np, "ravel"), b))
        if func is np.where and len(node.args) == 1 and not node.keywords:
            return make_call(_attr(self.np, "nonzero"), node.args[0])
        if func is np.reshape or isinstance(node.func, ast.Attribute) and node.func.attr == "reshape" \
                and func is not np.reshape and any(k.arg == "order" for k in node.keywords):
            return self._reshape(node, func is np.reshape)
        if func is np.ravel or isinstance(node.func, ast.Attribute) and node.func.attr in ("ravel", "flatten") \
                and func is not np.ravel:
            return self._ravel(node, func is np.ravel)
        if func is np.ediff1d:
            return self._ediff1d(node)
        if func is np.fromiter:
            return self._fromiter(node)
        if func in (np.diagflat, np.logspace):
            return self._spaced(node, func)
        if func is np.lib.stride_tricks.sliding_window_view and len(node.args) == 2 and not node.keywords \
                and all(plain(a) for a in node.args) and self.names.resolve(ast.Name("len", ast.Load())) is len:
            return self._windows(*node.args)
        if func in (builtins.max, builtins.min) and len(node.args) >= 3 and not node.keywords:
            made = node.args[0]
            for a in node.args[1:]:  # each argument read once, in order, as Python does
                made = make_call(copy.deepcopy(node.func), made, a)
            return made
        return None

    def _einsum(self, node: ast.Call):
        kept = [k for k in node.keywords if k.arg != "optimize"]
        dropped = [k for k in node.keywords if k.arg == "optimize"]
        if not dropped or not all(isinstance(k.value, (ast.Constant, ast.Name)) for k in dropped):
            return None  # (an optimize computed by a call: left, refused at its line)
        return ast.Call(node.func, node.args, kept)

    def _outer(self, node: ast.Call, ufunc: np.ufunc):
        if ufunc.nin != 2 or len(node.args) != 2 or node.keywords or not all(plain(a) for a in node.args):
            return None
        a, b = node.args
        ones = ast.BinOp(ast.Tuple([ast.Constant(1)], ast.Load()), ast.Mult(),
                         make_call(_attr(self.np, "ndim"), copy.deepcopy(b)))
        shape = ast.BinOp(make_call(_attr(self.np, "shape"), copy.deepcopy(a)), ast.Add(), ones)
        named = copy.deepcopy(node.func.value) if isinstance(node.func, ast.Attribute) \
            else _attr(self.np, ufunc.__name__)  # np.add of np.add.outer, or numpy's own name of it
        return make_call(named, make_call(_attr(self.np, "reshape"), a, shape), b)

    def _accumulate(self, node: ast.Call, ufunc: np.ufunc):
        if not 1 <= len(node.args) <= 2 or any(k.arg != "axis" for k in node.keywords):
            return None  # (dtype=, out=: left as written)
        axis = node.args[1] if len(node.args) == 2 else next((k.value for k in node.keywords), ast.Constant(0))
        if len(node.args) == 2 and node.keywords:
            return None
        return ast.Call(_attr(self.np, _SCANS[ufunc]), [node.args[0]], [ast.keyword("axis", axis)])

    def _reshape(self, node: ast.Call, function: bool):
        order = [k for k in node.keywords if k.arg == "order"]
        if len(order) != 1 or len(node.keywords) != 1 or not isinstance(order[0].value, ast.Constant):
            return None
        if function:
            if len(node.args) != 2:
                return None
            x, shape = node.args
        else:
            if not node.args:
                return None
            x = node.func.value
            shape = node.args[0] if len(node.args) == 1 else ast.Tuple(list(node.args), ast.Load())
        if order[0].value.value == "C":
            return make_call(_attr(self.np, "reshape"), x, shape)
        if order[0].value.value != "F":
            return None  # ("A", "K": depend on the memory layout, left to lowering, which refuses)
        if isinstance(shape, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in shape.elts):
            flipped = ast.Tuple(list(reversed(shape.elts)), ast.Load())
        elif _constant(shape) or isinstance(shape, ast.Name) and isinstance(self.names.resolve(shape), int):
            flipped = shape
        else:
            return None  # a shape not written out: its reverse is not known here
        return make_call(_attr(self.np, "transpose"),
                         make_call(_attr(self.np, "reshape"), make_call(_attr(self.np, "transpose"), x), flipped))

    def _ravel(self, node: ast.Call, function: bool):
        args = list(node.args)
        if function and not args:
            return None
        x = args.pop(0) if function else node.func.value
        order = args + [k.value for k in node.keywords if k.arg == "order"]
        if len(order) != 1 or len(node.keywords) > 1 - len(args) or not isinstance(order[0], ast.Constant):
            return None
        if order[0].value == "C":
            return make_call(_attr(self.np, "ravel"), x)
        if order[0].value != "F":
            return None  # ("A", "K": depend on the memory layout, left to lowering, which refuses)
        return make_call(_attr(self.np, "ravel"), make_call(_attr(self.np, "transpose"), x))

    def _spaced(self, node: ast.Call, func):
        try:
            signature = inspect.signature(_diagflat_signature if func is np.diagflat else _logspace_signature)
            bound = signature.bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError:
            return None  # (dtype=, axis=, or called as NumPy would refuse: left to lowering)
        bound.apply_defaults()
        given = {k: v if isinstance(v, ast.AST) else ast.Constant(v) for k, v in bound.arguments.items()}
        if func is np.diagflat:
            return make_call(_attr(self.np, "diag"), make_call(_attr(self.np, "ravel"), given["v"]), given["k"])
        spaced = ast.Call(_attr(self.np, "linspace"), [given["start"], given["stop"], given["num"]],
                          [ast.keyword("endpoint", given["endpoint"])])
        return make_call(_attr(self.np, "power"), given["base"], spaced)

    def _fromiter(self, node: ast.Call):
        try:
            bound = inspect.signature(_fromiter_signature).bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError:
            return None  # (called as NumPy would refuse: lowering says so)
        items, dtype = bound.arguments["iterable"], bound.arguments["dtype"]
        if set(bound.arguments) != {"iterable", "dtype"} or not isinstance(items, (ast.GeneratorExp, ast.ListComp)):
            return None  # (count=: the first items only, left as written)
        listed = ast.ListComp(items.elt, items.generators)
        return ast.Call(_attr(self.np, "array"), [listed], [ast.keyword("dtype", dtype)])

    def _windows(self, x: ast.expr, width: ast.expr):
        """``sliding_window_view(x, w)`` of a vector: ``x[np.arange(len(x) - w + 1)[:, None] + np.arange(w)]``,
        the same windows as rows (a copy where NumPy gives a read-only view: the same values)."""
        starts = make_call(_attr(self.np, "arange"), ast.BinOp(ast.BinOp(
            make_call(ast.Name("len", ast.Load()), copy.deepcopy(x)), ast.Sub(), copy.deepcopy(width)),
            ast.Add(), ast.Constant(1)))
        column = ast.Subscript(starts, ast.Tuple([ast.Slice(), ast.Constant(None)], ast.Load()), ast.Load())
        index = ast.BinOp(column, ast.Add(), make_call(_attr(self.np, "arange"), width))
        return ast.Subscript(x, index, ast.Load())

    def _ediff1d(self, node: ast.Call):
        if len(node.args) != 1 or any(k.arg not in ("to_begin", "to_end") for k in node.keywords):
            return None
        ends = {k.arg: k.value for k in node.keywords}
        if all(_constant(v) for v in ends.values()):
            return None  # constants: np.ediff1d's own rule
        parts = [make_call(_attr(self.np, "diff"), make_call(_attr(self.np, "ravel"), node.args[0]))]
        if "to_begin" in ends:
            parts.insert(0, make_call(_attr(self.np, "ravel"), ends["to_begin"]))
        if "to_end" in ends:
            parts.append(make_call(_attr(self.np, "ravel"), ends["to_end"]))
        return make_call(_attr(self.np, "concatenate"), ast.List(parts, ast.Load()))


__all__ = ["has_numpy_methods", "rewrite_numpy_methods"]
