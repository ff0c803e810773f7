"""A branch side that computes with complex numbers: refused when taken.

srcdiff differentiates real computations.  Library code keeps paths for complex dtypes
(SciPy's ``logsumexp``: ``if xp.isdtype(out.dtype, 'complex floating'): ... imag * 1j``)
that a real input never takes; lowered as they are, their complex constants would meet the
differentiated values and refuse the whole function.  Such a side raises srcdiff's refusal
if the function takes it, like a side srcdiff cannot lower (lower/branches.py).
"""

from __future__ import annotations

import numpy as np

from ..ir.nodes import Block, Const, Var, all_nodes
from .state import LoweringState


def is_complex_constant(operand) -> bool:
    """A complex number (``1j``), or an array of them, written as a constant."""
    value = operand.value if isinstance(operand, Const) else None
    return isinstance(value, (complex, np.complexfloating)) or \
        (isinstance(value, np.ndarray) and value.dtype.kind == "c")


def refuse_complex_side(state: LoweringState, side: Block) -> None:
    """Raise srcdiff's refusal at the first node of `side` where a complex constant meets a
    value computed by the function."""
    for node in all_nodes(side):
        if any(is_complex_constant(v) for v in node.inputs) and any(isinstance(v, Var) for v in node.inputs):
            raise state.error(node.line, "this side of the branch computes with complex numbers: srcdiff "
                              "differentiates real computations only", "keep the computation real")
