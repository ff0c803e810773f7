"""A Hessian's columns by vector forward mode over the gradient's generated code.

Where batching refuses the gradient's code (its loops keep stacks, lists), forward mode over
that code still gives the Hessian: the derivative of the gradient along each differentiated
element is one column.  One sweep per element recomputes the gradient every time; vector
forward mode (ad/tangent_vector.py) carries up to `WIDTH` directions side by side in one
sweep, so the gradient's own work is done once per `WIDTH` columns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import driver
from ..driver import Options
from ..errors import SrcDiffError
from ..frontend import depends
from ..ir import shapes
from .jitting import runner, source_of

#: the most directions one sweep carries: its code repeats each tangent statement this often
WIDTH = 8


def widths(total: int) -> tuple[int, int]:
    """(directions per sweep, sweeps) for `total` directions: as few sweeps as `WIDTH` allows,
    the directions shared out evenly (the last sweep pads with zero directions)."""
    sweeps = -(-total // WIDTH)
    return -(-total // sweeps), sweeps


class VectorForward:
    """Forward mode over one plain function with `width` directions per sweep, compiled per
    argument signature."""

    def __init__(self, plain, wrt: tuple[str, ...], names: list[str], width: int, jit: str | None = None,
                 unit_seeds: bool = False):
        self.plain, self.wrt, self.names, self.width, self.jit = plain, wrt, names, width, jit
        # unit_seeds: the leaves are numbers, one sweep carries them all; its directions are
        # the unit vectors written into its code (backend/optimize/unit_seeds.py), not arguments
        self.unit_seeds = unit_seeds
        self.options = Options(mode="forward", with_value=False, directions=width, jit=jit, unit_seeds=unit_seeds)
        self.extra = None  # with jit: functions compiled with the sweep (api/hessian_columns.py)
        self._fast: dict = {}
        self.last: Any = None  # the Variant of the last call
        self.lowered: Any = None  # the Lowered it was compiled from

    @property
    def source(self) -> str:
        return source_of(self.last, self.jit)

    def function(self, args: tuple):
        """The compiled sweep for arguments like `args`."""
        key = tuple(map(shapes.signature, args))
        found = self._fast.get(key)
        if found is not None and found[0].parsed.func.__code__ is found[2] \
                and (not found[0].depends or depends.hold(found[0].depends)) \
                and found[0].specialised_for(args, self.names):
            self.last, self.lowered = found[1], found[0]
            return runner(found[1], found[0], self.jit, self.extra)
        lowered = driver.lowered(self.plain, self.wrt, self.options, args)
        made = driver.variant(lowered, key, args)
        self._fast[key] = (lowered, made, lowered.parsed.func.__code__)
        self.last, self.lowered = made, lowered
        return runner(made, lowered, self.jit, self.extra)

    def blocks(self, args: tuple, leaves: list, dtypes: list, several: bool) -> list:
        """``blocks[i][j]`` of shape ``leaf_i.shape + leaf_j.shape``: the derivative of the
        gradient's part i along every element of leaf j."""
        run = self.function(args)
        sizes = [leaf.size for leaf in leaves]
        total, width = sum(sizes), self.width
        if self.unit_seeds:
            if tuple(self.lowered.wrt) != tuple(self.wrt) or total != width or any(leaf.ndim for leaf in leaves):
                raise SrcDiffError("unit seeds: the sweep's directions are not these leaves' unit vectors")
            _, products = run(*args)
            seeded = [p if several else (p,) for p in (products if width > 1 else (products,))]
            return _stacked(seeded, leaves, dtypes, starts=list(range(total + 1)))
        starts = [0]  # (Python ints: compared once per direction and leaf)
        for size in sizes:
            starts.append(starts[-1] + size)
        columns: list = []  # per direction, the gradient's tangent (a tuple of parts)
        for first in range(0, total, width):
            tangents = []
            for d in range(first, first + width):
                for j, leaf in enumerate(leaves):  # a unit direction: one element of one leaf
                    e = d - starts[j]
                    if leaf.ndim:
                        unit: np.ndarray | float = np.zeros(leaf.shape, dtype=dtypes[j])
                        if 0 <= e < sizes[j]:
                            unit.flat[e] = 1.0  # type: ignore[union-attr]
                        tangents.append(unit)
                    else:
                        tangents.append(1.0 if e == 0 else 0.0)
            _, products = run(*args, *tangents)
            products = products if width > 1 else (products,)  # one direction: the plain jvp
            columns += [p if several else (p,) for p in products][:total - first]
        return _stacked(columns, leaves, dtypes, starts)


def _stacked(columns: list, leaves: list, dtypes: list, starts: list) -> list:
    """``blocks[i][j]``: the columns along leaf j's elements (`starts[j]` on) of part i."""
    blocks: list = [[None] * len(leaves) for _ in leaves]
    for i, leaf in enumerate(leaves):
        for j, other in enumerate(leaves):
            part = columns[starts[j]:starts[j + 1]]
            if leaf.ndim:
                stacked = np.stack([np.asarray(c[i], dtype=dtypes[i]) for c in part], axis=-1)
            else:  # numbers: one array of them
                stacked = np.array([c[i] for c in part], dtype=dtypes[i])
            blocks[i][j] = stacked.reshape(leaf.shape + other.shape)
    return blocks


__all__ = ["WIDTH", "VectorForward", "widths"]
