"""What lowering a called user function tells its callers, remembered per function.

A caller's transform is built on what its callees read statically (their dependencies
count as the caller's own), and a callee that passes a parameter as a static argument
(``axis=axis``) is differentiated once per value of it.  Both are learnt by lowering the
callee, which is why lowering is handed `facts_of` (lowerer.py) instead of importing it.
"""

from __future__ import annotations

import weakref

from ..errors import SrcDiffError
from ..frontend.depends import Dependency, hold
from ..frontend.parse import parse_function
from .function import lower_function_specialised
from .state import CalleeFacts

_OF_FUNCTION: "weakref.WeakKeyDictionary[object, tuple]" = weakref.WeakKeyDictionary()
_IN_PROGRESS: set[int] = set()
_NONE = CalleeFacts((), ())


def of_function(func, table) -> tuple[Dependency, ...]:
    """The dependencies of user function `func`'s own transform, its callees' included.

    Lowers `func` (remembered until a dependency changes).  A function being lowered
    already (recursion) contributes nothing more; one srcdiff cannot lower contributes
    nothing (its transform reports the problem itself).
    """
    return _analyse(func, table).depends


def static_parameters(func, table) -> tuple[str, ...]:
    """The parameters user function `func` passes as static arguments (``axis=axis``): its
    adjoint is specialised on their values (lowerer.lower_specialised)."""
    return _analyse(func, table).static_parameters


def facts_of(func, table) -> CalleeFacts:
    """Both of the above at once: what a caller's lowering needs (a `CalleeFactsOf`)."""
    return _analyse(func, table)


def _analyse(func, table) -> CalleeFacts:
    found = _OF_FUNCTION.get(func)
    if found is not None and found[0] is func.__code__ and found[1] == table.version and hold(found[2].depends):
        return found[2]
    if id(func) in _IN_PROGRESS:
        return _NONE
    outermost = not _IN_PROGRESS  # inside a cycle a result lacks the cycle's other functions
    _IN_PROGRESS.add(id(func))
    try:
        parsed = parse_function(func)
        # which globals lowering reads, and which parameters it asks for, do not depend on
        # the static parameters' values: any value lets it run to the end
        _function, _namer, statics = lower_function_specialised(parsed, table, lambda name, node: None, facts_of)
        facts = CalleeFacts(parsed.dependencies(), tuple(statics))
    except SrcDiffError:
        facts = _NONE
    finally:
        _IN_PROGRESS.discard(id(func))
    if outermost:
        _OF_FUNCTION[func] = (func.__code__, table.version, facts)
    return facts
