"""A function defined inside the differentiated one and given a parameter tree, written out where it
is called (a mixin of the tree rewriter, flatten_statements.py)::

    def grads(p):                                     p_1 = params            (the tree: its leaves)
        r = X @ p["w"] + p["b"] - y           ==>     r_1 = X @ params_w + params_b - y
        return {"w": X.T @ r, "b": np.mean(r)}        g = {"w": X.T @ r_1, "b": np.mean(r_1)}
    g = grads(params)

Lowering inlines a nested function at each call anyway (reading the enclosing names as they are
at the call, as Python's closure does); a tree has no value it could pass, so the tree rewrite
does it first, where it knows the tree: the parameters bound to the arguments (a tree by its
entry, a value by a new variable), the function's other names fresh, its body rewritten in place
just before the statement that calls it, and the call's value the value of its last ``return``.
Also where the body reads a tree of the enclosing function (``def loss(): return np.sum(params["w"]
** 2)``).  Only a plain function: positional parameters, a body ending in its one ``return`` (one
returning early in its ``if``s is first rewritten so: single_return.py), no
``nonlocal``/``global``/``yield``/nested function; a call inside a conditional part of a statement
(or in a loop's header) is left as written (and refused, as before).
"""

from __future__ import annotations

import ast
import copy
import inspect
import types

from .naming import Rename, assigned_names
from .parse import parse_function
from .single_return import single_return
from .tree_entries import Const, Leaf, Method, Node, call_key

TREE_DEFAULT = "<tree default "  # the start of the string a default that is a whole tree becomes (nested.py)

_FORBIDDEN = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Nonlocal, ast.Global, ast.FunctionDef,
              ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


