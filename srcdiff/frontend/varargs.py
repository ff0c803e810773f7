"""A helper taking ``*args`` / ``**opts``, bound to the arguments one call gives it.

Every call srcdiff reads fixes how many positional arguments a helper gets and which
keywords: ``symmetrized(x, y)`` gives ``def symmetrized(*args)`` two.  `bound_function`
makes, once per (count, keywords), a function with that fixed signature and the same body:

    def loss(w, **opts): return inner(w, **opts)        # called as loss(x, scale=2.0)
    def loss(w, scale): return inner(w, scale=scale)    # what srcdiff differentiates

``args`` becomes the tuple ``(args_0, args_1)``; ``*args``, ``*(a, b)`` and
``*[g(a) for a in args]`` in a call are spread into positional arguments; ``**opts``
into keywords; ``opts["k"]``, ``opts.get("k", d)`` (``opts.get(name, d)``: a chain of tests of
``name`` against the call's keys), ``"k" in opts``, ``len(opts)``, ``for k in
opts`` (unrolled) and ``opts.values()`` / ``keys()`` / ``items()`` are read off the call;
``opts["k"] = v``, ``opts.setdefault``, ``pop``, ``update`` and ``del opts["k"]`` write into it
(kwarg_writes.py).  Any other use of ``opts`` (or a write to ``args``) is refused at its line.
"""

from __future__ import annotations

import ast
import copy
import inspect
import weakref

from ..ir import memo
from .compiling import compile_function
from .kwarg_writes import KeyWrites
from .naming import Rename, assigned_names, names_in
from .parse import ParsedFunction, parse_function, register
from .spread_items import BindNames, fresh_names, literal_items

_BOUND: "weakref.WeakKeyDictionary" = memo.table(weak=True)  # function -> {(n, keywords): function}


def takes_varargs(func) -> bool:
    """Whether `func` has a ``*args`` or ``**kwargs`` parameter."""
    return any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in inspect.signature(func).parameters.values())


def plain_parameters(func) -> bool:
    """Whether every parameter of `func` is a plain positional-or-keyword one."""
    return all(p.kind == p.POSITIONAL_OR_KEYWORD for p in inspect.signature(func).parameters.values())


