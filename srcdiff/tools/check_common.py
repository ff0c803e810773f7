"""What `check` (sympy) and `gradcheck` (central differences) share: the function they check
(`unwrap`), the error a mismatch raises; and `check`'s default time limit, which the command
line needs without loading sympy.  The call itself is bound in `check_front`."""

from __future__ import annotations

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


def refusal(exc: BaseException) -> bool:
    """Whether `exc`, raised by srcdiff's gradient, is a refusal (a `SrcDiffError` of srcdiff's own,
    such as a write through a repeated index), which `check` raises as `grad` does, rather than an
    error of the generated code (a ``ZeroDivisionError`` named at the user's line), a mismatch."""
    cause = exc.__cause__
    return isinstance(exc, SrcDiffError) and (cause is None or isinstance(cause, SrcDiffError))


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
