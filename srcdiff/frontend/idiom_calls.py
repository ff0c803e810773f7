"""Everyday library calls taking a function or a ragged pair of sequences, rewritten right after
parsing into the plain spellings lowering already differentiates:

- ``math.dist(p, q)``: ``math.hypot(p0 - q0, p1 - q1, ...)`` when both points are written out
  (``(a, b)``), else ``math.sqrt(sum((u - v) ** 2 for u, v in zip(p, q)))`` (points of unequal
  lengths, which Python refuses, are not tested for);
- ``np.piecewise(x, [c0, c1, ...], [f0, f1, ...(, otherwise)])`` of lambdas written out, NumPy
  ufuncs (``np.sin``) and numbers: ``np.where(c1, f1(x), np.where(c0, f0(x), otherwise))`` -- a
  later condition wins, as in NumPy, and a branch not taken has the adjoint 0.  A lambda is
  accepted only when its body is elementwise (arithmetic and ufuncs of its parameter): NumPy
  calls it on ``x[cond]``, a 1-D selection, so a body reading a shape or reducing
  (``v - v.mean()``) would compute something else on the whole of ``x``;
- ``itertools.zip_longest(a, b, fillvalue=c)`` read as its statement starts (a ``for``'s or a
  comprehension's first iterable): each sequence padded with ``c`` to the longest length before
  the statement (``list(a) + [c] * (n - len(a))``), then ``zip`` of them; without ``fillvalue``
  (None) it is left alone, as arithmetic on None raises;
- ``itertools.starmap(f, zip(a, b))``: ``(f(u, v) for u, v in zip(a, b))`` (a lambda's body with
  its parameters as the generator's targets), which Python evaluates the same lazy way;
- ``np.ix_(a, b)``: the index arrays ``(np.asarray(a)[:, None], np.asarray(b))``, so
  ``K[np.ix_(dofs, dofs)] += ke`` is a write at broadcast indices;
- ``min(xs, key=f)`` / ``max(xs, key=f)`` where the statement always runs: the keys listed before
  the statement, then ``xs[int(np.argmin(keys))]`` (``argmin``/``argmax`` return the first best
  index, as ``min``/``max`` return the first best item); of ``range(n)`` the index itself.  A
  key written as a tuple is left alone (NumPy would compare it item by item, not in order).

A call these rewrites do not cover is left as written, and lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import builtins
import copy
import itertools
import math

import numpy as np

from .desugar_reduce import HIDDEN, SIMPLE, replace_node
from .naming import inner_blocks

_NAMES = {"dist", "piecewise", "zip_longest", "starmap", "min", "max", "ix_"}

#: calls a piecewise lambda's body may make and stay elementwise (besides NumPy's ufuncs)
_ELEMENTWISE = {abs, np.where, np.clip}


def has_idiom_calls(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether `tree` calls anything named like the calls rewritten here."""
    return any(isinstance(n, ast.Call) and (n.func.attr if isinstance(n.func, ast.Attribute)
                                            else getattr(n.func, "id", None)) in _NAMES
               and (n.keywords or not isinstance(n.func, ast.Name) or n.func.id not in ("min", "max"))
               for n in ast.walk(tree))


def rewrite_idiom_calls(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, the calls above in `tree`'s own statements."""
    _block(tree.body, names)


def _block(body: list, names) -> None:
    k = 0
    while k < len(body):
        stmt = body[k]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            k += 1
            continue
        for inner in inner_blocks(stmt):
            _block(inner, names)
        before = _padded(stmt, names) if isinstance(stmt, SIMPLE + (ast.For,)) else []
        _Expressions(names).visit(stmt)
        before += _keyed_selections(stmt, names) if isinstance(stmt, SIMPLE) else []
        body[k:k] = before
        k += len(before) + 1


def _plain(expr: ast.expr) -> bool:
    """An expression Python reads twice with the same value, with nothing to run."""
    return all(isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Load, ast.Slice,
                              ast.UnaryOp, ast.USub)) for n in ast.walk(expr))


