"""numba's compiler given a budget of CPU time: a refusal, never a compile without end.

numba's type inference can run for minutes, its memory growing, on types it cannot settle (a
list carried through a loop whose items are arrays and numbers).  mixed_lists.py refuses the
forms known to do that before numba sees them, in a second; `watched` is the backstop for
the others: while the first call of a compiled gradient runs, a timer of CPU time
(``SRCDIFF_NUMBA_COMPILE_SECONDS``, default 120 s; 0 switches it off) stops numba's compiler if
it is still compiling when the time is up.  Only the compiler is stopped: if the time runs out
while the compiled code itself runs (a long computation), nothing happens.  The timer is the
process's virtual one (user CPU time), so the timers of CPU and wall time others set (a test's
limit) are left alone; it is armed only in the main thread, where Python delivers signals.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading


class CompileTooLong(Exception):
    """numba's compiler ran past its budget (jit.py refuses the gradient)."""


def seconds() -> float:
    """The compiler's budget of CPU time."""
    try:
        return float(os.environ.get("SRCDIFF_NUMBA_COMPILE_SECONDS", "120"))
    except ValueError:
        return 120.0


def reason(budget: float) -> str:
    return (
        f"numba's compiler did not finish within {budget:g} s of CPU time (types it cannot settle, such as "
        "a list or a tuple whose items change kind in a loop); write such values as tuples of one kind each, "
        "or leave jit= out (SRCDIFF_NUMBA_COMPILE_SECONDS sets the budget)"
    )


def stop(state: dict, where: str, hint: str) -> None:
    """Raise the refusal if the compiler ran past its budget (numba may have wrapped `CompileTooLong`)."""
    if state.get("expired"):
        from ...errors import SrcDiffError

        raise SrcDiffError(f"{where}jit='numba': {reason(state['expired'])}", hint=hint) from None


@contextlib.contextmanager
def watched(state: dict):
    """Stop numba's compiler with `CompileTooLong` past the budget; ``state["expired"]`` then says so,
    wherever numba turned the exception into one of its own."""
    budget = seconds()
    if (
        budget <= 0
        or threading.current_thread() is not threading.main_thread()
        or signal.getitimer(signal.ITIMER_VIRTUAL)[0]
    ):  # (someone else's virtual timer: left alone)
        yield
        return

    def expire(signum, frame):
        while frame is not None:
            if f"{os.sep}numba{os.sep}core{os.sep}" in frame.f_code.co_filename:  # compiling, not running
                state["expired"] = budget
                raise CompileTooLong(reason(budget))
            frame = frame.f_back

    old = signal.signal(signal.SIGVTALRM, expire)
    signal.setitimer(signal.ITIMER_VIRTUAL, budget)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, old)


__all__ = ["CompileTooLong", "reason", "seconds", "stop", "watched"]
