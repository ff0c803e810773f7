"""numba's on-disk cache met by several processes at once: its known transient failures.

Processes (``pytest -n``, a multiprocessing pool, a job array) compiling the same generated
module share its cache files.  numba writes each file whole (a temporary file renamed), but a
process can still meet another's half-finished work: an index naming a data file not yet
written, or a function whose callee was loaded from the cache while it was compiled, whose
object code numba then cannot save ("no compiled object yet for <Library ...>", seen with four
processes compiling one gradient).  None of these says anything about the code: the call is
made again with the module's cache turned off (compiled in memory, as without a cache), never
an error nor a wrong value."""

from __future__ import annotations

import pickle

#: what numba's cache raises when another process is mid-way through the same files (also
#: as the text of a compiler error it wraps them in, while typing a caller)
TRANSIENT_TEXTS = ("no compiled object yet", "EOFError", "UnpicklingError", "Ran out of input")


def transient(exc: BaseException) -> bool:
    """Whether `exc` is one of numba's cache failures under concurrent processes."""
    if isinstance(exc, (EOFError, pickle.UnpicklingError)):
        return True
    if isinstance(exc, OSError) and str(getattr(exc, "filename", "") or "").endswith((".nbi", ".nbc")):
        return True
    return any(text in str(exc) for text in TRANSIENT_TEXTS)


def called(dispatcher, module, functions, arguments):
    """`dispatcher(*arguments)`; on a transient cache failure, the same call with the cache of
    every function of `module` turned off (numba's NullCache: compiled in memory only)."""
    try:
        return dispatcher(*arguments)
    except Exception as exc:  # noqa: BLE001  only the cache's transient failures are retried
        if not transient(exc):
            raise
    from numba.core.caching import NullCache
    for name in functions:
        compiled = getattr(module, name, None)
        if hasattr(compiled, "_cache"):
            compiled._cache = NullCache()  # (numba's own switch: a dispatcher without cache=True has one)
    return dispatcher(*arguments)
