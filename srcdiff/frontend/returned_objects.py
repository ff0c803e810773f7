"""A helper of the user's that returns a new object of a class the rewrite reads (a dataclass, a
namedtuple, a class whose ``__init__`` only stores its arguments), or a dict of constant keys
(``return {"w": X.T @ r, "b": np.mean(r)}``, the same keys at every return)::

    def step(s, dt):                                 s_q, s_p = q0, 2.0 * q0
        return State(s.q + dt * s.p, s.p - dt * s.q)  for _ in range(n):
                                                          s_q_1, s_p_1 = step(s_q, s_p, dt)
    s = State(q0, 2.0 * q0)                               s_q, s_p = s_q_1, s_p_1
    for _ in range(n):
        s = step(s, dt)

The helper is flattened (flatten.py) with its ``return State(...)`` written as the tuple of the
object's fields; the assignment in the caller unpacks that tuple into fresh variables, which
stand for a new object of the class (the loop then carries it: tuple_state.py).  The helper
stays a callee of its own, named in the caller's dependencies (frontend/depends.py): a
``step`` redefined later builds the gradient again.

Read so only as the value of an assignment (``s = step(s, dt)``), when every ``return`` of the
helper builds an object of one such class from arrays and numbers.  Any other helper (an object
holding a function or another tree, two classes returned) is read as before: a factory's object
given to its caller's code as a tree, or refused at its line.
"""

from __future__ import annotations

import ast
import inspect
import types

from .built_objects import init_attributes
from .callables import is_gradient_object
from .class_methods import bound_classmethod
from .depends import MISSING, class_dependency
from .global_objects import user_class
from .local_defs import built_dicts
from .naming import own_nodes
from .parse import parse_function
from .rewrites import user_function
from .tree_entries import Const, Leaf, Method, Node, call_key, leaf_entries
from .trees import LEAF, Struct, name_part

_OBJECTS = ("object", "namedtuple", "dict")


class NotFields(Exception):
    """A helper's return that is not a new object of arrays and numbers (or of another class than its
    other returns): the call is then read as it was before this rewrite."""


def object_class(func, operators: bool = False):
    """A class a ``return`` of user function `func` builds, if every return builds one the rewrite
    reads as a tree; else None.  With `operators` (a call given an object), a return of an operator
    (``return d * d``: an object's method, operator_objects.py) may build one too: True when every
    return is one of these and the flattened helper is to tell."""
    try:
        parsed = parse_function(func)
    except Exception:  # noqa: BLE001  not readable here: the call is left as written and lowering reports it
        return None
    found = None
    built = built_dicts(parsed.tree)
    for node in own_nodes(parsed.tree):
        if not isinstance(node, ast.Return):
            continue
        if operators and isinstance(node.value, (ast.BinOp, ast.UnaryOp)):
            found = found or True
            continue
        if isinstance(node.value, ast.Dict) and node.value.keys and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.value.keys):
            found = dict  # ``return {"w": gw, "b": gb}``: a dict of constant keys (the same at every return)
            continue
        if _dict_made(node.value, built):
            found = dict  # ``return d`` of ``d = {}; d["a"] = ...``, a comprehension: its keys known when read
            continue
        if isinstance(node.value, ast.Tuple) and any(_dict_made(e, built) for e in node.value.elts):
            found = tuple  # ``return parts, total``: a tuple holding such a dict
            continue
        cls = _resolved(parsed, node.value.func) if isinstance(node.value, ast.Call) else None
        if not isinstance(cls, type) or init_attributes(cls) is None:
            return None
        found = cls  # (two classes are refused at the helper's second return: object_return)
    return found


def _dict_made(value: ast.expr, built: set) -> bool:
    """``{k: ... for k in ...}``, ``dict(m=..., s=...)`` or a name the function built a dict in."""
    return isinstance(value, ast.DictComp) or isinstance(value, ast.Name) and value.id in built \
        or _keyword_dict(value)


