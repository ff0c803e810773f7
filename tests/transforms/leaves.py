"""Arguments and results as flat float64 vectors, whatever tree they come in.

The matrix compares every transformation's answer with central differences; a parameter
may be a float, an array, or a dict / list / tuple of them (a gradient comes back in the same
structure, a Hessian as a tree of trees).  Reading every float leaf in order into one vector
makes all of those comparisons the same comparison.
"""

from __future__ import annotations

import dataclasses

import numpy as np


class Unsupported(Exception):
    """A value holding something the matrix cannot perturb or compare (an object, say)."""


def is_float_leaf(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating)) and not isinstance(value, bool)


def float_leaves(value) -> list:
    """The float leaves of `value` in order (dict insertion order, then positions)."""
    if is_float_leaf(value):
        return [value]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in float_leaves(item)]
    if isinstance(value, (list, tuple)):  # a namedtuple's fields in order, as srcdiff flattens it
        return [leaf for item in value for leaf in float_leaves(item)]
    if _is_dataclass(value):  # its fields in order, as srcdiff flattens a dataclass
        return [leaf for f in dataclasses.fields(value) for leaf in float_leaves(getattr(value, f.name))]
    if value is None or isinstance(value, (bool, int, str, np.integer, np.bool_)) or (
            isinstance(value, np.ndarray) and value.dtype.kind in "biu"):
        return []
    raise Unsupported(type(value).__name__)


def vector(value) -> np.ndarray:
    """Every float leaf of `value`, raveled and concatenated (float64)."""
    parts = [np.asarray(leaf, dtype=np.float64).ravel() for leaf in float_leaves(value)]
    return np.concatenate(parts) if parts else np.zeros(0)


def sizes(value) -> list[int]:
    return [int(np.size(leaf)) for leaf in float_leaves(value)]


def with_vector(value, flat: np.ndarray):
    """A copy of `value` whose float leaves are taken, in order, from `flat`."""
    it = iter(np.asarray(flat, dtype=np.float64))

    def rebuild(item):
        if is_float_leaf(item):
            if isinstance(item, np.ndarray):
                return np.array([next(it) for _ in range(item.size)], dtype=item.dtype).reshape(item.shape)
            return type(item)(next(it))
        if isinstance(item, dict):
            return {k: rebuild(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            rebuilt = [rebuild(v) for v in item]
            return type(item)(*rebuilt) if hasattr(item, "_fields") else type(item)(rebuilt)
        if _is_dataclass(item):
            fields = dataclasses.fields(item)
            return dataclasses.replace(item, **{f.name: rebuild(getattr(item, f.name)) for f in fields})
        if isinstance(item, np.ndarray):
            return item.copy()
        return item
    return rebuild(value)


def _is_dataclass(value) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def widened(value):
    """A copy of `value` with every float32 / float16 leaf made float64: the reference computes
    central differences in float64, where a perturbation of 1e-6 is not lost in rounding (in
    float32 at magnitude 1e3 it is, and the differences come out 0)."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.dtype.itemsize < 8:
        return value.astype(np.float64)
    if isinstance(value, np.floating) and np.dtype(type(value)).itemsize < 8:
        return np.float64(value)
    if isinstance(value, dict):
        return {k: widened(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        wide = [widened(v) for v in value]
        return type(value)(*wide) if hasattr(value, "_fields") else type(value)(wide)
    if _is_dataclass(value):
        fields = dataclasses.fields(value)
        return dataclasses.replace(value, **{f.name: widened(getattr(value, f.name)) for f in fields})
    return value


def square(hessian, arg) -> np.ndarray:
    """A Hessian (``x.shape + x.shape`` for an array, a tree of trees for a tree) as an n×n matrix."""
    sz = sizes(arg)
    n = sum(sz)
    flat = vector(hessian)
    if flat.size != n * n:
        raise ValueError(f"a Hessian of {flat.size} numbers for an argument of {n}")
    out, at, starts = np.zeros((n, n)), 0, np.cumsum([0, *sz])
    for i, si in enumerate(sz):
        for j, sj in enumerate(sz):
            out[starts[i]:starts[i + 1], starts[j]:starts[j + 1]] = flat[at:at + si * sj].reshape(si, sj)
            at += si * sj
    return out


def agree(got, want, rtol=1e-4, atol=1e-5) -> bool:
    """Equal shapes, NaN where and only where the reference has NaN, and close elsewhere
    (`atol` scales with the reference's largest magnitude)."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return False
    finite = np.isfinite(want)
    if not np.array_equal(np.isfinite(got), finite):
        return False
    scale = max(1.0, float(np.max(np.abs(want[finite]))) if finite.any() else 1.0)
    return bool(np.all(np.abs(got[finite] - want[finite]) <= atol * scale + rtol * np.abs(want[finite])))


def max_error(got, want) -> float:
    try:
        return float(np.max(np.abs(np.asarray(got, dtype=float) - np.asarray(want, dtype=float))))
    except (ValueError, TypeError):
        return float("nan")


def float_leaves_or_none(value) -> list:
    """`float_leaves`, or [] for a value holding an object the matrix cannot perturb."""
    try:
        return float_leaves(value)
    except Unsupported:
        return []


def is_complex(value) -> bool:
    """Whether any number inside `value` is complex."""
    if isinstance(value, dict):
        return any(is_complex(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(is_complex(v) for v in value)
    return np.iscomplexobj(value)