def _name(id_: str) -> ast.Name:
    return ast.Name(id_, ast.Load())


def _call(func: ast.expr, *args) -> ast.Call:
    return ast.Call(func, list(args), [])


def _builtins(names, *ids) -> bool:
    return all(names.resolve(ast.Name(i)) is getattr(builtins, i) for i in ids)


def _numpy(names) -> ast.expr | None:
    """A name of the function's globals bound to the numpy module (not shadowed), or None."""
    for key, value in names.func.__globals__.items():
        if value is np and key not in names.local and names.resolve(ast.Name(key)) is np:
            return _name(key)
    return None


def _lambda(func: ast.expr, arity: int) -> ast.Lambda | None:
    """`func` if it is a lambda of `arity` plain parameters, else None."""
    a = func.args if isinstance(func, ast.Lambda) else None
    plain = a is not None and not (a.vararg or a.kwarg or a.posonlyargs or a.kwonlyargs or a.defaults)
    return func if plain and len(a.args) == arity else None


def _applied(func: ast.expr, args: list, names) -> ast.expr:
    """``func(*args)`` written out: a lambda's body with its parameters for `args` (as the
    targets of a comprehension, so `args` are then the names it binds), else a call."""
    fn = _lambda(func, len(args))
    if fn is not None and all(isinstance(a, ast.Name) and a.id == p.arg for a, p in zip(args, fn.args.args)):
        return copy.deepcopy(fn.body)
    return _call(copy.deepcopy(func), *args)


def _targets(func: ast.expr, count: int, names, base: str) -> list[str]:
    """Names for a comprehension's targets: the lambda's own parameters, else fresh ones."""
    fn = _lambda(func, count)
    return [p.arg for p in fn.args.args] if fn is not None else [names.namer.fresh(base) for _ in range(count)]


