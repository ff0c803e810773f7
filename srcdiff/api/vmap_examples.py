"""`vmap` one example at a time: the path of calls the batching transform cannot batch, and of
tree arguments (api/vmap.py).

The batched code (driver/batched.py) runs every example in one call; where the transform
refuses (a loop keeping a tape, a solve, a sort, a branch that differs between examples) or an
argument is a tree of arrays, `vmap` runs the function once per example in a Python loop and
stacks the results.  That loop is generated source like every other (``.source`` prints it,
with the reason), so the fallback is never silent about what runs; it is correct by
construction, since each example is the function's (or its gradient's) own call.

A tree argument (a dict, a list or tuple holding arrays, a namedtuple, a dataclass) takes an
in_axes entry per leaf, as JAX's ``vmap``: an int or None for every leaf, or a tree of them
shaped like the argument (a dict with its keys, a tuple of its length).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..backend import loader
from ..errors import SrcDiffError
from ..frontend import trees

#: each example's call in the generated loop (bound in its namespace)
ROW = "one_example"
#: the names the generated loop uses: parameters named so are renamed a0, a1, ...
RESERVED = frozenset({ROW, "AXES", "example_of", "stack_examples", "batch_size_of", "np", "batch_size", "rows", "i"})


def is_tree(value) -> bool:
    """Whether `value` is a tree of arrays for vmap: a dict, namedtuple or dataclass, or a list or
    tuple holding arrays at some depth (a list of numbers is one array's rows, as before)."""
    if isinstance(value, dict) or trees.is_namedtuple(value):
        return True
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return True
    return isinstance(value, (list, tuple)) and any(
        (isinstance(item, np.ndarray) and item.ndim > 0) or is_tree(item) for item in value)


def is_axes_tree(axes) -> bool:
    """Whether an in_axes entry is a tree of axes (not one int or None)."""
    return isinstance(axes, (tuple, list, dict))


def plain_axes(axes):
    """`axes` with NumPy integers (``np.int64(0)``, from ``x.ndim - 1`` of a NumPy shape) as Python ints,
    which the rest of vmap reads (and prints into its generated code)."""
    if isinstance(axes, np.integer) and not isinstance(axes, np.bool_):
        return int(axes)
    if isinstance(axes, dict):
        return {k: plain_axes(a) for k, a in axes.items()}
    if isinstance(axes, (tuple, list)):
        return type(axes)(plain_axes(a) for a in axes) if type(axes) in (tuple, list) else axes
    return axes


def valid_axes(axes) -> bool:
    """An in_axes entry: an int, None, or a tuple, list or dict of such entries."""
    if axes is None or (isinstance(axes, int) and not isinstance(axes, bool)):
        return True
    if isinstance(axes, dict):
        return all(valid_axes(a) for a in axes.values())
    return isinstance(axes, (tuple, list)) and all(valid_axes(a) for a in axes)


def _children(value, axes, where: str) -> list[tuple[Any, Any, str]]:
    """(child value, its axes, its path) of a tree argument: `axes` one int or None for all of
    them, or a tree shaped like `value`."""
    if isinstance(value, dict):
        if isinstance(axes, dict):
            if set(axes) != set(value):
                raise SrcDiffError(f"srcdiff.vmap: in_axes {axes!r} of {where} names the keys "
                                   f"{sorted(map(str, axes))}, the argument has {sorted(map(str, value))}",
                                   hint="give one axis per key, or one int or None for the whole dict")
            return [(v, axes[k], f"{where}[{k!r}]") for k, v in value.items()]
        if is_axes_tree(axes):
            raise SrcDiffError(f"srcdiff.vmap: in_axes {axes!r} of {where}, a dict", hint="give a dict of axes")
        return [(v, axes, f"{where}[{k!r}]") for k, v in value.items()]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if is_axes_tree(axes):
            raise SrcDiffError(f"srcdiff.vmap: in_axes {axes!r} of {where}, a {type(value).__name__}",
                               hint="give one int or None for the whole dataclass")
        return [(getattr(value, f.name), axes, f"{where}.{f.name}") for f in dataclasses.fields(value)]
    items = list(value)
    if isinstance(axes, (tuple, list)):
        if len(axes) != len(items):
            raise SrcDiffError(f"srcdiff.vmap: in_axes {axes!r} of {where} has {len(axes)} entries, the argument "
                               f"{len(items)}", hint="give one axis per item, or one int or None for all of them")
        return [(v, a, f"{where}[{k}]") for k, (v, a) in enumerate(zip(items, axes))]
    if isinstance(axes, dict):
        raise SrcDiffError(f"srcdiff.vmap: in_axes {axes!r} of {where}, a {type(value).__name__}",
                           hint="give a tuple of axes")
    return [(v, axes, f"{where}[{k}]") for k, v in enumerate(items)]


def _rebuilt(value, parts: list):
    """A tree like `value` holding `parts` (in `_children` order)."""
    if isinstance(value, dict):
        return type(value)(zip(value.keys(), parts)) if type(value) is not dict else dict(zip(value.keys(), parts))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: p for f, p in zip(dataclasses.fields(value), parts)})
    if trees.is_namedtuple(value):
        return type(value)(*parts)
    return type(value)(parts)


