"""The proof of joins.py for a number before a loop in a helper whose adjoint is a pair of functions
(module.py: ``name(args) -> (value, saved)`` and ``name_pullback(saved, adjoint)``; a tree's wrapper
calls the user's function so).  The promoted value is saved for the pullback, so its uses there are
part of the proof: `joined` is the two functions as one, read in the order they run (the helper's
body, its saved tuple bound to the names the pullback unpacks, the pullback's body), returning the
helper's value and the pullback's result together: neither may be computed from the promoted value
but the ways that keep values (taints.py).  The proof runs on it; the promotion is made in the helper.
"""

from __future__ import annotations

import ast
import copy

PULLBACK = "_pullback"


def joined(module: ast.Module, func: ast.FunctionDef) -> ast.FunctionDef | None:
    """`func` and its pullback as one function for the proof (its statements `func`'s own, so a
    promotion made in `func` is seen), or None where `func` has no pullback of that form."""
    partner = next((f for f in module.body if isinstance(f, ast.FunctionDef) and f.name == func.name + PULLBACK),
                   None)
    if partner is None or not func.body or not partner.body or not partner.args.args:
        return None
    last, first = func.body[-1], partner.body[0]
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Tuple) and len(last.value.elts) == 2
            and isinstance(last.value.elts[1], ast.Tuple)):
        return None
    saved = last.value.elts[1].elts
    if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], ast.Tuple)
            and isinstance(first.value, ast.Name) and first.value.id == partner.args.args[0].arg
            and len(first.targets[0].elts) == len(saved)
            and all(isinstance(t, ast.Name) for t in first.targets[0].elts)):
        return None
    if any(isinstance(n, ast.Return) for s in func.body[:-1] for n in ast.walk(s)):
        return None  # (a return before the last statement: the order is not the text's)
    value = _fresh("helper_value", module)
    body = [*func.body[:-1], ast.Assign([ast.Name(value, ast.Store())], last.value.elts[0])]
    body += [ast.Assign([ast.Name(t.id, ast.Store())], s) for t, s in zip(first.targets[0].elts, saved)
             if not (isinstance(s, ast.Name) and s.id == t.id)]
    tail = copy.deepcopy(partner.body[1:])
    if not tail or not isinstance(tail[-1], ast.Return) or tail[-1].value is None:
        return None
    tail[-1] = ast.Return(ast.Tuple([ast.Name(value, ast.Load()), tail[-1].value], ast.Load()))
    args = copy.deepcopy(func.args)
    args.args += copy.deepcopy(partner.args.args[1:])
    whole = ast.FunctionDef(name=func.name, args=args, body=[*body, *tail], decorator_list=[], returns=None)
    return ast.fix_missing_locations(whole)


def _fresh(stem: str, module: ast.Module) -> str:
    taken = {n.id for n in ast.walk(module) if isinstance(n, ast.Name)}
    name = stem
    while name in taken:
        name += "_"
    return name


__all__ = ["joined"]