class _Expressions(ast.NodeTransformer):
    """dist, piecewise, zip_longest and starmap, anywhere in a statement (nested defs excluded)."""

    def __init__(self, names):
        self.names = names

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return node
        func = self.names.resolve(node.func)
        made = None
        if func is math.dist and not node.keywords and len(node.args) == 2:
            made = self._dist(node)
        elif func is np.piecewise and not node.keywords and len(node.args) == 3:
            made = self._piecewise(node)
        elif func is itertools.starmap and not node.keywords and len(node.args) == 2:
            made = self._starmap(node)
        elif func is np.ix_ and not node.keywords and node.args:
            made = self._open_mesh(node)
        if made is None:
            return node
        for n in ast.walk(made):
            ast.copy_location(n, node)
        return made

    def _dist(self, node: ast.Call):
        p, q = node.args
        base = node.func.value if isinstance(node.func, ast.Attribute) else None
        if base is None or self.names.resolve(base) is not math:
            return None
        written = all(isinstance(s, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in s.elts)
                      for s in (p, q))
        if written:
            if len(p.elts) != len(q.elts) or not p.elts:
                return None  # Python raises: lowering refuses at the line
            diffs = [ast.BinOp(a, ast.Sub(), b) for a, b in zip(p.elts, q.elts)]
            return _call(ast.Attribute(copy.deepcopy(base), "hypot", ast.Load()), *diffs)
        if not _builtins(self.names, "zip", "sum"):  # (p and q are read once each, by zip)
            return None
        u, v = self.names.namer.fresh("coord_p"), self.names.namer.fresh("coord_q")
        square = ast.BinOp(ast.BinOp(_name(u), ast.Sub(), _name(v)), ast.Pow(), ast.Constant(2))
        pairs = ast.comprehension(ast.Tuple([ast.Name(u, ast.Store()), ast.Name(v, ast.Store())], ast.Store()),
                                  _call(_name("zip"), copy.deepcopy(p), copy.deepcopy(q)), [], 0)
        total = _call(_name("sum"), ast.GeneratorExp(square, [pairs]))
        # (points of different lengths, which Python refuses, are not tested here: zip stops at the shorter)
        return _call(ast.Attribute(copy.deepcopy(base), "sqrt", ast.Load()), total)

    def _piecewise(self, node: ast.Call):
        x, conds, funcs = node.args
        base = node.func.value if isinstance(node.func, ast.Attribute) else None
        if base is None or self.names.resolve(base) is not np or not isinstance(x, ast.Name):
            return None
        conds = conds.elts if isinstance(conds, (ast.List, ast.Tuple)) else [conds] \
            if isinstance(conds, ast.Compare) else None
        if conds is None or not isinstance(funcs, (ast.List, ast.Tuple)) \
                or len(funcs.elts) not in (len(conds), len(conds) + 1) or not conds:
            return None
        values = [self._piece(f, x) for f in funcs.elts]
        if any(v is None for v in values):
            return None
        made = values[-1] if len(funcs.elts) > len(conds) else ast.Constant(0.0)
        for cond, value in zip(conds, values):  # the last condition is tested first: NumPy's last wins
            made = _call(ast.Attribute(copy.deepcopy(base), "where", ast.Load()), cond, value, made)
        return made

    def _piece(self, f: ast.expr, x: ast.Name):
        """One piece's value on the whole of `x`, or None if it may not be elementwise."""
        if isinstance(f, ast.Constant) and isinstance(f.value, (int, float)) and not isinstance(f.value, bool):
            return ast.Constant(float(f.value))
        if isinstance(self.names.resolve(f), np.ufunc):
            return _call(copy.deepcopy(f), copy.deepcopy(x))
        fn = _lambda(f, 1)
        if fn is None:
            return None
        param = fn.args.args[0].arg
        for n in ast.walk(fn.body):
            if isinstance(n, ast.Call):
                if n.keywords or not self._elementwise(n.func):
                    return None
            elif isinstance(n, ast.Attribute):
                if not self._elementwise(n) and not isinstance(self.names.resolve(n), (int, float, type(np))):
                    return None  # v.T, v.shape, v.mean: not elementwise
            elif not isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Name, ast.Constant, ast.Load, ast.operator,
                                    ast.unaryop, ast.Compare, ast.cmpop)):
                return None  # a subscript, comprehension, conditional: may read the selection's shape
        body = copy.deepcopy(fn.body)
        for n in ast.walk(body):
            if isinstance(n, ast.Name) and n.id == param:
                n.id = x.id
        return body

    def _elementwise(self, func: ast.expr) -> bool:
        found = self.names.resolve(func)
        return isinstance(found, np.ufunc) or any(found is f for f in _ELEMENTWISE)

    def _open_mesh(self, node: ast.Call):
        """``np.ix_(a, b)``: ``(np.asarray(a)[:, None], np.asarray(b))``, the index arrays NumPy
        broadcasts to the same open mesh.  (A boolean mask, which np.ix_ turns into the indices
        of its True entries, then makes NumPy raise an IndexError with two or more masks; alone,
        it selects the same items.)"""
        base = node.func.value if isinstance(node.func, ast.Attribute) else None
        if base is None or self.names.resolve(base) is not np:
            return None
        k = len(node.args)
        parts = []
        for i, a in enumerate(node.args):
            part = _call(ast.Attribute(copy.deepcopy(base), "asarray", ast.Load()), a)
            if i < k - 1:
                axes = [ast.Slice()] + [ast.Constant(None)] * (k - 1 - i)
                part = ast.Subscript(part, ast.Tuple(axes, ast.Load()), ast.Load())
            parts.append(part)
        return ast.Tuple(parts, ast.Load())

    def _starmap(self, node: ast.Call):
        func, seq = node.args
        if not self.names.calls(seq, builtins.zip) or seq.keywords or not seq.args \
                or any(isinstance(a, ast.Starred) for a in seq.args):
            return None
        params = _targets(func, len(seq.args), self.names, "item")
        target = ast.Tuple([ast.Name(p, ast.Store()) for p in params], ast.Store()) if len(params) > 1 \
            else ast.Name(params[0], ast.Store())
        value = _applied(func, [_name(p) for p in params], self.names)
        return ast.GeneratorExp(value, [ast.comprehension(target, seq, [], 0)])


