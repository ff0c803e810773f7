"""Tuples and lists of arrays made in the function and given whole to a function of the user's:

    return _h((x[:2], x[2:4]))                          # a display in the call
    return _h2(tuple(ps))                               # tuple()/list() of a list tree
    return _sq([p ** 2 for p in ps])                    # a comprehension over items known here
    nxt = [(1 - t) * a + t * b for a, b in zip(pts[:-1], pts[1:])]
    return _casteljau(nxt, t)                           # (a recursive helper: one version per length)

Each is a list (or tuple) tree of its own (tree_entries.py) whose leaves are computed before
the statement, in order, as a display's items are: the helper is flattened for that structure
(flatten.py), so ``len(pts)``, ``pts[0]``, ``pts[:-1]`` and a loop over ``pts`` are read when the
gradient is built.  A helper that calls itself with a shorter list is flattened once per length,
down to the length whose ``if len(pts) == 1: return pts[0]`` the rewrite decides.

A comprehension is read so only over items the rewrite knows (a tree's items, ``zip``/``enumerate``
of them, ``range`` of constants), its conditions decided by them; an argument inside a conditional
expression, a short-circuit, a lambda or another comprehension's body (whose names the leaves would
read out of their scope) is left as it is (refused at the call).  ``list(x)`` of a tree is a copy:
its leaves are variables of its own, as a dict's copy's are (state_writes.py).
"""

from __future__ import annotations

import ast
import copy

from .passed_names import converted, sequence_spelling
from .rewrites import installed, user_function
from .tree_entries import Const, Node
from .trees import Struct

SCOPES = (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp, ast.Lambda, ast.IfExp, ast.BoolOp)


