"""A value's adjoint that is exactly zero where a condition fails: below a branch of ``np.where``
(and of the ``select`` a gradient's own code calls, when srcdiff differentiates that gradient again),
kept down the value's chain so that no 0 * inf or 0 * NaN reaches it (ad/adjoints.py applies them)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..ir.nodes import Node, operand_ast
from ..ir.shapes import Shape

#: the run-time selects of a gradient's own code (rules/runtime.py)
RUNTIME_SELECTS = ("srcdiff.rules.runtime.select", "srcdiff.rules.runtime.select_whole")


@dataclass(frozen=True)
class Mask:
    """A value's adjoint is zero wherever `test` is not `keep` (below a branch of ``np.where``).

    `exact`: the value has the shape of `test`'s selection, proved from the shapes;
    otherwise the generated code checks that at run time (``select``).  A `whole` mask (a
    condition that is one value) holds through reductions, products and indexing too; an
    array condition only through elementwise operations."""

    test: ast.expr
    keep: bool
    exact: bool
    #: `test` is one value: the whole adjoint is zero, through any operation (None: not known
    #: before the call; ``select_whole`` checks at run time)
    whole: bool | None = False
    #: passed through an operation that is not elementwise (a reduction, a matmul, a sort):
    #: with `whole` None it holds only if `test` turns out one value (``select_whole``), never
    #: element by element, even where the shapes happen to agree
    whole_only: bool = False


def runtime_select_mask(node: Node, tested: Shape) -> Mask:
    """The mask of ``select(condition, v)`` (or ``select_whole``) in a gradient differentiated again:
    the branch of np.where it stands for, so v's chain gets an exact zero adjoint where the
    condition fails (not 0 times the NaN of ``np.arcsin``'s slope outside its domain).  Selected
    at run time, as the select itself is: its condition need not have v's shape."""
    only = node.rule.name.endswith("_whole")
    whole = None if only or not tested.known else tested.ndim == 0
    return Mask(operand_ast(node.inputs[0]), True, False, whole, only)
