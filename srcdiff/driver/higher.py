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
import types

from ..backend import loader
from ..errors import SrcDiffError
from ..frontend import parse
from ..rules import TEMPLATE_GLOBALS
from .cache import CACHE


def generated_function(made, location=None):
    """A compiled derivable `Variant`'s code as a function srcdiff can differentiate (made
    once per variant); `location(line)` says where a line of the user's function is.

    The user functions it calls by their own adjoint (recursive, closures, library code)
    are called as themselves in its forward sweep and by their seeded gradients
    (``x_bar = power_vjp(t_bar, x, n)``) in its backward sweep: those are made functions
    srcdiff reads the same way, each read through a cell made before it, so a recursive
    callee's gradient calls itself."""
    if made.derivable is not None:
        return made.derivable
    closure = made.function.__closure__ or ()
    cells = dict(zip(made.function.__code__.co_freevars, closure))
    for name, called in made.callees.items():
        cells[name] = _cell_of(called.variant)
    func = loader.build_function(made.source, made.name, made.function.__globals__, {**TEMPLATE_GLOBALS, **cells},
                                 defaults=made.function.__defaults__)
    func.__qualname__ = made.name
    func.__srcdiff_generated__ = True  # (lowering defers some refusals to where an adjoint is needed)
    tree = ast.parse(made.source).body[0]
    parse.register(func, parse.ParsedFunction(func, tree, made.name, made.source.splitlines(), func.__globals__,
                                              dict(zip(func.__code__.co_freevars, func.__closure__ or ()))))
    origin = CACHE.origins.by_file.get(made.function.__code__.co_filename)
    if origin is not None:  # its lines' users' lines, for refusals (`explained`)
        CACHE.generated[made.name] = origin
    made.derivable = func
    return func


def _cell_of(made) -> types.CellType:
    """The cell holding a callee's seeded gradient as a function srcdiff reads (filled once it is made)."""
    if made.derivable_cell is None:
        made.derivable_cell = types.CellType()
        made.derivable_cell.cell_contents = generated_function(made)
    return made.derivable_cell


def explained(exc: SrcDiffError, batching: bool = False) -> SrcDiffError:
    """A refusal met while differentiating generated code (`batching`: while batching it,
    `srcdiff.vmap` of a gradient), located at the user's line the refused code is the adjoint
    of (or computes); other errors as they are."""
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
    if batching:
        return SrcDiffError(f"batching its gradient (srcdiff.vmap), srcdiff met generated code it cannot batch "
                            f"at {generated} ({part}): {exc.reason}", where,
                            "this is a limit of vmap of a gradient, not of your code: print srcdiff.grad(f).source "
                            "to see the generated line, or call srcdiff.grad(f) once per example")
    return SrcDiffError(f"differentiating its gradient again, srcdiff met generated code it cannot "
                        f"differentiate at {generated} ({part}): {exc.reason}", where,
                        "this is a limit of higher derivatives, not of your code: print srcdiff.grad(f).source "
                        "to see the generated line; for a Hessian-vector product, central differences of "
                        "srcdiff.grad(f) along the vector work whatever the code")

__all__ = ["explained", "generated_function"]
