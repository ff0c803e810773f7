"""Time limits for `srcdiff.check`'s symbolic work, and its progress messages.

sympy can spend minutes in one call (differentiating or simplifying an expression that an
unrolled loop made huge), so a check cannot wait for its own code to regain control.  Each
stage has a watchdog: a thread that sleeps until the stage's time is up and then raises an
exception once in the checking thread (CPython's ``PyThreadState_SetAsyncExc``), which
arrives between two bytecodes of whatever runs there.  The watchdog also tells `progress`
when the stage has run for over `PROGRESS_AFTER` seconds.  It is stopped and joined when the
stage ends, whichever way it ends: no thread outlives a check, and the checking thread may
be the main thread or any other.  (Looking at the clock from a `sys.setprofile` function
would avoid the thread, but makes sympy about three times slower.)

The exception derives from BaseException, so that sympy's own ``except Exception`` clauses
let it through; `Budget.check`, called between elements, raises too once the time has
passed, so an exception swallowed by a bare ``except:`` still ends the stage at the next
element (and where Python cannot raise in another thread, those safe points are the limit).
An interruption may land in sympy's or mpmath's ``finally`` clauses, so the few global
settings those restore (``evaluate``, the working precision) are put back as they were.

The alarm may arrive as a stage ends, in the code that stops its watchdog: every place that
stops one calls the stop again if the alarm arrives there, and since at most one alarm is ever
pending, the second call finishes the job.  It may also arrive where Python cannot raise it (a
weakref callback, a finaliser, which sympy's churn of garbage runs often): Python reports such
exceptions through ``sys.unraisablehook`` and goes on, so while a watchdog runs a hook takes
the alarm quietly.  A swallowed alarm must not leave the stage running (one sympy call can run
for minutes with no safe point in it), so the watchdog repeats the alarm every `REPEAT_AFTER`
seconds until the stage ends.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable

import mpmath
from sympy.core.parameters import global_parameters

#: after this many seconds in one stage, `progress` hears that the stage is still running
PROGRESS_AFTER = 1.0
#: a stage still running this long after its alarm was raised gets the alarm again
REPEAT_AFTER = 0.5


class OutOfTime(BaseException):
    """A stage ran out of time; `stage` says which."""

    def __init__(self, stage: str, seconds: float):
        self.stage, self.seconds = stage, seconds
        super().__init__(f"{stage} took more than {seconds:g} s")


class _Alarm(BaseException):
    """What a watchdog raises in the checking thread; `Budget` turns it into `OutOfTime`."""


def _async_raiser():
    """``raise_in(thread_id)``, or None where Python cannot do it."""
    try:
        api = ctypes.pythonapi
        raise_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
            ("PyThreadState_SetAsyncExc", api))
    except (AttributeError, OSError):
        return None
    return lambda ident: raise_exc(ident, _Alarm)


_ASYNC = _async_raiser()


def stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class _Part:
    """What a stage yields: whether it ran out of its time."""

    expired = False


class _Watchdog:
    """A thread that raises `_Alarm` once in thread `ident` after `seconds` (None: never),
    and calls `announce` after `PROGRESS_AFTER` seconds, unless stopped first."""

    def __init__(self, ident: int, seconds: float | None, announce: Callable[[], None] | None):
        self.ident, self.seconds, self.announce = ident, seconds, announce
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.fired = 0  # alarms raised in the checking thread
        self.caught = 0  # of those, the ones it caught or the unraisable hook took
        self.ending = False  # the checking thread caught one and is ending the stage: no more
        self.previous_hook = sys.unraisablehook
        sys.unraisablehook = self.unraisable
        self.thread = threading.Thread(target=self._run, name="srcdiff.check time limit", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        waited = 0.0
        if self.announce is not None and (self.seconds is None or self.seconds > PROGRESS_AFTER):
            if self.done.wait(PROGRESS_AFTER):
                return
            try:
                self.announce()
            except Exception:  # a failing progress callback must not stop the clock
                pass
            waited = PROGRESS_AFTER
        if self.seconds is None or _ASYNC is None or self.done.wait(max(0.0, self.seconds - waited)):
            return
        while True:
            with self.lock:
                if self.done.is_set() or self.ending:
                    return
                self.fired += 1  # (a pending alarm is replaced, not added to: one at most)
                _ASYNC(self.ident)
            if self.done.wait(REPEAT_AFTER):
                return

    def unraisable(self, unraisable) -> None:
        """``sys.unraisablehook`` while this runs: an alarm that landed in a weakref callback or
        a finaliser has arrived (and is not printed); anything else goes to the previous hook."""
        if isinstance(unraisable.exc_value, _Alarm):
            self.caught += 1
        else:
            self.previous_hook(unraisable)

    def stop(self) -> None:
        """Stop the thread, and take delivery of an alarm it raised that has not arrived yet.

        At most one alarm is pending, and it may arrive while this runs: then this is called
        again (each caller does so), which finishes the job.  (Python could also cancel an
        alarm not yet arrived, but cancelling one that has arrived leaves the interpreter
        in a state in which cProfile hangs.)"""
        with self.lock:
            self.done.set()
        self.thread.join()
        if sys.unraisablehook == self.unraisable:  # (another may have replaced it since)
            sys.unraisablehook = self.previous_hook
        if self.caught < self.fired:  # one may be pending, or all were swallowed
            give_up = time.monotonic() + 0.1  # (past that, none is pending)
            try:
                while time.monotonic() < give_up:  # it arrives at the first call or jump back
                    pass
            except _Alarm:
                pass
            self.caught = self.fired


class Budget:
    """Each stage of one check may take `seconds` (None: no limit); `progress` hears about
    slow stages (from another thread).

    ``budget.run(work)`` runs the stages `work` holds and turns any running out of time into
    `OutOfTime`.  Inside it, ``with budget.stage("differentiating"):`` is a stage: it raises
    `OutOfTime` when its time is up, or for a ``soft`` stage stops it and goes on
    (``part.expired`` says so).  One stage runs at a time.
    """

    def __init__(self, seconds: float | None, label: str, progress: Callable[[str], None] | None):
        self.seconds = None if seconds is None else float(seconds)
        self.label = label
        self.progress = progress
        self.current = ""  # the stage running
        self._deadline = float("inf")
        self._watchdog: _Watchdog | None = None

    def run(self, work: Callable[[], object]):
        """`work()`, every watchdog stopped when it returns; `OutOfTime` when a stage ran out."""
        try:
            try:
                return work()
            finally:
                try:  # (no alarm can arrive before this `try`: no call comes first)
                    self._close()
                except _Alarm as exc:  # it arrived just now: the second time finishes the job
                    self._arrived(exc)
                    self._close()
        except _Alarm as exc:  # the stage's time was up as it ended
            self._arrived(exc)
            self._close()
            raise OutOfTime(self.current, self.seconds or 0.0) from None

    @contextmanager
    def stage(self, what: str, soft: bool = False):
        """Run one stage of the check within `seconds`."""
        part = _Part()
        started = time.monotonic()
        announced = []

        def announce():
            announced.append(True)
            limit = f"; limit {self.seconds:g} s" if self.seconds is not None else ""
            self.progress(f"srcdiff.check {self.label}: {what}... (over {PROGRESS_AFTER:g} s{limit})")

        saved = dict(vars(global_parameters)), mpmath.mp.prec
        self.current = what
        self._deadline = float("inf") if self.seconds is None else started + self.seconds
        if (self.seconds is not None and _ASYNC is not None) or self.progress is not None:
            self._watchdog = _Watchdog(threading.get_ident(), self.seconds,
                                       announce if self.progress is not None else None)
        try:
            yield part
        except (_Alarm, OutOfTime) as exc:  # the watchdog's alarm, or `check` at a safe point
            self._arrived(exc)
            self._close()
            part.expired = True
        finally:
            try:
                self._close()
            except _Alarm as exc:
                self._arrived(exc)
                self._close()
                part.expired = True
        self._deadline = float("inf")
        if part.expired:  # an interruption may have skipped sympy's and mpmath's own clean-up
            vars(global_parameters).update(saved[0])
            mpmath.mp.prec = saved[1]
            if not soft:
                raise OutOfTime(what, self.seconds or 0.0)
        elif announced:
            self.progress(f"srcdiff.check {self.label}: {what} took {time.monotonic() - started:.1f} s")

    def check(self) -> None:
        """A safe point: raise `OutOfTime` if the stage's time has passed (also when its alarm
        was swallowed by a bare ``except:`` somewhere)."""
        if time.monotonic() > self._deadline:
            raise OutOfTime(self.current, self.seconds or 0.0)

    def _arrived(self, exc: BaseException) -> None:
        if isinstance(exc, _Alarm) and self._watchdog is not None:
            self._watchdog.ending = True
            self._watchdog.caught += 1

    def _close(self) -> None:
        watchdog = self._watchdog
        if watchdog is not None:
            try:
                watchdog.stop()
            except _Alarm:
                watchdog.ending = True
                watchdog.caught += 1
                watchdog.stop()
            self._watchdog = None
