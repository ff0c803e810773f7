"""What the folding of type tests (folding.py) knows of a value: its exact Python type, ndim
and dtype (`Fact`), or the value itself (`PerWorld`), in each world: each set of dtypes the
compiled code may be called with under one signature (an integer array's width)."""

from __future__ import annotations

import itertools
import types
from dataclasses import dataclass

import numpy as np

from ...ir import shapes

#: an array key's dtype kind -> the dtypes numba compiles that share the key (the key "f"
#: holds float16 and longdouble arrays too, which numba does not compile: no world of theirs)
CANDIDATES = {"f": ("float64",), "f4": ("float32",), "b": ("bool",),
              "i": ("int64", "int32", "int16", "int8"), "u": ("uint64", "uint32", "uint16", "uint8")}
MAX_WORLDS = 64
#: attributes of a dtype read per world
DTYPE_ATTRIBUTES = {"char", "kind", "name", "itemsize", "type", "str"}
#: a conversion's ``order=`` numba's arrays keep (C-ordered asked: made contiguous)
ORDERS = (None, "K", "A", "C", "c")


@dataclass(frozen=True)
class Fact:
    """What is known of a name's value: its exact Python type, ndim and dtype in each world."""

    pytype: type
    ndim: int | None = None
    dtypes: tuple | None = None  # one np.dtype per world


@dataclass(frozen=True)
class PerWorld:
    """A value the code computes, one per world (all equal: a constant)."""

    values: tuple

    def constant(self) -> bool:
        return all(same(v, self.values[0]) for v in self.values)


UNKNOWN = None


def same(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b) if not isinstance(a, (type, types.ModuleType)) else a is b
    except Exception:  # noqa: BLE001  values that do not compare: not the same
        return False


def worlds_of(params: dict) -> tuple[dict[str, Fact], int] | None:
    """The facts of the parameters from their parts of the variant's key (ir/shapes.py
    `signature`), and the number of worlds; None when there are too many worlds."""
    choices = {}
    for name, key in params.items():
        if isinstance(key, tuple) and len(key) == 3 and isinstance(key[0], int) and key[2] in CANDIDATES:
            choices[name] = CANDIDATES[key[2]]
    count = 1
    for options in choices.values():
        count *= len(options)
    if count > MAX_WORLDS:
        return None
    combos = list(itertools.product(*choices.values())) or [()]
    names = list(choices)
    facts = {}
    for name, key in params.items():
        if name in choices:
            column = names.index(name)
            facts[name] = Fact(np.ndarray, key[0], tuple(np.dtype(c[column]) for c in combos))
        elif isinstance(key, type) and key in (float, int, bool):
            facts[name] = Fact(key, 0)
        elif shapes.container_type(key) in (list, tuple):
            facts[name] = Fact(shapes.container_type(key))
        elif isinstance(key, type) and issubclass(key, np.generic) and key is not np.generic:
            facts[name] = Fact(key, 0, (np.dtype(key),) * len(combos))
    return facts, len(combos)


def readable(value) -> bool:
    """Values a test may read: modules, types and NumPy's and the builtins' functions."""
    if isinstance(value, (types.ModuleType, type)):
        return True
    return value in (isinstance, hasattr, abs, np.issubdtype, np.dtype, np.result_type, np.asarray, np.array, np.ndim) \
        if callable(value) else False


def writable(value) -> bool:
    return value is None or type(value) in (bool, int, str)


__all__ = ["CANDIDATES", "DTYPE_ATTRIBUTES", "MAX_WORLDS", "ORDERS", "UNKNOWN", "Fact", "PerWorld", "readable",
           "same", "worlds_of", "writable"]
