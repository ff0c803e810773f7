"""``np.broadcast_to``, ``np.tile`` and ``np.repeat`` whose shape or count is computed when the
function runs (``np.tile(b, (X.shape[0], 1))``, ``np.repeat(h, len(xs), axis=0)``,
``np.broadcast_to(b, X.shape)``).

The rules of numpy_shape.py take those arguments as settings known when the gradient is built;
a gradient is compiled per number of axes, not per length, so a count read from a shape is known
only when it runs.  It carries no gradient, so these rules take it as an operand computed as
written, and their adjoints read it when they run: the copies of each element summed back
(`tiles_summed`, `repeats_summed` of join_helpers.py; `unbroadcast` for a broadcast).  Not in `RULES`: lowering
names them itself (lower/copies_when_run.py), and the adjoint helpers have rules of their own
(moving the seed the other way), so a gradient using them is differentiated again.
"""

from __future__ import annotations

import numpy as np

from ..ir import shapes
from .join_helpers import repeats_summed, tiles_summed
from .table import LINEAR, rule


def broadcast_to_when_run(x, shape):
    """``np.broadcast_to(x, shape)``, `shape` computed when the function runs."""
    return np.broadcast_to(x, shape)


def tile_when_run(x, reps):
    """``np.tile(x, reps)``, `reps` computed when the function runs."""
    return np.tile(x, reps)


def repeat_when_run(x, repeats, axis=None):
    """``np.repeat(x, repeats, axis)``, `repeats` computed when the function runs."""
    return np.repeat(x, repeats, axis=axis)


def _of_ndim(static, *operands):
    ndim = static.get("ndim")
    return shapes.UNKNOWN if ndim is None else shapes.Shape((shapes.UNKNOWN_DIM,) * ndim)


def _like_x(static, a, x, *rest):
    return shapes.array(x)


_NEW = {"fresh": True, "array_result": True}

BROADCAST_TO_WHEN_RUN = rule(
    broadcast_to_when_run,
    ("x", "shape"),
    {"x": "unbroadcast(g, x)"},
    name="numpy.broadcast_to (shape computed when run)",
    static={"ndim": None},
    shape=_of_ndim,
    tangents=LINEAR,
)
TILE_WHEN_RUN = rule(
    tile_when_run,
    ("x", "reps"),
    {"x": "tiles_summed(g, x, reps)"},
    name="numpy.tile (count computed when run)",
    static={"ndim": None},
    shape=_of_ndim,
    tangents=LINEAR,
    **_NEW,
)
REPEAT_WHEN_RUN = rule(
    repeat_when_run,
    ("x", "repeats"),
    {"x": "repeats_summed(g, x, repeats, axis)"},
    name="numpy.repeat (count computed when run)",
    static={"axis": None, "ndim": None},
    shape=_of_ndim,
    tangents=LINEAR,
    **_NEW,
)

#: the adjoint helpers' own rules: each is linear in `a`, its adjoint the copies made again (x is
#: read for its shape only)
HELPER_RULES = [
    rule(
        tiles_summed,
        ("a", "x", "reps"),
        {"a": "np.reshape(np.tile(g, reps), np.shape(a))"},
        shape=_like_x,
        shape_only=("x",),
        tangents={"a": "tiles_summed(a_dot, x, reps)"},
        not_symbolic="a helper of generated gradients, checked numerically",
        **_NEW,
    ),
    rule(
        repeats_summed,
        ("a", "x", "repeats"),
        {"a": "np.reshape(np.repeat(g, repeats, axis=axis), np.shape(a))"},
        static={"axis": None},
        shape=_like_x,
        shape_only=("x",),
        tangents={"a": "repeats_summed(a_dot, x, repeats, axis)"},
        not_symbolic="a helper of generated gradients, checked numerically",
        **_NEW,
    ),
]
