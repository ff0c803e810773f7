"""``jit="numba"`` of the transformations other than `grad`: the code they run with NumPy,
compiled by the numba backend (backend/jit.py), with its fusion of elementwise chains.

`jvp` and `hvp` compile their forward sweep (forward mode over the gradient's code for
`hvp`), `jacobian` and `hessian` the batched code of all rows (or, for a Hessian whose
gradient batching refuses, the vector forward sweeps of its columns), `vjp` the gradient of
``sum(f(x) * cotangent)``.  Nothing falls back to NumPy: what numba cannot compile is
refused with a `SrcDiffError` naming the user's line.
"""

from __future__ import annotations

from typing import Any, Callable, cast

from ..backend import jit as numba_backend
from ..driver import CACHE
from ..errors import SrcDiffError
from ..rules import TEMPLATE_GLOBALS

HINT = "leave jit out (NumPy), or keep the function to loops and NumPy calls numba compiles"


def checked(jit, what: str) -> str | None:
    """`jit` validated: None or "numba"."""
    if jit not in (None, "numba"):
        raise SrcDiffError(f"{what}: jit={jit!r} is not supported", hint='use jit="numba" or leave jit out')
    return jit


def compiled(made, found, extra=None) -> Callable[..., Any]:
    """The Variant `made` of the `Lowered` `found` compiled by numba (made once per variant,
    kept on it): a function of the variant's arguments.  `extra`: functions compiled in its
    module (backend/jit.py)."""
    with CACHE.lock:  # (two threads' first calls make one module: backend/jit.py)
        if made.jitted is None:
            made.jitted = numba_backend.numba_function(made, found, TEMPLATE_GLOBALS, CACHE.origins, extra)
    return cast(Callable[..., Any], made.jitted)


def runner(made, found, jit: str | None, extra=None) -> Callable[..., Any]:
    """What runs `made`: its Python function, or (with `jit`) its numba-compiled code."""
    return compiled(made, found, extra) if jit else made.function


def source_of(made, jit: str | None) -> str:
    """`made`'s source: the module numba compiles (fused) once it is compiled, else its NumPy code."""
    if jit and made.jitted is not None:
        return cast(Any, made.jitted).source
    return made.source


def refused(what: str, reason: str, location=None) -> SrcDiffError:
    """A refusal of ``jit="numba"`` for `what`: nothing falls back to NumPy."""
    return SrcDiffError(f"{what} with jit='numba': {reason}", location, HINT)


def gradient_options(gradient, what: str) -> str | None:
    """The `jit` of a srcdiff gradient passed where a function is expected (``hvp(grad(f,
    jit="numba"), x, v)``), refusing the options a second derivative cannot honour."""
    options = gradient.options
    if options.with_value or options.debug or gradient.front.has_aux or options.checkpoint:
        raise SrcDiffError(f"{what} takes srcdiff.grad(f) (with jit= or not), not value_and_grad, has_aux, "
                           "debug or checkpoint", hint="pass srcdiff.grad(f) or f itself")
    return options.jit


__all__ = ["HINT", "checked", "compiled", "gradient_options", "refused", "runner", "source_of"]
