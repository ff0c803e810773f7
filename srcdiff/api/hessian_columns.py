"""``hessian(f, jit="numba")``: every column of the Hessian in one compiled call.

Column k is the derivative of the gradient along the k-th unit direction: forward mode over
the gradient's generated code, several directions per sweep (`VectorForward`: the
gradient's own work done once per sweep), compiled and fused by numba, called for each
sweep by a loop compiled with it (backend/numba/columns.py).  The sweep is compiled, and
refused at the user's line, by its own first call; the loop then runs every column.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import SrcDiffError
from .hessian_forward import VectorForward, widths
from .jitting import refused


class JitColumns:
    """The numba-compiled columns of the Hessian of the generated gradient `plain` with
    respect to the float64 parameters `wrt` (of the parameters `names`)."""

    def __init__(self, plain, wrt: tuple[str, ...], names: list[str]):
        self.plain, self.wrt, self.names = plain, wrt, names
        self._vectors: dict = {}  # width -> its VectorForward
        self.last: Any = None  # the VectorForward of the last call
        self.lowered: Any = None  # the Lowered its sweep was compiled from (a Plan checks it)

    @property
    def source(self) -> str:
        """The module numba compiled for the sweep (fused)."""
        return self.last.source

    def blocks(self, args: tuple, leaves: list, dtypes: list, several: bool) -> list:
        """``blocks[i][j]`` of shape ``leaf_i.shape + leaf_j.shape``: the derivative of the
        gradient's part i along every element of leaf j (`dtypes`: float64 all)."""
        from ..backend.numba import columns

        sizes = [leaf.size for leaf in leaves]
        width, _ = widths(sum(sizes))
        vector = self._vectors.get(width)
        if vector is None:
            vector = self._vectors[width] = VectorForward(self.plain, self.wrt, self.names, width, "numba")
        run = vector.function(args)
        self.last, self.lowered = vector, vector.lowered
        if tuple(vector.lowered.wrt) != tuple(self.wrt):
            raise SrcDiffError("the sweep's tangents are not in the order of the gradient's parts")
        zeros = [np.zeros(leaf.shape) if leaf.ndim else 0.0 for leaf in leaves]
        run(*args, *(zeros * width))  # compiles the sweep, or refuses it at the user's line
        positions = [self.names.index(n) for n in self.wrt]
        kinds = tuple((p, bool(leaf.ndim)) for p, leaf in zip(positions, leaves))
        drive = columns.driver(len(run.env), len(args), kinds, several, width)
        try:
            outs = drive(run.dispatcher, *[e.current() for e in run.env], *args)
        except Exception as exc:  # noqa: BLE001  numba's refusal of the loop, said as srcdiff's
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise refused("srcdiff.hessian", f"numba could not compile the loop over the Hessian's columns "
                          f"({type(exc).__name__}: {first})") from None
        starts = np.cumsum([0] + sizes)
        return [[outs[i][:, starts[j]:starts[j + 1]].reshape(leaf.shape + other.shape)
                 for j, other in enumerate(leaves)] for i, leaf in enumerate(leaves)]


__all__ = ["JitColumns"]