def _run_now(stmt: ast.stmt):
    """The nodes of `stmt` Python evaluates each time the statement runs, before anything else
    (not inside a conditional part, lambda or comprehension -- except a comprehension's first
    iterable, which Python evaluates at once)."""
    todo = [stmt.iter] if isinstance(stmt, ast.For) else [stmt]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                todo.append(child.generators[0].iter)
            elif not isinstance(child, HIDDEN + (ast.FunctionDef, ast.ClassDef)):
                todo.append(child)


def _padded(stmt: ast.stmt, names) -> list:
    """``zip_longest(a, b, fillvalue=c)`` run by `stmt` at once: each sequence padded to the longest
    before the statement, then ``zip`` of the padded lists."""
    if not _builtins(names, "zip", "list", "len", "max"):
        return []
    out = []
    for call in [n for n in _run_now(stmt) if names.calls(n, itertools.zip_longest)]:
        fill = [k.value for k in call.keywords if k.arg == "fillvalue"]
        if len(call.keywords) != 1 or not fill or isinstance(fill[0], ast.Constant) and fill[0].value is None \
                or not call.args or any(isinstance(a, ast.Starred) for a in call.args):
            continue  # Python's None fill: arithmetic on it raises, and lowering refuses
        made, lists = [], []
        for a in call.args + fill:  # each read once, in order, as Python does
            if not _plain(a):
                held = names.namer.fresh("longest_item")
                made.append(ast.Assign([ast.Name(held, ast.Store())], a))
                a = _name(held)
            lists.append(a)
        *seqs, value = lists
        longest = names.namer.fresh("longest")
        lengths = [_call(_name("len"), copy.deepcopy(a)) for a in seqs]
        most = lengths[0]
        for n in lengths[1:]:  # (max of two at a time: lowering's max takes two numbers)
            most = _call(_name("max"), most, n)
        made.append(ast.Assign([ast.Name(longest, ast.Store())], most))
        padded = []
        for a, n in zip(seqs, lengths):
            held = names.namer.fresh("padded")
            fillers = ast.BinOp(ast.List([copy.deepcopy(value)], ast.Load()), ast.Mult(),
                                ast.BinOp(_name(longest), ast.Sub(), copy.deepcopy(n)))
            made.append(ast.Assign([ast.Name(held, ast.Store())],
                                   ast.BinOp(_call(_name("list"), copy.deepcopy(a)), ast.Add(), fillers)))
            padded.append(_name(held))
        zipped = _call(_name("zip"), *padded)
        for node in (n for m in made + [zipped] for n in ast.walk(m)):
            ast.copy_location(node, call)
        replace_node(stmt, call, zipped)
        out += made
    return out


def _keyed_selections(stmt: ast.stmt, names) -> list:
    """The statements listing the keys of each ``min``/``max(xs, key=f)`` `stmt` always runs."""
    out = []
    while True:
        call = _keyed(stmt, names)
        if call is None:
            return out
        made = _selection(call, names)
        if made is None:
            return out
        statements, chosen = made
        for node in (n for s in statements + [chosen] for n in ast.walk(s)):
            ast.copy_location(node, call)
        out += statements
        replace_node(stmt, call, chosen)


