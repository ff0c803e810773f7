"""``d[k]`` of a user's dict at a key the code computes (``for i, name in enumerate(RATES):
RATES[name]``, a generator over a dict's keys reading its values), for numba, which takes no
Python dict: scope_reads.py passes the dict as the pair (its keys, its values), two tuples read
on every call as the other globals are, and the read becomes ``dict_item(pair, k)``: the value
whose key equals `k`, found by comparing the keys in turn (``KeyError`` where none does, and
the Python gradient then says where).  Keys of one type (strings, integers, or tuples of integers
of one length: ``PAIRS[(i, j)]``) and values of one type (numbers, floats where any is one, or
arrays of one dtype and number of axes) only: `readable` says which; numba refuses the others at
the user's line."""

from __future__ import annotations

import numpy as np
from numba import types

from .naming import overload


def readable(d: dict) -> bool:
    """Whether numba can take `d` as a tuple of keys and a tuple of values, each of one type."""
    keys, values = list(d), list(d.values())
    if not keys or not (all(type(k) is str for k in keys) or all(type(k) is int for k in keys) or _pairs(keys)):
        return False
    if all(type(v) in (float, int) for v in values):
        return True
    return all(isinstance(v, np.ndarray) and v.dtype == values[0].dtype and v.ndim == values[0].ndim
               and v.dtype.kind in "fiu" for v in values)


def _pairs(keys: list) -> bool:
    """Whether `keys` are tuples of ints, all of one length."""
    return all(type(k) is tuple and all(type(i) is int for i in k) and len(k) == len(keys[0]) for k in keys)


def pair(d: dict) -> tuple:
    """The dict as numba takes it: (keys, values), ints made floats beside a float."""
    values = list(d.values())
    if any(type(v) is float for v in values):
        values = [float(v) for v in values]
    return tuple(d), tuple(np.ascontiguousarray(v) if isinstance(v, np.ndarray) else v for v in values)


def dict_item(pair, key):
    return pair[1][pair[0].index(key)]


@overload(dict_item)
def _dict_item(pair, key):
    if not (isinstance(pair, types.BaseTuple) and len(pair) == 2 and isinstance(pair.types[0], types.UniTuple)
            and isinstance(pair.types[1], types.UniTuple) and pair.types[0].count == pair.types[1].count):
        return None

    def item(pair, key):
        keys, values = pair
        for j in range(len(keys)):
            if keys[j] == key:
                return values[j]
        raise KeyError("a key the dict does not hold")
    return item


def dict_has(pair, key):
    return key in pair[0]


@overload(dict_has)
def _dict_has(pair, key):
    """``key in d`` of the pair (keys, values): whether some key equals `key`."""
    if not (isinstance(pair, types.BaseTuple) and len(pair) == 2 and isinstance(pair.types[0], types.UniTuple)):
        return None

    def has(pair, key):
        keys = pair[0]
        for j in range(len(keys)):
            if keys[j] == key:
                return True
        return False
    return has


HELPERS = ("dict_item", "dict_has")
