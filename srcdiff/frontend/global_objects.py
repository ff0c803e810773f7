"""User objects the function reads by a free name or builds from constants, as trees.

``MODEL(w, X)`` / ``MODEL.energy(x)`` of a module-level object, and ``Model(2.0).energy(x)``
of one built from constants, are read like an object passed as an argument (flatten.py):
``model.energy(x)`` is ``Model.energy`` given the model's tree, ``model(x)`` its ``__call__``.
The object's numbers and arrays are constants of the function (never differentiated), held
in closure cells: an array is read when the function runs (a change in place is seen), and
the transform depends on each attribute keeping its object (rebinding ``MODEL.k`` builds it
again).  An object built in the function must be built the same way each time (its
``__init__`` is run twice when the function is rewritten, and the two compared).
"""

from __future__ import annotations

import ast
import enum
import inspect
import sys
import types

import numpy as np

from . import depends, trees
from .built_objects import BuiltObjects
from .class_methods import bound_classmethod
from .config_dicts import Snapshot, config_dict, frozen, used_whole
from .factories import factory_function
from .local_defs import writes_attributes
from .naming import assigned_names
from .parse import parse_function
from .tree_entries import Bad, Const, Leaf, Node, Static

_LIBRARY = {"numpy", "scipy", "pandas", "builtins", "torch", "jax", "dask", "xarray", "sympy", "srcdiff", "abc"}


def user_class(value) -> bool:
    """A class defined by the user (not a library's, not the standard library's, not an
    installed package's)."""
    if not isinstance(value, type):
        return False
    root = (value.__module__ or "").split(".")[0]
    if root in _LIBRARY or root in sys.stdlib_module_names:
        return False
    path = getattr(sys.modules.get(root), "__file__", None) or ""  # an installed package's (numba's) is not
    return "site-packages" not in path and "dist-packages" not in path


def user_object(value) -> bool:
    """An instance of a user class whose attributes form a tree (``MODEL = Model(1.7)``)."""
    return trees.is_object(value) and user_class(type(value))


def global_object(value) -> bool:
    """A module-level object read as a tree of constants: a user object, a namedtuple of a user class
    (``RATES = Rates(0.3, 1.2)``) or a ``types.SimpleNamespace`` (``HP = SimpleNamespace(lr=0.1)``)."""
    return user_object(value) or isinstance(value, types.SimpleNamespace) and trees.is_object(value) \
        or trees.is_namedtuple(value) and user_class(type(value))


def reads_objects(func, free: list) -> bool:
    """Whether `func` (whose free names hold `free`) reads a user object by a free name, calls a user
    class, or uses a module config dict whole (the rewrite makes all three trees)."""
    if any(global_object(v) or isinstance(v, types.MethodType) and user_object(v.__self__) for _, v in free):
        return True  # MODEL, or loss = model.loss
    classes = {n for n, v in free if user_class(v)}
    configs = [(n, v) for n, v in free if config_dict(v)]
    if not classes and not configs:
        return False
    try:
        tree = parse_function(func).tree
    except Exception:  # noqa: BLE001  not readable here: lowering reports it
        return False
    if any(used_whole(tree, n, v) for n, v in configs):
        return True
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in classes
               or _factory_call(n, dict(free)) or held_object(n, dict(free)) is not None for n in ast.walk(tree))


def held_object(node, free: dict):
    """``Outer.inner`` of a user class holding a module-level object (global_object) as a class
    attribute: (the class that holds it, the object), else None."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
        return None
    cls = free.get(node.value.id)
    owner = next((k for k in cls.__mro__ if node.attr in vars(k)), None) if user_class(cls) else None
    value = vars(owner)[node.attr] if owner is not None else None
    return (owner, value) if global_object(value) else None


def _factory_call(node, free: dict) -> bool:
    """``Scaler.fit(X)``: a call of a factory classmethod or staticmethod (factories.py), or of any
    classmethod (``Model.from_params(p)``: the object it returns, returned_objects.py)."""
    func = node.func if isinstance(node, ast.Call) else None
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return False
    cls = free.get(node.func.value.id)
    return user_class(cls) and (factory_function(cls, node.func.attr) is not None
                                or isinstance(inspect.getattr_static(cls, node.func.attr, None), classmethod))


def tree_default(value) -> bool:
    """A default value read as a tree of constants: a user object, a namedtuple of a user class,
    or a dict keyed by strings or by tuples of keys (``cfg={"l1": 0.1}``, spread as ``**cfg`` or read as
    ``cfg["l1"]``; ``springs={(0, 1): 1.0}``, looped over by its items)."""
    return user_object(value) or isinstance(value, tuple) and hasattr(type(value), "_fields") \
        and user_class(type(value)) or type(value) is dict and bool(value) and all(
            (isinstance(k, str) or isinstance(k, tuple) and trees.tree_key(k))
            and isinstance(v, (int, float, str, np.ndarray)) for k, v in value.items())


class Items:
    """A list as a dependency's scope: ``get(i)`` is its item ``i`` (depends.Dependency)."""

    def __init__(self, items):
        self.items = items

    def get(self, key, default=None):
        return self.items[key] if 0 <= key < len(self.items) else default


