"""The user's line behind numba's refusal to join a number and an array in one variable
(``Cannot unify float64 and array(float64, 1d, C) for 'b.3'``).  numba names the loop or the
function, and the generated line that makes the number (``b = 1.0`` before a loop: a literal
the IR keeps no line for) is followed back only to the ``def``: the number the user wrote is
found in that function's source (or a function it calls in the same file), the line to change."""

from __future__ import annotations

import ast
import linecache
import re

from ...errors import Location
from .joins import JOIN

#: the suffixes srcdiff adds to a user's name (SSA versions, adjoints, tangents)
_SUFFIX = re.compile(r"(_\d+|_bar|_dot\d*)+$")


def join_location(reason: str, source: str, lines: dict, located) -> Location | None:
    """The user's line that makes the number of numba's join `reason`, else a line that
    assigns the variable as an array; None when `reason` is another refusal or no line is found.
    `source` is the generated code, `lines` its line -> origin, `located` an origin -> (Location, sweep)."""
    found = JOIN.search(reason)
    if not found:
        return None
    name = found.group(3)
    user_name = _SUFFIX.sub("", name) or name
    places, later = [], []  # (the forward sweep's first: where the value is made, not its adjoint)
    for number, text in enumerate(source.splitlines(), start=1):
        targets, equal, _ = text.partition("=")
        if equal and number in lines and re.fullmatch(r"\s*[\w\s,()]+", targets) and \
                any((_SUFFIX.sub("", t) or t) == user_name for t in re.findall(r"\w+", targets)):
            where, sweep = located(*lines[number])
            if where is not None:
                (places if sweep == "forward" else later).append(where)
    places += later
    for where in places:
        number = _number_assigned(where, user_name)
        if number is not None:
            return number
    return next((w for w in places if not w.code.lstrip().startswith("def ")), None)


def _number_assigned(function: Location, name: str) -> Location | None:
    """The line of the function holding `function`'s line (or of a function of the same file
    calling it) that assigns `name` a number literal, or, where `name` is assigned a call of a
    function of the same file (a helper srcdiff inlined under the caller's name), the line of
    that function assigning what it returns."""
    try:
        module = ast.parse("".join(linecache.getlines(function.filename)))
    except SyntaxError:
        return None
    defs = {n.name: n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    holding = [d for d in defs.values() if d.lineno <= function.line <= (d.end_lineno or d.lineno)]
    outer = max(holding, key=lambda d: d.lineno, default=None)  # the innermost
    if outer is None:
        return None
    callers = [d for d in defs.values() if any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                                               and c.func.id == outer.name for c in ast.walk(d))]
    # (a helper inlined into its caller: the generated name is the caller's, ``v = _power(A)``)
    number = next((n for f in (outer, *callers) if (n := _search(f, name, defs, 3)) is not None), None)
    if number is None:
        return None
    return Location(function.filename, number, linecache.getline(function.filename, number).rstrip("\n"))


def _search(func, name: str, defs: dict, depth: int) -> int | None:
    """The line of `func` assigning `name` a number, else of the helpers whose result it is."""
    assigns = [n for n in ast.walk(func) if isinstance(n, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    for node in assigns:
        if _is_number(node.value):
            return node.lineno
    for node in assigns if depth else ():
        value = node.value
        helper = defs.get(value.func.id) if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            else None
        if helper is None or helper is func:
            continue
        for back in ast.walk(helper):
            if isinstance(back, ast.Return) and isinstance(back.value, ast.Name):
                found = _search(helper, back.value.id, defs, depth - 1)
                if found is not None:
                    return found
    return None


def _is_number(value: ast.expr) -> bool:
    """Whether `value` is a number literal (``1.0``, ``-2``)."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        value = value.operand
    return isinstance(value, ast.Constant) and type(value.value) in (int, float)
