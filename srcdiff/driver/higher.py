"""Higher derivatives: srcdiff differentiates the gradients it generated.

A generated gradient is Python in srcdiff's own subset, so it can be parsed and lowered like
the user's function.  For one argument signature, `generated_function` turns the compiled
variant a gradient runs into such a function: the same source, line for line, with the
statements that only free memory (``del``) or check the first output (``ensure_scalar``)
blanked, and returning the one gradient asked for.  `Derivative` is the gradient of a
gradient: per signature, an ordinary gradient of that function, so every derivative order
goes through the same pipeline and prints its own source.
"""

from __future__ import annotations

import ast

from ..backend import loader
from ..errors import SrcDiffError
from ..frontend import parse
from ..ir.nodes import UserCall, all_nodes
from ..rules import TEMPLATE_GLOBALS


def generated_function(made, pick: int | None = None, location=None):
    """A compiled `pipeline.Variant`'s code as a function srcdiff can differentiate (made
    once per variant).

    `pick`: the code returns a tuple of gradients, of which element `pick` is wanted;
    `location(line)`: where a line of the user's function is (for refusals)."""
    if made.derivable is not None and made.derivable[0] == pick:
        return made.derivable[1]
    if made.callees:
        call = next((n for n in all_nodes(made.program.function) if isinstance(n, UserCall)), None)
        name = getattr(getattr(call, "callee", None), "__qualname__", "another function")
        why = getattr(call, "kept", "") or f"{name} is not copied into its caller"
        raise SrcDiffError(f"higher derivatives through the call of {name} are not supported: srcdiff "
                           f"differentiates it by its own adjoint, because {why}",
                           location(call.line) if location is not None and call is not None else None,
                           "write the recursion as a loop" if "recursive" in why else
                           "differentiate the called function itself (srcdiff.hessian(scipy.optimize.rosen) "
                           "works), or write what it computes into your function")
    source = _derivable_source(made.source, pick)
    closure = made.function.__closure__ or ()
    cells = dict(zip(made.function.__code__.co_freevars, closure))
    func = loader.build_function(source, made.name, made.function.__globals__, {**TEMPLATE_GLOBALS, **cells},
                                 defaults=made.function.__defaults__)
    func.__qualname__ = made.name
    tree = ast.parse(source).body[0]
    lines = source.splitlines()
    parse.register(func, parse.ParsedFunction(func, tree, made.name, lines, func.__globals__,
                                              dict(zip(func.__code__.co_freevars, func.__closure__ or ()))))
    made.derivable = (pick, func)
    _LINES[made.name] = lines
    return func


#: A generated gradient's lines by its name (its errors' file name): for `explained`.
_LINES: dict[str, list[str]] = {}


def explained(exc: SrcDiffError) -> SrcDiffError:
    """A refusal met while differentiating generated code, told with the user's line the
    refused code is the adjoint of (the comment over its block); other errors as they are."""
    where = exc.location
    lines = _LINES.get(where.filename) if where is not None else None
    if lines is None:
        return exc
    comments = [line.strip() for line in lines[:where.line] if line.strip().startswith("# adjoint of ")]
    origin = f"the adjoint of {comments[-1][len('# adjoint of '):]}" if comments else "its forward computation"
    return SrcDiffError(f"differentiating the generated gradient again, srcdiff met code it cannot differentiate "
                        f"at {where.filename}:{where.line} ({origin}): {exc.reason}", None,
                        "this is a limit of higher derivatives, not of your code: print srcdiff.grad(f).source "
                        "to see the line; for a Hessian-vector product, central differences of srcdiff.grad(f) "
                        "along the vector work whatever the code")


def _derivable_source(source: str, pick: int | None) -> str:
    """`source` with memory frees and output checks blanked, returning element `pick` of its
    tuple result: every other line (comments included) keeps its number."""
    lines = source.splitlines()
    func = ast.parse(source).body[0]

    def replace(stmt: ast.stmt, text: str) -> None:
        indent = lines[stmt.lineno - 1][:stmt.col_offset]
        lines[stmt.lineno - 1:stmt.end_lineno] = [indent + text] + [""] * (stmt.end_lineno - stmt.lineno)

    for stmt in ast.walk(func):
        if isinstance(stmt, ast.Delete) or (isinstance(stmt, ast.Expr) and _calls(stmt.value, "ensure_scalar")):
            replace(stmt, "pass")
    if pick is not None:
        returned = func.body[-1]
        if not (isinstance(returned, ast.Return) and isinstance(returned.value, ast.Tuple)):
            raise SrcDiffError(f"the generated {func.name} does not end by returning its gradients")
        replace(returned, f"return {ast.unparse(returned.value.elts[pick])}")
    return "\n".join(lines) + "\n"


def _calls(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == name


__all__ = ["explained", "generated_function"]
