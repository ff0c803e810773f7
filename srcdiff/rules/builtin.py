"""The built-in rule table, assembled explicitly from the modules that hold the rules,
with the array methods and attributes that use them, and the facts read off it by the
spelling generated code uses (``np.exp``, ``math.sin``, ``x.sum()``)."""

import importlib
from types import ModuleType

import numpy as np

from . import (
    convolution,
    copies_when_run,
    generated_code,
    numpy_calculus,
    numpy_complex_real,
    numpy_convert,
    numpy_counts,
    numpy_decompositions,
    numpy_elementwise,
    numpy_joins,
    numpy_linalg,
    numpy_more,
    numpy_nan_reductions,
    numpy_nograd,
    numpy_pad,
    numpy_piecewise,
    numpy_reductions,
    numpy_shape,
    numpy_split,
    numpy_statistics,
    operators,
    order_statistics,
    point_guards,
    python_math,
)
from .rule_table import RuleTable
from .table import TEMPLATE_GLOBALS, Rule

#: The built-in rules, by section (the order of docs/supported-numpy.md).
SECTIONS = {
    "Python operators": operators.RULES,
    "math": python_math.RULES,
    "NumPy elementwise": numpy_elementwise.RULES,
    "NumPy reductions": numpy_reductions.RULES + numpy_nan_reductions.RULES,
    "NumPy linear algebra": numpy_linalg.RULES,
    "NumPy decompositions": numpy_decompositions.RULES,
    "NumPy convolutions": convolution.RULES,
    "NumPy shape manipulation": numpy_shape.RULES,
    "NumPy joins of lists": numpy_joins.RULES,
    "NumPy splits, rolls and padding": numpy_split.RULES + numpy_pad.RULES,
    "NumPy conversions": numpy_convert.RULES,
    "More NumPy (remainders, products, triangles, differences)": numpy_more.RULES,
    "NumPy numerical calculus (differences, scans, integrals, sorting)": numpy_calculus.RULES,
    "NumPy statistics (weighted means, covariances)": numpy_statistics.RULES + order_statistics.RULES
    + numpy_counts.RULES,
    "NumPy piecewise functions (steps, parts of numbers, ranges, running extrema)": numpy_piecewise.RULES,
    "Complex functions of real values, conversions to numbers": numpy_complex_real.RULES,
    "No gradient (constructors, queries, comparisons)": numpy_nograd.RULES,
    "srcdiff's own helpers (higher derivatives)": generated_code.RULES + point_guards.RULES
    + copies_when_run.HELPER_RULES,
}

#: Array methods, mapped to the function whose rule they use (``x.sum(axis=0)`` is
#: ``np.sum(x, axis=0)``).
METHODS = {
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "var": np.var, "std": np.std,
    "max": np.max, "min": np.min, "cumsum": np.cumsum,
    "dot": np.dot, "trace": np.trace, "diagonal": np.diagonal,
    "reshape": np.reshape, "ravel": np.ravel, "flatten": np.ravel, "transpose": np.transpose,
    "swapaxes": np.swapaxes, "squeeze": np.squeeze, "repeat": np.repeat,
    "clip": np.clip, "copy": np.copy, "astype": numpy_convert.astype,
    "round": np.round, "argmax": np.argmax, "argmin": np.argmin, "argsort": np.argsort,
    **numpy_complex_real.METHODS,
}
#: Array attributes, mapped to the function whose rule they use.
ATTRIBUTES = {
    "T": operators.TRANSPOSE_ATTRIBUTE,
    **numpy_complex_real.ATTRIBUTES,
}


#: Sections of rules for optional libraries: (title, module holding `RULES`), by the library
#: that must be imported before they load (their modules import it).
LAZY_SECTIONS = {"scipy": [("SciPy special functions", "srcdiff.rules.scipy_special"),
                           ("SciPy statistics", "srcdiff.rules.scipy_stats"),
                           ("SciPy linear algebra", "srcdiff.rules.scipy_linalg"),
                           ("SciPy signal processing", "srcdiff.rules.scipy_signal")]}


def lazy_sections(library: str) -> dict[str, list[Rule]]:
    """The sections of `library`'s rules, by title (importing the library)."""
    return {title: importlib.import_module(module).RULES for title, module in LAZY_SECTIONS[library]}


def _loader(library: str):
    return lambda: [r for rules in lazy_sections(library).values() for r in rules]


def default_table() -> RuleTable:
    """A fresh table holding every built-in rule (those of optional libraries load lazily)."""
    return RuleTable([r for rules in SECTIONS.values() for r in rules],
                     lazy={library: _loader(library) for library in LAZY_SECTIONS})


#: The table transforms use; `srcdiff.register_adjoint` adds to it.
TABLE = default_table()


#: The modules generated code names (``np``, ``math``), by the name it uses.
MODULES = {name: value for name, value in TEMPLATE_GLOBALS.items() if isinstance(value, ModuleType)}


def spelled_rule(module: str, attr: str, table: RuleTable | None = None) -> Rule | None:
    """The rule of ``module.attr`` as generated code spells it (``np``, ``exp``), or None."""
    if module not in MODULES:
        return None
    return (TABLE if table is None else table).lookup(getattr(MODULES[module], attr, None))


def method_rule(name: str, table: RuleTable | None = None) -> Rule | None:
    """The rule an array method uses (``sum`` for ``x.sum()``), or None."""
    func = METHODS.get(name)
    return None if func is None else (TABLE if table is None else table).lookup(func)