def _keyword_dict(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" \
        and not value.args and bool(value.keywords) and all(k.arg is not None for k in value.keywords)


def _resolved(parsed, expr):
    """The class a free name refers to (a name, as the rewrite reads constructors), or None."""
    found = parsed.resolve(expr.id) if isinstance(expr, ast.Name) else None
    return None if found is MISSING else found


class ReturnedObjects:
    """A mixin of the statement rewriter (flatten_statements.py): the caller's side, `returned_object`,
    and the helper's side, `object_return`."""

    #: whether this function is a helper read for the object it returns (its returns become tuples)
    returns_object: bool = False
    #: the Struct of that object, once a return is read
    returned: Struct | None = None

    def returned_object(self, value, where):
        """``helper(...)`` of a helper returning a new object: the object's tree, its fields fresh
        variables unpacked from the flattened helper's tuple (added to `self.pending`); else None."""
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            made = self._classmethod(value)
            if made is not None:  # m = Model.build(w): the classmethod's ``cls`` bound (class_methods.py)
                return self._returned_by_helper(value, where, *made)
            return self._returned_by_method(value, where)
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id not in self.env):
            return None
        func = self.parsed.resolve(value.func.id)
        if is_gradient_object(func) and self.given_trees(value):  # g = dtl(p, x): the dict it builds
            # (gradient_trees.py)
            func = self.gradient_helper(value, func, assigned=True)
        elif not (isinstance(func, types.FunctionType) and user_function(func)):
            return None
        return self._returned_by_helper(value, where, func, [self.parsed_dependency(value.func.id, func)])

    def _classmethod(self, value: ast.Call):
        """``(function, dependencies)`` of ``Model.build(...)``, a classmethod of a user class named at
        module level, its ``cls`` bound; else None."""
        if not (isinstance(value.func.value, ast.Name) and value.func.value.id not in self.env):
            return None
        cls = self.parsed.resolve(value.func.value.id)
        found = inspect.getattr_static(cls, value.func.attr, None) if user_class(cls) else None
        if not (isinstance(found, classmethod) and isinstance(found.__func__, types.FunctionType)):
            return None
        made = bound_classmethod(found.__func__, cls)
        if made is None:
            return None
        deps = [self.parsed_dependency(value.func.value.id, cls), *class_dependency(cls, value.func.attr, found)]
        return made[0], deps + [d for a, v in made[1].items() for d in class_dependency(cls, a, v)]

    def _returned_by_helper(self, value, where, func, deps):
        if object_class(func) is None:  # return d * d of an object it is given (operator_objects.py)
            given = [self.entry(a) for a in value.args if isinstance(a, ast.Name) or self.may_hold_object(a)]
            objects = any(isinstance(e, Node) and e.struct.kind in ("object", "dataclass") for e in given)
            if not objects or object_class(func, operators=True) is None:
                return None
        try:
            call, flat = self.helper_call(value, func, [], {}, func.__name__, returns_object=True)
        except NotFields:
            return None  # (an object holding functions or trees: read as before, a callee's tree or refused)
        self.deps.extend(deps)  # a redefined helper: built again
        return self._unpacked(call, flat, where)

    def _returned_by_method(self, value: ast.Call, where):
        """``model.forward(x)`` of a method returning a dict it builds (of an object read as a tree): the
        dict's tree, as `returned_object` makes for a helper; else None."""
        owner = self.entry(value.func.value)
        if not (isinstance(owner, Node) and owner.struct.kind in ("object", "dataclass", "namedtuple")):
            return None  # (cfg.get(...) of a dict: tree_reads.py)
        target = self.entry(value.func)
        if not (isinstance(target, Method) and isinstance(target.func, types.FunctionType)
                and object_class(target.func) is dict):
            return None
        try:
            call, flat = self.helper_call(value, target.func, [target.owner], {}, target.name, returns_object=True)
        except NotFields:
            return None
        return self._unpacked(call, flat, where)

    def _unpacked(self, call, flat, where):
        """The tree `flat`'s returned tuple stands for, its fields fresh variables assigned from `call`."""
        made = []

        def local(node: Node) -> Node:
            node.local, node.depth = True, self.depth
            made.append(node)
            return node

        tree = _fresh_tree(flat.returns, self.names.fresh, self.target_base, local)
        store = ast.Tuple([ast.Name(c.name, ast.Store()) for c in leaf_entries(tree)], ast.Store())
        self.pending.append(ast.copy_location(ast.Assign([store], call), where))
        for node in made[:-1]:
            self.owning(node)  # (a dict inside a returned tuple: written by key as its own tree)
        return self.owning(tree)

    def returned_entry(self, value: ast.Call):
        """The tree a call read at once (``layer(p, x)["h"]``, ``dtl(p)["w"]``) returns: as
        `returned_object` makes for an assignment, its fields' variables assigned before the statement
        (each call once: `entry` asks again); None where no statement can go before it (a loop's test,
        a comprehension, a conditional expression) or for any other call."""
        if not isinstance(value, ast.Call):
            return None
        # (each call once: `entry` asks again; a call read again with other bindings of its names, as
        # in each item of an unrolled comprehension, is another call)
        key, kept = call_key(self.env, value)
        made = self.__dict__.setdefault("returned_calls", {})
        if key in made:
            return made[key][-1]
        if not self.reads_displays():
            return None
        saved = self.__dict__.get("pending"), self.__dict__.get("target_base")
        self.pending = self.built
        self.target_base = name_part(value.func.id) if isinstance(value.func, ast.Name) else "returned"
        try:
            found = self.returned_object(value, value)
        finally:
            self.pending, self.target_base = saved
        made[key] = (kept, found)
        return found

    def object_return(self, s: ast.Return) -> list:
        """``return State(...)`` of a helper read for its object: the tuple of the object's fields (after
        the statements computing a returned dict's values)."""
        before = []
        if isinstance(s.value, (ast.Dict, ast.DictComp, ast.Tuple)) or _keyword_dict(s.value):
            # ``return {"w": gw, "b": gb}``, ``return d, total``: its values computed first
            self.pending, self.target_base = [], "returned"
            found = self.tree_value(s.value, s)
            before = self.pending
        else:
            found = self.entry(s.value)
        if not (isinstance(found, Node) and found.struct.kind in _OBJECTS + ("tuple",) and found.children
                and (found.struct.kind != "tuple" or isinstance(s.value, ast.Tuple)) and _fields(found)):
            raise NotFields(s)
        struct = _struct(found)
        if self.returned is not None and self.returned != struct:
            raise NotFields(s)
        self.returned = struct
        items = [self.as_ast(c, s) for c in leaf_entries(found)]
        return before + [ast.copy_location(ast.Return(ast.Tuple(items, ast.Load())), s)]


def _fields(found: Node, depth: int = 0) -> bool:
    """Whether every entry of `found` is an array or number, or (below a returned tuple, one deep) a dict or
    object of them."""
    return all(isinstance(c, (Leaf, Const)) or depth == 0 and found.struct.kind == "tuple" and isinstance(c, Node)
               and c.struct.kind in _OBJECTS and c.children and _fields(c, 1) for c in found.children.values())


def _struct(found: Node) -> Struct:
    """The structure of a returned tree, its leaves (numbers written in the helper too) LEAF."""
    keys = tuple(found.children)
    return Struct(found.struct.kind, keys, tuple(_struct(c) if isinstance(c, Node) else LEAF
                                                 for c in found.children.values()), found.struct.cls)


def _fresh_tree(struct: Struct, fresh, base: str, local) -> Node | Leaf:
    """A tree of `struct` whose leaves are fresh variables named from `base`."""
    if struct.kind == "leaf":
        return Leaf(fresh(base))
    children = {k: _fresh_tree(c, fresh, f"{base}_{name_part(k)}", local) for k, c in zip(struct.keys, struct.children)}
    return local(Node(struct, children))


__all__ = ["NotFields", "ReturnedObjects", "object_class"]