class LocalDefs:
    """A mixin of the tree rewriter: `local_defs` maps a nested function's name to its ``def``."""

    def local_def_entry(self, node: ast.Call):
        """The entry of ``f(...)`` of a nested function given a tree (or reading one), or of
        ``obj.step(dt)`` of a method writing the attributes of an object built in the function, its
        body written into `self.built`; None for any other call."""
        found = self.__dict__.setdefault("inlined_calls", {}).get(call_key(self.env, node)[0])
        if found is not None:
            return found[-1]
        fdef, owner = self._written_function(node)
        return None if fdef is None else self.written_out(fdef, owner, node.args, node.keywords, node)

    def written_out(self, fdef: ast.FunctionDef, owner, args: list, keywords: list, node):
        """The entry of the value `fdef` (a nested function, or a method of `owner`'s class) returns for
        `args` and `keywords`, its body written into `self.built`; None when it cannot be written out."""
        made = self.__dict__.setdefault("inlined_calls", {})  # (each call written out once: entry() asks again)
        key, kept = call_key(self.env, node)  # (an item of an unrolled comprehension: another call)
        if key in made:
            return made[key][-1]
        if self.built is None or self.reads_scope_names(node):  # (sum(f(p, t) for t in ts): t is the generator's)
            return None
        a = fdef.args
        params = [p.arg for p in a.args]
        if owner is not None:
            params = params[1:]  # (self: the object's tree)
        if any(isinstance(v, ast.Starred) for v in args) or any(k.arg is None for k in keywords) \
                or len(args) > len(params):
            return None
        given = dict(zip(params, args))
        for k in keywords:
            if k.arg not in params or k.arg in given:
                return None
            given[k.arg] = k.value
        defaults = dict(zip(params[len(params) - len(a.defaults):], a.defaults))
        given.update((p, copy.deepcopy(defaults[p])) for p in params if p not in given and p in defaults)
        if set(given) != set(params):
            return None
        own = sorted({p.arg for p in a.args} | assigned_names(ast.Module(fdef.body, [])))
        rename = {n: self.names.fresh(n) for n in own}
        saved = getattr(self, "pending", None), getattr(self, "target_base", None)
        if owner is not None:
            self.env[rename[a.args[0].arg]] = owner
        statements = []
        for p in params:  # a constant read as one (an index: self.layers[i]); a tree bound, a value assigned
            known = self.constant(given[p])
            if known is not None:
                self.env[rename[p]] = Const(known)
                continue
            statements += self.stmt(_at(ast.Assign([ast.Name(rename[p], ast.Store())], given[p]), node))
        body = [Rename(rename).visit(copy.deepcopy(s)) for s in fdef.body]
        if owner is not None and fdef.lineno is None:  # (a method of another file: at the call's line)
            body = [_at(s, node) for s in body]
        last = body[-1] if body and isinstance(body[-1], ast.Return) else None
        for stmt in body[:-1] if last is not None else body:
            statements += self.stmt(stmt)
        value = last.value if last is not None and last.value is not None else ast.Constant(None)
        entry = self.entry(value) if not isinstance(value, ast.Constant) else Const(value.value)
        if not isinstance(entry, (Node, Const)):
            held = self.names.fresh(f"{fdef.name}_value")
            statements += self.stmt(_at(ast.Assign([ast.Name(held, ast.Store())], value), last or node))
            entry = self.env.get(held) or Leaf(held)  # (a dict it builds: a tree)
        self.pending, self.target_base = saved
        self.built.extend(statements)
        made[key] = (kept, entry)
        return entry

    def _written_function(self, node: ast.Call):
        """(the ``def`` to write out at `node`, the object its ``self`` is, or None), or (None, None)."""
        func = node.func
        if isinstance(func, ast.Name) and func.id not in self.env:
            fdef = self.__dict__.setdefault("local_defs", {}).get(func.id)
            if fdef is not None and not _plain(fdef, returns=True, defaults=False, named_defaults=True):
                fdef = single_return(fdef)  # (one returning early: its returns moved to its end)
            if fdef is None or not _plain(fdef, returns=True, defaults=False, named_defaults=True):
                return None, None
            dicts = any(isinstance(v, (ast.Dict, ast.DictComp)) for v in node.args + [k.value for k in node.keywords])
            # (a helper returning a dict it builds, ``return {"mean": m, "var": v}``: its dict is a tree too)
            return (fdef, None) if dicts or self.any_tree(node) or self._reads_trees(fdef) or returns_dict(fdef) \
                else (None, None)
        owner = self.entry(func.value) if isinstance(func, ast.Attribute) else None
        if not (isinstance(owner, Node) and owner.local and owner.struct.kind in ("object", "dataclass")):
            return None, None
        method = self.entry(func)
        fdef = self.method_def(method.func) if isinstance(method, Method) and method.owner.local else None
        if fdef is None or not (_plain(fdef, returns=False, defaults=True)
                                and _writes_self(fdef, method.owner.struct.cls, 3)):
            return None, None
        return fdef, method.owner

    def method_written_out(self, func, owner: Node, args: list, node):
        """`func` (a method of `owner`'s class, a dunder) written out, when its body reads a tree the
        object holds (``return self.layers[i]``, ``len(self.layers)``), which a helper given the object
        could not return; else None."""
        fdef = self.method_def(func)
        me = fdef.args.args[0].arg if fdef is not None and fdef.args.args else None
        reads = {n.attr for n in ast.walk(fdef) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                 and n.value.id == me} if me else set()
        if not any(isinstance(owner.children.get(r), Node) for r in reads) \
                or not _plain(fdef, returns=True, defaults=True):
            return None
        return self.written_out(fdef, owner, args, [], node)

    def setter_written(self, target, value: ast.expr, where) -> bool:
        """``m.scale = v`` of a property with a setter, on an object built in the function: the setter's body
        written out (``self`` the object, its parameter `v`); False for any other assignment."""
        base = self.entry(target.value) if isinstance(target, ast.Attribute) else None
        if not (isinstance(base, Node) and base.local and base.struct.kind in ("object", "dataclass")):
            return False
        found = inspect.getattr_static(base.struct.cls, target.attr, None)
        if not (isinstance(found, property) and isinstance(found.fset, types.FunctionType)):
            return False
        fdef = self.method_def(found.fset)
        if fdef is not None:
            fdef.decorator_list = []  # (``@scale.setter`` made the property: the body is the setter's)
        return fdef is not None and _plain(fdef, returns=False, defaults=True) \
            and self.written_out(fdef, base, [value], [], where) is not None

    def method_def(self, func) -> ast.FunctionDef | None:
        """A copy of the ``def`` of a method of the caller's module (a free name means the same to both),
        its lines the caller's file's; else None."""
        if not (isinstance(func, types.FunctionType) and func.__globals__ is self.parsed.globals
                and not func.__closure__):
            return None
        fdef = copy.deepcopy(parse_function(func).tree)
        if any(isinstance(n, ast.Name) and n.id in ("super", "__class__") for n in ast.walk(fdef)):
            return None  # (super() reads the method's own class: read as a method, super_calls.py)
        if func.__code__.co_filename != self.parsed.filename:
            for n in ast.walk(fdef):
                if hasattr(n, "lineno"):
                    n.lineno = None
        return fdef

    def remember_def(self, fdef: ast.FunctionDef) -> ast.FunctionDef:
        """Remember `fdef` (its calls given a tree are written out) and return the ``def`` lowering reads:
        a default reading a tree (``def g(u, k=k)`` of a dict ``k``, ``c=cfg["c"]``) is computed where the
        ``def`` runs, as Python does: a leaf read becomes its variable's, a whole tree a marker string lowering
        refuses at a call it has to inline (each call written out here binds the tree itself)."""
        self.__dict__.setdefault("local_defs", {})[fdef.name] = fdef
        defaults = [self._default_read(fdef, d) for d in fdef.args.defaults]
        if all(new is old for new, old in zip(defaults, fdef.args.defaults)):
            return fdef
        made = copy.copy(fdef)
        made.args = copy.copy(fdef.args)
        made.args.defaults = defaults
        return made

    def _default_read(self, fdef: ast.FunctionDef, default: ast.expr) -> ast.expr:
        if isinstance(default, ast.Constant) or not _plain_default(default):
            return default  # (a call or a display: lowering refuses it at the def)
        names = {n.id for n in ast.walk(default) if isinstance(n, ast.Name) and isinstance(self.env.get(n.id), Node)}
        if not names:
            return default
        later = _written_after(self.parsed.tree, fdef, names)
        if later is not None:
            name = next(n for n in sorted(names) if n in ast.unparse(later))
            raise self.error(later, f"{name} is changed after the `def {fdef.name}` whose default "
                             f"`{ast.unparse(default)}` reads it (Python computes the default once, when the "
                             "`def` runs), which srcdiff does not follow for a dict or other tree",
                             f"pass {ast.unparse(default)} to {fdef.name} at each call instead of as a default, "
                             f"or define {fdef.name} after this line")
        if isinstance(self.entry(default), Node):
            # (a string, so that the rewritten function still runs as Python: check executes it)
            return ast.copy_location(ast.Constant(f"{TREE_DEFAULT}{ast.unparse(default)}>"), default)
        return self.expr(default)

    def _reads_trees(self, fdef: ast.FunctionDef) -> bool:
        own = assigned_names(ast.Module(fdef.body, [])) | {p.arg for p in fdef.args.args}
        defaults = [n for d in fdef.args.defaults for n in ast.walk(d)]  # (read in the enclosing scope)
        return any(isinstance(n, ast.Name) and n.id not in own and isinstance(self.env.get(n.id), Node)
                   for n in ast.walk(ast.Module(fdef.body, []))) \
            or any(isinstance(n, ast.Name) and isinstance(self.env.get(n.id), Node) for n in defaults)


