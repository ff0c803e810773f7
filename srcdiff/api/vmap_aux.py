"""`vmap` of a gradient with ``has_aux=True`` (api/vmap.py), batched: the loss's gradient is the batched
code of the function rewritten to return its loss alone (what ``grad(f, has_aux=True)`` differentiates),
and the aux is the second result of `f` itself, batched (``vmap(f)``), as ``grad(f, has_aux=True)`` calls
`f` once more for it.  Each half runs one example at a time where it cannot be batched; the call's
`per_example` then says which and why."""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError
from .gradients import GradFunction


def aux_function(f):
    """The function whose batched second result is the aux of `f`, a gradient with has_aux (else None)."""
    if isinstance(f, GradFunction) and f.front.has_aux and not f.options.jit and not f.options.debug:
        return f.func
    return None


def aux_refusal(described: str, refusal: SrcDiffError) -> SrcDiffError:
    """Why the aux of `described` (a vmap of a gradient with has_aux) runs one example at a time while its
    gradient is batched: `refusal`, the reason the function returning the aux was not batched, said so."""
    return SrcDiffError(f"{described}: the gradient is batched in one call, but the aux (the function's second "
                        f"result, computed by a call of the function itself) runs one example at a time: "
                        f"{refusal.reason}", refusal.location,
                        "return the aux as arrays or a tuple of arrays (``return loss, (r, z)``), which are "
                        "batched; a dict built in the function is not (batched code returns arrays and tuples)")


def with_aux(f: GradFunction, result, returned):
    """The batched gradient `result` of `f`'s loss (with its value, for value_and_grad) and the batched
    ``(loss, aux)`` `returned` by the function, as `f` gives them: ``(gradient, aux)`` or
    ``((value, aux), gradient)``."""
    if not (isinstance(returned, tuple) and len(returned) == 2):
        raise SrcDiffError("with has_aux=True the function must return a pair (loss, aux)",
                           hint="return (loss, aux), or leave has_aux out")
    if f.options.with_value:
        value, grads = result
        return (value, returned[1]), grads
    return result, returned[1]


def call_kinds(args, axes) -> tuple:
    """What decides whether a call is batched or run one example at a time: each argument's axis,
    its shape and dtype (an array), or its value (a loop count, a flag)."""
    out = []
    for value, axis in zip(args, axes):
        if type(value) in (int, bool, str, type(None)):
            out.append((repr(axis), type(value), value))
        elif isinstance(value, (np.ndarray, np.generic, float, complex)):
            out.append((repr(axis), np.shape(value), np.asarray(value).dtype.str))
        elif isinstance(value, (list, tuple)):
            out.append((repr(axis), type(value), call_kinds(value, [None] * len(value))))
        else:
            out.append((repr(axis), type(value)))
    return tuple(out)


__all__ = ["aux_function", "aux_refusal", "call_kinds", "with_aux"]
