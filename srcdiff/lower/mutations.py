"""Refusals that must not mislead: an expression statement, and a call with no rule.

An expression statement that is neither an effect (effects.py) nor ``xs.append(v)`` is
refused.  Saying "it has no effect, remove it" is right only when it computes a value and
drops it; ``x.sort()``, ``np.add.at(a, i, v)`` or ``np.tanh(x, out=x)`` change an argument in
place, and removing them changes the function.  So the message says which of the two the
statement is, and for a change in place how to write it as a new value.

A call with no rule (``math.atan2``) points to the NumPy function of the same meaning when
srcdiff's table has a rule for it (``np.arctan2``).
"""

from __future__ import annotations

import ast
import builtins
import math

import numpy as np

from ..errors import SrcDiffError
from ..frontend.depends import MISSING
from .state import LoweringState
from .static_values import static_value

#: Methods that change their object in place, with the statement that makes a new value
#: instead ({x} is the object, {args} the call's arguments); None: no general rewrite.
_METHODS = {
    "sort": None,  # depends on the rule table: see _sort_hint
    "reverse": "{x} = [{x}[k] for k in range(len({x}) - 1, -1, -1)]",
    "fill": "{x} = np.zeros_like({x}) + {args}",
    "extend": "for item in {args}: {x}.append(item)", "append": None,
    "insert": None, "pop": None, "remove": None, "clear": None, "resize": None, "put": None,
    "itemset": None, "setfield": None, "partition": None, "setflags": None, "update": None,
    "__setitem__": None,
    "__iadd__": "{x} = {x} + {args}", "__isub__": "{x} = {x} - {args}",
    "__imul__": "{x} = {x} * {args}", "__itruediv__": "{x} = {x} / {args}",
}

#: NumPy functions that write into their first argument.
_NUMPY_IN_PLACE = {np.copyto: "{0} = np.zeros_like({0}) + {1}", np.put: None, np.place: None,
                   np.putmask: "{0} = np.where({1}, {2}, {0})", np.fill_diagonal: None}

#: `math` names whose NumPy function has another name.
_NUMPY_NAMES = {"pow": "power", "fabs": "absolute", "atan2": "arctan2"}


def refuse_expression_statement(state: LoweringState, stmt: ast.Expr) -> SrcDiffError:
    """The error for an expression statement srcdiff does not run: a change in place, an
    unknown call, or a value thrown away."""
    value = stmt.value
    spelled = ast.unparse(value)
    if not isinstance(value, ast.Call):
        return state.error(stmt, f"the value of `{spelled}` is computed and thrown away: this "
                           "statement has no effect", "remove it, or assign its value to a name")
    changed = changed_in_place(state, value)
    if changed is not None:
        target, rewrite = changed
        return state.error(stmt, f"`{spelled}` changes {target} in place, which srcdiff cannot "
                           "differentiate (removing it would change what the function computes)",
                           f"compute the new value and assign it: `{rewrite}`" if rewrite else
                           f"compute the new value of {target} as a new array or list and assign it")
    func = static_value(state, value.func, record=False)
    if func is not MISSING and state.table.lookup(func) is not None:
        return state.error(stmt, f"the value of `{spelled}` is computed and thrown away: this "
                           "statement has no effect", "remove it, or assign its value to a name")
    return state.error(stmt, f"`{spelled}` is called for its effect only, and srcdiff cannot tell "
                       "whether it changes its arguments (or what else it does)",
                       "make it return the new value and assign it (`x = f(x)`); to print or log, "
                       "call print / logging / warnings.warn here directly: those run as written")


def check_no_change_in_place(state: LoweringState, call: ast.Call) -> None:
    """A call srcdiff runs as written (in a condition, or in a statement run for its effect)
    must not change a value the function goes on to use (``print(xs.pop())``): srcdiff would
    not see the change."""
    changed = changed_in_place(state, call)
    if changed is not None:
        target, rewrite = changed
        raise state.error(call, f"`{ast.unparse(call)}` changes {target} in place inside an "
                          "expression srcdiff runs as written, which it cannot follow",
                          "make the change a new value in a statement of its own" +
                          (f": `{rewrite}`" if rewrite else ""))


def changed_in_place(state: LoweringState, call: ast.Call) -> tuple[str, str | None] | None:
    """(what the call changes, the statement to write instead) for a known change in place;
    None for any other call."""
    out = next((k.value for k in call.keywords if k.arg == "out"), None)
    if out is not None:
        target = ast.unparse(out[0] if isinstance(out, ast.Tuple) and len(out.elts) == 1 else out)
        plain = ast.Call(call.func, call.args, [k for k in call.keywords if k.arg != "out"])
        return target, f"{target} = {ast.unparse(plain)}"
    args = [ast.unparse(a) for a in call.args]
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "at":  # np.add.at(a, i, v): a ufunc's method
        ufunc = static_value(state, func.value, record=False)
        if isinstance(ufunc, np.ufunc) and args:
            rewrite = f"{args[0]} = {args[0]} + np.eye(len({args[0]}))[{args[1]}].T @ {args[2]}" \
                if ufunc is np.add and len(args) == 3 else None
            return args[0], rewrite
    resolved = static_value(state, func, record=False)
    # (a module's array of the name a nested def shadows is no function: not hashable either)
    if callable(resolved) and resolved in _NUMPY_IN_PLACE and args:
        template = _NUMPY_IN_PLACE[resolved]
        try:
            return args[0], template.format(*args) if template and not call.keywords else None
        except IndexError:  # fewer arguments than the rewrite names
            return args[0], None
    if resolved is np.random.shuffle and args:
        return args[0], f"{args[0]} = np.random.permutation({args[0]})"
    if isinstance(func, ast.Attribute) and func.attr in _METHODS \
            and not isinstance(func.value, (ast.Constant, ast.JoinedStr)) \
            and static_value(state, func.value, record=False) is MISSING:
        x = ast.unparse(func.value)
        template = _sort_hint(state, call) if func.attr == "sort" else _METHODS[func.attr]
        return x, template.format(x=x, args=", ".join(args)) if template else None
    return None


def _sort_hint(state: LoweringState, call: ast.Call) -> str | None:
    """``x = np.sort(x)`` if srcdiff can differentiate np.sort, else the same by indexing."""
    arguments = "".join(f", {ast.unparse(a)}" for a in call.args) + \
        "".join(f", {k.arg}={ast.unparse(k.value)}" for k in call.keywords)
    if state.table.lookup(np.sort) is not None:
        return "{x} = np.sort({x}" + arguments + ")"
    return "{x} = {x}[np.argsort({x})]" if not arguments else None


def numpy_equivalent(state: LoweringState, func) -> str | None:
    """``np.arctan2`` for ``math.atan2``: the NumPy function with a rule for a math function
    (or a builtin) with none; None when there is none."""
    if func is builtins.pow:
        return "x ** y"
    if getattr(func, "__module__", None) != "math" and getattr(math, getattr(func, "__name__", ""), None) is not func:
        return None
    name = func.__name__
    candidates = [_NUMPY_NAMES.get(name, name)]
    if name.startswith("a"):
        candidates.insert(0, "arc" + name[1:])  # asin -> arcsin, atanh -> arctanh
    for candidate in candidates:
        np_func = getattr(np, candidate, None)
        if np_func is not None and state.table.lookup(np_func) is not None:
            return f"np.{candidate}"
    return None
