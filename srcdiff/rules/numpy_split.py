"""NumPy's splits beside ``np.split`` (rules/numpy_shape.py): ``np.array_split``, ``np.hsplit``,
``np.vsplit`` and ``np.dsplit``.  Each value is a list of pieces of x along one axis, read by
unpacking, indexing or a loop; the adjoint puts the pieces' adjoints back in their places
(`runtime.split_adjoint`, 0.0 standing for a piece nothing used)."""

import numpy as np

from .table import LINEAR, rule

SPLIT = {"tuple_result": True, "tangents": LINEAR, "static": {"indices_or_sections": None},
         "note": "returns a list of arrays"}


def _hsplit_templates(static, operand_shapes):
    ndim = operand_shapes["x"].ndim
    if ndim is None:  # the axis is known when run: the second one, or the first of a 1-D x
        return {"x": "split_adjoint(g, ans, np.minimum(np.ndim(x), 2) - 1)"}
    return {"x": f"split_adjoint(g, ans, {1 if ndim > 1 else 0})"}


RULES = [
    rule(np.array_split, ("x",), {"x": "split_adjoint(g, ans, axis)"},
         **{**SPLIT, "static": {"indices_or_sections": None, "axis": 0}}, sympy="numpy.array_split"),
    rule(np.hsplit, ("x",), _hsplit_templates, **SPLIT, sympy="numpy.hsplit"),
    rule(np.vsplit, ("x",), {"x": "split_adjoint(g, ans, 0)"}, **SPLIT, sympy="numpy.vsplit"),
    rule(np.dsplit, ("x",), {"x": "split_adjoint(g, ans, 2)"}, **SPLIT, sympy="numpy.dsplit"),
]
