"""The few helpers generated code may call.

Generated gradients prefer plain NumPy expressions; these helpers exist only for what the
code generator cannot know before run time (an operand's shape, say).  Each is small enough
to read in the generated source's stead.
"""

from __future__ import annotations

import numpy as np

from .errors import SrcDiffError


def unbroadcast(g, x):
    """Sum the adjoint `g` back to the shape of the operand `x` it was broadcast from."""
    shape = np.shape(x)
    if np.shape(g) == shape:
        return g
    g = np.asarray(g)
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(axis=tuple(range(lead)))
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if ones:
        g = g.sum(axis=ones, keepdims=True)
    return g if isinstance(x, np.ndarray) else g[()]


def zeros_like(x):
    """The adjoint of an input the output does not depend on: 0.0, or zeros of x's shape."""
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape)
    return 0.0


def copy_array(x):
    """A copy of an array (so two returned gradients never share memory); numbers as they are."""
    return x.copy() if isinstance(x, np.ndarray) else x


def ensure_scalar(value, where: str):
    """Refuse a non-scalar output: its gradient is not defined (a Jacobian is)."""
    if np.ndim(value) != 0:
        raise SrcDiffError(
            f"{where}: the function returns a value of shape {np.shape(value)}, but a "
            "gradient needs a scalar output",
            hint="reduce it to a scalar (e.g. .sum() or .mean()), or differentiate one element",
        )
    return value


def matmul_adjoint_x(g, x, y):
    """Adjoint of ``x @ y`` with respect to `x`, for any ndim (used when ndim is unknown)."""
    x, y, g = np.asarray(x), np.asarray(y), np.asarray(g)
    if y.ndim == 1:
        gx = np.multiply.outer(g, y) if x.ndim > 1 else g * y
    elif x.ndim == 1:
        gx = (y @ g[..., None])[..., 0]
    else:
        gx = g @ np.swapaxes(y, -1, -2)
    return unbroadcast(gx, x)


def matmul_adjoint_y(g, x, y):
    """Adjoint of ``x @ y`` with respect to `y`, for any ndim."""
    x, y, g = np.asarray(x), np.asarray(y), np.asarray(g)
    if x.ndim == 1:
        gy = np.multiply.outer(x, g) if y.ndim > 1 else g * x
    else:
        gy = np.swapaxes(x, -1, -2) @ g
    return unbroadcast(gy, y)


HELPERS = {
    "unbroadcast": unbroadcast,
    "zeros_like": zeros_like,
    "copy_array": copy_array,
    "ensure_scalar": ensure_scalar,
    "matmul_adjoint_x": matmul_adjoint_x,
    "matmul_adjoint_y": matmul_adjoint_y,
}
