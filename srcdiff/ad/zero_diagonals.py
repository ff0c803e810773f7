"""Where a tie with 0 persists on a diagonal: pairwise squared distances by the expansion
``|a|^2 + |b|^2 - 2 a.b`` of one matrix with itself.

A kernel's squared distances are written ``sq[:, None] + sq[None, :] - 2 * z @ z.T`` with
``sq = np.sum(z ** 2, axis=1)``, and clipped at 0 against round-off: ``np.maximum(d2, 0.0)``,
``np.clip(d2, 0.0, None)``.  The diagonal of ``d2`` is ``2 |z_i|^2 - 2 |z_i|^2``: 0 for every
parameter value, so there the tie with 0 holds on a whole neighbourhood, the share is constant and
its derivative 0 (rounding may leave a diagonal entry a little off 0: then nothing is tied there).
Without this proof the Hessian of a Gaussian process's marginal likelihood is NaN in every length
scale's row (rules/kinks.py: a tie's share jumps where the tie ends).  The proof is read from the
program: ``d2`` is a sum of the row and column broadcasts of one ``sq`` of a ``z`` with the same
coefficient ``c``, and ``-2 c`` times the Gram matrix ``z @ z.T`` of the same ``z`` (numbers may
scale either factor), and any multiple of the broadcast form ``np.sum((z[:, None, :] - z[None, :, :])
** 2, axis=-1)``, whose diagonal is exactly 0 too; nothing else.  The condition passed to the tie as its
`persist` operand (ad/ties.py) is the diagonal, ``np.eye(n) == 1``, of the rows of ``z`` where ``z``
is 2-D (of another, nothing is proved).
"""

from __future__ import annotations

import ast
from collections import Counter

from ..ir.nodes import Const, Node, Operand, UserCall, Var

_ADD = {"operator.add", "numpy.add"}
_SUB = {"operator.sub", "numpy.subtract"}
_NEG = {"operator.neg", "numpy.negative"}
_MUL = {"operator.mul", "numpy.multiply"}
_MATMUL = {"operator.matmul", "numpy.matmul", "numpy.dot"}
_TRANSPOSE = {"ndarray.T", "numpy.transpose", "ndarray.transpose"}
_SUMS = {"numpy.sum", "ndarray.sum"}
_ROW = (("slice", 0), ("newaxis", 0))
_COLUMN = (("newaxis", 0), ("slice", 0))
DEPTH = 8  # how many sums deep the terms are collected


def diagonal_persistence(tied: Operand, other: Operand, definitions: dict[str, Node]) -> ast.expr | None:
    """The diagonal mask of `tied` where it is a pairwise squared distance of one matrix with
    itself (module docstring) and `other` is the constant 0, else None."""
    if not (isinstance(other, Const) and type(other.value) in (int, float) and other.value == 0):
        return None
    terms: Counter = Counter()
    if not _collect(tied, 1.0, definitions, terms, DEPTH) or not terms:
        return None
    kinds = {k[1] for k in terms}
    if len(kinds) != 1:
        return None
    z = kinds.pop()
    c = terms.get(("row", z), 0.0)
    if terms.get(("column", z), 0.0) != c or terms.get(("gram", z), 0.0) != -2 * c:
        return None
    # (the diagonal of z's rows, and only of a 2-D z: nothing is proved of another)
    return ast.parse(f"np.logical_and(np.equal(np.eye({z}.shape[0]), 1.0), np.equal({z}.ndim, 2))", mode="eval").body


def _defined(operand: Operand, definitions: dict[str, Node]) -> Node | None:
    node = definitions.get(operand.name) if isinstance(operand, Var) else None
    if node is None or isinstance(node, UserCall) or not getattr(node.rule, "pure", False):
        return None
    return node


def _number(operand: Operand) -> float | None:
    if isinstance(operand, Const) and type(operand.value) in (int, float):
        return float(operand.value)
    return None


