"""The free names whose values a transform was built on, and the test that they still hold.

Lowering reads some globals and closure variables *statically*: a callee (``ACT(x)``,
``helper(x)``), a static argument (``axis=AXIS``), a dtype.  The generated code bakes in what
they were, so a gradient is only right while they are unchanged.  Each such read is recorded
as a `Dependency` (where the name lives, the name, the object it held); a transform whose
dependencies no longer hold is built again, and the compiled fast path starts with the same
test (backend/guards.py).  Numbers, strings, None and tuples of them are compared by value,
lists by identity and by their items (``NAMES.append(k)`` builds the gradient again: a loop over
NAMES was unrolled), everything else by identity.

Not recorded: modules (rebinding ``np`` or ``math`` is not supported) and builtins.  Names read
as values at run time (data arrays and numbers: the generated code reads those itself) are
recorded by their *signature* only (`of_signature`): their shape is baked into the code, their
values are not, so ``SCALE = 0.7`` after ``SCALE = 0.5`` keeps the transform, while
``SCALE = np.ones(3)`` builds it again.
"""

from __future__ import annotations

import enum
import functools
import types
from dataclasses import dataclass

from ..ir.nodes import typed
from ..ir.shapes import signature

MISSING = object()  # what a name that holds nothing reads as: a deleted global, an empty cell, no builtin
_SIMPLE = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis))  # ...: einsum sublists
_SIMPLE_FLAT = frozenset(_SIMPLE)


@dataclass(frozen=True, eq=False)
class Dependency:
    """`name` in `scope` (a globals dict or a closure cell) held `value` when lowered.

    With `of_signature`, `value` is the signature (ir/shapes.py) of what it held: only that
    must stay the same."""

    scope: object
    name: str
    value: object
    of_signature: bool = False
    #: what else of a function decides the code lowered from it: its defaults, or a partial's
    #: arguments (both can change in place without rebinding the name); with `of_signature`, a tuple
    #: of numbers the name held (it holds by identity: parse.py)
    state: object = None

    def __post_init__(self):
        if not self.of_signature:
            object.__setattr__(self, "state", state_of(self.value))

    @property
    def by_value(self) -> bool:
        return not self.of_signature and is_simple(self.value)

    def current(self):
        if isinstance(self.scope, types.CellType):
            try:
                return self.scope.cell_contents
            except ValueError:
                return MISSING
        return self.scope.get(self.name, MISSING)

    def holds(self) -> bool:
        now = self.current()
        if self.of_signature:  # (`state`: a tuple of numbers seen, which holds by identity)
            return now is not MISSING and (now is self.state and now is not None or signature(now) == self.value)
        if self.by_value:
            return type(now) is type(self.value) and now == self.value \
                and (type(now) is not tuple and now != 0 or typed(now) == typed(self.value))  # (-0.0 is not 0.0)
        return now is self.value and state_of(now) == self.state


def state_of(value):
    """The parts of a callable that change in place and decide the code srcdiff lowers from it:
    a function's ``__defaults__`` / ``__kwdefaults__`` (a helper called without an argument
    gets its default baked in), a ``functools.partial``'s arguments.  Numbers, strings and
    None compare by value, anything else by identity; None for other values."""
    if isinstance(value, types.FunctionType):  # (its code too: a module reloader replaces __code__ in place)
        return (_parts(value.__defaults__ or ()), _parts(sorted((value.__kwdefaults__ or {}).items())),
                _Identity(value.__code__), *map(_Identity, wrapped_codes(value)))
    if isinstance(value, functools.partial):
        return _Identity(value.func), _parts(value.args), _parts(sorted(value.keywords.items()))
    if type(value) is list:  # a list read when the code was built: its items (``NAMES.append(k)``,
        # ``NAMES[0] = k``, ``NAMES.sort()``: built again).  Compared on each call of code that read it,
        # which read (unrolled) as many items itself: the test costs what that code does
        return list_state(value)
    if type(value) is tuple and any(isinstance(v, (dict, list)) for v in value):
        return tuple, _parts(value)  # a tuple of configuration dicts: ``ARCH_T[0]["act"] = "sin"`` builds again
    inner = getattr(value, "fget" if isinstance(value, property) else "__func__", None) \
        if isinstance(value, DESCRIBED) else None
    if isinstance(inner, types.FunctionType):  # a method's descriptor held by a class: the function it holds
        return (_Identity(inner), *state_of(inner))
    return None