class AttributeNames:
    """An object's attribute names as a dependency's scope (``get("names")``): an attribute set on a
    module-level instance later (``KI.a = 7.0`` where ``K.a`` was read through it) builds again."""

    def __init__(self, obj):
        self.obj = obj

    def get(self, key, default=None):
        return tuple(vars(self.obj)) if key == "names" else default


class SlotValues:
    """The ``__slots__`` attributes of an object as a dependency's scope (``get(name)``): ``SLOTS.w = ...``
    after a first call builds again, as an attribute of an object's ``__dict__`` does."""

    def __init__(self, obj):
        self.obj = obj

    def get(self, key, default=None):
        return getattr(self.obj, key, default)


class Computed:
    """An object's attributes as its ``__getattr__`` computes them, a dependency's scope (``get(name)``)."""

    def __init__(self, obj):
        self.obj = obj

    def get(self, key, default=None):
        try:
            return getattr(self.obj, key)
        except Exception:  # noqa: BLE001  (raising now: not what the gradient was built from)
            return default


class GlobalObjects(BuiltObjects):
    """A mixin of ExprRewriter (flatten_exprs.py): `parsed`, `names`, `cells`, `deps`, `env`,
    `error`, `constant` come from it."""

    def class_attribute(self, node: ast.Attribute, cls, attr: str, value):
        """``self.scale`` of a class attribute: read like a global the transform depends on
        (a number is a constant of the code; rebinding it builds the code again)."""
        self.deps.extend(depends.class_dependency(cls, attr, value))
        if depends.is_simple(value):
            return Const(value)
        if isinstance(value, np.ndarray) or isinstance(value, (float, int)):
            return self.inject(value, attr)
        made = bound_classmethod(value.__func__, cls) if isinstance(value, classmethod) \
            and isinstance(value.__func__, types.FunctionType) else None
        if made is not None:  # model.smooth(x) of a classmethod: the method, its ``cls`` bound (class_methods.py)
            self.deps.extend(d for a, v in made[1].items() for d in depends.class_dependency(cls, a, v))
            return self.inject(made[0], attr)
        raise self.error(node, f"{ast.unparse(node)} is a class attribute holding a {type(value).__name__}, "
                         "which srcdiff cannot read as a value",
                         f"read a number or an array; call a method on its class ({cls.__name__}.{attr}(...))")

    def static_object(self, node):
        """The module-level object `node` names (``functools.partial``, ``helper``), or None."""
        if isinstance(node, ast.Name) and node.id not in self.env:
            found = self.parsed.resolve(node.id)
            return None if found is depends.MISSING else found
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id not in self.env:
            module = self.parsed.resolve(node.value.id)
            return getattr(module, node.attr, None) if isinstance(module, types.ModuleType) else None
        return None

    def global_entry(self, node: ast.Name):
        """The tree of the user object a free name holds, or None."""
        found = getattr(self, "_objects", None)
        if found is None:
            tree = self.parsed.tree
            found = self._objects = {"<locals>": assigned_names(tree) | {a.arg for a in ast.walk(tree.args)
                                                                          if isinstance(a, ast.arg)}}
        if node.id in found:
            return found[node.id]
        if node.id in found["<locals>"]:
            return None
        value = self.parsed.resolve(node.id)
        config = not global_object(value) and used_whole(self.parsed.tree, node.id, value)
        if not global_object(value) and not config:
            return None
        self.deps.append(depends.Dependency(self.parsed.closure.get(node.id) or self.parsed.globals, node.id, value))
        if config:  # CFG of dicts used whole (config_dicts.py): changed in place, built again
            self.deps.append(depends.Dependency(Snapshot(value), "items", frozen(value)))
        entry = found[node.id] = self.object_tree(value, node.id, object_struct(value), None, None)
        return entry

    def dynamic_attribute(self, node: ast.Attribute):
        """``OPTS.scale`` of a module-level object whose class computes the attributes it lacks in a Python
        ``__getattr__`` (a dict read by attribute, a namespace of its own): the value it gives, read as the
        object's other attributes are (a number a constant, an array a cell), asked again at every call (a
        changed value builds again); None for any other attribute."""
        if not isinstance(node.value, ast.Name) or node.value.id in self.env:
            return None
        owner = self.parsed.resolve(node.value.id)
        hook = inspect.getattr_static(type(owner), "__getattr__", None)
        if not (global_object(owner) and isinstance(hook, types.FunctionType)) \
                or inspect.getattr_static(owner, node.attr, None) is not None:
            return None
        try:
            value = getattr(owner, node.attr)
        except Exception as exc:  # noqa: BLE001  the user's __getattr__: reported at the line, as Python would raise
            raise self.error(node, f"{ast.unparse(node)} raised {type(exc).__name__}: {exc}") from None
        self.deps.extend(depends.class_dependency(type(owner), "__getattr__", hook))  # (its code replaced)
        return self.object_tree(value, f"{node.value.id}_{node.attr}", object_struct(value), Computed(owner), node.attr)

    def class_held_entry(self, node: ast.Attribute):
        """The tree of the object a user class holds as a class attribute (``Outer.inner``), or None."""
        if not isinstance(node.value, ast.Name) or node.value.id in self.env:
            return None
        found = held_object(node, {node.value.id: self.parsed.resolve(node.value.id)})
        if found is None:
            return None
        self.deps.append(depends.Dependency(self.parsed.closure.get(node.value.id) or self.parsed.globals,
                                            node.value.id, self.parsed.resolve(node.value.id)))
        owner, value = found
        self.deps.extend(depends.class_dependency(self.parsed.resolve(node.value.id), node.attr, value)[:-1])
        return self.object_tree(value, f"{node.value.id}_{node.attr}", object_struct(value), vars(owner), node.attr)

    def constructed_entry(self, node: ast.Call):
        """``Model(2.0)`` of a user class with constant arguments: the object's tree, or None."""
        func = node.func
        if not isinstance(func, ast.Name) or func.id in self.env or self.global_entry(func) is not None:
            return None
        cls = self.parsed.resolve(func.id)
        if not user_class(cls) or issubclass(cls, enum.Enum) or func.id in self._objects["<locals>"]:
            return None  # (Act(name) looks a member up: a value with no gradient, lowering's)
        try:
            if writes_attributes(cls) or trees.is_namedtuple_class(cls):  # state its methods change, or a
                raise ValueError(cls)  # namedtuple (rebuilt by _replace): variables, as from computed values
            args = [ast.literal_eval(a) for a in node.args]
            keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        except ValueError:
            built = self.computed_object(node, cls)  # Dense(W, b): its attributes are the values (built_objects.py)
            if built is not None:
                self.deps.append(depends.Dependency(self.parsed.closure.get(func.id) or self.parsed.globals,
                                                    func.id, cls))
                return built
            raise self.error(node, f"{ast.unparse(node)} builds a {cls.__name__} from values computed in the "
                             "function, and its __init__ does more than store them: srcdiff reads objects "
                             "whose attributes are constants, or that only store their arguments",
                             f"build the {cls.__name__} outside and pass it as an argument") from None
        if None in keywords:
            return None
        try:
            made, again = cls(*args, **keywords), cls(*args, **keywords)
        except Exception as exc:  # noqa: BLE001  the user's constructor: reported at the line
            raise self.error(node, f"{ast.unparse(node)} raised {type(exc).__name__}: {exc}") from None
        if not user_object(made) or object_struct(made) != object_struct(again) or not _same_leaves(made, again):
            raise self.error(node, f"{ast.unparse(node)} builds a different {cls.__name__} each time (or one "
                             "srcdiff cannot read as a tree), so srcdiff cannot read it as a constant",
                             f"build the {cls.__name__} outside and pass it as an argument")
        self.deps.append(depends.Dependency(self.parsed.closure.get(func.id) or self.parsed.globals, func.id, cls))
        return self.object_tree(made, cls.__name__.lower(), object_struct(made), None, None)

    def bound_method_call(self, node: ast.Call, method, prefix: list, keywords: dict):
        """``loss(x)`` of ``loss = model.loss`` (a bound method held by a free name): the method's
        function given the user object's tree as ``self``."""
        owner, func = method.__self__, method.__func__
        if not (user_object(owner) and isinstance(func, types.FunctionType)):
            raise self.error(node, f"calling the method {ast.unparse(node.func)} of an object srcdiff does not "
                             "know is not supported", "pass the object as an argument and call obj.method(...)")
        entry = self.object_tree(owner, type(owner).__name__.lower(), object_struct(owner), None, None)
        return self.helper_call(node, func, [entry, *prefix], keywords, func.__name__)

    def default_trees(self, func, positional: int, given: dict) -> dict:
        """The parameters of a helper a call leaves to their defaults that are user objects or
        namedtuples (``cfg=TrainConfig()``, ``hp=SGD_DEFAULTS``): passed as the trees of those
        objects (their numbers constants), as a call of the differentiated function binds them."""
        found = {}
        for k, p in enumerate(inspect.signature(func).parameters.values()):
            default = p.default
            if k < positional or p.name in given or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if tree_default(default):
                found[p.name] = ("entry", self.object_tree(default, p.name, object_struct(default), None, None))
        return found

    def object_tree(self, value, label: str, struct: trees.Struct, scope, key):
        """`value` (of structure `struct`, held as `key` in `scope`) as an entry whose leaves are
        closure cells the transform depends on."""
        if scope is not None:
            self.deps.append(depends.Dependency(scope, key, value))
        if struct.kind in ("leaf", "data") and type(value) in (int, float, bool):
            return Const(value)  # a number: written in the code (numba's too), the dependency above re-checked
        if struct.kind in ("leaf", "data"):
            name = self.names.fresh(trees.name_part(label))
            self.cells[name] = types.CellType(value)
            return Leaf(name)
        if struct.kind == "static" or _numbers(value, struct):  # (a tuple of numbers: a constant read whole,
            name = self.names.fresh(trees.name_part(label))  # as a module tuple is: weights[i] of a loop's i)
            self.cells[name] = types.CellType(value)
            return Static(name, value)
        if not struct.is_container:
            return Bad(f"{label} holds a {type(value).__name__}, which srcdiff cannot read as a constant")
        inner = value if struct.kind in ("dict",) else Items(value) if struct.kind == "list" \
            else vars(value) if hasattr(value, "__dict__") and struct.kind != "namedtuple" \
            else SlotValues(value) if struct.kind == "object" else None
        if isinstance(inner, dict) and inner is not value:  # (its own attributes: one set later shadows its class's)
            self.deps.append(depends.Dependency(AttributeNames(value), "names", tuple(inner)))
        children = {k: self.object_tree(trees.child_value(value, struct, k), f"{label}_{k}", c, inner, k)
                    for k, c in zip(struct.keys, struct.children)}
        return Node(struct, children)


def object_struct(value) -> trees.Struct:
    """The structure of a user object (of a callable one too: its attributes)."""
    if trees.is_callable_object(value) or not callable(value):
        return trees.structure(value)
    attrs = trees.attribute_names(value)
    return trees.Struct("object", attrs, tuple(trees.structure(getattr(value, a), 1, True) for a in attrs), type(value))


def _numbers(value, struct: trees.Struct) -> bool:
    """A tuple of plain numbers (not differentiated: an object's constant ``weights = (0.5, 1.5)``)."""
    return struct.kind == "tuple" and bool(value) and all(type(v) in (int, float) for v in value)


def _same_leaves(a, b) -> bool:
    struct = object_struct(a)
    for x, y in zip(trees.leaves(a, struct, []), trees.leaves(b, struct, [])):
        try:
            if not np.array_equal(np.asarray(x), np.asarray(y)) or type(x) is not type(y):
                return False
        except Exception:  # noqa: BLE001  leaves that do not compare: not known to be the same
            return False
    return True


__all__ = ["GlobalObjects", "Items", "global_object", "held_object", "object_struct", "reads_objects", "tree_default",
           "user_class", "user_object"]
