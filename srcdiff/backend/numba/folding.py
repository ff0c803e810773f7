"""Type tests folded to constants before numba sees the gradient (``jit="numba"``).

Library code that srcdiff reads through its source tests what its arguments are:
``isinstance(x, (tuple, list))``, ``hasattr(u, "dtype") and np.issubdtype(u.dtype,
np.inexact)``, ``c.dtype.char in "?bBhH..."``, ``np.result_type(x, 1.0)``.  numba types each
variable once, so a variable a branch makes a list on one path and an array on the other is
refused, and it has no ``np.result_type`` of several values.  The gradient is compiled for one
signature of the arguments (the variant's key: an array's ndim and dtype kind, a number's
type), so those tests have one answer there: this pass writes the answer in, and keeps only
the branch taken.

The answer must be the same for every argument the compiled code may be called with: an
array key ``"i"`` stands for every integer width, so each test is evaluated in every such
world, and folded only where all agree (``np.result_type(x)`` of an integer array stays
``x.dtype``; a conversion of ``x`` to its own dtype goes).  What it cannot decide is left as
written (numba then compiles it, or refuses at its line).
"""

from __future__ import annotations

import ast
import builtins
import types

import numpy as np

from .type_facts import DTYPE_ATTRIBUTES, ORDERS, UNKNOWN, Fact, PerWorld, readable, same, worlds_of, writable


def fold(func: ast.FunctionDef, params: dict, scope: dict) -> bool:
    """Fold the type tests of `func` (in place) for parameters of the key parts `params`
    (name -> key part); `scope` holds the globals its free names read.  Whether it changed."""
    found = worlds_of(params)
    if found is None:
        return False
    facts, count = found
    folder = _Folder(func, scope, count)
    env = {a.arg: facts.get(a.arg) for a in func.args.args}
    func.body = folder.block(func.body, env) or [ast.Pass()]
    return folder.changed


