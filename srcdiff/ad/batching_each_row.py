"""A call with no batching rule of its own, batched row by row (ad/batching.py): ``np.convolve(x, k)``,
``np.pad(x, 1)``, ``np.kron(a, b)``, ``np.interp(w, xp, fp)`` of each example's own table, and the adjoints
a gradient's code calls for them, are written as ``each_row(lambda row: np.convolve(x[row], k), size)``
(rules/batching_each_row.py): that one call runs once per row, each with its own row of every batched
operand, and the rest of the code stays batched; a call giving a tuple (``np.linalg.lstsq``) has each
of its parts stacked (``each_row_parts``).  A pure call only (no effect, no random draw); with
jit="numba" it is refused as before (numba compiles no lambda).  A row whose value is not an array of the
others' shape sends the call to vmap's loop over the examples when it runs."""

from __future__ import annotations

import ast
import copy

from ..ir.nodes import Var


def each_row_rule(node, state):
    """`each_row_call` where a call may run row by row (a pure function called as written), else None."""
    rule = node.rule
    if not state.select or rule.func is None or not rule.pure or rule.draws or not isinstance(node.expr, ast.Call):
        return None
    return each_row_call


def each_row_call(node, state, parts: bool = False):
    """``each_row(lambda row: <the call, each batched operand read at row>, size, where)``; `parts`: the call
    gives a tuple (``np.linalg.lstsq``), whose parts are stacked apart (``each_row_parts``)."""
    row = state.fresh("row")
    batched = {v.name for v in node.inputs if isinstance(v, Var) and state.batched(v)}
    if batched & state.containers or batched & set(state.index_rows) or batched & state.lists:
        state.refuse(node, f"{node.rule.name} of a tuple or list with a batch axis has no batching rule")

    class AtRow(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            if name.id in batched:
                return ast.Subscript(ast.Name(name.id, ast.Load()), ast.Name(row, ast.Load()), ast.Load())
            return name

    body = AtRow().visit(copy.deepcopy(node.expr))
    lam = ast.Lambda(ast.arguments([], [ast.arg(row)], None, [], [], None, []), body)
    where = state.location(node.line).short if getattr(node, "line", None) else node.rule.name
    helper = "each_row_parts" if parts else "each_row"
    return ast.Call(ast.Name(helper, ast.Load()), [lam, ast.Name(state.size, ast.Load()), ast.Constant(where)],
                    []), True


#: srcdiff's own derivatives called inside a mapped function, by their rules' names
_OWN = {"srcdiff.api.hvp.hvp": "srcdiff.hvp", "srcdiff.api.forward.jvp": "srcdiff.jvp"}


def refuse_no_rule(node, state) -> None:
    """Refuse a call with no batching rule at its line (srcdiff's own jvp or hvp: with what batches it)."""
    what = node.rule.name if node.rule.func is not None else f"`{ast.unparse(node.expr)}`"
    if what in _OWN:
        state.refuse(node, f"{_OWN[what]} called inside the mapped function has no batching rule",
                     "map the forward-mode derivative itself, batched in one call: "
                     "srcdiff.vmap(srcdiff.jvp_function(srcdiff.grad(f)), in_axes=((0, None), (0, None)))"
                     "((x, c), (v, zeros)) gives per-example Hessian-vector products")
    state.refuse(node, f"{what} has no batching rule",
                 "jacobian and hessian compute such functions one row at a time; for vmap, call the "
                 "function once per example")


__all__ = ["each_row_call", "each_row_rule", "refuse_no_rule"]
