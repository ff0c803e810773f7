"""`srcdiff.check`: srcdiff's gradients against sympy's derivatives.

`check` runs the user's function on sympy symbols, differentiates the result with
`sympy.diff`, and runs srcdiff's generated gradient on the same symbols (calls of the user's
other functions are followed into them, and into srcdiff's adjoints of them).  The two are
proved equal when sympy simplifies their difference to zero; otherwise they are compared at
several points in 50-digit arithmetic, and the report says which of the two happened.
Either way the generated float64 gradient is also run at those points, and a failure there
(NaN where the function is finite, a value off sympy's) is a mismatch whatever sympy proved.

Each symbolic stage may take `timeout` seconds; past that, where sympy cannot evaluate
the function at all, or where neither side evaluates to a number at the sample points, the
report gives float64 central differences' verdict instead.

The call is bound through the api's one front (tools/check_front.py): trees, methods and
partials are checked as the plain function of leaves `grad` differentiates, each leaf
reported under the user's spelling of it; float32 gradients are compared in their dtype.

The report is in `check_report`, the comparison in `check_compare`, the float64 runs in
`check_points`; `srcdiff.gradcheck` (central differences) is in `srcdiff.tools.gradcheck`.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import sympy as sp

from ..errors import SrcDiffError
from ..frontend import parse
from ..ir.nodes import Node
from ..rules.sympy_comparisons import NotSymbolic
from . import symbolic
from .budget import Budget, OutOfTime, stderr_progress
from .check_common import TIMEOUT, GradientMismatch
from .check_compare import compare_input, derivative, elements, narrow_tolerance, prove, sample_points
from .check_front import Plain, copies, plain_call
from .check_points import float_failures
from .check_report import GAVE_UP, INCONCLUSIVE, MISMATCH, NOT_SYMBOLIC, NUMERIC, PROVED, CheckReport, InputCheck
from .gradcheck import numeric_check
from .symbolic_status import node_status

__all__ = ["GAVE_UP", "INCONCLUSIVE", "MISMATCH", "NOT_SYMBOLIC", "NUMERIC", "PROVED", "TIMEOUT", "CheckReport",
           "GradientMismatch", "InputCheck", "check", "lowered_nodes"]


def check(f, *args, wrt=0, shapes: dict | None = None, points: int = 5, seed: int = 0,
          max_elements: int = 64, raise_on_mismatch: bool = False, timeout: float | None = TIMEOUT,
          progress=None) -> CheckReport:
    """Cross-check srcdiff's gradient of `f` against sympy's derivative.

    `f` and `wrt` are taken as `srcdiff.grad` takes them (trees, paths into them, methods,
    partials); each differentiated leaf is an input of the report (``p['W']``), and
    `report.sympy_gradient` / `report.srcdiff_gradient` are shaped like the `wrt` target(s).
    `args` are example arguments (parameters with defaults may be left out; ``shapes=
    {"w": (3,)}`` stands for a missing array argument).  Every `wrt` input becomes a sympy
    symbol, or an array of them shaped like its argument (at most `max_elements`); the other
    arguments keep their values.  Where the difference does not simplify to 0, the two are
    compared at the arguments' values and `points - 1` random points nearby, in 50 digits.
    At the same points the generated gradient runs (in the argument's dtype), and must be
    finite where the function is and agree with sympy's derivative there, within the rounding
    of that dtype.

    Each symbolic stage (running on symbols, differentiating, comparing) may take `timeout`
    seconds (None: no limit); past that the check gives up symbolically and reports float64
    central differences' verdict instead, as it does for a function sympy cannot evaluate
    ("not symbolic").  `progress` hears (as a str) when a stage has run for over a second:
    a function, None for standard error, False for silence.

    Returns a `CheckReport`, truthy when all agree; with `raise_on_mismatch`, a mismatch raises
    `GradientMismatch`.
    """
    plain = plain_call(f, args, wrt, shapes, seed)
    gradient = plain.gradient
    made = plain.gradient_at(plain.values, "variant_for")
    lowered = gradient.lowered
    report = CheckReport(plain.qualname, tuple(plain.label(n) for n in plain.wrt), points=points, timeout=timeout,
                         plain=plain)
    position = {name: plain.position(name) for name in plain.wrt}
    budget = Budget(timeout, plain.qualname, stderr_progress if progress is None else progress or None)

    report.not_symbolic = (_unsupported(lowered.ir) or _too_large(plain, position, max_elements)
                           or _not_finite(plain, position))
    if not report.not_symbolic:
        try:
            budget.run(lambda: _symbolic_check(report, plain, made, lowered, position, budget, seed))
        except OutOfTime as exc:
            report.gave_up, report.inputs = exc.stage, []
            if budget.progress is not None:
                budget.progress(f"srcdiff.check {plain.qualname}: gave up symbolically after "
                                f"{timeout:g} s ({exc.stage}); checking numerically")
        except RecursionError:  # sympy recurses on deep expressions: a limit, like time, not an answer
            report.not_symbolic, report.inputs = f"sympy's recursion went too deep ({budget.current})", []
    if report.not_symbolic or report.gave_up or report.status == INCONCLUSIVE:
        report.numeric = numeric_check(plain)
    if raise_on_mismatch:
        report.raise_on_mismatch()
    return report


#: The symbolic stages, as progress messages and the report name them.  Simplifying is a
#: soft stage: elements it has not proved when its time is up are compared in numbers.
RUNNING, DIFFERENTIATING = "running the function and its gradient on symbols", "differentiating with sympy"
SIMPLIFYING, COMPARING = "simplifying the differences", "comparing with sympy's derivative in 50 digits"


def _symbolic_check(report: CheckReport, plain: Plain, made, lowered, position: dict,
                    budget: Budget, seed: int) -> None:
    names, values = list(position), plain.values
    symbols = {name: symbolic.symbols_like(plain.label(name), values[position[name]]) for name in names}
    sym_args = [symbols.get(p, v) for p, v in zip(plain.params, values)]
    user = parse.unwrap(plain.func)
    with budget.stage(RUNNING):
        try:  # each run on copies: a function that writes into its arguments leaves the symbols be
            primal = plain.run(sym_args, symbolic.symbolic_function(user))
            label = f"check:{plain.qualname}"
            ours = symbolic.symbolic_adjoint(made, user, lowered.parsed.closure, label)(*copies(sym_args))
            output = symbolic.as_expr(primal)
        except NotSymbolic as exc:
            report.not_symbolic = str(exc)
            return
        except SrcDiffError as exc:  # a run-time guard of the generated code, meeting object arrays
            report.not_symbolic = f"srcdiff's gradient does not run on sympy values: {str(exc).splitlines()[0]}"
            return
        except (TypeError, ValueError, AttributeError, ArithmeticError, LookupError, RecursionError,
                sp.SympifyError) as exc:
            if "truth value of Relational" in str(exc):  # ``if x > y:`` in the user's code
                report.not_symbolic = ("a branch or a selection depends on a comparison of the "
                                       f"differentiated inputs ({exc})")
            else:
                report.not_symbolic = f"sympy could not evaluate it: {type(exc).__name__}: {exc}"
            return
    with budget.stage(DIFFERENTIATING):
        theirs = {name: derivative(output, symbols[name], budget) for name in names}
    found = {name: elements(theirs[name], got, symbols[name]) for name, got in zip(names, ours)}
    with budget.stage(SIMPLIFYING, soft=True):
        for name in names:
            if found[name] is not None:
                prove(found[name], budget)
    samples = sample_points(symbols, values, position, report.points, seed)
    sympy_values = {}
    with budget.stage(COMPARING):
        for name, got in zip(names, ours):
            item, sympy_values[name] = compare_input(plain.label(name), theirs[name], symbols[name], got,
                                                     found[name], samples, budget, narrow_tolerance(values))
            report.inputs.append(item)
    failures = float_failures(plain, symbols, position, samples, sympy_values)  # by label
    for item in report.inputs:
        if item.name in failures and item.verdict != MISMATCH:
            proved = "; the formula is proved equal to sympy's, its float64 evaluation is not" \
                if item.verdict == PROVED else ""
            item.verdict, item.detail = MISMATCH, failures[item.name] + proved


def _unsupported(function) -> str:
    """Why the lowered function cannot be evaluated with sympy ('' when it can)."""
    reasons = {node_status(node) for node in lowered_nodes(function)}
    return "; ".join(sorted(why for status, why in reasons if status != "symbolic"))


def lowered_nodes(obj, seen=None) -> list[Node]:
    """Every node of a lowered function, whatever regions hold them."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, Node):
        return [obj] if getattr(obj, "rule", None) is not None else []
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        children = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    elif isinstance(obj, (list, tuple)):
        children = list(obj)
    elif isinstance(obj, dict):
        children = list(obj.values())
    else:
        return []
    return [node for child in children for node in lowered_nodes(child, seen)]


def _not_finite(plain: Plain, position: dict) -> str:
    """Why sympy cannot be compared at the arguments: an input that is NaN or infinite (np.fmax
    ignores a NaN operand; a derivative with respect to NaN is no number for sympy)."""
    for name in position:
        value = np.asarray(plain.values[position[name]], dtype=np.float64)
        if not np.all(np.isfinite(value)):
            return f"{plain.label(name)} holds NaN or infinite values, where sympy's derivative is no number"
    return ""


def _too_large(plain: Plain, position: dict, max_elements: int) -> str:
    for name in position:
        size = np.size(plain.values[position[name]])
        if size > max_elements:
            return (f"{plain.label(name)} has {size} elements, more than max_elements={max_elements} symbols; "
                    f"check with a smaller example argument")
    return ""