def bound_for_call(parsed: ParsedFunction, node: ast.Call, func, prefix: int = 0, keywords: tuple = ()):
    """`bound_function` for the call `node` in `parsed` (after `prefix` positional and the
    `keywords` arguments of a ``functools.partial``)."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise parsed.error(node, f"*args and **kwargs in a call of {func.__name__} are not supported",
                           "pass the arguments one by one")
    return bound_function(func, prefix + len(node.args), tuple(keywords) + tuple(k.arg for k in node.keywords))


def bound_function(func, positional: int, keywords: tuple[str, ...]):
    """`func` (taking ``*args``/``**kwargs``) as a function of plain parameters, for a call
    giving `positional` positional arguments and the keyword arguments `keywords`."""
    key = (positional, tuple(sorted(keywords)))
    cache = _BOUND.setdefault(func, {})
    found = cache.get(key)
    defaults = (func.__defaults__, func.__kwdefaults__)  # (baked into the bound function: rebuilt if changed)
    if found is None or found[2][0] is not defaults[0] or found[2][1] is not defaults[1] \
            or any(parse_function(func).resolve(n) is not v for n, v in found[1].items()):
        found = cache[key] = (*_build(func, positional, key[1]), defaults)
    return found[0]


def _build(func, positional: int, keywords: tuple[str, ...]):
    parsed = parse_function(func)
    tree = parsed.tree
    a = tree.args
    sig = inspect.signature(parsed.func)
    named = [p.arg for p in a.posonlyargs + a.args]
    taken = names_in(tree) | set(parsed.closure)
    extra_positional = []
    if positional > len(named):
        if a.vararg is None:
            raise parsed.error(tree, f"{parsed.name} takes {len(named)} positional arguments, "
                               f"and a call gives it {positional}")
        extra_positional = fresh_names(a.vararg.arg, positional - len(named), taken)
    plain = set(named) | {p.arg for p in a.kwonlyargs}
    extra_keywords = [k for k in keywords if k not in plain]
    if extra_keywords and a.kwarg is None:
        raise parsed.error(tree, f"{parsed.name} has no parameter {extra_keywords[0]}")
    body = [copy.deepcopy(s) for s in tree.body]
    # ``scale = opts.get("scale", 1.0)``: the body's own variable named like a keyword is renamed
    renamed = {}
    nested = set().union(*(names_in(n) for s in body for n in ast.walk(s)
                           if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))))
    local = set().union(*(assigned_names(s) for s in body)) if body else set()
    for k in extra_keywords:
        if k in taken:
            if k not in local or k in nested:
                raise parsed.error(tree, f"{parsed.name} is called with the keyword {k}, a name its body "
                                   f"also reads from outside or in a nested function: srcdiff cannot bind "
                                   f"**{a.kwarg.arg} to a parameter of that name",
                                   f"rename {k} in {parsed.name}")
            renamed[k] = fresh_names(k, 1, taken | set(keywords))[0]
    if renamed:
        body = [Rename(renamed).visit(s) for s in body]
    # parameters the call gives (no default needed) first, in the call's order; then the rest with defaults
    given = named[:positional] + extra_positional + [k for k in keywords if k in plain and k not in
                                                      named[:positional]] + extra_keywords
    rest = [n for n in named[positional:] + [p.arg for p in a.kwonlyargs] if n not in given]
    defaults = []
    for name in rest:
        default = sig.parameters[name].default
        if default is inspect.Parameter.empty:
            raise parsed.error(tree, f"a call of {parsed.name} does not give its parameter {name}")
        defaults.append(default)
    rewriter = _Spread(parsed, a.vararg.arg if a.vararg else None, extra_positional,
                       a.kwarg.arg if a.kwarg else None, extra_keywords, taken | set(keywords))
    body = rewriter.statements(body)
    fdef = ast.FunctionDef(name=tree.name, args=ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in given + rest],
                                                              vararg=None, kwonlyargs=[], kw_defaults=[],
                                                              kwarg=None, defaults=[]),
                           body=body, decorator_list=[], returns=None, type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        fdef.type_params = []
    ast.copy_location(fdef, tree)
    fdef.end_lineno = tree.end_lineno
    ast.fix_missing_locations(fdef)
    made = compile_function(fdef, parsed, parsed.closure, tuple(defaults))
    register(made, ParsedFunction(made, fdef, parsed.filename, parsed.file_lines, parsed.globals,
                                  {n: parsed.closure[n] for n in made.__code__.co_freevars}))
    return made, rewriter.read


class _Spread(KeyWrites, ast.NodeTransformer):
    """The body with ``args`` a tuple of the new parameters and ``opts`` read off the call."""

    def __init__(self, parsed, vararg, extra_positional, kwarg, extra_keywords, taken=frozenset()):
        self.parsed, self.vararg, self.kwarg = parsed, vararg, kwarg
        self.positional, self.keywords = list(extra_positional or []), list(extra_keywords)
        self.read = {}  # closure names read as constant indices, and their values
        self.held, self.taken, self.top = {}, set(taken), True  # keys set in the body -> their variables

    def visit_Expr(self, node):
        made = self.written(node)
        return self.generic_visit(node) if made is None else made

    visit_Delete = visit_AugAssign = visit_Expr

    def _var(self, key: str) -> ast.Name:
        """The variable holding the keyword `key`: its parameter, or the one a write into opts made."""
        return ast.Name(self.held.get(key, key), ast.Load())

    def visit_Assign(self, node):
        made = self.written(node)
        if made is not None:
            return made
        if len(node.targets) == 1 and self._is(node.targets[0], self.vararg):
            copied = node.value
            if isinstance(copied, ast.Call) and isinstance(copied.func, ast.Name) \
                    and copied.func.id in ("list", "tuple") and len(copied.args) == 1 and not copied.keywords \
                    and self._is(copied.args[0], self.vararg):
                return ast.copy_location(ast.Pass(), node)  # args = list(args): still the same names
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                and self._is(node.targets[0].value, self.vararg):
            index = self._index(node.targets[0].slice)
            if isinstance(index, int):
                node.value = self.visit(node.value)
                node.targets = [ast.Name(self.positional[index], ast.Store())]
                return node
        return self.generic_visit(node)

    def _is(self, node, name) -> bool:
        return name is not None and isinstance(node, ast.Name) and node.id == name

    def _names(self, node):
        return ast.copy_location(ast.Tuple([ast.Name(n, ast.Load()) for n in self.positional], ast.Load()), node)

    def visit_FunctionDef(self, node):  # a nested def or lambda: its own scope, left as written
        if {self.vararg, self.kwarg} & names_in(node):
            raise self.parsed.error(node, f"a nested function or lambda reading *{self.vararg} / **{self.kwarg} "
                                    "is not supported", "pass the values it needs as its arguments")
        return node

    visit_Lambda = visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Name(self, node):
        if self._is(node, self.vararg) or self._is(node, self.kwarg):
            if not isinstance(node.ctx, ast.Load):
                raise self.parsed.error(node, f"this write to {node.id}, the *{self.vararg} / **{self.kwarg} "
                                        "parameter, is not supported (args = list(args) and args[i] = ... "
                                        "with a constant i are)", f"assign to a new name instead of {node.id}")
            if node.id == self.vararg:
                return self._names(node)
            raise self.parsed.error(node, f"**{self.kwarg} used as a dict here is not supported (srcdiff binds "
                                    f"it to the keywords of each call: {self.kwarg}['k'], {self.kwarg}.get('k', d), "
                                    f"'k' in {self.kwarg}, {self.kwarg}.values() / .items() and f(**{self.kwarg}) "
                                    "work)",
                                    f"name the keyword parameters of {self.parsed.name}")
        return node

    def visit_Attribute(self, node):
        if self._is(node.value, self.vararg):
            raise self.parsed.error(node, f"{self.vararg}.{node.attr}: srcdiff binds *{self.vararg} to the "
                                    f"{len(self.positional)} arguments of each call, a fixed tuple",
                                    f"index {self.vararg} with constants, or name the parameters")
        return self.generic_visit(node)

    def _index(self, node):
        """The constant int (or slice of constant ints) `node` is, for an index into ``args``; else None.
        Names are read from the closure (``args[argnum]`` in a wrapper made by a factory) and
        recorded: the binding is rebuilt if one changes."""
        if isinstance(node, ast.Slice):  # (a slice's ends may be out of range)
            parts = [None if p is None else self._constant(p) for p in (node.lower, node.upper, node.step)]
            if any(p is not None and not isinstance(p, int) for p in parts):
                return None
            return range(len(self.positional))[slice(*parts)]
        value = self._constant(node)
        if value is None:
            return None
        if not -len(self.positional) <= value < len(self.positional):
            raise self.parsed.error(node, f"index {value} is out of range for *{self.vararg}, which this call "
                                    f"gives {len(self.positional)} arguments")
        return value % len(self.positional)

    def _constant(self, node):
        value = None
        if isinstance(node, ast.Constant):
            value = node.value
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            value = -node.operand.value
        elif isinstance(node, ast.Name) and node.id in self.parsed.closure:
            value = self.parsed.resolve(node.id)
            self.read[node.id] = value
        return None if isinstance(value, bool) or not isinstance(value, int) else value

    def visit_Subscript(self, node):
        if self._is(node.value, self.vararg) and isinstance(node.ctx, ast.Load):
            index = self._index(node.slice)
            if isinstance(index, int):
                return ast.copy_location(ast.Name(self.positional[index], ast.Load()), node)
            if isinstance(index, range):
                return ast.copy_location(ast.Tuple([ast.Name(self.positional[i], ast.Load()) for i in index],
                                                   ast.Load()), node)
        if self._is(node.value, self.kwarg) and isinstance(node.slice, ast.Constant):
            if not isinstance(node.ctx, ast.Load):  # (a write of a tuple's or chain's target)
                return ast.copy_location(self._set(node.slice.value, node), node)
            if node.slice.value not in self.keywords:
                raise self.parsed.error(node, f"{self.kwarg}[{node.slice.value!r}] is not given by the call "
                                        "(a KeyError)", f"use {self.kwarg}.get({node.slice.value!r}, default)")
            return ast.copy_location(self._var(node.slice.value), node)
        return self.generic_visit(node)

    def visit_If(self, node):  # ``if "k" in opts:`` decided by the call: only the branch taken is read
        top, self.top = self.top, False
        node.test = self.visit(node.test)
        if isinstance(node.test, ast.Constant) and isinstance(node.test.value, bool):
            taken = node.body if node.test.value else node.orelse
            self.top = top  # (the branch taken runs wherever the ``if`` does)
            return self.statements(taken) or [ast.copy_location(ast.Pass(), node)]
        node.body = self.statements(node.body) or [ast.copy_location(ast.Pass(), node)]
        node.orelse = self.statements(node.orelse)
        return node

    def statements(self, statements: list) -> list:
        """`statements` rewritten (a decided ``if`` becomes the statements of its branch)."""
        out, top = [], self.top
        for statement in statements:
            self.top = top
            made = self.written(statement)
            # (a decided if's branch runs where the if does; an assignment's targets are all written)
            self.top = top and isinstance(statement, (ast.If, ast.Assign))
            made = made if made is not None else self.visit(statement)
            out += made if isinstance(made, list) else [made]
            if isinstance(statement, ast.If) and out and isinstance(out[-1], (ast.Return, ast.Raise)):
                break  # the branch taken returns: what follows the ``if`` is not run for this call
        return out

    def _view(self, node):
        """``opts.values()`` / ``.keys()`` / ``.items()`` and ``len(opts)``: tuples of the call's keywords."""
        f = node.func
        keys = [ast.Constant(k) for k in self.keywords]
        values = [self._var(k) for k in self.keywords]
        if isinstance(f, ast.Attribute) and self._is(f.value, self.kwarg) and not node.args and not node.keywords:
            found = {"keys": keys, "values": values,
                     "items": [ast.Tuple([k, v], ast.Load()) for k, v in zip(keys, values)]}.get(f.attr)
            return None if found is None else ast.fix_missing_locations(
                ast.copy_location(ast.Tuple(found, ast.Load()), node))
        if isinstance(f, ast.Name) and f.id == "len" and len(node.args) == 1 and self._is(node.args[0], self.kwarg):
            return ast.copy_location(ast.Constant(len(self.keywords)), node)
        return None

    def visit_For(self, node):
        """``for k in opts`` / ``opts.items()`` / ``.keys()`` / ``.values()``: unrolled, one copy of
        the body per keyword of the call, the names bound to its key and its parameter."""
        it, which = node.iter, None
        if self._is(it, self.kwarg):
            which = "keys"
        elif isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and self._is(it.func.value, self.kwarg) \
                and it.func.attr in ("keys", "values", "items") and not it.args and not it.keywords:
            which = it.func.attr
        jumps = any(isinstance(n, (ast.Break, ast.Continue)) for s in node.body for n in ast.walk(s))
        names = [node.target] if isinstance(node.target, ast.Name) else node.target.elts \
            if isinstance(node.target, ast.Tuple) and all(isinstance(e, ast.Name) for e in node.target.elts) else None
        if which is None or jumps or node.orelse or names is None or len(names) != (2 if which == "items" else 1) \
                or {n.id for n in names} & set().union(*(assigned_names(s) for s in node.body)):
            return self.generic_visit(node)
        out, top = [], self.top
        for key in self.keywords:
            values = {"keys": [ast.Constant(key)], "values": [self._var(key)],
                      "items": [ast.Constant(key), self._var(key)]}[which]
            body = [BindNames(dict(zip((n.id for n in names), values))).visit(copy.deepcopy(s)) for s in node.body]
            self.top = top
            out += self.statements([ast.fix_missing_locations(s) for s in body])
        return out or [ast.copy_location(ast.Pass(), node)]

    def visit_IfExp(self, node):
        node.test = self.visit(node.test)
        if isinstance(node.test, ast.Constant) and isinstance(node.test.value, bool):
            return self.visit(node.body if node.test.value else node.orelse)
        return self.generic_visit(node)

    def visit_Compare(self, node):
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and self._is(node.comparators[0], self.kwarg) and isinstance(node.left, ast.Constant):
            found = node.left.value in self.keywords
            return ast.copy_location(ast.Constant(found if isinstance(node.ops[0], ast.In) else not found), node)
        return self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "get" and self._is(f.value, self.kwarg) \
                and node.args and isinstance(node.args[0], ast.Constant) and not node.keywords:
            key = node.args[0].value
            if key in self.keywords:
                return ast.copy_location(self._var(key), node)
            return self.visit(node.args[1]) if len(node.args) > 1 else ast.copy_location(ast.Constant(None), node)
        if isinstance(f, ast.Attribute) and f.attr == "get" and self._is(f.value, self.kwarg) \
                and len(node.args) == 2 and not node.keywords and isinstance(node.args[0], ast.Name):
            # opts.get(name, d) of a name: the keyword whose key it equals, in the call's order, else d
            chosen = self.visit(node.args[1])
            for key in reversed(self.keywords):
                test = ast.Compare(ast.Name(node.args[0].id, ast.Load()), [ast.Eq()], [ast.Constant(key)])
                chosen = ast.IfExp(test, self._var(key), chosen)
            return ast.fix_missing_locations(ast.copy_location(chosen, node))
        if isinstance(f, ast.Name) and f.id == "len" and len(node.args) == 1 and self._is(node.args[0], self.vararg):
            return ast.copy_location(ast.Constant(len(self.positional)), node)
        viewed = self._view(node)
        if viewed is not None:
            return viewed
        keywords = []
        for k in node.keywords:
            if k.arg is None and self._is(k.value, self.kwarg):
                keywords += [ast.keyword(n, self._var(n)) for n in self.keywords]
            else:
                keywords.append(k)
        node.keywords = keywords
        node = self.generic_visit(node)
        args = []
        for arg in node.args:
            spread = literal_items(arg.value) if isinstance(arg, ast.Starred) else None
            args += spread if spread is not None else [arg]
        node.args = args
        return node


__all__ = ["bound_for_call", "bound_function", "plain_parameters", "takes_varargs"]