def _keyed(stmt: ast.stmt, names):
    """The first ``min``/``max(xs, key=f)`` call of `stmt` outside any hidden part, or None."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, HIDDEN) or isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                continue
            if isinstance(child, ast.Call) and names.resolve(child.func) in (builtins.min, builtins.max) \
                    and len(child.args) == 1 and not isinstance(child.args[0], ast.Starred) \
                    and [k.arg for k in child.keywords] == ["key"]:
                found.append(child)
            visit(child)
    visit(stmt)
    return found[0] if found else None


def _selection(call: ast.Call, names):
    """(statements listing the keys and the index, the chosen item), or None."""
    numpy = _numpy(names)
    key, seq = call.keywords[0].value, call.args[0]
    if numpy is None or isinstance(getattr(_lambda(key, 1), "body", None), (ast.Tuple, ast.List)) \
            or not _builtins(names, "int", "range", "float", "ValueError"):
        return None
    ranged = names.calls(seq, builtins.range) and not seq.keywords and 1 <= len(seq.args) <= 3 \
        and not any(isinstance(a, ast.Starred) for a in seq.args)
    made_by_numpy = isinstance(seq, ast.Call) and \
        (getattr(names.resolve(seq.func), "__module__", None) or "").split(".")[0] == "numpy"
    if not ranged and not made_by_numpy and not isinstance(seq, (ast.Name, ast.Attribute, ast.Subscript, ast.List,
                                                                  ast.Tuple, ast.BinOp, ast.UnaryOp)):
        return None  # a generator or iterator: Python reads it once, and it cannot be indexed
    before = []
    if ranged and len(seq.args) > 1:  # start and step are read again for the item: each read once, first
        for k, bound in enumerate(seq.args):
            if not _plain(bound):
                held = names.namer.fresh("bound")
                before.append(ast.Assign([ast.Name(held, ast.Store())], bound))
                seq.args[k] = _name(held)
    if not ranged and not _plain(seq):
        held = names.namer.fresh("candidates")
        before.append(ast.Assign([ast.Name(held, ast.Store())], seq))
        seq = _name(held)
    (item,) = _targets(key, 1, names, "candidate")
    keys, index = names.namer.fresh("keys"), names.namer.fresh("best")
    # float(): Python's TypeError for a key that is a tuple or an array, which argmin would flatten
    listed = ast.ListComp(_call(_name("float"), _applied(key, [_name(item)], names)),
                          [ast.comprehension(ast.Name(item, ast.Store()), copy.deepcopy(seq), [], 0)])
    array = _call(ast.Attribute(copy.deepcopy(numpy), "array", ast.Load()), listed)  # (numba's argmin takes no list)
    before.append(ast.Assign([ast.Name(keys, ast.Store())], array))
    pick = "argmin" if names.resolve(call.func) is builtins.min else "argmax"
    found = _call(_name("int"), _call(ast.Attribute(numpy, pick, ast.Load()), _name(keys)))
    before.append(ast.Assign([ast.Name(index, ast.Store())], found))
    # argmin is min's choice for numbers, not with a NaN (Python's `<` is then False): raise
    odd = _call(ast.Attribute(copy.deepcopy(numpy), "isnan", ast.Load()),
                _call(ast.Attribute(copy.deepcopy(numpy), "sum", ast.Load()), _name(keys)))
    message = ast.Constant(f"srcdiff reads {pick[3:]}(..., key=...) as np.{pick} of the keys, which is "
                           f"{pick[3:]}'s choice only when no key is NaN")
    before.insert(-1, ast.If(odd, [ast.Raise(_call(_name("ValueError"), message), None)], []))
    if not ranged:
        return before, ast.Subscript(copy.deepcopy(seq), _name(index), ast.Load())
    start = seq.args[0] if len(seq.args) > 1 else None
    step = seq.args[2] if len(seq.args) == 3 else None
    chosen = _name(index)
    if step is not None:
        chosen = ast.BinOp(copy.deepcopy(step), ast.Mult(), chosen)
    if start is not None:
        chosen = ast.BinOp(copy.deepcopy(start), ast.Add(), chosen)
    return before, chosen


__all__ = ["has_idiom_calls", "rewrite_idiom_calls"]