def sizes(value, axes, where: str, out: dict) -> dict:
    """{path: batch length} of every leaf of `value` with an axis; refuses an axis a leaf lacks."""
    if axes is None:
        return out
    if is_tree(value) or (is_axes_tree(axes) and isinstance(value, (list, tuple))):
        for child, sub, path in _children(value, axes, where):
            sizes(child, sub, path, out)
        return out
    if is_axes_tree(axes):
        raise SrcDiffError(f"srcdiff.vmap: in_axes {axes!r} of {where}, which is not a tree",
                           hint="give one int or None for an array")
    shape = np.shape(value)
    if not -len(shape) <= axes < len(shape):
        raise SrcDiffError(f"srcdiff.vmap: in_axes {axes} of {where}, of shape {shape}",
                           hint="map an axis the value has, or pass it with in_axes None")
    out[where] = shape[axes]
    return out


def example_of(value, axes, i: int):
    """Example `i` of `value` along `axes` (a tree of axes for a tree); a float64 number as a
    Python float, as the batched path passes it (api/vmap.py `row_of`)."""
    if axes is None:
        return value
    if is_tree(value) or (is_axes_tree(axes) and isinstance(value, (list, tuple))):
        return _rebuilt(value, [example_of(child, sub, i) for child, sub, _ in _children(value, axes, "")])
    row = np.take(np.asarray(value), i, axis=axes)
    if isinstance(row, np.ndarray) and row.ndim == 0:
        row = row[()]
    return float(row) if type(row) is np.float64 else row


class RaggedResults(Exception):
    """The examples' results differ in shape, so no array stacks them (api/vmap.py refuses at the
    mapped function's line: the loop that meets it is generated code)."""


def stack_examples(rows: list):
    """The examples' results stacked along a new first axis, leaf by leaf for trees: a list or tuple
    of numbers too (a gradient of a list of floats is a list, as one example's is, and as the batched
    code gives it), never one array of the examples' lists."""
    first = rows[0]
    if isinstance(first, (dict, list, tuple)) or is_tree(first):
        parts = [_children(r, 0, "the result") for r in rows]
        stacked = [stack_examples([p[k][0] for p in parts]) for k in range(len(parts[0]))]
        return _rebuilt(first, stacked)
    arrays = [np.asarray(r) for r in rows]
    shapes = sorted({a.shape for a in arrays})
    if len(shapes) > 1:
        raise RaggedResults(f"the examples' results have different shapes ({', '.join(map(str, shapes))}), "
                            "which no array stacks")
    return np.stack(arrays)


def _argument(name: str, axes, index: int) -> str:
    if axes is None:
        return name
    if axes == 0 and not is_axes_tree(axes):
        return f"example_of({name}, 0, i)"
    return f"example_of({name}, AXES[{index}], i)"


class PerExample:
    """The generated loop over the examples of a call: ``run(*args)`` and its ``source``."""

    def __init__(self, func, names: list[str], axes: list, reason: str, described: str):
        self.func, self.axes, self.reason = func, list(axes), reason
        # the refusal api/vmap.py warns of after the first run that returns
        self.unannounced: SrcDiffError | None = None
        params = ", ".join(names)
        first = next(k for k, a in enumerate(axes) if a is not None)
        size = f"batch_size_of({names[first]}, AXES[{first}])"
        call = ", ".join(_argument(n, a, k) for k, (n, a) in enumerate(zip(names, axes)))
        reasons = "\n".join(f"    # {line}" for line in reason.splitlines() if line.strip())
        self.source = (f"def {_identifier(described)}_examples({params}):\n"
                       f"    # srcdiff.vmap runs {ROW} = {described} one example at a time, not batched:\n"
                       f"{reasons}\n"
                       f"    batch_size = {size}\n"
                       f"    rows = [{ROW}({call}) for i in range(batch_size)]\n"
                       f"    return stack_examples(rows)\n")
        namespace = {ROW: func, "AXES": tuple(axes), "example_of": example_of, "stack_examples": stack_examples,
                     "batch_size_of": batch_size_of, "np": np}
        name = f"{_identifier(described)}_examples"
        self.run = loader.build_function(self.source, name, namespace, {})


def batch_size_of(value, axes) -> int:
    """The batch length of `value` along `axes` (checked equal for every leaf by the caller)."""
    return next(iter(sizes(value, axes, "the argument", {}).values()))


def _identifier(text: str) -> str:
    out = "".join(c if c.isalnum() else "_" for c in text).strip("_")
    while "__" in out:
        out = out.replace("__", "_")
    return out or "f"


__all__ = ["RESERVED", "PerExample", "ROW", "RaggedResults", "batch_size_of", "example_of", "is_axes_tree", "is_tree",
           "plain_axes", "sizes", "stack_examples", "valid_axes"]
