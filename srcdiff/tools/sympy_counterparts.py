"""The table of sympy counterparts, read off the rules: what each computes on symbols.

Every rule records its counterpart once, in its own entry (`Rule.sympy`), or says why it has
none (`Rule.not_symbolic`); this module only gathers them, by the rule's canonical name
(`Rule.name`: ``numpy.sin``, ``math.exp``, ``operator.mul``), for `srcdiff.check`.  An
elementwise rule's counterpart computes one element and is mapped over arrays here.
"""

from __future__ import annotations

import numpy as np

from ..rules import TABLE
from ..rules import sympy_forms as forms
from ..rules.builtin import lazy_sections
from ..rules.table import Rule


def elementwise(func, name: str):
    """`func` (a function of numbers or symbols) applied element by element to arrays."""
    def apply(*args):
        if any(isinstance(a, np.ndarray) for a in args):
            out = np.frompyfunc(func, len(args), 1)(*args)
            # decided truths (np.isnan of data) as a bool array, so `~` and np.sum count them
            if isinstance(out, np.ndarray) and all(isinstance(e, (bool, np.bool_)) for e in out.flat):
                return out.astype(bool)
            return out
        return func(*args)

    apply.__name__ = name
    return apply


def counterpart_of(rule: Rule):
    """The sympy counterpart `rule` records, mapped over arrays if it computes one element;
    None if it records none."""
    func = rule.sympy_function()
    if func is None or func is rule.func:  # its own code, exact on object arrays (np.add.at too)
        return func
    return elementwise(func, rule.name.rpartition(".")[2]) if rule.sympy_elementwise else func


#: What lowering reads without a rule (attributes, aliases), with their counterparts.
WITHOUT_RULES = {
    "ndarray.shape": forms.shape,
    "ndarray.ndim": forms.ndim,
    "ndarray.size": forms.size,
    "numpy.positive": np.positive,
    "numpy.result_type": np.result_type,
}


def optional_rules() -> list[Rule]:
    """SciPy's rules, when SciPy is installed (read without loading them into the table)."""
    try:
        return [r for rules in lazy_sections("scipy").values() for r in rules]
    except ImportError:
        return []


def _gather() -> tuple[dict, dict[str, str]]:
    found, reasons = dict(WITHOUT_RULES), {}
    for rule in [*optional_rules(), *TABLE]:
        if rule.sympy is not None:
            found[rule.name] = counterpart_of(rule)
        elif rule.not_symbolic:
            reasons[rule.name] = rule.not_symbolic
    return found, reasons


#: Rule name -> sympy counterpart; rule name -> why it has none.
COUNTERPARTS, NOT_SYMBOLIC = _gather()


def counterpart(name: str):
    """The sympy counterpart of the function or rule named `name`, or None."""
    return COUNTERPARTS.get(name)
