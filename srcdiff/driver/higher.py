"""Higher derivatives: srcdiff differentiates the gradients it generated.

A gradient compiled with ``Options(derivable=True)`` is generated in the form srcdiff reads
back as it is: no ``del`` statements, the output check (``ensure_scalar``) an effect lowering
runs as written, loops reading their stacks by position, scatters written as functional
updates with rules of their own (``index_add``), and the one gradient asked for returned by
itself.  `generated_function` makes that source a function srcdiff can parse and lower like
the user's, unchanged, so every line keeps its number and its origin: a refusal met while
differentiating it again names the user's line that line is the adjoint of (`explained`).
"""

from __future__ import annotations

import ast

from ..backend import loader
from ..errors import SrcDiffError
from ..frontend import parse
from ..ir.nodes import UserCall, all_nodes
from ..rules import TEMPLATE_GLOBALS
from .cache import CACHE


def generated_function(made, location=None):
    """A compiled derivable `Variant`'s code as a function srcdiff can differentiate (made
    once per variant); `location(line)` says where a line of the user's function is."""
    if made.derivable is not None:
        return made.derivable
    if made.callees:
        call = next((n for n in all_nodes(made.program.function) if isinstance(n, UserCall)), None)
        name = getattr(getattr(call, "callee", None), "__qualname__", "another function")
        origin = CACHE.origins.by_file.get(made.function.__code__.co_filename)
        where = location or (origin.location if origin is not None else None)
        why = getattr(call, "kept", "") or f"{name} is not copied into its caller"
        raise SrcDiffError(f"higher derivatives through the call of {name} are not supported: srcdiff "
                           f"differentiates it by its own adjoint, because {why}",
                           where(call.line) if where is not None and call is not None else None,
                           "write the recursion as a loop" if "recursive" in why else
                           "differentiate the called function itself (srcdiff.hessian(scipy.optimize.rosen) "
                           "works), or write what it computes into your function")
    source = made.source
    closure = made.function.__closure__ or ()
    cells = dict(zip(made.function.__code__.co_freevars, closure))
    func = loader.build_function(source, made.name, made.function.__globals__, {**TEMPLATE_GLOBALS, **cells},
                                 defaults=made.function.__defaults__)
    func.__qualname__ = made.name
    tree = ast.parse(source).body[0]
    parse.register(func, parse.ParsedFunction(func, tree, made.name, source.splitlines(), func.__globals__,
                                              dict(zip(func.__code__.co_freevars, func.__closure__ or ()))))
    origin = CACHE.origins.by_file.get(made.function.__code__.co_filename)
    if origin is not None:  # its lines' users' lines, for refusals (`explained`)
        CACHE.generated[made.name] = origin
    made.derivable = func
    return func


def explained(exc: SrcDiffError) -> SrcDiffError:
    """A refusal met while differentiating generated code, located at the user's line the
    refused code is the adjoint of (or computes); other errors as they are."""
    where = exc.location
    origin = CACHE.generated.get(where.filename) if where is not None else None
    if origin is None:
        return exc
    generated, part = f"{where.filename}:{where.line}", "its forward computation"
    while origin is not None:  # a third derivative's code comes from a second's: back to the user's
        place = origin.user_line.get(where.line)
        if place is not None and place[1] == "backward":
            part = "the adjoint of this line"
        where = origin.location(place[0] if place is not None else 1)
        origin = CACHE.generated.get(where.filename)
    return SrcDiffError(f"differentiating its gradient again, srcdiff met generated code it cannot "
                        f"differentiate at {generated} ({part}): {exc.reason}", where,
                        "this is a limit of higher derivatives, not of your code: print srcdiff.grad(f).source "
                        "to see the generated line; for a Hessian-vector product, central differences of "
                        "srcdiff.grad(f) along the vector work whatever the code")

__all__ = ["explained", "generated_function"]
