"""``np.einsum`` of three or more operands contracted a pair at a time.

Without ``optimize=``, ``np.einsum('bi,ij,bj->b', X, W, Y)`` loops over every combination of its
letters in one C loop (b * i * j products, none in BLAS), and the adjoint of each operand
(rules/einsum_rules.py) is again an einsum of three operands: for 2000 x 30 operands about
twelve times the hand-written ``np.sum((X @ W) * Y, axis=1)``.  As ``np.einsum``'s own
``optimize`` path does (but chosen once, here, not on every call), the call becomes nested
two-operand einsums, ``np.einsum('bj,bj->b', np.einsum('bi,ij->bj', X, W), Y)``, which
einsum_matmuls.py then writes as ``@`` where they are matrix products.

The pair contracted first is the one whose result keeps the fewest letters (those another
operand or the output still needs), then the one that loops over the fewest letters: the greedy
rule, as the operands' lengths are not known when the code is written.  Operands of no letters
(numbers) scale the result instead, once, at the output's size.  Only calls whose subscripts are a
constant with ``->``, no ``...``, no letter repeated within a term and no keyword are split (a
repeated letter is a diagonal, which a pair cannot take apart); the sum of the same products is
taken in another order, so it rounds differently, as einsum_matmuls's ``@`` does.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .contract_shapes import np_of


def einsum_pairs(func: ast.FunctionDef, ndim_of: Callable[[str], int | None]) -> bool:
    """Rewrite `func`'s einsums of three or more operands as nested two-operand einsums, and a number
    times one array (``np.einsum(',ni->ni', 1.0, X)``) as a product where `ndim_of` (a name's ndim
    where it is known to hold an array, else None) says the operand is an array."""
    splitter = _Splitter(ndim_of)
    splitter.visit(func)
    return splitter.changed


def einsum_terms(node: ast.expr) -> tuple[list[str], str] | None:
    """Each operand's letters and the output's of a plain ``np.einsum('<spec>', ...)`` call (a
    constant spec with ``->``, no ``...``, letters only, none repeated within a term, every
    output letter an operand's, no keyword nor starred operand), or None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "einsum"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" and not node.keywords
            and len(node.args) >= 2 and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str) and not any(isinstance(a, ast.Starred) for a in node.args)):
        return None
    inputs, arrow, output = node.args[0].value.replace(" ", "").partition("->")
    terms = inputs.split(",")
    if not arrow or len(terms) != len(node.args) - 1:
        return None
    if any(not all(c.isalpha() for c in term) or len(set(term)) != len(term) for term in terms + [output]):
        return None
    if not set(output) <= set("".join(terms)):
        return None
    return terms, output


class _Splitter(ast.NodeTransformer):
    def __init__(self, ndim_of):
        self.ndim_of, self.changed = ndim_of, False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        found = einsum_terms(node)
        if found is None:
            return node
        operands = [(e, t) for e, t in zip(node.args[1:], found[0]) if t]
        output, scales = found[1], [e for e, t in zip(node.args[1:], found[0]) if not t]
        if len(operands) == 1 and scales and operands[0][1] == output and self._is_array(operands[0][0], output):
            product = operands[0][0]  # (a number times an array: a product, no einsum loop)
            for scale in reversed(scales):
                product = ast.BinOp(scale, ast.Mult(), product)
            self.changed = True
            return ast.copy_location(product, node)
        if len(found[0]) < 3 or not operands:
            return node
        while len(operands) > 2:
            i, j, kept = _first_pair(operands, output)
            (a, la), (b, lb) = operands[i], operands[j]
            inner = np_of("einsum", ast.Constant(f"{la},{lb}->{kept}"), a, b)
            operands[i] = (inner, kept)
            del operands[j]
        self.changed = True
        spec = ",".join(letters for _, letters in operands) + "->" + output
        product = np_of("einsum", ast.Constant(spec), *[expr for expr, _ in operands])
        for scale in reversed(scales):  # (numbers: the product scaled once, at the output's size)
            product = ast.BinOp(scale, ast.Mult(), product)
        return ast.copy_location(product, node)


    def _is_array(self, expr: ast.expr, letters: str) -> bool:
        """Whether `expr` is certainly an array of ``len(letters)`` >= 1 axes (a name known so, or an einsum)."""
        if isinstance(expr, ast.Call):
            terms = einsum_terms(expr)
            return terms is not None and len(terms[1]) == len(letters) >= 1
        return isinstance(expr, ast.Name) and len(letters) >= 1 and self.ndim_of(expr.id) == len(letters)


def _first_pair(operands: list[tuple[ast.expr, str]], output: str) -> tuple[int, int, str]:
    """The pair (i < j) contracted first and the letters its result keeps (in their order)."""
    best = None
    for i in range(len(operands)):
        for j in range(i + 1, len(operands)):
            looped = operands[i][1] + "".join(c for c in operands[j][1] if c not in operands[i][1])
            needed = output + "".join(letters for k, (_, letters) in enumerate(operands) if k not in (i, j))
            kept = "".join(c for c in looped if c in needed)
            score = (len(kept), len(looped))
            if best is None or score < best[0]:
                best = (score, i, j, kept)
    return best[1], best[2], best[3]