def _collect(operand: Operand, coefficient: float, definitions, terms: Counter, depth: int) -> bool:
    """Add `operand` times `coefficient` to `terms` as row / column broadcasts of a sum of squares
    and Gram matrices (keyed by the matrix's name); False where it is anything else."""
    node = _defined(operand, definitions)
    if node is None or depth == 0:
        return False
    name, inputs = node.rule.name, node.inputs
    if name in _ADD | _SUB and len(inputs) == 2:
        sign = -1.0 if name in _SUB else 1.0
        return _collect(inputs[0], coefficient, definitions, terms, depth - 1) and \
            _collect(inputs[1], sign * coefficient, definitions, terms, depth - 1)
    if name in _NEG and len(inputs) == 1:
        return _collect(inputs[0], -coefficient, definitions, terms, depth - 1)
    if name in _MUL and len(inputs) == 2 and _number(inputs[0]) is not None:
        return _collect(inputs[1], coefficient * _number(inputs[0]), definitions, terms, depth - 1)
    if name in _MUL and len(inputs) == 2 and _number(inputs[1]) is not None:
        return _collect(inputs[0], coefficient * _number(inputs[1]), definitions, terms, depth - 1)
    if name == "getitem" and len(inputs) == 1 and node.static.get("index") in (_ROW, _COLUMN) \
            and node.static.get("slices") == ((None, None, None),):
        z = _squares_of(inputs[0], definitions)
        if z is None:
            return False
        terms["row" if node.static["index"] == _ROW else "column", z] += coefficient
        return True
    if name in _SUMS and len(inputs) == 1 and node.static.get("axis") in (-1, 2) and not node.static.get("keepdims"):
        z = _pairwise_difference(_square_of(inputs[0], definitions), definitions)
        if z is None:
            return False
        terms["pairs", z] += coefficient
        return True
    if name in _MATMUL and len(inputs) == 2:
        left, k = _scaled(inputs[0], definitions)
        transposed, m = _scaled(inputs[1], definitions)
        right = _defined(transposed, definitions) if transposed is not None else None
        if left is None or right is None or right.rule.name not in _TRANSPOSE or len(right.inputs) != 1 \
                or right.static.get("axes") not in (None, (1, 0)) or right.inputs[0] != left:
            return False
        terms["gram", left.name] += coefficient * k * m
        return True
    return False


def _scaled(operand: Operand, definitions) -> tuple[Var | None, float]:
    """(x, k) for `operand` = k * x (a number times a value, or the value itself)."""
    node = _defined(operand, definitions)
    if node is not None and node.rule.name in _MUL and len(node.inputs) == 2:
        for i in (0, 1):
            k = _number(node.inputs[i])
            if k is not None and isinstance(node.inputs[1 - i], Var):
                return node.inputs[1 - i], k
    return (operand, 1.0) if isinstance(operand, Var) else (None, 0.0)


def _squares_of(operand: Operand, definitions) -> str | None:
    """The name of the 2-D ``z`` whose rows' sums of squares `operand` is (``np.sum(z ** 2, axis=1)``,
    ``np.sum(z * z, axis=-1)``, ``np.square``), else None."""
    node = _defined(operand, definitions)
    if node is None or node.rule.name not in _SUMS or len(node.inputs) != 1 \
            or node.static.get("axis") not in (1, -1) or node.static.get("keepdims"):
        return None
    squared = _square_of(node.inputs[0], definitions)
    return squared.name if isinstance(squared, Var) else None


def _square_of(operand: Operand, definitions) -> Operand | None:
    """The operand `operand` squares (``x ** 2``, ``x * x``, ``np.square(x)``), or None."""
    square = _defined(operand, definitions)
    if square is None:
        return None
    name, inputs = square.rule.name, square.inputs
    if name in {"operator.pow", "numpy.power"} and len(inputs) == 2 and _number(inputs[1]) == 2 \
            or name == "numpy.square" and len(inputs) == 1 \
            or name in _MUL and len(inputs) == 2 and inputs[0] == inputs[1]:
        return inputs[0]
    return None


_FIRST = ((("slice", 0), ("newaxis", 0), ("slice", 0)), (("slice", 0), ("newaxis", 0)))
_SECOND = ((("newaxis", 0), ("slice", 0), ("slice", 0)), (("newaxis", 0), ("slice", 0)), (("newaxis", 0),))


def _pairwise_difference(operand: Operand | None, definitions) -> str | None:
    """The name of ``z`` where `operand` is ``z[:, None, :] - z[None, :, :]`` (or ``z[:, None] -
    z[None]``, either way round): 0 where the first two indices agree, whatever ``z`` is."""
    node = _defined(operand, definitions) if operand is not None else None
    if node is None or node.rule.name not in _SUB or len(node.inputs) != 2:
        return None
    sides = [_defined(v, definitions) for v in node.inputs]
    if any(s is None or s.rule.name != "getitem" or len(s.inputs) != 1 or not isinstance(s.inputs[0], Var)
           or any(piece != (None, None, None) for piece in s.static.get("slices", ())) for s in sides):
        return None
    first, second = sides if sides[0].static.get("index") in _FIRST else sides[::-1]
    if first.static.get("index") not in _FIRST or second.static.get("index") not in _SECOND \
            or first.inputs[0] != second.inputs[0]:
        return None
    return first.inputs[0].name


__all__ = ["diagonal_persistence"]
