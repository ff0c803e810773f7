"""Complex values kept in variables, read as pairs of real values (desugar.py).

srcdiff differentiates real computations.  A function that makes complex intermediates and
returns a real value (``X = np.fft.rfft(x)``, ``np.abs(X) ** 2``, ``(X * np.conj(X)).real``,
``np.exp(1j * x)``) is rewritten, right after parsing, so that each complex value is its real
and imaginary parts, computed by real code every later stage knows::

    X = np.fft.rfft(x)                     X_re = np.fft.rfft(x).real
                                ==>        X_im = np.fft.rfft(x).imag
    p = (X * np.conj(X)).real              p = X_re * X_re - X_im * -X_im
    phase = np.angle(X)                    phase = np.arctan2(X_im, X_re)

A part known to be zero is left out (``np.exp(1j * x)`` is ``np.cos(x)``, ``np.sin(x)``). What is
read so: complex constants, ``+ - * @``, ``/`` by a real value, ``** 2``, ``np.exp``, ``np.conj``,
``.real``/``.imag``/``np.real``/``np.imag``, ``np.abs`` (``np.hypot`` of the parts), ``np.angle``,
linear functions (``np.sum``, ``np.mean``, ``np.cumsum``, items, ``.T``), writes by index (``X[k:] =
0.0``), shapes (``X.size``, ``len(X)``), the Fourier transforms ``np.fft.fft``/``rfft`` of a real
array and the inverse ``np.fft.irfft`` of a complex one, a real value (``np.fft.irfft(X_re, n) +
np.fft.irfft(1j * X_im, n)``, the second lowered onto a real map: lower/fft_parts.py). A function
using a complex value any other way is left as written, for lowering to refuse at its line.
"""

from __future__ import annotations

import ast
import copy

import numpy as np

from .depends import MISSING

_FFT = {np.fft.fft, np.fft.rfft}
_LINEAR = {np.sum, np.mean, np.cumsum, np.trace, np.diag, np.ravel, np.transpose, np.reshape, np.squeeze,
           np.diff, np.flip, np.roll}
_ABS = {np.abs, np.absolute, abs}
_SHAPES = ("size", "shape", "ndim")  # a complex value's, read from one of its parts


class _Unsupported(Exception):
    """A complex value used in a way this rewrite does not read: the function stays as written."""


def split_complex(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, `tree`'s complex values as pairs of real ones, or leave it as it is."""
    if not _has_complex(tree, names) or names.resolve(ast.Name("np", ast.Load())) is not np:
        return  # (the parts are written with np.cos, np.hypot...: the module must be np here)
    unpacked = copy.copy(tree)
    unpacked.body = _separate_pairs(copy.deepcopy(tree.body))
    try:
        body = _Splitter(unpacked, names).block(unpacked.body)
    except _Unsupported:
        return
    tree.body = body
    ast.fix_missing_locations(tree)


def _separate_pairs(body: list) -> list:
    """`body` with ``X, Y = np.fft.fft(x), np.fft.fft(y)`` written as one assignment a name (when no
    value on the right reads a name on the left, the order does not matter), so that each complex name
    is found and split like ``X = np.fft.fft(x)``."""
    out = []
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(stmt)
            continue
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, _separate_pairs(getattr(stmt, field)))
        for handler in getattr(stmt, "handlers", []):
            handler.body = _separate_pairs(handler.body)
        out += _pairs(stmt) or [stmt]
    return out


