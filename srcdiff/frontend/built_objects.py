"""User objects built in the function from computed values: ``Dense(W, b)(X)``.

An object a user class builds by storing its arguments (a dataclass, or an ``__init__`` made
of ``self.attr = <expression of its parameters>`` lines) is a tree whose leaves are local
variables: the statement that builds it is preceded by one assignment per attribute,

    return Dense(W, b)(X)            # class Dense: __init__(self, W, b, act=np.tanh): self.W = W ...
    dense_W = W
    dense_b = b
    return <Dense.__call__ given the tree {W: dense_W, b: dense_b, act: np.tanh}>(X)

and its methods, properties and ``__call__`` are read as for an object passed as an argument
(flatten.py).  ``super().__init__(...)`` adds what the next class's ``__init__`` stores, given
the call's arguments; an ``__init__`` inherited is read as the class's own.  Anything else in
``__init__`` (a call, a branch) is refused at the line that builds the object.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import types

from .parse import parse_function
from .tree_entries import Leaf, Node, Static
from .trees import LEAF, Ident, Struct, is_namedtuple_class, name_part


def init_attributes(cls) -> list[tuple[str, object]] | None:
    """``[(attr, expression over __init__'s parameters)]`` for a class that only stores values,
    or None.  For a dataclass the expression is its field's parameter name."""
    if dataclasses.is_dataclass(cls):
        fields = dataclasses.fields(cls)
        if hasattr(cls, "__post_init__") or not all(f.init for f in fields):
            return None
        return [(f.name, ast.Name(f.name, ast.Load())) for f in fields]
    if is_namedtuple_class(cls):  # its __new__ stores every field, in order
        return [(f, ast.Name(f, ast.Load())) for f in cls._fields]
    owners = _init_owners(cls)
    return _stored(owners[0], owners[1:]) if owners else None


def _init_owners(cls) -> list:
    """The classes of ``cls.__mro__`` that define ``__init__`` (object's excluded), in order."""
    return [k for k in cls.__mro__[:-1] if "__init__" in vars(k)]


def _stored(owner, later: list) -> list[tuple[str, object]] | None:
    """The attributes ``owner.__init__`` stores, in order, over its parameters: ``[(attr, expression)]``,
    where a local name of ``__init__`` is a step of its own (``(LOCAL + name, expression)``, later
    expressions read it by that key) and a read of an attribute stored before is a read of the key
    ``SELF + attr``; a ``super().__init__(...)`` line adds the steps of the next class's ``__init__``
    (`later`), given the call's arguments.  None for anything else (a branch, a call for its effect,
    a method of self)."""
    init = vars(owner)["__init__"]
    if not isinstance(init, types.FunctionType):
        return None
    tree = parse_function(init).tree
    if not tree.args.args or tree.args.vararg or tree.args.kwarg:
        return None
    me, found, stored, locals_ = tree.args.args[0].arg, [], set(), {}
    prefix = f"{LOCAL}{owner.__qualname__}."  # (an inherited __init__'s locals are its own)
    for stmt in tree.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) or isinstance(stmt, ast.Pass):
            continue
        if _super_init(stmt, me):
            call = _Steps(me, stored, locals_).read(copy.deepcopy(stmt.value))
            inherited = _inherited(call, later, me) if call is not None else None
            if inherited is None:
                return None
            found += inherited
            stored |= {a for a, _ in inherited if not a.startswith(LOCAL)}
            continue
        if not isinstance(stmt, ast.Assign):
            return None
        value = stmt.value
        for target in stmt.targets:  # ``self.x = self.y = 0.0``: each, the same value
            pairs = list(zip(target.elts, value.elts)) if isinstance(target, ast.Tuple) \
                and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts) else [(target, value)]
            if len(stmt.targets) > 1 and len(pairs) > 1:
                return None
            steps = []
            for t, v in pairs:  # (every value read before any is stored, as Python reads them)
                v = _Steps(me, stored, locals_).read(copy.deepcopy(v))
                if v is None or any(isinstance(n, ast.Name) and n.id == me for n in ast.walk(v)):
                    return None
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
                    steps.append((t.attr, v))
                elif isinstance(t, ast.Name) and t.id != me:
                    steps.append((prefix + t.id, v))
                else:
                    return None
            for key, v in steps:
                found.append((key, v))
                if key.startswith(LOCAL):
                    locals_[key[len(prefix):]] = key
                else:
                    stored.add(key)
    return found


#: the keys of `_stored`'s steps that are not attributes: a local name of ``__init__`` (LOCAL + its
#: class + "." + name), and a read of an attribute stored before (SELF + attr); neither is a name Python
#: could spell, so no parameter or global is taken for one
LOCAL, SELF = "<local>", "<self>."


