"""``hessian(f, jit="numba")`` and the forward Jacobian under numba: every column in one
compiled call.

Column k of a Hessian is the derivative of the gradient along the k-th unit direction (of a
Jacobian, the derivative of the function): forward mode over the generated gradient's code
(or the function's), several directions per sweep (`VectorForward`: the work that does not
depend on the direction done once per sweep), compiled and fused by numba, called for each
sweep by a loop compiled with it (backend/numba/columns.py).  Where vector forward mode
refuses the code (a helper kept a call of its own tangent function), one direction per
sweep.  The sweep is compiled, and refused at the user's line, by its own first call.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from .hessian_forward import VectorForward
from .jitting import refused

#: the most directions one compiled sweep carries: numba's compile time grows with the sweep's
#: length (a cold compile of Rosenbrock's: 9 s at 1 or 2, 15 s at 4, 24 s at 8 on a busy
#: machine), while the run time gains little past 4 (the MLP Hessian: 1.6x, 1.35x, 1.35x jax.jit)
WIDTH = 4


def widths(total: int) -> tuple[int, int]:
    """(directions per sweep, sweeps) for `total` directions, at most `WIDTH` per sweep."""
    sweeps = -(-total // WIDTH)
    return -(-total // sweeps), sweeps


class JitColumns:
    """The numba-compiled columns of the derivative of the plain function `plain` with
    respect to its float64 parameters `wrt` (of the parameters `names`)."""

    def __init__(self, plain, wrt: tuple[str, ...], names: list[str]):
        self.plain, self.wrt, self.names = plain, wrt, names
        self._vectors: dict = {}  # width -> its VectorForward, or the SrcDiffError that refused it
        self._ready: dict = {}  # (id of a compiled sweep, signature) -> the sweep, once it ran
        self._compiled: dict = {}  # width -> (the sweep, its loop) of the last call
        self.last: Any = None  # the VectorForward of the last call
        self.lowered: Any = None  # the Lowered its sweep was compiled from (a Plan checks it)

    @property
    def source(self) -> str:
        """The module numba compiled for the sweep (fused)."""
        return self.last.source

    def _sweep(self, args: tuple, leaves: list, width: int, loop):
        """The numba sweep of `width` directions for arguments like `args`, and its loop."""
        vector = self._vectors.get(width)
        if isinstance(vector, SrcDiffError):
            raise vector
        if vector is None:
            vector = self._vectors[width] = VectorForward(self.plain, self.wrt, self.names, width, "numba")
        vector.extra = loop
        try:
            run = vector.function(args)
            if not hasattr(run.module, f"{run.name}_columns"):  # compiled before without this loop
                vector.last.jitted = None
                run = vector.function(args)
        except SrcDiffError as exc:
            self._vectors[width] = exc
            raise
        if tuple(vector.lowered.wrt) != tuple(self.wrt):
            raise SrcDiffError("the sweep's tangents are not in the order of the parameters")
        key = (id(run), tuple(map(shapes.signature, args)))
        if key not in self._ready:
            zeros = [np.zeros(leaf.shape) if leaf.ndim else 0.0 for leaf in leaves]
            run(*args, *(zeros * width))  # compiles the sweep, or refuses it at the user's line
            self._ready[key] = run  # (kept: its id stays its own)
        self.last, self.lowered = vector, vector.lowered
        return run

    def blocks(self, args: tuple, leaves: list, dtypes: list, several: bool, outputs: list | None = None) -> list:
        """``blocks[i][j]`` of shape ``output_i.shape + leaf_j.shape``: the derivative of the
        function's part i along every element of leaf j (`dtypes`: float64 all).  `outputs`
        are the shapes of the function's parts (None: the leaves', as for a gradient)."""
        from ..backend.numba.columns import loop_text
        from ..backend.numba.hoisting import split_sweep

        outputs = [leaf.shape for leaf in leaves] if outputs is None else outputs
        if any(np.dtype(d) != np.float64 for d in dtypes):  # (the compiled loop's buffers are float64)
            return self._one_by_one(args, leaves, dtypes, several, outputs)
        sizes = [leaf.size for leaf in leaves]
        positions = [self.names.index(n) for n in self.wrt]
        kinds = tuple((p, bool(leaf.ndim)) for p, leaf in zip(positions, leaves))
        parts = tuple(bool(len(s)) for s in outputs)

        def loop(width):
            def extra(built):
                env = [e.param for e in built.env]
                whole = loop_text(f"{built.main}_columns_whole", built.main, env, len(args), kinds, parts, several,
                                  width)
                split = split_sweep(built.source, built.main, width * len(leaves))
                if split is None:
                    return [(f"{built.main}_columns", whole.replace("_columns_whole(", "_columns(", 1))]
                hoisted = loop_text(f"{built.main}_columns", built.main, env, len(args), kinds, parts, several,
                                    width, (split.invariant, split.directed))
                return [(split.invariant, split.texts[0]), (split.directed, split.texts[1]),
                        (f"{built.main}_columns", hoisted), (f"{built.main}_columns_whole", whole)]
            return extra
        width, _ = widths(sum(sizes))
        try:
            run = self._sweep(args, leaves, width, loop(width))
        except SrcDiffError:
            if width == 1:
                raise
            width = 1  # (vector forward mode refused: one direction per sweep)
            run = self._sweep(args, leaves, width, loop(width))
        drive = getattr(run.module, f"{run.name}_columns")
        try:
            try:
                found = self._run(run, drive, args, leaves, outputs)
            except Exception:  # noqa: BLE001  the sweep split in two (numba/hoisting.py) refused: the whole sweep
                whole = getattr(run.module, f"{run.name}_columns_whole", None)
                if whole is None:
                    raise
                drive = whole
                found = self._run(run, drive, args, leaves, outputs)
        except Exception as exc:  # noqa: BLE001  numba's refusal of the loop, said as srcdiff's
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise refused("the columns' loop", f"numba could not compile the loop over the columns "
                          f"({type(exc).__name__}: {first})") from None
        self._compiled[width] = (run, drive)
        return found

    def _one_by_one(self, args: tuple, leaves: list, dtypes: list, several: bool, outputs: list) -> list:
        """`blocks` for float32 (float16) leaves: one compiled forward sweep per column, each in the
        leaves' own dtype, stacked in the dtype the sweep gives (float32 where NumPy's is)."""
        from .forward import JvpFunction

        forward = self._vectors.get("one by one")
        if forward is None:
            forward = self._vectors["one by one"] = JvpFunction(self.plain, wrt=self.wrt, with_value=False,
                                                                jit="numba")
        self.last, self.lowered = forward, None
        blocks: list = [[None] * len(leaves) for _ in outputs]
        for j, name in enumerate(self.wrt):
            columns = []
            for e in range(leaves[j].size):
                unit = np.zeros(leaves[j].shape, dtype=dtypes[j])
                unit.flat[e] = 1
                tangents = tuple((unit if leaves[j].ndim else unit[()]) if n == name else
                                 (np.zeros(leaves[k].shape, dtype=dtypes[k]) if n in self.wrt and
                                  leaves[k := self.wrt.index(n)].ndim else 0.0 if n in self.wrt else None)
                                 for n in self.names)
                product = forward(args, tangents)[1]
                columns.append(product if several else (product,))
            for i, shape in enumerate(outputs):
                stacked = np.stack([np.asarray(c[i]) for c in columns], axis=-1)
                blocks[i][j] = stacked.reshape(tuple(shape) + leaves[j].shape)
        return blocks

    def again(self, args: tuple, leaves: list, dtypes: list, several: bool) -> list:
        """`blocks` for a call a `Plan` found like the last one (same signature, the code it
        was compiled from still current): the compiled loop called at once."""
        found = self._compiled.get(widths(sum(leaf.size for leaf in leaves))[0])
        if found is None:
            return self.blocks(args, leaves, dtypes, several)
        run, drive = found
        return self._run(run, drive, args, leaves, [leaf.shape for leaf in leaves])

    @staticmethod
    def _run(run, drive, args: tuple, leaves: list, outputs: list) -> list:
        values = run.given([e.current() for e in run.env])
        outs = drive(*values, *run.given_args(args), *[math.prod(s) for s in outputs])
        starts = [0]
        for leaf in leaves:
            starts.append(starts[-1] + leaf.size)
        return [[outs[i][:, starts[j]:starts[j + 1]].reshape(tuple(shape) + other.shape)
                 for j, other in enumerate(leaves)] for i, shape in enumerate(outputs)]


__all__ = ["JitColumns"]