def _plain(fdef: ast.FunctionDef, returns: bool, defaults: bool, named_defaults: bool = False) -> bool:
    """Positional parameters (with constant defaults, if `defaults`; defaults read from names of the
    enclosing function too, if `named_defaults`), no decorator, one ``return`` at the end (with a value, if
    `returns`), nothing in the body that makes a scope or leaves it early."""
    a = fdef.args
    body = fdef.body
    allowed = _plain_default if named_defaults else (lambda d: defaults and isinstance(d, ast.Constant))
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or fdef.decorator_list or not body \
            or not all(map(allowed, a.defaults)):
        return False
    last = body[-1] if isinstance(body[-1], ast.Return) else None
    if returns and (last is None or last.value is None):
        return False
    if any(isinstance(n, _FORBIDDEN) for s in (body[:-1] if last is not None else body) for n in ast.walk(s)):
        return False
    return last is None or last.value is None or not any(isinstance(n, _FORBIDDEN[1:])
                                                         for n in ast.walk(last.value))


def returns_dict(fdef: ast.FunctionDef) -> bool:
    """Whether plain `fdef` returns a dict it builds: ``return {...}``, ``return {k: ... for k in ...}`` or
    ``return d`` of a name its body assigns a dict display, ``dict()`` or a dict comprehension (a tuple
    holding one too)."""
    value = fdef.body[-1].value
    parts = value.elts if isinstance(value, ast.Tuple) else [value]
    made = built_dicts(fdef)
    return any(_dict_display(v) or isinstance(v, ast.Name) and v.id in made for v in parts)


