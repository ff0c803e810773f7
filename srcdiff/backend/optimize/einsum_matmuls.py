"""Two-operand ``np.einsum`` contractions written as ``@``.

``np.einsum`` without ``optimize=`` sums its products in its own C loop, never in BLAS: for a
64 x 32 by 32 x 64 product it takes about six times ``@``.  Both the user's einsums and the
adjoints of einsums (rules/einsum_rules.py writes operand i's adjoint as one einsum of ``g`` and
the others) are often a matrix product: ``'id,jd->ij'`` is ``Q @ K.T``, its adjoints
``'ij,jd->id'`` and ``'ij,id->jd'`` are ``g @ K`` and ``g.T @ Q``; ``'bij,bjk->bik'`` is a
batched ``a @ b``.  Such a call becomes ``@`` (with ``.T``, or ``np.swapaxes(x, -1, -2)`` under
leading batch axes) when

* its subscripts are a constant with ``->`` and no ``...`` (so each operand's ndim is its
  term's length), no letter repeated within a term, and one letter summed over both operands
  alone (none summed over one operand only: einsum's sum of that axis is not a product);
* letters shared by both operands and the output lead all three terms in one order (batch
  axes, at most the matrices' two axes after them);
* both operands are known arrays of those ndims (``@`` and ``.T`` are not defined for the
  lists or numbers ``np.einsum`` also takes).

The product rounds differently (BLAS sums in another order), as `contract`'s ``@`` does: not for
numba (no einsum there) nor code srcdiff reads back.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .contract_shapes import contracted, np_of
from .einsum_pairs import einsum_pairs, einsum_terms


def einsum_matmuls(func: ast.FunctionDef, ndim_of: Callable[[str], int | None]) -> bool:
    """Rewrite `func`'s einsum matrix products as ``@``; `ndim_of` gives a name's ndim when it is
    known to hold an array (None otherwise).  Einsums of three or more operands are first taken
    a pair at a time (einsum_pairs.py)."""
    paired = einsum_pairs(func, ndim_of)
    rewriter = _Rewriter(ndim_of)
    rewriter.visit(func)
    return paired or rewriter.changed


class _Rewriter(ast.NodeTransformer):
    def __init__(self, ndim_of):
        self.ndim_of, self.changed = ndim_of, False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        product = matmul_of(node, self.ndim_of)
        if product is None:
            return node
        self.changed = True
        return ast.copy_location(product, node)


def _terms(node: ast.Call) -> tuple[list[list[str]], list[str]] | None:
    """Each operand's letters and the output's of ``np.einsum('<spec>', a, b)``, or None."""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "einsum"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np"
            and len(node.args) == 3 and not node.keywords and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)):
        return None
    spec = node.args[0].value.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    if not arrow or "." in spec:
        return None
    terms = [list(term) for term in inputs.split(",")] + [list(output)]
    if len(terms) != 3 or any(not term or len(set(term)) != len(term) or not all(c.isalpha() for c in term)
                              for term in terms[:2]) or len(set(output)) != len(output):
        return None
    return terms[:2], terms[2]


def matmul_of(node: ast.Call, ndim_of: Callable[[str], int | None]) -> ast.expr | None:
    """``a @ b`` (transposes as needed) equal to the einsum call `node`, or None."""
    found = _terms(node)
    if found is None:
        return None
    (la, lb), out = found
    a, b = node.args[1], node.args[2]
    if not (_is_array(a, len(la), ndim_of) and _is_array(b, len(lb), ndim_of)):
        return None
    if not set(out) <= set(la) | set(lb) or not set(la) ^ set(lb) <= set(out):
        return None  # an output letter of no operand, or an axis summed over one operand alone
    batch = 0
    while batch < min(len(la), len(lb), len(out)) and la[batch] == lb[batch] == out[batch]:
        batch += 1
    ra, rb, rout = la[batch:], lb[batch:], out[batch:]
    shared = set(ra) & set(rb)
    if len(shared) != 1 or shared & set(rout) or set(la[:batch]) & set(ra + rb + rout):
        return None
    if not batch:
        product = contracted([[a, ra], [b, rb]], rout)
        return product if isinstance(product, ast.BinOp) and isinstance(product.op, ast.MatMult) else None
    if not (len(ra) == len(rb) == len(rout) == 2):
        return None  # (``@`` takes a batch of vectors only as a whole 1-d array)
    (c,) = shared
    fa, fb = [x for x in ra if x != c], [x for x in rb if x != c]
    if rout == fa + fb:
        return ast.BinOp(_oriented(a, ra[-1] == c), ast.MatMult(), _oriented(b, rb[0] == c))
    return ast.BinOp(_oriented(b, rb[-1] == c), ast.MatMult(), _oriented(a, ra[0] == c))


def _oriented(expr: ast.expr, as_is: bool) -> ast.expr:
    """`expr`, or its last two axes swapped."""
    return expr if as_is else np_of("swapaxes", expr, ast.Constant(-1), ast.Constant(-2))


def _is_array(expr: ast.expr, ndim: int, ndim_of: Callable[[str], int | None]) -> bool:
    """Whether `expr` is a name known to hold an array of `ndim` axes, or an einsum with an output of
    `ndim` >= 1 axes (always an array, whatever its operands; one of none may be a NumPy scalar)."""
    if isinstance(expr, ast.Call):
        terms = einsum_terms(expr)
        return terms is not None and ndim >= 1 and len(terms[1]) == ndim
    return isinstance(expr, ast.Name) and ndim_of(expr.id) == ndim
