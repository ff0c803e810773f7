"""The adjoint rule table, assembled explicitly from the modules that hold the rules."""

from . import numpy_basic, operators, python_math
from .table import TEMPLATE_GLOBALS, Rule, RuleTable, binary, rule, unary

#: Array methods and attributes, mapped to the function whose rule they use.
METHODS = {
    "sum": numpy_basic.np.sum,
    "mean": numpy_basic.np.mean,
    "dot": numpy_basic.np.dot,
}
ATTRIBUTES = {"T": operators.TRANSPOSE_ATTRIBUTE}


def default_table() -> RuleTable:
    """A fresh table holding every built-in rule."""
    return RuleTable(operators.RULES + python_math.RULES + numpy_basic.RULES)


#: The table transforms use; `srcdiff.register_adjoint` adds to it.
TABLE = default_table()

__all__ = ["ATTRIBUTES", "METHODS", "TABLE", "TEMPLATE_GLOBALS", "Rule", "RuleTable", "binary", "default_table",
           "rule", "unary"]
