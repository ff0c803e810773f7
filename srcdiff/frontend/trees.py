"""Parameter trees: dicts, lists, tuples, namedtuples, dataclasses and objects of values.

A tree argument is described by its *structure* (hashable, part of the cache key: the
container types, keys and fields, and for each leaf only that it is a leaf) and its *leaves*
(the values, read at every call).  The frontend rewrites the function so that each leaf is a
parameter of its own (flatten.py); the API flattens the arguments into leaves before the call
and builds the gradient back into the structure (`unflatten`).

Leaves are numbers, arrays, strings and None.  Callables held in a tree (``self.act =
np.tanh``) are *static*: the structure holds them by identity, so another one is a new
specialisation.  Anything else is *opaque*: it may sit in the tree unused, and using it is
refused where it is used.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import numbers
import re
import types
from dataclasses import dataclass

import numpy as np

from ..ir.shapes import dtype_kind, is_foreign_array

MAX_ITEMS = 64  # a longer list or tuple inside an object is data, not parameters: opaque
MAX_DEPTH = 8


class Ident:
    """A key part equal only to the same object (unhashable objects included)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, Ident) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)

    def __repr__(self):
        return f"Ident({self.obj!r})"


@dataclass(frozen=True)
class Struct:
    """One node of a tree's structure.

    kind: "leaf", "static" (a callable, held by identity), "opaque" (not usable), "key" (a string
    a caller passes a helper in the call, `cls` itself: ``_clamped(params, "w")``, flatten_exprs.py),
    "dict", "list", "tuple", "namedtuple", "dataclass", "object".
    keys: dict keys, field or attribute names, or indices; children: their structures.
    """

    kind: str
    keys: tuple = ()
    children: tuple = ()
    cls: object = None  # the namedtuple / dataclass / object class; the static's Ident

    @property
    def is_container(self) -> bool:
        return self.kind not in ("leaf", "data", "static", "opaque", "key")

    def child(self, key) -> "Struct":
        return self.children[self.keys.index(key)]

    def describe(self) -> str:
        return {"dict": "a dict", "list": "a list", "tuple": "a tuple",
                "namedtuple": f"a {getattr(self.cls, '__name__', 'namedtuple')}",
                "dataclass": f"a {getattr(self.cls, '__name__', 'dataclass')}",
                "object": f"a {getattr(self.cls, '__name__', 'object')} object"}.get(self.kind, "a value")


LEAF = Struct("leaf")
DATA = Struct("data")  # a leaf that is not differentiated: ints, bools, strings, None, int arrays


def _is_float(value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return value.dtype.kind in "fc"
    if is_foreign_array(value):
        return dtype_kind(value.dtype) in "fc"
    return isinstance(value, (float, complex))


def is_leaf_value(value) -> bool:
    return value is None or isinstance(value, (numbers.Number, np.ndarray, np.generic, str, bytes, enum.Enum)) \
        or is_foreign_array(value)


def is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_namedtuple_class(cls) -> bool:
    """A class `typing.NamedTuple` or `collections.namedtuple` made (its instances are tuples of fields)."""
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple) \
        and "__new__" in vars(cls) and "__init__" not in vars(cls)


def is_object(value) -> bool:
    """A user object whose attributes form a tree (``self`` of a method): held in its ``__dict__``, or in the
    ``__slots__`` its classes declare."""
    held = hasattr(value, "__dict__") or bool(slot_names(type(value)))
    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                          types.MethodType, np.ufunc)) or callable(value) and not held:
        return False
    library = (type(value).__module__ or "").split(".")[0] in _LIBRARIES
    return held and not is_leaf_value(value) and not library


def slot_names(cls) -> tuple:
    """The attribute names the ``__slots__`` of user class `cls` and of its bases declare (not ``__dict__`` or
    ``__weakref__``), in declaration order; () for a class without them (or of a library)."""
    if (getattr(cls, "__module__", None) or "").split(".")[0] in _LIBRARIES:
        return ()
    found = []
    for klass in reversed(getattr(cls, "__mro__", ())[:-1]):
        declared = vars(klass).get("__slots__", ())
        for name in (declared,) if isinstance(declared, str) else declared:
            if name not in ("__dict__", "__weakref__") and name not in found:
                found.append(name)
    return tuple(found)


def attribute_names(value) -> tuple:
    """The attributes of user object `value` a tree reads: those its ``__dict__`` holds, then those its
    ``__slots__`` hold that are set (names starting with ``__`` left out)."""
    held = list(vars(value)) if hasattr(value, "__dict__") else []
    held += [a for a in slot_names(type(value)) if a not in held and hasattr(value, a)]
    return tuple(a for a in held if not a.startswith("__"))


_LIBRARIES = {"numpy", "scipy", "pandas", "builtins", "torch", "jax", "dask", "xarray", "sympy", "srcdiff"}


def is_tree(value, *, sequences: bool = True) -> bool:
    """Whether `value` is flattened: a dict, namedtuple, dataclass or object (lists and
    tuples only with `sequences`, or of such trees: a data list that is not differentiated stays a list)."""
    if isinstance(value, dict):  # (keyed by floats: no leaves, passed whole, as lowering reads it)
        return all(tree_key(k) for k in value)
    if is_namedtuple(value):
        return True
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return True
    if isinstance(value, (list, tuple)):  # (a list of objects, layers, is one whatever: by its first item)
        return sequences or bool(value) and is_tree(value[0], sequences=False)
    return is_object(value) and (not callable(value) or is_callable_object(value))