def _pairs(stmt) -> list | None:
    """``a, b = e1, e2`` as ``a = e1``, ``b = e2`` (each at the statement's line), or None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
            and isinstance(stmt.value, ast.Tuple) and len(stmt.targets[0].elts) == len(stmt.value.elts)
            and all(isinstance(t, ast.Name) for t in stmt.targets[0].elts)):
        return None
    written = [t.id for t in stmt.targets[0].elts]
    read = {n.id for v in stmt.value.elts for n in ast.walk(v) if isinstance(n, ast.Name)}
    if len(set(written)) != len(written) or read & set(written) or any(isinstance(v, ast.Starred)
                                                                          for v in stmt.value.elts):
        return None
    return [ast.copy_location(ast.Assign([ast.Name(t, ast.Store())], v), stmt)
            for t, v in zip(written, stmt.value.elts)]


def may_be_complex(tree) -> bool:
    """A cheap test: a complex constant, or a name ``fft``/``rfft``, in the function."""
    return any(isinstance(n, ast.Constant) and isinstance(n.value, complex)
               or isinstance(n, ast.Attribute) and n.attr in ("fft", "rfft") for n in ast.walk(tree))


def _has_complex(tree, names) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, complex):
            return True
        if isinstance(node, ast.Call) and _resolved(names, node.func) in _FFT:
            return True
    return False


def _resolved(names, func):
    try:
        found = names.resolve(func)
    except Exception:  # noqa: BLE001  an attribute a module does not have
        return MISSING
    try:
        hash(found)
    except TypeError:
        return MISSING
    return found


def _bin(left, op, right):
    """``left op right`` of parts where None is an exact zero."""
    if isinstance(op, ast.Add):
        return right if left is None else left if right is None else ast.BinOp(left, ast.Add(), right)
    if isinstance(op, ast.Sub):
        if right is None:
            return left
        return ast.UnaryOp(ast.USub(), right) if left is None else ast.BinOp(left, ast.Sub(), right)
    if left is None or right is None:  # * @ /
        return None
    return ast.BinOp(copy.deepcopy(left), op, copy.deepcopy(right))


def _neg(part):
    return None if part is None else ast.UnaryOp(ast.USub(), part)


class _Splitter:
    def __init__(self, tree, names):
        self.names = names
        self.complex: set[str] = set()
        self.tree = tree
        self._find_complex(tree)
        if self.complex & {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}:
            raise _Unsupported  # a parameter made complex: its reads before that are the caller's value

    def _find_complex(self, tree) -> None:
        """The names assigned a complex value somewhere (to a fixed point)."""
        while True:
            before = set(self.complex)
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    try:
                        if self.expr(copy.deepcopy(node.value))[0] == "c":
                            self.complex.add(node.targets[0].id)
                    except _Unsupported:
                        pass
            if self.complex == before:
                return

    def part_name(self, name: str, j: int) -> str:
        return f"{name}_{'re' if j == 0 else 'im'}"

    # ---- statements ----

    def block(self, body: list) -> list:
        out = []
        for stmt in body:
            out += self.statement(stmt)
        return out

    def statement(self, stmt) -> list:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if any(isinstance(n, ast.Name) and n.id in self.complex for n in ast.walk(stmt)):
                raise _Unsupported
            return [stmt]
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id in self.complex:
            stmt = ast.copy_location(ast.Assign([ast.Name(stmt.target.id, ast.Store())],
                                                ast.BinOp(ast.Name(stmt.target.id, ast.Load()), stmt.op, stmt.value)),
                                     stmt)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id in self.complex:
            kind, *parts = self.expr(stmt.value)
            name = stmt.targets[0].id
            if kind == "r":
                parts = [parts[0], None]
            like = next(p for p in parts if p is not None) if any(p is not None for p in parts) else None
            values = [part if part is not None else (
                ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "zeros_like", ast.Load()),
                         [copy.deepcopy(like)], []) if like is not None else ast.Constant(0.0)) for part in parts]
            targets = [self.part_name(name, j) for j in (0, 1)]
            if any(isinstance(n, ast.Name) and n.id == targets[0] for n in ast.walk(values[1])):
                # z = z * w: both parts from the old ones, assigned at once
                pair = ast.Assign([ast.Tuple([ast.Name(t, ast.Store()) for t in targets], ast.Store())],
                                  ast.Tuple(values, ast.Load()))
                return [ast.copy_location(pair, stmt)]
            return [ast.copy_location(ast.Assign([ast.Name(t, ast.Store())], v), stmt) for t, v in zip(targets, values)]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript) \
                and isinstance(stmt.targets[0].value, ast.Name) and stmt.targets[0].value.id in self.complex:
            return self.write(stmt)
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, self.block(getattr(stmt, field)))
        for handler in getattr(stmt, "handlers", []):
            handler.body = self.block(handler.body)
        for field, value in ast.iter_fields(stmt):
            if isinstance(value, ast.expr):
                if isinstance(stmt, (ast.For, ast.comprehension)) and field == "target" or \
                        isinstance(value, ast.Name) and isinstance(value.ctx, ast.Store):
                    if any(isinstance(n, ast.Name) and n.id in self.complex for n in ast.walk(value)):
                        raise _Unsupported
                    continue
                setattr(stmt, field, self.real(value))
            elif isinstance(value, list) and value and isinstance(value[0], ast.expr):
                if isinstance(stmt, ast.Assign) and field == "targets":
                    if any(isinstance(n, ast.Name) and n.id in self.complex for t in value for n in ast.walk(t)):
                        raise _Unsupported
                    continue
                setattr(stmt, field, [self.real(v) for v in value])
        return [stmt]

    def write(self, stmt: ast.Assign) -> list:
        """``X[i] = v`` of a complex X: each part written with v's part (0.0 for a real v's imaginary one)."""
        target = stmt.targets[0]
        index = self.real(target.slice)
        kind, *parts = self.expr(stmt.value)
        parts = [parts[0], None] if kind == "r" else parts
        out = []
        for j, part in enumerate(parts):
            where = ast.Subscript(ast.Name(self.part_name(target.value.id, j), ast.Load()), copy.deepcopy(index),
                                  ast.Store())
            out.append(ast.copy_location(ast.Assign([where], part if part is not None else ast.Constant(0.0)), stmt))
        return out

    # ---- expressions ----

    def real(self, node: ast.expr) -> ast.expr:
        kind, *parts = self.expr(node)
        if kind != "r":
            raise _Unsupported  # a complex value where a real one is needed
        return ast.copy_location(parts[0], node) if hasattr(node, "lineno") else parts[0]

    def expr(self, node: ast.expr):
        """("r", expr) for a real value; ("c", re, im) for a complex one (a part None: zero)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, complex):
            value = node.value
            return ("c", ast.Constant(value.real) if value.real else None, ast.Constant(value.imag) if value.imag
                    else None)
        if isinstance(node, ast.Name) and node.id in self.complex:
            return ("c", ast.Name(self.part_name(node.id, 0), ast.Load()), ast.Name(self.part_name(node.id, 1),
                                                                                    ast.Load()))
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            kind, *parts = self.expr(node.operand)
            if kind == "r":
                return ("r", ast.UnaryOp(node.op, parts[0]))
            return ("c", *parts) if isinstance(node.op, ast.UAdd) else ("c", _neg(parts[0]), _neg(parts[1]))
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            kind, *parts = self.expr(node.value)
            if kind == "r":
                return ("r", ast.Attribute(parts[0], node.attr, node.ctx))
            if node.attr in ("real", "imag"):
                part = parts[0 if node.attr == "real" else 1]
                return ("r", part if part is not None else ast.Constant(0.0))
            if node.attr == "T":
                return ("c", *[None if p is None else ast.Attribute(p, "T", ast.Load()) for p in parts])
            if node.attr in _SHAPES and any(p is not None for p in parts):  # either part's shape
                return ("r", ast.Attribute(next(p for p in parts if p is not None), node.attr, node.ctx))
            raise _Unsupported
        if isinstance(node, ast.Subscript):
            kind, *parts = self.expr(node.value)
            index = self.real(node.slice)
            if kind == "r":
                return ("r", ast.Subscript(parts[0], index, node.ctx))
            return ("c", *[None if p is None else ast.Subscript(p, copy.deepcopy(index), ast.Load()) for p in parts])
        return ("r", self.generic(node))

    def generic(self, node):
        """Any other node: its expressions must be real."""
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            if any(isinstance(n, ast.Name) and n.id in self.complex for n in ast.walk(node)):
                raise _Unsupported
            return node
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                setattr(node, field, self.real(value))
            elif isinstance(value, list):
                setattr(node, field, [self.real(v) if isinstance(v, ast.expr) else self.generic(v)
                                      if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.generic(value))
        return node

    def binop(self, node: ast.BinOp):
        lk, *lp = self.expr(node.left)
        rk, *rp = self.expr(node.right)
        op = node.op
        if lk == "r" and rk == "r":
            return ("r", ast.BinOp(lp[0], op, rp[0]))
        left = lp if lk == "c" else [lp[0], None]
        right = rp if rk == "c" else [rp[0], None]
        if isinstance(op, (ast.Add, ast.Sub)):
            return ("c", _bin(left[0], op, right[0]), _bin(left[1], op, right[1]))
        if isinstance(op, (ast.Mult, ast.MatMult)):
            re = _bin(_bin(left[0], op, right[0]), ast.Sub(), _bin(left[1], op, right[1]))
            im = _bin(_bin(left[0], op, right[1]), ast.Add(), _bin(left[1], op, right[0]))
            return ("c", re, im)
        if isinstance(op, ast.Div) and rk == "r":
            return ("c", _bin(left[0], op, right[0]), _bin(left[1], op, right[0]))
        if isinstance(op, ast.Pow) and rk == "r" and isinstance(node.right, ast.Constant) and node.right.value == 2:
            square = ast.BinOp(node.left, ast.Mult(), copy.deepcopy(node.left))
            return self.binop(square)
        raise _Unsupported

    def call(self, node: ast.Call):
        func = _resolved(self.names, node.func)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "conj" and not node.args:
            kind, *parts = self.expr(node.func.value)
            return ("r", ast.Call(ast.Attribute(parts[0], "conj", ast.Load()), [], [])) if kind == "r" \
                else ("c", parts[0], _neg(parts[1]))
        args = [self.expr(a) if not isinstance(a, ast.Starred) else ("r", self.generic(a)) for a in node.args]
        keywords = [ast.keyword(k.arg, self.real(k.value)) for k in node.keywords]
        if all(a[0] == "r" for a in args):
            if func in _FFT and not keywords and len(args) == 1:
                call = ast.Call(node.func, [args[0][1]], [])
                return ("c", ast.Attribute(call, "real", ast.Load()),
                        ast.Attribute(copy.deepcopy(call), "imag", ast.Load()))
            if (getattr(func, "__module__", None) or "").startswith("numpy.fft") or func is complex:
                raise _Unsupported  # a complex value this rewrite does not make parts of
            return ("r", ast.Call(node.func, [a[1] for a in args], keywords))
        first, rest = args[0], args[1:]
        if any(a[0] != "r" for a in rest) or first[0] != "c":
            raise _Unsupported
        re, im = first[1], first[2]
        np_ = ast.Name("np", ast.Load())

        def np_call(name, *operands):
            return ast.Call(ast.Attribute(copy.deepcopy(np_), name, ast.Load()), list(operands), [])

        if func is np.exp and not rest and not keywords:
            if re is None:
                return ("c", np_call("cos", im), np_call("sin", copy.deepcopy(im))) if im is not None \
                    else ("r", ast.Constant(1.0))
            scale = np_call("exp", re)
            return ("c", ast.BinOp(scale, ast.Mult(), np_call("cos", im)) if im is not None else scale,
                    ast.BinOp(copy.deepcopy(scale), ast.Mult(), np_call("sin", copy.deepcopy(im)))
                    if im is not None else None)
        if func in (len, np.shape, np.size, np.ndim) and not rest and not keywords and (re or im) is not None:
            return ("r", ast.Call(node.func, [re if re is not None else im], []))
        if func in (np.conj, np.conjugate) and not rest and not keywords:
            return ("c", re, _neg(im))
        if func is np.real and not rest:
            return ("r", re if re is not None else ast.Constant(0.0))
        if func is np.imag and not rest:
            return ("r", im if im is not None else ast.Constant(0.0))
        if func in _ABS and not rest and not keywords:
            if re is None or im is None:
                return ("r", np_call("abs", re if re is not None else im))
            return ("r", np_call("hypot", re, im))
        if func is np.angle and not rest and not keywords:
            return ("r", np_call("arctan2", im if im is not None else ast.Constant(0.0),
                                 re if re is not None else ast.Constant(0.0)))
        if func is np.fft.irfft:  # a real value: the real parts' inverse and the imaginary parts' (fft_parts.py)
            imaginary = None if im is None else ast.BinOp(ast.Constant(1j), ast.Mult(), im)
            terms = [ast.Call(copy.deepcopy(node.func), [p] + [copy.deepcopy(a[1]) for a in rest],
                              copy.deepcopy(keywords)) for p in (re, imaginary) if p is not None]
            if not terms:
                raise _Unsupported
            return ("r", terms[0] if len(terms) == 1 else ast.BinOp(terms[0], ast.Add(), terms[1]))
        if func in _LINEAR:
            return ("c", *[None if p is None else ast.Call(copy.deepcopy(node.func), [p] + [copy.deepcopy(a[1])
                                                                                         for a in rest],
                                                            copy.deepcopy(keywords)) for p in (re, im)])
        raise _Unsupported


__all__ = ["may_be_complex", "split_complex"]
