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
- ``np.ix_(a, b)`` of lists: ``np.ix_(np.asarray(a), np.asarray(b))``, so
  ``K[np.ix_(dofs, dofs)] += ke`` is a write through NumPy's mesh of arrays;
- ``np.vander(x, N, increasing=...)`` of a name: ``np.asarray(x)[:, None] ** np.arange(N)`` (the
  powers decreasing unless ``increasing``), whose rule is exact where x is 0;
- ``f(**{"k": v})``: ``f(k=v)``; ``act = getattr(np, name)`` then ``act(x)``: ``getattr(np, name)(x)``;
- ``np.vectorize(f)(x)``, ``np.apply_along_axis(f, axis, A)``: comprehensions (function_maps.py);
- ``for g in np.unique(labels):`` (``np.sort``, ``np.arange``, ...), ``for t in nodes(5):`` of a function of
  the user's: the value kept in a name first;
- ``min(xs, key=f)`` / ``max(xs, key=f)``: ``xs[int(np.argmin(keys))]``; ``sorted(xs, key=f)`` by
  ``np.argsort(keys, kind="stable")`` (key_selections.py).

A call these rewrites do not cover is left as written, and lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
import itertools
import math
import types

import numpy as np

from .desugar_reduce import HIDDEN, SIMPLE, replace_node
from .function_maps import mapped_functions
from .installed import installed
from .key_selections import applied, builtins_are, keyed_selections, load, make_call, plain, plain_lambda, targets
from .naming import rewrite_blocks
from .poly1d_calls import rewrite_poly1d_calls

#: the names of the calls rewritten here (and f(**{...}))
_NAMES = {"getattr", "dist", "piecewise", "zip_longest", "starmap", "min", "max", "ix_", "vectorize",
          "apply_along_axis", "vander", "poly1d"}


def _vander_signature(x, N=None, increasing=False):  # noqa: N803  np.vander's, to bind a call's arguments
    """np.vander's parameters."""

#: calls a piecewise lambda's body may make and stay elementwise (besides NumPy's ufuncs)
_ELEMENTWISE = {abs, np.where, np.clip}


