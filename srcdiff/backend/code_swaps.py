"""Gradients sent back to their slow path when their function's ``__code__`` is replaced.

A gradient's calls go straight to its compiled code (guards.prologue), which is right only for
the code the function had when it was transformed: a module reloader assigns ``f.__code__``.
The guard could read ``f.__code__`` on every call, but that attribute read is about a tenth of
the call of a small scalar gradient (27 ns of 310).  CPython raises the audit event
``object.__setattr__`` (the function, ``"__code__"``, the new code) before every assignment of a
function's ``__code__``, however it is made; one hook, installed with the first watched
function, resets each gradient of that function (its ``_reset``: the fast path dropped, the next
call transforms the new code).  Where there are no such events (not CPython), `WATCHING` is
False and the guard reads ``__code__`` on each call as before.
"""

from __future__ import annotations

import sys
import threading
import weakref

#: whether assignments of ``__code__`` are seen here (else the guard tests ``__code__`` per call)
WATCHING = sys.implementation.name == "cpython" and hasattr(sys, "addaudithook")

_watched: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # function -> WeakSet of gradients
_installed = False
_lock = threading.Lock()


def watch(function, gradient, code=None) -> None:
    """Call ``gradient._reset()`` when `function`'s ``__code__`` is assigned (both held weakly).

    `code`: the code the gradient was made from.  Another thread may have assigned a new one
    after the gradient read it and before this call (its event found nothing to reset): then
    the gradient is reset here, else its fast path would run the old code's gradient."""
    global _installed
    with _lock:
        if not _installed:
            sys.addaudithook(_on_event)
            _installed = True
        try:
            _watched.setdefault(function, weakref.WeakSet()).add(gradient)
        except TypeError:  # (no weak reference to it: never happens for a Python function)
            pass
    if code is not None and getattr(function, "__code__", code) is not code:
        gradient._reset()


def _on_event(event: str, args: tuple) -> None:
    # every audited event of the process passes here: the first test rejects the others
    if event != "object.__setattr__" or len(args) != 3 or args[1] != "__code__":
        return
    try:
        with _lock:  # (a thread may be adding a gradient of the same function: watch)
            gradients = _watched.pop(args[0], None)
    except TypeError:  # (an object of no weak reference: not a watched function)
        return
    for gradient in list(gradients or ()):
        gradient._reset()
