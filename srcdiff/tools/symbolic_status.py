"""Which rules and lowered nodes can run on sympy values, and why the others cannot.

A rule is symbolic when it has a counterpart in `COUNTERPARTS`; the primitives lowering
introduces itself (`srcdiff.rules.structural`) are listed here in `STRUCTURAL` (with why they
run exactly on sympy values) or `STRUCTURAL_NOT_SYMBOLIC` (with why not).  A function with a
node that is not symbolic is reported "not symbolic" by `srcdiff.check`, never as agreeing.
"""

from __future__ import annotations

from ..ir.nodes import UserCall
from ..rules import structural
from .sympy_counterparts import COUNTERPARTS, NOT_SYMBOLIC

#: The primitives lowering introduces itself (`srcdiff.rules.structural`), by name: why the user's
#: code for them and srcdiff's adjoint code run exactly on sympy values.  They are recognised
#: by identity (`structural_name`), never by name alone: a user function may be called ``copy``.
STRUCTURAL: dict[str, str] = {
    "copy": "y = x names the same value",
    "nograd": "the user's own expression (len, .shape, a literal, a comparison) runs as written; "
              "a branch on a comparison of symbols refuses (`sympy_comparisons.Truth`, `truth`)",
    "str": "str(), repr(), format() and f-strings of values run as written",
    "compare": "a comparison of names and constants runs as written, like nograd's expressions",
    "getitem": "indexing and slicing select the same elements of an object array or a list; "
               "the adjoint's scatter-adds write into object arrays (`sympy_forms.zeros` and the other constructors)",
    "setitem": "set_item and zero_item copy object arrays as they are",
    "list": "a list of values is a list of sympy values",
    "list.append": "appending to and popping from Python lists",
    "sum(list)": "Python's sum adds sympy values exactly",
    "sum": "Python's sum over the rows of an object array adds them exactly",
    "stack(list)": "np.stack / np.array of a list of sympy values is an object array",
    "float": "float() of a number is Python's; of a symbol sympy refuses (TypeError), so that "
             "function is reported not symbolic",
    "abs": "abs() of a symbol is sympy's Abs",
    "max": "max() of two symbols is sympy's Max: the same value, ties included",
    "min": "min() of two symbols is sympy's Min: the same value, ties included",
    "user function": "another function of yours runs on sympy values like the function itself "
                     "(`symbolic._UserFunction`), and srcdiff's adjoint of it (``helper_vjp``) "
                     "runs on them like the gradient (`symbolic.symbolic_adjoint`)",
}

#: Structural primitives that are not symbolic, and why (none at present).
STRUCTURAL_NOT_SYMBOLIC: dict[str, str] = {
    "a conversion to an integer or bool dtype": "astype/dtype= of sympy's object arrays does not truncate: "
                                                "the program is checked numerically",
    "a list changed in place": "a list of indices (rest.remove(item)) holds no sympy value: checked numerically",
}


def rule_status(name: str) -> str:
    """'symbolic', 'not symbolic' (listed in NOT_SYMBOLIC) or 'unknown' for a rule name."""
    if name in COUNTERPARTS:
        return "symbolic"
    return "not symbolic" if name in NOT_SYMBOLIC else "unknown"


def why_not_symbolic(name: str) -> str:
    """Why the rule or function named `name` cannot run on sympy values."""
    reason = NOT_SYMBOLIC.get(name)
    return f"{name} has no sympy counterpart" + (f" ({reason})" if reason else "")


_FIXED_STRUCTURAL = (structural.COPY, structural.NOGRAD, structural.COMPARE, structural.STRING, structural.GETITEM,
                     structural.APPEND, structural.LIST_EDIT,
                     structural.SUM_LIST, structural.SUM_ROWS, structural.STACK_LIST,
                     structural.FLOAT, structural.ABS, structural.MAX, structural.MIN, structural.TRUNCATE)


def structural_name(node) -> str | None:
    """The `STRUCTURAL` key of a lowered node whose rule lowering made, else None."""
    if isinstance(node, UserCall):
        return "user function"
    rule = node.rule
    if any(rule is r for r in _FIXED_STRUCTURAL):
        return rule.name
    if structural.is_setitem(rule):
        return "setitem"
    if rule.name == "list" and rule is structural.list_of(len(rule.params)):
        return "list"
    return None


def node_status(node) -> tuple[str, str]:
    """A lowered node's status ('symbolic', 'not symbolic', 'unknown') and, when it is not
    symbolic, why."""
    key = structural_name(node)
    if key is None:
        name = getattr(node.rule, "name", "?")
        status = rule_status(name)
        return status, "" if status == "symbolic" else why_not_symbolic(name)
    if key in STRUCTURAL:
        return "symbolic", ""
    callee = getattr(node, "callee", None)
    what = f"the call to {getattr(callee, '__qualname__', key)}" if callee is not None else key
    reason = STRUCTURAL_NOT_SYMBOLIC.get(key)
    return ("not symbolic", f"{what}: {reason}") if reason else ("unknown", f"{what} has no sympy counterpart")