def has_idiom_calls(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether `tree` calls anything named like the calls rewritten here (``min`` and
    ``max`` only with ``key=``)."""
    aliases = {s.targets[0].id for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
               and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Attribute)}  # N = norm.cdf
    for n in ast.walk(tree):
        if isinstance(n, ast.keyword) and n.arg is None and isinstance(n.value, ast.Dict):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in aliases:
            return True
        if isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.iter, ast.Call) \
                and (getattr(n.iter.func, "attr", None) in {f.__name__ for f in _ARRAY_MAKERS}
                     or isinstance(n.iter.func, ast.Name) and not hasattr(builtins, n.iter.func.id)):
            return True
        name = n.func.attr if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) else \
            n.func.id if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) else None
        if name in ("min", "max", "sorted"):
            if isinstance(n.func, ast.Name) and any(k.arg in ("key", "reverse") for k in n.keywords):
                return True
        elif name in _NAMES:
            return True
    return False


def rewrite_idiom_calls(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, the calls above in `tree`'s own statements (and np.poly1d's: poly1d_calls.py)."""
    rewrite_poly1d_calls(tree, names)
    _named_attributes(tree, names)
    rewrite_blocks(tree.body, lambda stmt: _before(stmt, names, tree))


def _before(stmt: ast.stmt, names, tree) -> list:
    before = _padded(stmt, names) + mapped_functions(stmt, names, tree) + _arrays_looped(stmt, names) \
        if isinstance(stmt, SIMPLE + (ast.For,)) else []
    _Expressions(names).visit(stmt)
    if isinstance(stmt, ast.For):  # ``for r, p in enumerate(sorted(ps, key=...))``: its iterable, read once
        header, written = ast.Expr(stmt.iter), set(map(id, ast.walk(stmt.iter)))
        chosen = keyed_selections(header, names)
        stmt.iter = header.value
        for made in [n for n in ast.walk(stmt.iter) if isinstance(n, ast.ListComp) and id(n) not in written]:
            held = names.namer.fresh("ordered")  # the sorted list in a name (a list of tuples is then split)
            chosen.append(ast.copy_location(ast.Assign([ast.Name(held, ast.Store())], made), made))
            replace_node(stmt, made, ast.copy_location(load(held), made))
        return before + chosen
    return before + (keyed_selections(stmt, names) if isinstance(stmt, SIMPLE) else [])


class _Expressions(ast.NodeTransformer):
    """dist, piecewise, zip_longest and starmap, anywhere in a statement (nested defs excluded)."""

    def __init__(self, names):
        self.names = names

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        node.keywords = _spread_literal(node.keywords)
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
        elif func is np.vander and node.args:
            made = self._vander(node)
        if made is None:
            return node
        for n in ast.walk(made):
            ast.copy_location(n, node)
        return made

    def _vander(self, node: ast.Call):
        """``np.vander(x, N, increasing=...)``: ``np.asarray(x)[:, None] ** powers``, the powers
        ``np.arange(N)`` (increasing) or ``np.arange(N - 1, -1, -1)``; N is ``len(x)`` if not given."""
        try:
            bound = inspect.signature(_vander_signature).bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError:
            return None  # (called as NumPy would refuse: lowering says so)
        x, count = bound.arguments["x"], bound.arguments.get("N")
        increasing = bound.arguments.get("increasing", ast.Constant(False))
        if not isinstance(x, ast.Name) or not isinstance(increasing, ast.Constant) \
                or isinstance(count, ast.Constant) and count.value is None:
            return None
        count = count or ast.Call(ast.Name("len", ast.Load()), [ast.Name(x.id, ast.Load())], [])
        arange = ast.Attribute(ast.Name("np", ast.Load()), "arange", ast.Load()) if self.names.resolve(
            ast.Name("np", ast.Load())) is np else None
        if arange is None or not builtins_are(self.names, "len"):
            return None
        powers = make_call(arange, count) if increasing.value else \
            make_call(arange, ast.BinOp(count, ast.Sub(), ast.Constant(1)), ast.Constant(-1), ast.Constant(-1))
        column = ast.Subscript(make_call(ast.Attribute(ast.Name("np", ast.Load()), "asarray", ast.Load()), x),
                               ast.Tuple([ast.Slice(), ast.Constant(None)], ast.Load()), ast.Load())
        return ast.BinOp(column, ast.Pow(), powers)

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
            return make_call(ast.Attribute(copy.deepcopy(base), "hypot", ast.Load()), *diffs)
        if not builtins_are(self.names, "zip", "sum"):  # (p and q are read once each, by zip)
            return None
        u, v = self.names.namer.fresh("coord_p"), self.names.namer.fresh("coord_q")
        square = ast.BinOp(ast.BinOp(load(u), ast.Sub(), load(v)), ast.Pow(), ast.Constant(2))
        pairs = ast.comprehension(ast.Tuple([ast.Name(u, ast.Store()), ast.Name(v, ast.Store())], ast.Store()),
                                  make_call(load("zip"), copy.deepcopy(p), copy.deepcopy(q)), [], 0)
        total = make_call(load("sum"), ast.GeneratorExp(square, [pairs]))
        # (points of different lengths, which Python refuses, are not tested here: zip stops at the shorter)
        return make_call(ast.Attribute(copy.deepcopy(base), "sqrt", ast.Load()), total)

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
            made = make_call(ast.Attribute(copy.deepcopy(base), "where", ast.Load()), cond, value, made)
        return made

    def _piece(self, f: ast.expr, x: ast.Name):
        """One piece's value on the whole of `x`, or None if it may not be elementwise."""
        if isinstance(f, ast.Constant) and isinstance(f.value, (int, float)) and not isinstance(f.value, bool):
            return ast.Constant(float(f.value))
        if isinstance(self.names.resolve(f), np.ufunc):
            return make_call(copy.deepcopy(f), copy.deepcopy(x))
        fn = plain_lambda(f, 1)
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
        """``np.ix_(a, b)`` of lists: ``np.ix_(np.asarray(a), np.asarray(b))``, NumPy's own mesh of
        the arrays it makes of them (kept a call of ``np.ix_``: a boolean mask keeps its meaning,
        and numba's backend spells the mesh, backend/numba/open_meshes.py)."""
        base = node.func.value if isinstance(node.func, ast.Attribute) else None
        if base is None or self.names.resolve(base) is not np \
                or all(isinstance(a, ast.Call) and self.names.resolve(a.func) is np.asarray for a in node.args):
            return None
        args = [make_call(ast.Attribute(copy.deepcopy(base), "asarray", ast.Load()), a) for a in node.args]
        return ast.Call(node.func, args, [])

    def _starmap(self, node: ast.Call):
        func, seq = node.args
        if not self.names.calls(seq, builtins.zip) or seq.keywords or not seq.args \
                or any(isinstance(a, ast.Starred) for a in seq.args):
            return None
        params = targets(func, len(seq.args), self.names, "item")
        target = ast.Tuple([ast.Name(p, ast.Store()) for p in params], ast.Store()) if len(params) > 1 \
            else ast.Name(params[0], ast.Store())
        value = applied(func, [load(p) for p in params], self.names)
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
    if not builtins_are(names, "zip", "list", "len", "max"):
        return []
    out = []
    for call in [n for n in _run_now(stmt) if names.calls(n, itertools.zip_longest)]:
        fill = [k.value for k in call.keywords if k.arg == "fillvalue"]
        if len(call.keywords) != 1 or not fill or isinstance(fill[0], ast.Constant) and fill[0].value is None \
                or not call.args or any(isinstance(a, ast.Starred) for a in call.args):
            continue  # Python's None fill: arithmetic on it raises, and lowering refuses
        made, lists = [], []
        for a in call.args + fill:  # each read once, in order, as Python does
            if not plain(a):
                held = names.namer.fresh("longest_item")
                made.append(ast.Assign([ast.Name(held, ast.Store())], a))
                a = load(held)
            lists.append(a)
        *seqs, value = lists
        longest = names.namer.fresh("longest")
        lengths = [make_call(load("len"), copy.deepcopy(a)) for a in seqs]
        most = lengths[0]
        for n in lengths[1:]:  # (max of two at a time: lowering's max takes two numbers)
            most = make_call(load("max"), most, n)
        made.append(ast.Assign([ast.Name(longest, ast.Store())], most))
        padded = []
        for a, n in zip(seqs, lengths):
            held = names.namer.fresh("padded")
            fillers = ast.BinOp(ast.List([copy.deepcopy(value)], ast.Load()), ast.Mult(),
                                ast.BinOp(load(longest), ast.Sub(), copy.deepcopy(n)))
            made.append(ast.Assign([ast.Name(held, ast.Store())],
                                   ast.BinOp(make_call(load("list"), copy.deepcopy(a)), ast.Add(), fillers)))
            padded.append(load(held))
        zipped = make_call(load("zip"), *padded)
        for node in (n for m in made + [zipped] for n in ast.walk(m)):
            ast.copy_location(node, call)
        replace_node(stmt, call, zipped)
        out += made
    return out


def _named_attributes(tree: ast.FunctionDef, names) -> None:
    """``act = getattr(np, name)`` then ``act(x)``: ``getattr(np, name)(x)``, which lowering reads as
    the module's function (the gradient specialised on `name`); ``N = scipy.stats.norm.cdf`` then
    ``N(d1)``: ``scipy.stats.norm.cdf(d1)``.  Only where `act` is assigned once, at the top of the body,
    and only called; the names getattr (or the chain) reads are never assigned."""
    stored = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    parents = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    for stmt in list(tree.body):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and (names.calls(stmt.value, builtins.getattr) and len(stmt.value.args) == 2
                     and not stmt.value.keywords
                     and all(isinstance(a, (ast.Name, ast.Constant)) for a in stmt.value.args)
                     or _function_alias(stmt.value, names))):
            continue
        name = stmt.targets[0].id
        reads = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        read_names = {a.id for a in ast.walk(stmt.value) if isinstance(a, ast.Name)} - {"getattr"}
        if stored.count(name) != 1 or read_names & set(stored) or not reads \
                or not all(isinstance(parents.get(r), ast.Call) and parents[r].func is r for r in reads):
            continue
        for r in reads:
            parents[r].func = ast.copy_location(copy.deepcopy(stmt.value), r)
        tree.body.remove(stmt)