def built_dicts(fdef: ast.FunctionDef) -> set:
    """The names `fdef`'s own statements (not those of a loop or branch) assign a dict display, ``dict()`` or
    a dict comprehension."""
    return {t.id for s in fdef.body if isinstance(s, ast.Assign) and _dict_display(s.value)
            for t in s.targets if isinstance(t, ast.Name)}


def _dict_display(expr: ast.expr) -> bool:
    return isinstance(expr, (ast.Dict, ast.DictComp)) or isinstance(expr, ast.Call) and isinstance(
        expr.func, ast.Name) and expr.func.id == "dict" and not expr.args


def _plain_default(expr: ast.expr) -> bool:
    """A default of names, attributes, items and arithmetic (``k=k``, ``c=cfg["c"] * 2``): no call, no display."""
    allowed = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.BinOp, ast.UnaryOp, ast.Tuple,
               ast.Load, ast.operator, ast.unaryop)
    return all(isinstance(n, allowed) for n in ast.walk(expr))


def _written_after(tree: ast.AST, fdef: ast.FunctionDef, names: set) -> ast.AST | None:
    """The first statement after `fdef` that rebinds one of `names`, writes an item or attribute of it, or
    calls a method of it (``k.update(...)``); None if none does."""
    end = fdef.end_lineno or fdef.lineno
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno > end),
                       key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While,
                             ast.With, ast.Try)):
            targets = [node.target] if isinstance(node, ast.For) else []  # (a block's body: its own statements)
        else:
            targets = [node]
        for n in (inner for t in targets for inner in ast.walk(t)):
            root = n
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            if not (isinstance(root, ast.Name) and root.id in names):
                continue
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) \
                    or isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, (ast.Store, ast.Del)) \
                    or isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.value is root:
                return node
    return None


def writes_attributes(cls) -> bool:
    """Whether a method of user class `cls` (``__init__`` apart) assigns an attribute of its ``self``:
    an object of it built in the function is state its methods change (read as variables, not constants)."""
    for owner in cls.__mro__[:-1]:
        for name, found in vars(owner).items():
            if name != "__init__" and isinstance(found, types.FunctionType):
                try:
                    tree = parse_function(found).tree
                except Exception:  # noqa: BLE001  (no source: nothing written out)
                    continue
                if _writes_self(tree, cls, 0):
                    return True
    return False


def _writes_self(fdef: ast.FunctionDef, cls, depth: int) -> bool:
    """Whether a method assigns an attribute of its ``self`` (or calls one of the class's methods
    that does, `depth` deep)."""
    me = fdef.args.args[0].arg if fdef.args.args else None
    for n in ast.walk(ast.Module(fdef.body, [])):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AugAssign) else []
        if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me
               for target in targets for t in ast.walk(target)):
            return True
        if depth and isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == me:
            other = inspect.getattr_static(cls, n.func.attr, None) if isinstance(cls, type) else None
            if isinstance(other, types.FunctionType):
                try:
                    inner = parse_function(other).tree
                except Exception:  # noqa: BLE001  (no source: not written out, refused as before)
                    continue
                if _writes_self(inner, cls, depth - 1):
                    return True
    return False


def _at(stmt: ast.stmt, where: ast.AST) -> ast.stmt:
    for n in ast.walk(stmt):
        if getattr(n, "lineno", None) is None and isinstance(n, (ast.expr, ast.stmt)):
            ast.copy_location(n, where)
    return stmt


__all__ = ["TREE_DEFAULT", "LocalDefs", "built_dicts", "returns_dict", "writes_attributes"]