def tree_key(key) -> bool:
    """A dict key a tree is keyed by: a string, an integer, or a tuple of them (``(i, j)`` of couplings)."""
    return isinstance(key, (str, int)) or isinstance(key, tuple) and all(isinstance(k, (str, int)) for k in key)


def is_callable_object(value) -> bool:
    """A user object called like a function (a layer with a Python ``__call__``): a tree whose
    ``obj(x)`` is a call of its ``__call__``, not a constant callee."""
    return is_object(value) and isinstance(inspect.getattr_static(type(value), "__call__", None),
                                           types.FunctionType)


def structure(value, depth: int = 0, in_object: bool = False) -> Struct:
    """The structure of `value` (a leaf, static or opaque when it is not a container)."""
    if is_leaf_value(value):
        return LEAF if _is_float(value) else DATA
    if depth > MAX_DEPTH:
        return Struct("opaque", cls=type(value))
    if isinstance(value, dict):
        if not all(tree_key(k) for k in value):
            return Struct("opaque", cls=type(value))
        keys = tuple(value)
        return Struct("dict", keys, tuple(structure(value[k], depth + 1, in_object) for k in keys))
    if is_namedtuple(value):
        fields = tuple(type(value)._fields)
        return Struct("namedtuple", fields, tuple(structure(v, depth + 1, in_object) for v in value),
                      type(value))
    if isinstance(value, (list, tuple)):
        if in_object and len(value) > MAX_ITEMS:
            return Struct("opaque", cls=type(value))
        kind = "list" if isinstance(value, list) else "tuple"
        return Struct(kind, tuple(range(len(value))),
                      tuple(structure(v, depth + 1, in_object) for v in value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = tuple(f.name for f in dataclasses.fields(value))
        return Struct("dataclass", fields,
                      tuple(structure(getattr(value, f), depth + 1, in_object) for f in fields), type(value))
    if callable(value) and not is_callable_object(value):
        return Struct("static", cls=Ident(value))
    if is_object(value):
        attrs = attribute_names(value)
        return Struct("object", attrs, tuple(structure(getattr(value, a), depth + 1, True) for a in attrs),
                      type(value))
    return Struct("opaque", cls=type(value))


def child_value(value, struct: Struct, key):
    if struct.kind in ("dict", "list", "tuple", "namedtuple"):
        return value[key] if struct.kind != "namedtuple" else getattr(value, key)
    return getattr(value, key)


def leaves(value, struct: Struct, out: list) -> list:
    """Append `value`'s leaves (in the order `leaf_names` names them) to `out`."""
    if struct.kind in ("leaf", "data", "key"):  # (a parameter's key, key_parameters.py: passed as it is)
        out.append(value)
    elif struct.is_container:
        for key, child in zip(struct.keys, struct.children):
            leaves(child_value(value, struct, key), child, out)
    return out


def leaf_paths(struct: Struct, path: tuple = ()) -> list[tuple[tuple, Struct]]:
    """(path of keys, structure) of every leaf and static, depth first."""
    if not struct.is_container:
        return [] if struct.kind == "opaque" else [(path, struct)]
    found = []
    for key, child in zip(struct.keys, struct.children):
        found += leaf_paths(child, path + (key,))
    return found


def unflatten(struct: Struct, values, path: tuple = ()):
    """The tree of `struct`'s shape whose leaves are taken, in order, from iterator `values`.

    Data, statics and opaque parts are not differentiated: they come back as None."""
    if struct.kind == "leaf":
        return next(values)
    if not struct.is_container:
        return None
    items = [unflatten(c, values, path + (k,)) for k, c in zip(struct.keys, struct.children)]
    if struct.kind == "dict" or struct.kind == "object":
        return dict(zip(struct.keys, items))
    if struct.kind == "list":
        return items
    if struct.kind == "tuple":
        return tuple(items)
    if struct.kind == "namedtuple":
        return struct.cls(*items)
    return _make_dataclass(struct.cls, dict(zip(struct.keys, items)))


def _make_dataclass(cls, values: dict):
    """An instance of dataclass `cls` holding `values` (without running its __init__ logic,
    which may validate or convert: the gradient is the field values as they are)."""
    obj = object.__new__(cls)
    for name, value in values.items():
        object.__setattr__(obj, name, value)
    return obj


def subtree(struct: Struct, path: tuple) -> Struct:
    for key in path:
        struct = struct.child(key)
    return struct


def name_part(key) -> str:
    """A key as part of an identifier: ``"W1"`` -> ``W1``, ``0`` -> ``0``, ``"a-b"`` -> ``a_b``."""
    return re.sub(r"\W", "_", str(key)) or "_"


def parse_path(text: str) -> tuple[str, tuple]:
    """``"self.w"`` -> ("self", ("w",)); ``"p['W1']"`` / ``"p[0]"`` -> ("p", ("W1",)) / ("p", (0,))."""
    match = re.match(r"\s*([A-Za-z_]\w*)", text)
    if not match:
        raise ValueError(text)
    rest, path = text[match.end():], []
    while rest.strip():
        part = re.match(r"\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*(?:'([^']*)'|\"([^\"]*)\"|(-?\d+))\s*\])", rest)
        if not part:
            raise ValueError(text)
        attr, single, double, index = part.groups()
        path.append(attr if attr is not None else single if single is not None
                    else double if double is not None else int(index))
        rest = rest[part.end():]
    return match.group(1), tuple(path)


__all__ = ["Ident", "DATA", "LEAF", "Struct", "child_value", "is_leaf_value", "is_namedtuple_class",
           "is_object", "is_tree", "leaf_paths",
           "leaves", "name_part", "parse_path", "structure", "subtree", "unflatten"]