def _function_alias(value: ast.expr, names) -> bool:
    """``N = scipy.stats.norm.cdf``: a library's function (or a method of a module-level object) named by a
    chain of the module's names, which the calls then read as written."""
    if not isinstance(value, ast.Attribute):
        return False
    found = names.resolve(value)
    module = (getattr(found, "__module__", None) or "").split(".")[0]
    return isinstance(found, np.ufunc) or callable(found) and not isinstance(found, type) \
        and module in ("numpy", "scipy", "math")


#: NumPy functions returning a new array, looped over as its rows or numbers (``for g in np.unique(labels)``)
_ARRAY_MAKERS = {np.unique, np.sort, np.argsort, np.arange, np.linspace, np.flatnonzero, np.diff, np.cumsum}


def _user_function(value) -> bool:
    """A function of the user's (not a generator, which is read as the list it yields), or a
    ``functools.lru_cache`` / ``cache`` of one."""
    if type(value).__name__ == "_lru_cache_wrapper":
        value = getattr(value, "__wrapped__", None)
    return isinstance(value, types.FunctionType) and not installed(value.__code__.co_filename) \
        and not value.__code__.co_flags & inspect.CO_GENERATOR


def _arrays_looped(stmt: ast.stmt, names) -> list:
    """``for g in np.unique(labels):``, ``for t in nodes(5):`` of a function of the user's (or a
    comprehension's first iterable): the value kept in a name first, which lowering loops over
    (Python computes the iterable once, before the loop)."""
    out = []
    loops = [stmt] if isinstance(stmt, ast.For) else []
    loops += [c.generators[0] for n in _run_now(stmt) for c in ast.iter_child_nodes(n)
              if isinstance(c, (ast.ListComp, ast.GeneratorExp, ast.SetComp))]
    for loop in loops:
        it = loop.iter
        if isinstance(it, ast.Call) and (any(names.resolve(it.func) is f for f in _ARRAY_MAKERS)
                                         or _user_function(names.resolve(it.func))):
            held = names.namer.fresh("looped")
            out.append(ast.copy_location(ast.Assign([ast.Name(held, ast.Store())], it), it))
            loop.iter = ast.copy_location(load(held), it)
    return out


def _spread_literal(keywords: list) -> list:
    """``f(**{"k": v})``: ``f(k=v)`` (string keys written out, none given twice)."""
    out = []
    for k in keywords:
        d = k.value
        if k.arg is None and isinstance(d, ast.Dict) and all(isinstance(c, ast.Constant) and isinstance(c.value, str)
                                                            and c.value.isidentifier() for c in d.keys):
            out += [ast.copy_location(ast.keyword(c.value, v), k) for c, v in zip(d.keys, d.values)]
        else:
            out.append(k)
    names = [k.arg for k in out if k.arg is not None]
    return out if len(names) == len(set(names)) else keywords  # (Python's TypeError: left to lowering)


__all__ = ["has_idiom_calls", "rewrite_idiom_calls"]