def list_state(value: list, within: tuple = ()) -> tuple:
    """A list's items as code built from it read them: numbers and strings by value and type (a
    list of them, the usual case, in C: this runs on every call of such code), others as `_parts`.
    `within` holds the ids of the lists being read around it: a list holding itself is read once."""
    items = tuple(value)
    kinds = tuple(map(type, items))
    if _SIMPLE_FLAT.issuperset(kinds):
        return list, items, kinds
    return list, _parts(items, (*within, id(value)))


def holds_itself(value, within: tuple = ()) -> bool:
    """Whether a list, tuple or dict holds itself at some depth (``L.append(L)``): srcdiff reads
    module data item by item, which would never end."""
    if not isinstance(value, (list, tuple, dict)):
        return False
    if id(value) in within:
        return True
    items = value.values() if isinstance(value, dict) else value
    return any(holds_itself(v, (*within, id(value))) for v in items)


def class_dependency(cls: type, name: str, value) -> list[Dependency]:
    """`name` of class `cls` holding `value` (a method, a property, a staticmethod, ``__call__``, a
    number), read in the class of `cls`'s MRO that defines it: rebound there, or its code replaced, or
    set on a class before it in the MRO (``Sub.a = 7.0`` where ``Base.a`` was read as ``Sub.a``), the
    code built from it is built again."""
    owner = next(k for k in cls.__mro__ if name in vars(k))
    before = cls.__mro__[:cls.__mro__.index(owner)]
    return [*(Dependency(vars(k), name, MISSING) for k in before), Dependency(vars(owner), name, value)]


#: a class's descriptors of a function (``Model.scale``, ``self.gain``): its state is the function's
DESCRIBED = (staticmethod, classmethod, property)


def wrapped_codes(func) -> tuple:
    """The code objects of the functions `func` wraps (``functools.wraps``' ``__wrapped__``, in
    order): srcdiff reads the innermost one's source, whose code can be replaced too."""
    found, inner = [], getattr(func, "__wrapped__", None)
    while isinstance(inner, types.FunctionType) and len(found) < 16:
        found.append(inner.__code__)
        inner = getattr(inner, "__wrapped__", None)
    return tuple(found)


def _parts(values, within: tuple = ()) -> tuple:
    out = []
    for v in values:
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str):  # a (keyword, value) pair
            out.append((v[0], *_parts((v[1],), within)))
        elif is_simple(v):
            out.append(typed(v))
        elif isinstance(v, dict) and _simple_dict(v):  # a dict default is baked in: changed in place, lowered again
            out.append((dict, _parts(sorted(v.items(), key=repr))))
        elif type(v) is list and id(v) not in within:  # a list (a default, an item of a list): its items
            out.append(list_state(v, within))
        else:
            out.append(_Identity(v))
    return tuple(out)


def changes_in_place(state) -> bool:
    """Whether a `state_of` holds a dict default or a list compared by value (it can change in
    place while the function or list stays the same object: its guard compares the state too)."""
    if isinstance(state, tuple):
        if len(state) in (2, 3) and (state[0] is dict or state[0] is list):
            return True
        return any(changes_in_place(part) for part in state)
    return False


def _simple_dict(value: dict) -> bool:
    return all(isinstance(k, (str, int)) and (is_simple(v) or isinstance(v, dict) and _simple_dict(v))
               for k, v in value.items())


def is_simple(value) -> bool:
    """Compared by value: numbers, strings, None, ..., and (nested) tuples of them."""
    if isinstance(value, tuple):
        return all(is_simple(v) for v in value)
    return type(value) in _SIMPLE


def static_ok(value) -> bool:
    """A value a gradient can be specialised on: simple (`is_simple`), and not NaN; or an enum
    member (``mode=Act.TANH``: one object, hashed by name, which decides branches)."""
    if isinstance(value, tuple):
        return all(static_ok(v) for v in value)
    return is_simple(value) and value == value or isinstance(value, enum.Enum)


def hold(depends) -> bool:
    """Whether every dependency still holds."""
    return all(d.holds() for d in depends)


class _Identity:
    """A key part equal only to the same object (objects that are not hashable included)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)


def key(depends) -> tuple:
    """A hashable key of the dependencies' current values (for caches keyed on them)."""
    parts = []
    for d in depends:
        now = d.current()
        if d.of_signature:
            parts.append((id(d.scope), d.name, ("signature", signature(now))))
        else:
            parts.append((id(d.scope), d.name, typed(now) if is_simple(now) else _Identity(now), state_of(now)))
    return tuple(parts)