class _Steps(ast.NodeTransformer):
    """An ``__init__`` line's value over the keys of `_stored`: ``self.a`` of an attribute stored
    before as ``SELF + a``, a local name as its key; None where it reads another attribute of self."""

    def __init__(self, me: str, stored: set, locals_: dict):
        self.me, self.stored, self.locals = me, stored, locals_

    bad = False

    def read(self, node: ast.expr) -> ast.expr | None:
        found = self.visit(node)
        return None if self.bad else found

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == self.me:
            if node.attr not in self.stored:
                self.bad = True
                return node
            return ast.copy_location(ast.Name(SELF + node.attr, ast.Load()), node)
        return self.generic_visit(node)

    def visit_Name(self, node):
        return ast.copy_location(ast.Name(self.locals[node.id], node.ctx), node) if node.id in self.locals else node


def _super_init(stmt: ast.stmt, me: str) -> bool:
    """Whether `stmt` is ``super().__init__(...)`` (or ``super(Cls, self).__init__(...)``)."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"):
        return False
    inner = call.func.value
    return isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "super" \
        and (not inner.args or len(inner.args) == 2 and getattr(inner.args[1], "id", None) == me)


def _inherited(call: ast.Call, later: list, me: str):
    """The attributes the next ``__init__`` stores, its parameters replaced by the expressions
    `call` passes (a default where none is passed), or None if that cannot be read so."""
    if not later:  # object.__init__: stores nothing, takes nothing
        return [] if not call.args and not call.keywords else None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    stored = _stored(later[0], later[1:])
    if stored is None or any(isinstance(n, ast.Name) and n.id == me for a in call.args + call.keywords
                             for n in ast.walk(a)):
        return None
    try:
        bound = inspect.signature(vars(later[0])["__init__"]).bind(None, *call.args,
                                                                     **{k.arg: k.value for k in call.keywords})
    except TypeError:
        return None
    given = {}
    for name, parameter in list(inspect.signature(vars(later[0])["__init__"]).parameters.items())[1:]:
        if name in bound.arguments:
            given[name] = bound.arguments[name]
        elif isinstance(parameter.default, (int, float, bool, str)) or parameter.default is None:
            given[name] = ast.Constant(parameter.default)
        else:
            return None
    return [(attr, _Put(given).visit(copy.deepcopy(expr))) for attr, expr in stored]


class _Put(ast.NodeTransformer):
    """Reads of a parameter as (a copy of) the expression passed for it."""

    def __init__(self, given: dict):
        self.given = given

    def visit_Name(self, node):
        return copy.deepcopy(self.given[node.id]) if node.id in self.given else node


class BuiltObjects:
    """A mixin of ExprRewriter: `built` is the list of assignments the statement being
    rewritten needs first (None where none can be put: a branch's or loop's header)."""

    built: list | None = None

    def computed_object(self, node: ast.Call, cls):
        """The tree of ``cls(...)`` built from the call's values, or None if `cls` does more
        than store them."""
        attributes = init_attributes(cls)
        if attributes is None:
            return None
        if self.built is None:
            raise self.error(node, f"{ast.unparse(node)} builds a {cls.__name__} in the header of a branch or "
                             "loop", f"build the {cls.__name__} in an assignment before this line")
        sig = inspect.signature(cls)
        starred = next((a for a in node.args if isinstance(a, ast.Starred)), None)
        if starred is not None:  # (star_calls.py spread the ones of a known length: a display in the function)
            raise self.error(node, f"cannot build a {cls.__name__} from {ast.unparse(starred)}: srcdiff spreads a * "
                             "argument only where its length is known when the function is transformed (a tuple "
                             "or list display written in the function)",
                             f"pass the items one by one ({ast.unparse(starred.value)}[0], "
                             f"{ast.unparse(starred.value)}[1], ...), or bind a tuple display to a name first")
        try:
            bound = sig.bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError as exc:
            raise self.error(node, f"cannot build a {cls.__name__} this way: {exc}") from None
        label = name_part(cls.__name__.lower())
        given = {}  # parameter -> entry
        for name, parameter in sig.parameters.items():
            if name in bound.arguments:
                given[name] = self.built_value(bound.arguments[name], f"{label}_{name}", node)
            elif parameter.default is not inspect.Parameter.empty:
                given[name] = self.default_value(parameter.default, f"{label}_{name}", node, cls)
        children, known = {}, dict(given)  # (known: a key of `_stored` -> its entry)
        for key, expr in attributes:
            local = key.startswith(LOCAL)
            names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
            reads = names & set(known)
            if isinstance(expr, ast.Name) and expr.id in known:
                found = known[expr.id]
            elif any(isinstance(known[r], Node) for r in reads):  # self.layers = list(layers): a tree
                found = self.tree_of(expr, {r: known[r] for r in reads}, node)
                if found is None or not self.same_names(names - reads, cls):
                    return None
            else:
                if any(not isinstance(known[r], Leaf) for r in reads) or not self.same_names(names - reads, cls):
                    return None
                value = _Substitute({r: known[r].name for r in reads}).visit(copy.deepcopy(expr))
                found = self.built_leaf(value, f"{label}_{key.rpartition('.')[2] if local else key}", node)
            known[key if local else SELF + key] = found
            if not local:
                children[key] = found
        kind = "namedtuple" if is_namedtuple_class(cls) else "object"
        struct = Struct(kind, tuple(children), tuple(_struct(e) for e in children.values()), cls)
        if kind == "namedtuple" or _frozen(cls):  # (immutable: Python refuses a write)
            return Node(struct, children, local=False, depth=self.depth)
        # a new object: a method may write its attributes (local_defs.py), its variables its own
        return self.owning(Node(struct, children, local=True, depth=self.depth))

    def replaced_entry(self, node: ast.Call) -> Node | None:
        """``p._replace(a=v)`` of a namedtuple tree (an argument's): a new tree, ``a`` the new value
        and every other field the one `p` holds; ``p._asdict()`` the dict of its fields (the same
        leaves); None for any other call."""
        if isinstance(node.func, ast.Attribute) and node.func.attr == "_asdict" and not node.args \
                and not node.keywords:
            owner = self.entry(node.func.value)
            if isinstance(owner, Node) and owner.struct.kind == "namedtuple":
                children = {f: owner.children[f] for f in owner.struct.keys}
                return Node(Struct("dict", tuple(children), tuple(_struct(c) for c in children.values())),
                            children, local=False, depth=self.depth)
        if not (isinstance(node.func, ast.Attribute) and node.func.attr == "_replace"):
            return None
        owner = self.entry(node.func.value)
        if not (isinstance(owner, Node) and owner.struct.kind == "namedtuple"):
            return None
        fields = owner.struct.keys
        if node.args or any(k.arg not in fields for k in node.keywords):
            raise self.error(node, f"{ast.unparse(node)} replaces no field of {owner.struct.describe()} (Python "
                             "raises)", f"name fields of {fields}")
        if self.built is None:
            raise self.error(node, f"{ast.unparse(node)} in the header of a branch or loop",
                             "replace the fields in an assignment before this line")
        children = dict(owner.children)
        for k in node.keywords:
            children[k.arg] = self.built_value(k.value, name_part(k.arg), node)
        struct = Struct("namedtuple", fields, tuple(_struct(children[f]) for f in fields), owner.struct.cls)
        return Node(struct, children, local=False, depth=self.depth)

    def same_names(self, names: set, cls) -> bool:
        """Whether the free names of an ``__init__`` line mean here what they mean there."""
        return all(parse_function(vars(owner)["__init__"]).resolve(n) is self.parsed.resolve(n)
                   for owner in _init_owners(cls) for n in names)

    def tree_of(self, expr: ast.expr, given: dict, where) -> Node | None:
        """The tree `expr` (a line of ``__init__``) makes, its names read as `given`'s entries (its
        leaves computed before the statement); None if it makes none."""
        saved, pending = dict(self.env), getattr(self, "pending", None)
        self.env.update(given)
        self.pending = self.built
        try:
            found = self.tree_value(copy.deepcopy(expr), where)
        finally:
            self.env, self.pending = saved, pending
        return found if isinstance(found, Node) else None

    def built_value(self, arg: ast.expr, base: str, where):
        """An argument of the constructor: a tree (another object built here, a parameter tree, a
        list of objects made here), a function it names (a Static), else a local variable."""
        if isinstance(arg, (ast.ListComp, ast.List, ast.Dict)):
            found = self.tree_of(arg, {}, where)  # Stack([Layer(W) for W in Ws])
            if found is not None:
                return found
        found = self.entry(arg)
        if isinstance(found, (Node, Static)):
            return found
        value = self.static_object(arg)
        if value is not None and callable(value) and not isinstance(value, type):
            return self.default_value(value, base, where, None)
        return self.built_leaf(self.expr(arg), base, where)

    def built_leaf(self, value: ast.expr, base: str, where) -> Leaf:
        name = self.names.fresh(base)
        self.built.append(ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), where))
        return Leaf(name)

    def default_value(self, value, base: str, where, cls):
        """A default (or a function passed): a number written in the code, or a closure cell."""
        if isinstance(value, (int, float, bool, str)) or value is None:
            return self.built_leaf(ast.Constant(value), base, where)
        if callable(value):
            name = self.names.fresh(base)
            self.cells[name] = types.CellType(value)
            return Static(name, value)
        raise self.error(where, f"{ast.unparse(where)}: {getattr(cls, '__name__', 'the class')} has a default "
                         f"{type(value).__name__} srcdiff cannot read as a constant",
                         "pass that argument explicitly")


def _frozen(cls) -> bool:
    """A class whose attributes Python does not set by plain assignment: a frozen dataclass, or one
    with its own ``__setattr__`` (a write is then left to be refused)."""
    params = getattr(cls, "__dataclass_params__", None)
    return bool(params is not None and params.frozen) or any("__setattr__" in vars(k) for k in cls.__mro__[:-1])


def _struct(entry) -> Struct:
    if isinstance(entry, Node):
        return entry.struct
    if isinstance(entry, Static):
        return Struct("static", cls=Ident(entry.obj))
    return LEAF


class _Substitute(ast.NodeTransformer):
    def __init__(self, names: dict):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(self.names[node.id], ast.Load()), node)
        return node


__all__ = ["BuiltObjects", "init_attributes"]