class _Folder:
    def __init__(self, func: ast.FunctionDef, scope: dict, count: int):
        self.scope = scope
        self.count = count
        self.changed = False
        self.local = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)} | \
            {a.arg for a in func.args.args + func.args.kwonlyargs}
        # names a nested function may rebind: never known
        self.shared = {n for node in ast.walk(func) if isinstance(node, (ast.Nonlocal, ast.Global)) for n in node.names}

    # ---- statements ---------------------------------------------------------------------

    def block(self, stmts: list, env: dict) -> list:
        out = []
        for stmt in stmts:
            out += self.statement(stmt, env)
            if out and isinstance(out[-1], (ast.Return, ast.Raise)):
                break  # a taken branch that returns: what follows does not run
        return out

    def statement(self, stmt: ast.stmt, env: dict) -> list:
        if isinstance(stmt, ast.If):
            stmt.test = self.expression(stmt.test, env)
            known = self.value(stmt.test, env)
            if isinstance(known, PerWorld) and known.constant():
                self.changed = True
                return self.block(stmt.body if known.values[0] else stmt.orelse, env)
            left, right = dict(env), dict(env)
            stmt.body = self.block(stmt.body, left) or [_located(ast.Pass(), stmt)]
            stmt.orelse = self.block(stmt.orelse, right)
            env.clear()
            env.update({n: left[n] for n in left.keys() & right.keys() if left[n] == right[n]})
            return [stmt]
        if isinstance(stmt, (ast.For, ast.While)):
            for name in _stored(stmt):
                env.pop(name, None)
            if isinstance(stmt, ast.For):
                stmt.iter = self.expression(stmt.iter, env)
            else:
                stmt.test = self.expression(stmt.test, env)
            inner = dict(env)
            stmt.body = self.block(stmt.body, inner) or [_located(ast.Pass(), stmt)]
            stmt.orelse = self.block(stmt.orelse, dict(env))
            for name in _stored(stmt):
                env.pop(name, None)
            return [stmt]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            known = self.value(stmt.value, env)
            stmt.value = self.expression(stmt.value, env)
            name = stmt.targets[0].id
            if name in self.shared or known is UNKNOWN:
                env.pop(name, None)
            else:
                env[name] = known
            return [stmt]
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            return [stmt]
        for field in ("value", "test", "exc", "msg"):
            if isinstance(getattr(stmt, field, None), ast.expr):
                setattr(stmt, field, self.expression(getattr(stmt, field), env))
        for name in _stored(stmt):
            env.pop(name, None)
        return [stmt]

    # ---- expressions --------------------------------------------------------------------

    def expression(self, node: ast.expr, env: dict) -> ast.expr:
        """`node` with its decided tests written as constants and its dtypes as NumPy's."""
        known = self.value(node, env)
        if isinstance(known, PerWorld) and known.constant() and writable(known.values[0]) \
                and not (isinstance(node, ast.Constant)) and _tests(node):
            self.changed = True
            return ast.copy_location(ast.Constant(known.values[0]), node)
        if isinstance(node, ast.Call):
            simpler = self.call(node, env)
            if simpler is not None:
                self.changed = True
                return ast.copy_location(simpler, node)
        for field, old in ast.iter_fields(node):
            if isinstance(old, ast.expr) and not isinstance(node, ast.Lambda):
                setattr(node, field, self.expression(old, env))
            elif isinstance(old, list):
                setattr(node, field, [self.expression(v, env) if isinstance(v, ast.expr) else v for v in old])
            elif isinstance(old, ast.keyword):
                old.value = self.expression(old.value, env)
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                keyword.value = self.expression(keyword.value, env)
        return node

    def call(self, node: ast.Call, env: dict) -> ast.expr | None:
        """A conversion that the facts show changes nothing, written simpler."""
        target = self.value(node.func, env)
        target = target.values[0] if isinstance(target, PerWorld) and target.constant() else None
        keywords = {k.arg: k.value for k in node.keywords}
        if target is abs and len(node.args) == 1 and not keywords:  # numba's abs takes no arrays; np.abs both
            return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "abs", ast.Load()), node.args, [])
        if target is np.result_type and node.args and not keywords:
            return self.dtype_expression(self.value(node, env), env)
        if self.converted(node, env) is not None and (keywords.keys() & {"dtype", "ndmin", "copy", "order"}):
            copy = self.value(keywords.get("copy", ast.Constant(target is np.array)), env)
            order = self.value(keywords.get("order", ast.Constant(None)), env)
            if copy.values[0]:
                return ast.Call(ast.Attribute(node.args[0], "copy", ast.Load()), [], [])  # C-ordered
            if order.values[0] in ("C", "c"):
                return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "ascontiguousarray", ast.Load()),
                                [node.args[0]], [])
            return node.args[0] if target is np.array else ast.Call(node.func, [node.args[0]], [])
        if target is np.asarray and len(node.args) == 1 and set(keywords) == {"dtype", "order"}:
            order = self.value(keywords["order"], env)
            operand = self.value(node.args[0], env)
            if isinstance(operand, Fact) and operand.pytype is np.ndarray and isinstance(order, PerWorld) \
                    and order.constant() and order.values[0] in ORDERS:
                converted = ast.Call(node.func, [node.args[0]], [ast.keyword("dtype", keywords["dtype"])])
                if order.values[0] not in ("C", "c"):
                    return converted
                return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "ascontiguousarray", ast.Load()),
                                [converted], [])
        return None

    def converted(self, node: ast.Call, env: dict) -> Fact | None:
        """``np.asarray(a, dtype=..., ndmin=..., copy=...)`` / ``np.array`` of an array that
        the facts show is already of that dtype and ndim: the array's Fact, else None."""
        target = self.value(node.func, env)
        target = target.values[0] if isinstance(target, PerWorld) and target.constant() else None
        keywords = {k.arg: k.value for k in node.keywords}
        if target not in (np.asarray, np.array) or len(node.args) != 1 or None in keywords:
            return None
        operand = self.value(node.args[0], env)
        if not (isinstance(operand, Fact) and operand.pytype is np.ndarray and operand.ndim is not None):
            return None
        rest = dict(keywords)
        dtype = rest.pop("dtype", None)
        if dtype is not None:
            wanted = self.value(dtype, env)
            unchanged = wanted == self.every(None) or (
                isinstance(wanted, PerWorld) and operand.dtypes is not None
                and all(isinstance(w, (np.dtype, type)) and same(np.dtype(w), d)
                        for w, d in zip(wanted.values, operand.dtypes)))
            if not unchanged:
                return None
        ndmin = self.value(rest.pop("ndmin", ast.Constant(0)), env)
        if not (isinstance(ndmin, PerWorld) and ndmin.constant() and type(ndmin.values[0]) is int
                and ndmin.values[0] <= operand.ndim):
            return None
        order = self.value(rest.pop("order", ast.Constant(None)), env)
        if not (isinstance(order, PerWorld) and order.constant() and order.values[0] in ORDERS):
            return None
        copy = self.value(rest.pop("copy", ast.Constant(target is np.array)), env)
        if rest or not (isinstance(copy, PerWorld) and copy.constant() and copy.values[0] in (None, True, False)):
            return None
        return operand

    def dtype_expression(self, known, env: dict) -> ast.expr | None:
        """NumPy's spelling of a dtype the code computes: ``np.float64`` where every world has
        it, else ``x.dtype`` of a name holding it in every world."""
        if not isinstance(known, PerWorld) or not all(isinstance(v, np.dtype) for v in known.values):
            return None
        if known.constant() and known.values[0].kind in "biuf":
            return ast.Attribute(ast.Name("np", ast.Load()), known.values[0].name, ast.Load())
        for name, fact in sorted(env.items(), key=lambda item: item[0]):
            if isinstance(fact, Fact) and fact.dtypes is not None and all(
                    same(a, b) for a, b in zip(fact.dtypes, known.values)):
                return ast.Attribute(ast.Name(name, ast.Load()), "dtype", ast.Load())
        return None

    def value(self, node: ast.expr, env: dict):
        """A Fact, a PerWorld value, or UNKNOWN."""
        every = self.every
        if isinstance(node, ast.Constant):
            return every(node.value)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in self.local or node.id in self.shared:
                return UNKNOWN
            if node.id in self.scope:
                found = self.scope[node.id]
                return every(found) if readable(found) else UNKNOWN
            return every(getattr(builtins, node.id)) if hasattr(builtins, node.id) else UNKNOWN
        if isinstance(node, ast.Tuple):
            parts = [self.value(e, env) for e in node.elts]
            if all(isinstance(p, PerWorld) for p in parts):
                return PerWorld(tuple(tuple(p.values[w] for p in parts) for w in range(self.count)))
            return UNKNOWN
        if isinstance(node, ast.Attribute):
            return self.attribute(node, env)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operand = self.truth(node.operand, env)
            return None if operand is None else PerWorld(tuple(not v for v in operand))
        if isinstance(node, ast.BoolOp):
            return self.boolean(node, env)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            return self.compare(node, env)
        if isinstance(node, ast.Call):
            return self.call_value(node, env)
        return UNKNOWN

    def every(self, value) -> PerWorld:
        return PerWorld((value,) * self.count)

    def truth(self, node: ast.expr, env: dict) -> tuple | None:
        known = self.value(node, env)
        if isinstance(known, PerWorld):
            try:
                return tuple(bool(v) for v in known.values)
            except Exception:  # noqa: BLE001  an array's truth: not decided here
                return None
        return None

    def boolean(self, node: ast.BoolOp, env: dict):
        """``a and b``, ``a or b`` of decided operands (only their truth, as a test reads them)."""
        parts = [self.truth(v, env) for v in node.values]
        stop = isinstance(node.op, ast.Or)
        results = []
        for world in range(self.count):
            for part in parts:
                if part is None:
                    return UNKNOWN
                if part[world] is stop:
                    results.append(stop)
                    break
            else:
                results.append(not stop)
        return PerWorld(tuple(results))

    def attribute(self, node: ast.Attribute, env: dict):
        base = self.value(node.value, env)
        if isinstance(base, Fact):
            if node.attr == "dtype" and base.dtypes is not None:
                return PerWorld(base.dtypes)
            if node.attr == "ndim" and base.ndim is not None:
                return self.every(base.ndim)
            return UNKNOWN
        if not isinstance(base, PerWorld):
            return UNKNOWN
        values = []
        for v in base.values:
            if isinstance(v, types.ModuleType) or isinstance(v, type):
                found = getattr(v, node.attr, None)
                if found is None or not readable(found):
                    return UNKNOWN
                values.append(found)
            elif isinstance(v, np.dtype) and node.attr in DTYPE_ATTRIBUTES:
                values.append(getattr(v, node.attr))
            else:
                return UNKNOWN
        return PerWorld(tuple(values))

    def compare(self, node: ast.Compare, env: dict):
        left, right = self.value(node.left, env), self.value(node.comparators[0], env)
        op = node.ops[0]
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(left, Fact) \
                and right == self.every(None):  # an array, or a number, is not None
            return self.every(isinstance(op, ast.IsNot))
        if not (isinstance(left, PerWorld) and isinstance(right, PerWorld)):
            return UNKNOWN
        compare = {ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b, ast.Eq: same,
                   ast.NotEq: lambda a, b: not same(a, b), ast.In: lambda a, b: a in b,
                   ast.NotIn: lambda a, b: a not in b}.get(type(op))
        if compare is None or isinstance(op, (ast.Is, ast.IsNot)) and not all(
                v is None or isinstance(v, (bool, type)) for v in left.values + right.values):
            return UNKNOWN
        try:
            return PerWorld(tuple(bool(compare(a, b)) for a, b in zip(left.values, right.values)))
        except Exception:  # noqa: BLE001  (an array's `in`): not decided here
            return UNKNOWN

    def call_value(self, node: ast.Call, env: dict):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "copy" and not node.args and not node.keywords:
            made = self.value(node.func.value, env)  # ``a.copy()``: an array like `a`
            return made if isinstance(made, Fact) and made.pytype is np.ndarray else UNKNOWN
        converted = self.converted(node, env)
        if converted is not None:
            return converted
        target = self.value(node.func, env)
        if not (isinstance(target, PerWorld) and target.constant()) or node.keywords:
            return UNKNOWN
        target = target.values[0]
        args = [self.value(a, env) for a in node.args]
        if target is isinstance and len(args) == 2 and isinstance(args[0], Fact) and isinstance(args[1], PerWorld):
            kinds = args[1].values[0]
            if args[1].constant() and isinstance(kinds, (type, tuple)):
                return self.every(issubclass(args[0].pytype, kinds))
        if target is hasattr and len(args) == 2 and isinstance(args[0], Fact) and isinstance(args[1], PerWorld) \
                and args[1].constant() and args[1].values[0] in ("dtype", "shape", "ndim", "__len__", "__array__"):
            return self.every(hasattr(args[0].pytype, args[1].values[0]))
        if target in (np.ndim, len) and len(args) == 1 and isinstance(args[0], Fact) and args[0].ndim is not None \
                and (target is np.ndim or args[0].ndim == 0 and args[0].pytype is not np.ndarray):
            if target is np.ndim:
                return self.every(args[0].ndim)
        if target in (np.issubdtype, np.dtype, np.result_type) and args:
            worlds = [self.operands(a) for a in args]
            if any(w is None for w in worlds):
                return UNKNOWN
            try:
                return PerWorld(tuple(target(*(w[i] for w in worlds)) for i in range(self.count)))
            except Exception:  # noqa: BLE001  NumPy refuses them: numba will too, at the line
                return UNKNOWN
        return UNKNOWN

    def operands(self, known) -> tuple | None:
        """The value of `known` as NumPy's dtype functions take it, per world."""
        if isinstance(known, PerWorld):
            if all(isinstance(v, (np.dtype, type, str)) or type(v) in (int, float, bool) for v in known.values):
                return known.values
            return None
        if isinstance(known, Fact):
            if known.pytype is np.ndarray and known.dtypes is not None:
                return tuple(np.empty(0, d) for d in known.dtypes)
            if known.pytype in (float, int, bool):
                return (known.pytype(1),) * self.count  # a Python number: weak in NumPy's promotion
            if known.dtypes is not None:
                return tuple(d.type(1) for d in known.dtypes)
        return None


def _tests(node: ast.expr) -> bool:
    """Whether `node` reads what this pass decides (a test, a dtype, an ndim), not a plain name."""
    return any(isinstance(n, (ast.Call, ast.Attribute, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Name))
               for n in ast.walk(node))


def _stored(stmt: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _located(new: ast.AST, old: ast.AST) -> ast.AST:
    if hasattr(old, "origin"):
        new.origin = old.origin
    return new


__all__ = ["fold"]
