"""numba versions of ``np.tile`` and ``np.repeat`` whose counts are computed when the function runs
(``np.tile(b, (X.shape[0], 1))``, ``np.repeat(h, len(xs), axis=0)``: rules/copies_when_run.py), and
of their adjoints ``tiles_summed`` / ``repeats_summed`` (rules/join_helpers.py).

arrays.py writes ``tile_by`` / ``repeat_along`` for counts written as constants; here a count is an
integer or a tuple of them known only when the code runs.  Their number (so the result's number of
axes) is in numba's type of the tuple, and each function's code is written from the types alone.  A
count per item (``np.repeat(x, counts)`` of an array of counts) is copied item by item.  Anything
else (a number tiled, counts of another type) is left to numba, which refuses it at the user's line.
"""

from __future__ import annotations

from numba import types

from ...rules.join_helpers import repeats_summed, tiles_summed
from .arrays import repeat_along, tile_by
from .naming import made, overload
from .reductions import axes


def _counts(reps) -> list[str] | None:
    """The expressions of each count of `reps` (an integer, or a tuple of integers), else None."""
    if isinstance(reps, types.Integer):
        return ["reps"]
    if isinstance(reps, types.BaseTuple) and len(reps) and all(isinstance(t, types.Integer) for t in reps.types):
        return [f"reps[{k}]" for k in range(len(reps))]
    return None


def _shape(items: list[str]) -> str:
    return "(" + "".join(f"{n}, " for n in items) + ")"


def _tiled(ndim: int, counts: list[str]) -> tuple[list[str], list[str]]:
    """(each count, each length of the array seen with as many axes) of ``np.tile``'s `counts` over
    an array of `ndim` axes: the shorter one padded with ones in front, as NumPy pads it."""
    full = max(ndim, len(counts))
    return ["1"] * (full - len(counts)) + counts, ["1"] * (full - ndim) + [f"x.shape[{d}]" for d in range(ndim)]


_NEGATIVE = "    if min(COUNTS) < 0:\n        raise ValueError('negative dimensions are not allowed')\n"


@overload(tile_by, prefer_literal=True)
def _tile_by_when_run(x, reps):
    """``np.tile(x, reps)`` of counts known when it runs: x seen as (1, n0, 1, n1, ...), broadcast to
    (r0, n0, r1, n1, ...)."""
    counts = _counts(reps)
    if not isinstance(x, types.Array) or counts is None:
        return None
    count, size = _tiled(x.ndim, counts)
    spread = [item for c in size for item in ("1", c)]
    wide = [item for c, s in zip(count, size) for item in (c, s)]
    out = [f"{c} * {s}" for c, s in zip(count, size)]
    return made(
        "def impl(x, reps):\n"
        + _NEGATIVE.replace("COUNTS", _shape(count))
        + f"    v = np.ascontiguousarray(x).reshape({_shape(spread)})\n"
        f"    return np.ascontiguousarray(np.broadcast_to(v, {_shape(wide)})).reshape({_shape(out)})\n"
    )


@overload(tiles_summed, prefer_literal=True)
def _tiles_summed(a, x, reps):
    """The adjoint of ``np.tile(x, reps)``: `a` seen as (r0, n0, r1, n1, ...), its tiles' axes summed."""
    counts = _counts(reps)
    if not (isinstance(a, types.Array) and isinstance(x, types.Array)) or counts is None:
        return None
    count, size = _tiled(x.ndim, counts)
    wide = [item for c, s in zip(count, size) for item in (c, s)]
    sums = "".join(f"    g = g.sum(axis={2 * k})\n" for k in reversed(range(len(count))))
    return made(
        "def impl(a, x, reps):\n"
        f"    g = np.ascontiguousarray(a).reshape({_shape(wide)})\n"
        + sums
        + "    return np.ascontiguousarray(g).reshape(x.shape)\n"
    )


def _integers(t) -> bool:
    return isinstance(t, types.Array) and t.ndim == 1 and isinstance(t.dtype, types.Integer)


@overload(repeat_along, prefer_literal=True)
def _repeat_along_when_run(x, repeats, axis):
    """``np.repeat(x, repeats, axis)`` of a count known when it runs (one for all: a broadcast), or of
    an array of counts, one per item along the axis (the items copied one by one)."""
    if not isinstance(x, types.Array) or not isinstance(axis, types.IntegerLiteral) or x.ndim == 0:
        return None
    (along,) = axes(axis, x.ndim)
    sizes = [f"x.shape[{d}]" for d in range(x.ndim)]
    if isinstance(repeats, types.Integer):
        spread = sizes[: along + 1] + ["1"] + sizes[along + 1 :]
        wide = sizes[: along + 1] + ["repeats"] + sizes[along + 1 :]
        out = sizes[:along] + [f"repeats * x.shape[{along}]"] + sizes[along + 1 :]
        return made(
            "def impl(x, repeats, axis):\n"
            + _NEGATIVE.replace("COUNTS", "(repeats,)")
            + f"    v = np.ascontiguousarray(x).reshape({_shape(spread)})\n"
            f"    return np.ascontiguousarray(np.broadcast_to(v, {_shape(wide)})).reshape({_shape(out)})\n"
        )
    if not _integers(repeats):
        return None
    before = ":, " * along
    out = sizes[:along] + ["sources.size"] + sizes[along + 1 :]
    return made(
        "def impl(x, repeats, axis):\n"
        f"    sources = np.repeat(np.arange(x.shape[{along}]), repeats)\n"
        f"    out = np.empty({_shape(out)}, x.dtype)\n"
        "    for j in range(sources.size):\n"
        f"        out[{before}j] = x[{before}sources[j]]\n"
        "    return out\n"
    )


@overload(repeats_summed, prefer_literal=True)
def _repeats_summed(a, x, repeats, axis=None):
    """The adjoint of ``np.repeat(x, repeats, axis)``: each copy of `a` added where it was copied from
    (a count per item, zeros too)."""
    if not (isinstance(a, types.Array) and isinstance(x, types.Array) and x.ndim > 0) or not (
        isinstance(repeats, types.Integer) or _integers(repeats)
    ):
        return None
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        return made(
            "def impl(a, x, repeats, axis=None):\n"
            "    sources = np.repeat(np.arange(x.size), repeats)\n"
            "    flat = np.ascontiguousarray(a).ravel()\n"
            "    if flat.size != sources.size:\n"
            "        raise ValueError('repeats_summed: the adjoint does not match the copies')\n"
            "    out = np.zeros(x.size, a.dtype)\n"
            "    for j in range(sources.size):\n"
            "        out[sources[j]] += flat[j]\n"
            "    return out.reshape(x.shape)\n"
        )
    if not isinstance(axis, types.IntegerLiteral) or a.ndim != x.ndim:
        return None
    (along,) = axes(axis, x.ndim)
    before = ":, " * along
    return made(
        "def impl(a, x, repeats, axis=None):\n"
        f"    sources = np.repeat(np.arange(x.shape[{along}]), repeats)\n"
        f"    if a.shape[{along}] != sources.size:\n"
        "        raise ValueError('repeats_summed: the adjoint does not match the copies')\n"
        "    out = np.zeros(x.shape, a.dtype)\n"
        "    for j in range(sources.size):\n"
        f"        out[{before}sources[j]] += a[{before}j]\n"
        "    return out\n"
    )


HELPERS = ("tiles_summed", "repeats_summed")

__all__ = ["HELPERS"]
