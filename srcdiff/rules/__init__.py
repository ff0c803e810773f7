"""The adjoint rule table: what a rule is (`table`), the built-in rules (`builtin`, assembled
from the modules that hold them), and `register_adjoint` for a user's own."""

from .builtin import ATTRIBUTES, METHODS, MODULES, SECTIONS, TABLE, default_table, method_rule, spelled_rule
from .rule_table import RuleTable
from .table import TEMPLATE_GLOBALS, Rule, binary, nograd, rule, unary

__all__ = ["ATTRIBUTES", "METHODS", "MODULES", "SECTIONS", "TABLE", "TEMPLATE_GLOBALS", "Rule", "RuleTable",
           "binary", "default_table", "method_rule", "nograd", "rule", "spelled_rule", "unary"]