class PassedSequences:
    """The part of the rewriter (an `ExprRewriter`) that reads a sequence given to a helper as a tree."""

    def reads_displays(self) -> bool:
        """Whether a tuple, list or comprehension written here is read as a tree of its own: the
        statement being rewritten can take the statements its leaves need (`built`), and it is not
        inside a comprehension, lambda or conditional (`hidden_expr`), where they would run
        outside that scope."""
        return self.built is not None and not self.__dict__.get("_hidden")

    def as_list(self, node):
        """A call's argument; a list or tuple of arrays given whole: its leaves (``np.stack([xs_0, xs_1])``)."""
        found = self.entry(node) if not isinstance(node, ast.Starred) else None
        if isinstance(found, Node) and found.struct.kind in ("list", "tuple"):
            items = [self.as_ast(c, node) for c in found.children.values()]
            return ast.copy_location((ast.List if found.struct.kind == "list" else ast.Tuple)(items, ast.Load()), node)
        return self.expr(node)

    def passed_sequence(self, item: ast.expr, where) -> Node | None:
        """The tree of `item`, an argument of a call of a function of the user's, when it is a
        display, comprehension or ``tuple()``/``list()`` call srcdiff reads as one; else None."""
        if not (self.reads_displays() and sequence_spelling(item, self.parsed.resolve)):
            return None
        saved = self.__dict__.get("pending"), self.__dict__.get("target_base")
        self.pending, self.target_base = self.built, "arg"
        try:
            return self.sequence_node(item, where)
        finally:
            self.pending, self.target_base = saved

    def sequence_node(self, value: ast.expr, where, kind: str | None = None, nested=False) -> Node | None:
        """The list (or tuple) tree `value` makes, its leaves' statements put in `self.pending`; None
        when it is none srcdiff reads (a comprehension over values, a display of constants unless `nested`
        in another: ``[1.0, [2.0, 0.5]]``)."""
        if isinstance(value, (ast.Tuple, ast.List)):
            if not value.elts or any(isinstance(e, ast.Starred) for e in value.elts) \
                    or all(isinstance(e, ast.Constant) for e in value.elts) and not nested:
                return None
            kind = kind or ("list" if isinstance(value, ast.List) else "tuple")
            children = {i: self.item(e, f"item{i}", where) for i, e in enumerate(value.elts)}
        elif isinstance(value, ast.ListComp):
            children = self.comprehended_items(value, where)
            kind = kind or "list"
        elif converted(value, self.parsed.resolve):
            made = self.parsed.resolve(value.func.id).__name__
            inner = value.args[0]
            found = self.entry(inner) if not isinstance(inner, (ast.Tuple, ast.List, ast.ListComp)) else None
            if isinstance(found, Node) and found.struct.kind in ("list", "tuple"):
                children = self.own_leaves(dict(enumerate(found.children.values())), where)  # a copy
                kind = kind or made
            else:
                return None if found is not None else self.sequence_node(inner, where, kind or made)
        else:
            return None
        if children is None:
            return None
        return self.owning(Node(Struct(kind, tuple(children)), children, local=True, depth=self.depth))

    def item(self, e: ast.expr, key, where):
        """An item of a display: a constant as written (``(a, 2)``: the helper reads 2), a display a tree of
        its own, else an element (tree_value's entry, or a leaf computed before the statement)."""
        if isinstance(e, ast.Constant) and (e.value is None or isinstance(e.value, (bool, int, float, str))):
            return Const(e.value)
        nested = self.sequence_node(e, where, nested=True) if isinstance(e, (ast.Tuple, ast.List)) else None
        return nested or self.element(e, key, where)

    def comprehended_items(self, node: ast.ListComp, where) -> dict | None:
        """``[e for a in items if cond]`` over items the rewrite knows: one leaf (or tree) per item
        its conditions keep, bound to the comprehension's names; None otherwise."""
        if len(node.generators) != 1 or node.generators[0].is_async:
            return None
        gen = node.generators[0]
        if not isinstance(gen.target, (ast.Name, ast.Tuple)):
            return None
        items = self.items_of(gen.iter, force=True)
        if items is None:
            return None
        saved, kept = dict(self.env), []
        try:
            for item in items:  # (the conditions first: a condition on values leaves no statement behind)
                self.bind_entry(gen.target, item, where, emit=None)
                decided = [self.decided(test) for test in gen.ifs]
                if any(d is None for d in decided):
                    return None  # a condition on values: left as a list (refused where it is passed)
                if all(decided):
                    kept.append(item)
            children = {}
            for k, item in enumerate(kept):
                self.bind_entry(gen.target, item, where, emit=None)
                children[k] = self.element(copy.deepcopy(node.elt), f"item{k}", where)
        finally:
            self.env = saved
        return children

    def mine(self, func) -> bool:
        """Whether `func` is a function of the user's (not an installed package's)."""
        return user_function(func) and not installed(func)

    def gives_sequence(self, node: ast.Call, func) -> bool:
        """Whether the call gives `func` (the user's) a sequence made here."""
        return self.mine(func) and self.reads_displays() \
            and any(sequence_spelling(a, self.parsed.resolve) for a in _arguments(node))

    def gives_sequence_inside(self, expr: ast.expr) -> bool:
        """Whether `expr` calls a function of the user's with a sequence made there."""
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id not in self.env
                   and self.mine(self.parsed.resolve(n.func.id))
                   and any(sequence_spelling(a, self.parsed.resolve) for a in _arguments(n))
                   for n in ast.walk(expr))

    def length_constant(self, value: ast.expr):
        """The Const of an integer the rewrite computes from the length of a list tree (``mid = len(xs) // 2``),
        else None."""
        found = self.constant(value) if self.reads_length(value) else None
        return Const(found) if type(found) is int else None

    def hidden_expr(self, node):
        """`node` (a comprehension, lambda, conditional or short-circuit) rewritten with sequences
        given to helpers inside it left alone: their leaves would be computed outside its scope."""
        outer, names = self.__dict__.get("_hidden", False), self.__dict__.get("_scope_names", frozenset())
        self._hidden, self._scope_names = True, names | _bound_in(node)
        try:
            return self.visit_other(node)
        finally:
            self._hidden, self._scope_names = outer, names

    def reads_scope_names(self, node: ast.AST) -> bool:
        """Whether `node` reads a name that a comprehension, generator or lambda around it binds (or a
        ``:=`` in it): a call written out before the statement would read the name outside."""
        names = self.__dict__.get("_scope_names", frozenset())
        return bool(names) and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))

    def dict_keys(self, node: ast.Call, func) -> ast.expr | None:
        """``list(d)``, ``tuple(d)``, ``sorted(d)`` of a dict tree (a parameter's, a module's) whose keys
        are strings or ints: a display of its keys, constants, as ``[k for k in d]`` already reads
        them (the keys are the tree's structure, known when the function is transformed); else None."""
        if func not in (list, tuple, sorted) or len(node.args) != 1 or node.keywords \
                or isinstance(node.args[0], ast.Starred):
            return None
        found = self.entry(node.args[0])
        if not isinstance(found, Node) or found.struct.kind != "dict" \
                or not all(type(k) in (str, int) for k in found.struct.keys):
            return None
        keys = list(found.struct.keys)
        if func is sorted:
            if len({type(k) for k in keys}) > 1:  # (Python's sorted refuses to compare str with int)
                return None
            keys = sorted(keys)
        items = [ast.Constant(k) for k in keys]
        return ast.copy_location(ast.Tuple(items, ast.Load()) if func is tuple else ast.List(items, ast.Load()), node)

    def tree_passed_whole(self, node: ast.Call, tree: ast.expr):
        """The refusal of a parameter tree `tree` passed whole to ``node.func`` (a call srcdiff cannot
        write out): a function of the user's nested in this one, called inside a comprehension, generator
        or lambda srcdiff does not unroll, with a name that scope binds, is refused as such."""
        name = ast.unparse(node.func)
        scoped = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                         and n.id in self.__dict__.get("_scope_names", frozenset())})
        if isinstance(node.func, ast.Name) and node.func.id in self.__dict__.get("local_defs", {}) and scoped:
            return self.error(node, f"{name}, a function nested in this one, is given the parameter tree "
                              f"{ast.unparse(tree)} and reads {scoped[0]}, which the comprehension, generator or "
                              "lambda around the call binds: srcdiff writes such a call out before the statement, "
                              "so only in a comprehension it unrolls (over a tree's items or constants)",
                              f"write the loop as a for statement (total = total + {ast.unparse(node)} in "
                              f"a loop over the same values), or pass {name} the arrays it needs (p['W'])")
        return self.error(tree, f"{ast.unparse(tree)} is a parameter tree, passed whole to {name}: srcdiff "
                          "can pass trees only to Python functions of yours",
                          f"pass the arrays {name} needs (p['W'], p.W) instead")

    def length_decided(self, test: ast.expr):
        """True/False for an `if` test on the length of a list tree (``len(pts) == 1``, ``len(xs) > 2``,
        ``not pts``) the rewrite decides; None otherwise."""
        return self.decided(test) if self.reads_length(test) else None

    def reads_length(self, expr: ast.expr) -> bool:
        """Whether `expr` reads ``len()`` of a tree."""
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id not in self.env
                   and self.parsed.resolve(n.func.id) is len and len(n.args) == 1
                   and isinstance(self.entry(n.args[0]), Node) for n in ast.walk(expr))


def _bound_in(node: ast.AST) -> frozenset:
    """The names the scope `node` binds (a comprehension's targets, a lambda's parameters) and the
    names a ``:=`` inside it assigns."""
    out = {n.id for n in ast.walk(node) if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)}
    for gen in getattr(node, "generators", ()):
        out |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
    if isinstance(node, ast.Lambda):
        a = node.args
        out |= {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | {x.arg for x in (a.vararg, a.kwarg) if x}
    return frozenset(out)


def _arguments(call: ast.Call) -> list:
    return list(call.args) + [k.value for k in call.keywords]


__all__ = ["SCOPES", "PassedSequences"]
