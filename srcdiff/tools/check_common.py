"""What `check` (sympy) and `gradcheck` (central differences) share: the example arguments
they run the function on, and the error a mismatch raises; and `check`'s default time limit,
which the command line needs without loading sympy."""

from __future__ import annotations

import inspect

import numpy as np

from ..api.derivatives import Composite, Derivative
from ..api.gradients import GradFunction
from ..errors import SrcDiffError

#: Seconds each symbolic stage of `srcdiff.check` may take by default (running on symbols,
#: differentiating, simplifying, comparing in 50 digits); then it checks numerically instead.
TIMEOUT = 5.0


class GradientMismatch(SrcDiffError):
    """A check found that srcdiff's gradient is wrong; `.report` holds the details."""

    def __init__(self, report):
        self.report = report
        super().__init__(str(report))


def error_text(exc: BaseException) -> str:
    """``ZeroDivisionError: float division by zero``: an exception in one line."""
    lines = str(exc).splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def unwrap(f, args: tuple = ()):
    """The user's function, also when it is given as its `srcdiff.grad`; for the gradient of
    a gradient (``grad(grad(f))``), the code of the inner gradient for arguments like `args`,
    as a function of its own, so the check is of the second derivative."""
    if isinstance(f, Derivative):
        return f.plain_for(f.positional(args, {}))
    if isinstance(f, Composite):
        raise SrcDiffError(f"{f.__qualname__} is not one function srcdiff can check",
                           hint="check the function itself, or its gradient: srcdiff.check(srcdiff.grad(f), ...)")
    return f.func if isinstance(f, GradFunction) else f


def example_arguments(func, args, shapes: dict | None, seed: int) -> tuple:
    """Every parameter's value: from `args`, else from `shapes` (random), else its default."""
    sig = inspect.signature(func)
    params = list(sig.parameters.values())
    if len(args) > len(params):
        raise SrcDiffError(f"{func.__qualname__} takes {len(params)} argument(s), {len(args)} were given")
    shapes = dict(shapes or {})
    unknown = set(shapes) - {p.name for p in params}
    if unknown:
        raise SrcDiffError(f"shapes names {sorted(unknown)}, which are not parameters of {func.__qualname__}")
    rng = np.random.default_rng(seed)
    out = list(args)
    for p in params[len(args):]:
        if p.name in shapes:
            shape = tuple(shapes.pop(p.name))
            out.append(float(rng.uniform(0.5, 1.5)) if shape == () else rng.uniform(0.5, 1.5, size=shape))
        elif p.default is not p.empty:
            out.append(p.default)
        else:
            missing = [q.name for q in params[len(out):] if q.default is q.empty and q.name not in shapes]
            raise SrcDiffError(
                f"no value for {', '.join(map(repr, missing))} of {func.__qualname__}",
                hint="pass an example value for every parameter without a default, "
                     "or its shape with shapes={name: shape}")
    for name, shape in shapes.items():  # given both as an argument and as a shape
        value = out[[p.name for p in params].index(name)]
        if np.shape(value) != tuple(shape):
            raise SrcDiffError(f"shapes says {name} has shape {tuple(shape)}, but its argument has "
                               f"shape {np.shape(value)}")
    return tuple(out)
