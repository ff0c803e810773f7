"""What a factory of the user's is (a function whose body makes a function and returns it), and
how its names become the caller's when closure_factories.py writes a call of it out: its
parameters bound to the call's arguments, its other names fresh, its globals checked to mean the
same to the caller, its lines counted as the caller's."""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
import textwrap
import types
from dataclasses import dataclass

from ..ir import memo
from .depends import MISSING, is_simple
from .naming import names_in

_FORBIDDEN = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal, ast.ClassDef,
              ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Factory:
    """A factory's `def` (lines as in its file) and the name of the function it returns (None: a lambda)."""

    fdef: ast.FunctionDef
    made: str | None


_FACTORIES: dict = memo.table()  # code -> Factory, or None when the function is no such factory


def factory(func) -> Factory | None:
    """`func`'s `Factory` if it is a factory of the shape the module's doc names, else None."""
    if not isinstance(func, types.FunctionType) or func.__code__.co_flags & (inspect.CO_GENERATOR
                                                                             | inspect.CO_COROUTINE):
        return None
    code = func.__code__
    if code not in _FACTORIES:
        _FACTORIES[code] = _read(func)
    return _FACTORIES[code]


def source_def(func) -> ast.FunctionDef | None:
    """The ``def`` of user function `func` as written (not desugared), its lines the file's; None if its
    source cannot be read."""
    try:
        lines, first = inspect.getsourcelines(func.__code__)
        module = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    fdef = module.body[0] if module.body else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != func.__code__.co_name:
        return None
    ast.increment_lineno(fdef, first - 1)
    return fdef


def _read(func) -> Factory | None:
    fdef = source_def(func)
    if fdef is None or fdef.decorator_list or fdef.args.kwarg or not fdef.body:
        return None
    *body, last = [s for s in fdef.body if not docstring(s)] or [None]
    if not isinstance(last, ast.Return) or last.value is None:
        return None
    defined = [s.name for s in body if isinstance(s, ast.FunctionDef)]
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef):
            if stmt.decorator_list:
                return None
            continue
        if any(isinstance(n, _FORBIDDEN + (ast.FunctionDef,)) for n in _own_nodes(stmt)):
            return None
    if isinstance(last.value, ast.Lambda):
        return Factory(fdef, None)
    made = last.value.id if isinstance(last.value, ast.Name) else None
    if made is None or defined.count(made) != 1 or any(
            isinstance(n, ast.Name) and n.id == made and isinstance(n.ctx, ast.Store) for s in body
            for n in ast.walk(s)):
        return None
    return Factory(fdef, made)


def _own_nodes(node: ast.AST):
    """`node` and the nodes inside it, nested functions and lambdas not entered."""
    todo = [node]
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.Lambda, ast.FunctionDef)):
            todo.extend(ast.iter_child_nodes(node))


def docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def bound_arguments(fdef: ast.FunctionDef, func, call: ast.Call) -> dict | None:
    """The factory's parameters -> the expressions the call gives them (a default written as a
    constant); None where Python would raise, or a default is not a constant."""
    a = fdef.args
    positional = [p.arg for p in a.posonlyargs + a.args]
    if len(call.args) > len(positional) and not a.vararg:
        return None
    bound = dict(zip(positional, call.args))
    if a.vararg:  # ``def make_poly(*cs)``: the tuple of the other arguments
        bound[a.vararg.arg] = ast.Tuple(call.args[len(positional):], ast.Load())
    for k in call.keywords:
        if k.arg in bound or k.arg not in positional[len(a.posonlyargs):] + [p.arg for p in a.kwonlyargs]:
            return None
        bound[k.arg] = k.value
    defaults = dict(zip(positional[len(positional) - len(func.__defaults__ or ()):], func.__defaults__ or ()))
    defaults.update(func.__kwdefaults__ or {})
    for param in positional + [p.arg for p in a.kwonlyargs]:
        if param not in bound:
            if param not in defaults or not is_simple(defaults[param]):
                return None
            bound[param] = _constant(defaults[param])
    return bound


def written_names(fdef: ast.FunctionDef, bound: dict, level: dict, names, where, direct) -> tuple[list, dict]:
    """How a function's body written out where it is called names things: the statements binding its
    parameters (`bound`: parameter -> the call's expression; one `direct(param, value)` accepts is read as it
    is, any other assigned once to a fresh name, where Python binds it, at `where`'s line) and the renaming
    of its names (its other locals, `level`'s, fresh).  `fdef`'s names are taken, so no fresh name is one
    the body reads as a global."""
    names.namer.taken |= names_in(fdef)
    rename, before = {}, []
    for param, value in bound.items():
        if direct(param, value):
            rename[param] = value
            continue
        held = names.namer.fresh(param)
        before.append(ast.copy_location(ast.Assign([ast.copy_location(ast.Name(held, ast.Store()), where)], value),
                                        where))
        rename[param] = ast.Name(held, ast.Load())
    for local in sorted(level["locals"]):
        rename[local] = ast.Name(names.namer.fresh(local), ast.Load())
    return before, rename


