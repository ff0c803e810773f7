"""The shapes of ``np.tensordot`` and ``np.inner`` where their operands' ndim is known.

A gradient's adjoints of these products are tensordots again; knowing their result's ndim
lets the rule write the textbook adjoint when srcdiff differentiates the gradient itself
(higher derivatives), where an unknown ndim would leave it without one.
"""

from __future__ import annotations

from ..ir import shapes


def _axes_lists(axes, nx: int, ny: int):
    """((x's contracted axes), (y's)) of `axes` as np.tensordot reads it; None if unreadable."""
    try:
        if isinstance(axes, int):
            return list(range(nx - axes, nx)), list(range(axes))
        ax, ay = axes
        ax = [ax] if isinstance(ax, int) else list(ax)
        ay = [ay] if isinstance(ay, int) else list(ay)
        if len(ax) != len(ay) or not all(-nx <= a < nx for a in ax) or not all(-ny <= a < ny for a in ay):
            return None
        return [a % nx for a in ax], [a % ny for a in ay]
    except (TypeError, ValueError):
        return None


def tensordot_shape(static, x, y):
    if not (x.known and y.known):
        return shapes.UNKNOWN
    axes = static.get("axes", 2)
    if isinstance(axes, int) and not 0 <= axes <= min(x.ndim, y.ndim):
        return shapes.UNKNOWN
    pair = _axes_lists(axes, x.ndim, y.ndim)
    if pair is None:
        return shapes.UNKNOWN
    ax, ay = pair
    return shapes.Shape(tuple(d for a, d in enumerate(x.dims) if a not in ax)
                        + tuple(d for a, d in enumerate(y.dims) if a not in ay))


def inner_shape(static, x, y):
    if not (x.known and y.known):
        return shapes.UNKNOWN
    if x.ndim == 0 or y.ndim == 0:
        return shapes.array(shapes.broadcast(x, y)) if x.ndim == 0 and y.ndim == 0 else \
            shapes.Shape(x.dims if y.ndim == 0 else y.dims)
    return shapes.Shape(x.dims[:-1] + y.dims[:-1])
