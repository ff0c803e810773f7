"""The adjoint rule table, assembled explicitly from the modules that hold the rules."""

import numpy as np

from . import (
    numpy_convert,
    numpy_elementwise,
    numpy_linalg,
    numpy_nograd,
    numpy_reductions,
    numpy_shape,
    operators,
    python_math,
)
from .table import TEMPLATE_GLOBALS, Rule, RuleTable, binary, nograd, rule, unary

#: The built-in rules, by section (the order of docs/supported-numpy.md).
SECTIONS = {
    "Python operators": operators.RULES,
    "math": python_math.RULES,
    "NumPy elementwise": numpy_elementwise.RULES,
    "NumPy reductions": numpy_reductions.RULES,
    "NumPy linear algebra": numpy_linalg.RULES,
    "NumPy shape manipulation": numpy_shape.RULES,
    "NumPy conversions": numpy_convert.RULES,
    "No gradient (constructors, queries, comparisons)": numpy_nograd.RULES,
}

#: Array methods, mapped to the function whose rule they use (``x.sum(axis=0)`` is
#: ``np.sum(x, axis=0)``).
METHODS = {
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "var": np.var, "std": np.std,
    "max": np.max, "min": np.min, "cumsum": np.cumsum,
    "dot": np.dot, "trace": np.trace,
    "reshape": np.reshape, "ravel": np.ravel, "flatten": np.ravel, "transpose": np.transpose,
    "swapaxes": np.swapaxes, "squeeze": np.squeeze, "repeat": np.repeat,
    "clip": np.clip, "copy": np.copy, "astype": numpy_convert.astype,
    "argmax": np.argmax, "argmin": np.argmin, "argsort": np.argsort,
}
#: Array attributes, mapped to the function whose rule they use.
ATTRIBUTES = {
    "T": operators.TRANSPOSE_ATTRIBUTE,
}


def default_table() -> RuleTable:
    """A fresh table holding every built-in rule."""
    return RuleTable([r for rules in SECTIONS.values() for r in rules])


#: The table transforms use; `srcdiff.register_adjoint` adds to it.
TABLE = default_table()

__all__ = ["ATTRIBUTES", "METHODS", "SECTIONS", "TABLE", "TEMPLATE_GLOBALS", "Rule", "RuleTable", "binary",
           "default_table", "nograd", "rule", "unary"]