def _constant(value) -> ast.expr:
    if isinstance(value, tuple):
        return ast.Tuple([_constant(v) for v in value], ast.Load())
    return ast.Constant(value)


def constant_expr(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) or isinstance(value, ast.Tuple) and all(map(constant_expr, value.elts))


def module_name(value: ast.expr, names) -> bool:
    """A name (or module attribute) of the caller's module: never assigned by the caller."""
    return isinstance(value, (ast.Name, ast.Attribute)) and names.resolve(value) is not MISSING


def factory_names(fdef: ast.FunctionDef) -> dict:
    """The names of the factory's own scope: ``stored`` (assigned by its body), ``locals`` (those
    and the functions it defines, not its parameters) and ``free`` (the globals it, or a function
    it defines, reads)."""
    params = {p.arg for p in ast.walk(fdef.args) if isinstance(p, ast.arg)}
    stored, defined = set(), set()
    for stmt in fdef.body:
        if isinstance(stmt, ast.FunctionDef):
            defined.add(stmt.name)
        else:
            stored |= {n.id for n in _own_nodes(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    free = set()
    _FreeReads(params | stored | defined, free).visit(ast.Module(list(fdef.body), []))
    return {"stored": stored, "locals": (stored | defined) - params, "free": free}


class _FreeReads(ast.NodeVisitor):
    """The names read that no enclosing scope (the factory's, a nested function's) binds."""

    def __init__(self, bound: set, found: set):
        self.bound, self.found = bound, found

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id not in self.bound:
            self.found.add(node.id)

    def _scope(self, node, own: set):
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(default)
        inner = _FreeReads(self.bound | own, self.found)
        for part in (node.body if isinstance(node.body, list) else [node.body]):
            inner.visit(part)

    def visit_FunctionDef(self, node):
        self._scope(node, scope_names(node))

    def visit_Lambda(self, node):
        self._scope(node, scope_names(node))


def scope_names(node) -> set:
    """The names a nested function or lambda binds itself (parameters, assignments)."""
    own = {p.arg for p in ast.walk(node.args) if isinstance(p, ast.arg)}
    if isinstance(node, ast.FunctionDef):
        own |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    return own


def same_globals(func, free: set, names) -> bool:
    """Whether every global the factory reads is the same object to the caller."""
    closure = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    for name in free:
        if name in closure:
            try:
                theirs = closure[name].cell_contents
            except ValueError:
                return False
        else:
            theirs = func.__globals__.get(name, getattr(builtins, name, MISSING))
        if theirs is MISSING or names.resolve(ast.Name(name, ast.Load())) is not theirs:
            return False
    return True


class FactoryRename(ast.NodeTransformer):
    """The factory's own names as the caller's (`rename`: name -> expression); inside a nested
    function or lambda, the names it binds itself are left alone."""

    def __init__(self, rename: dict):
        self.rename = rename

    def visit_Name(self, node: ast.Name):
        value = self.rename.get(node.id)
        if value is None:
            return node
        if isinstance(node.ctx, ast.Load):
            return ast.copy_location(copy.deepcopy(value), node)
        return ast.copy_location(ast.Name(value.id, node.ctx), node)

    def _scope(self, node):
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        saved, own = self.rename, scope_names(node)
        self.rename = {k: v for k, v in saved.items() if k not in own}
        if isinstance(node.body, list):
            node.body = [self.visit(s) for s in node.body]
        else:
            node.body = self.visit(node.body)
        self.rename = saved
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef):
        if node.name in self.rename:
            node.name = self.rename[node.name].id
        return self._scope(node)

    visit_Lambda = _scope


def place(fdef: ast.AST, stmt: ast.AST, func, names, tree: ast.FunctionDef) -> None:
    """The factory's lines counted as the caller's tree counts them (parse.py moves them to the
    file's lines) when it is in the caller's file; else every line the line of the call."""
    caller = names.func.__code__
    shift = caller.co_firstlineno - min([tree.lineno] + [d.lineno for d in tree.decorator_list])
    same_file = func.__code__.co_filename == caller.co_filename
    for node in ast.walk(fdef):
        if getattr(node, "lineno", None) is None:
            continue
        if same_file:
            node.lineno -= shift
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno -= shift
        else:
            ast.copy_location(node, stmt)


__all__ = ["Factory", "FactoryRename", "bound_arguments", "constant_expr", "docstring", "factory", "factory_names",
           "module_name", "place", "same_globals", "scope_names", "source_def", "written_names"]
