"""``jit="numba"``: the generated gradient compiled by numba (optional extra ``srcdiff[numba]``).

The generated source is plain Python and NumPy; numba compiles it in nopython mode when it
stays inside numba's subset: scalar loops, arrays, ``math``/NumPy calls, lists used as
stacks.  Before handing it over, three things numba does not take are rewritten or refused:

* ``del name`` (memory hints for CPython) are dropped;
* ``reversed(range(n))`` becomes ``range(n - 1, -1, -1)``;
* a call of a helper's adjoint (a closure returning a pullback) or of one of srcdiff's
  run-time helpers (``unbroadcast``... where shapes were not known) is refused with a
  `SrcDiffError` saying which, before numba is asked.  The one helper written for numba,
  ``stack_rows`` (a loop's collected rows made one array), is compiled with the gradient.

What numba itself refuses (its typing errors) is raised as a `SrcDiffError` too, on the
first call, with numba's first line.  numba is imported only here, when it is used.
"""

from __future__ import annotations

import ast
import importlib

from ..errors import SrcDiffError
from ..rules import runtime
from . import loader

HINT = "use srcdiff.grad(f) without jit=, or keep the function to scalar loops and NumPy calls"

#: run-time helpers numba compiles (by name); the others are refused
FOR_NUMBA = ("stack_rows", "stop_gradient")
_compiled: dict = {}  # name -> the helper compiled by numba, made once per process


def unsupported(source: str, callees) -> str | None:
    """Why the generated `source` cannot go to numba, or None."""
    tree = ast.parse(source)
    func = tree.body[0]
    if callees or any(isinstance(n, ast.FunctionDef) and n is not func for n in ast.walk(tree)):
        names = ", ".join(sorted(callees)) or "a helper"
        return (f"the gradient calls the adjoint of a user function that is not inlined ({names}): "
                "a Python closure numba cannot compile (a recursive helper, a closure, or a helper "
                "reading another module's globals is not inlined)")
    used = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                   and n.id in runtime.HELPERS and n.id not in FOR_NUMBA})
    if used:
        return (f"the gradient uses srcdiff's run-time helper {used[0]}(), written where the "
                "arguments' shapes were not all known")
    return None


def numba_function(source: str, name: str, parsed, template_globals: dict, callees=()):
    """`source` (one ``def name``, generated from `parsed`) compiled by numba; calling it
    raises `SrcDiffError` if numba refuses the code.  Globals and closure variables are read
    once, when it is compiled (numba freezes them)."""
    where = f"{parsed.location(parsed.tree).short}: "
    closure = {}
    for key, cell in parsed.closure.items():
        try:
            closure[key] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    namespace = {**parsed.func.__globals__, **closure, **template_globals}
    reason = unsupported(source, callees)
    if reason:
        raise SrcDiffError(f"{where}jit='numba' cannot compile this gradient: {reason}", hint=HINT)
    try:
        numba = importlib.import_module("numba")
    except ImportError:
        raise SrcDiffError("jit='numba' needs numba, which is not installed",
                           hint="pip install 'srcdiff[numba]'") from None
    tree = _for_numba(ast.parse(source))
    filename = loader.register_source(ast.unparse(tree), f"numba:{name}")
    scope = dict(namespace)
    for helper in FOR_NUMBA:
        if helper not in _compiled:
            _compiled[helper] = numba.njit(getattr(runtime, helper))
        scope[helper] = _compiled[helper]
    exec(compile(tree, filename, "exec"), scope)  # noqa: S102  our own generated code
    dispatcher = numba.njit(scope[name])
    refused = numba.core.errors.NumbaError

    def run(*args):
        try:
            return dispatcher(*args)
        except refused as exc:
            raise SrcDiffError(f"{where}jit='numba': numba cannot compile the generated gradient: "
                               f"{_reason(str(exc))}", hint=HINT) from None
    run.py_func = scope[name]
    run.dispatcher = dispatcher
    return run


def _reason(text: str) -> str:
    """The line of numba's error that says what it refused: the call it has no implementation
    for (``>>> max(array(float64, 2d, C), axis=...)``), else its first line."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("Failed in")]
    call = next((line[4:] for line in lines if line.startswith(">>> ")), None)
    if call is not None:
        return f"numba has no implementation of {call}"
    return lines[0] if lines else text


class _ForNumba(ast.NodeTransformer):
    def visit_Delete(self, node: ast.Delete):
        return None

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "reversed" and len(node.args) == 1:
            inner = node.args[0]
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "range" \
                    and 1 <= len(inner.args) <= 2 and not inner.keywords:
                start = inner.args[0] if len(inner.args) == 2 else ast.Constant(0)
                stop = inner.args[-1]
                return ast.Call(ast.Name("range", ast.Load()),
                                [ast.BinOp(stop, ast.Sub(), ast.Constant(1)),
                                 ast.BinOp(start, ast.Sub(), ast.Constant(1)), ast.Constant(-1)], [])
        return node


def _for_numba(tree: ast.Module) -> ast.Module:
    tree = _ForNumba().visit(tree)
    for node in ast.walk(tree):  # a body left empty by dropped ``del``s
        for field in ("body", "orelse"):
            if isinstance(getattr(node, field, None), list) and not getattr(node, field) \
                    and not (field == "orelse"):
                setattr(node, field, [ast.Pass()])
    return ast.fix_missing_locations(tree)


__all__ = ["numba_function", "unsupported"]
