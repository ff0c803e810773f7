"""Comparing srcdiff's gradient with sympy's derivative, element by element: a proof where
sympy simplifies the difference to 0, else values at sample points in 50 digits.

Both take time that grows with the expressions, so both run as stages of the check's
`Budget`: simplifying is a soft stage (elements it has not proved when its time is up are
compared in numbers instead), comparing in numbers a hard one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy as sp

from . import symbolic
from .budget import Budget
from .check_report import DIGITS, INCONCLUSIVE, MISMATCH, NUMERIC, PROVED, InputCheck, number, show_point, size_at_most
from .gradcheck import dtype_tolerance

REL_TOL, ABS_TOL = 1e-9, 1e-15  # agreement in 50 digits; float constants round differently
MAX_SIMPLIFY_OPS = 400  # beyond this, sympy.simplify is too slow to try


def derivative(output, symbol, budget: Budget):
    """sympy's derivative of `output` with respect to a symbol, or to each of an array of them."""
    if not isinstance(symbol, np.ndarray):
        return sp.diff(output, symbol)
    theirs = np.empty(symbol.shape, dtype=object)
    for index in np.ndindex(symbol.shape):
        budget.check()
        theirs[index] = sp.diff(output, symbol[index])
    return theirs


@dataclass
class Elements:
    """sympy's derivative and srcdiff's gradient for one input, element by element (C order)."""

    indices: list  # [()] for a number
    theirs: list
    mine: list
    proved: list = field(default_factory=list)  # per element, as far as simplifying got


def elements(theirs, got, symbol) -> Elements | None:
    """The two side by side, or None when srcdiff's gradient is not shaped like the input."""
    if np.shape(got) != np.shape(symbol):
        return None
    if not isinstance(symbol, np.ndarray):
        return Elements([()], [theirs], [symbolic.as_expr(got)])
    indices = list(np.ndindex(symbol.shape))
    return Elements(indices, [theirs[i] for i in indices], [symbolic.as_expr(got[i]) for i in indices])


def prove(found: Elements, budget: Budget) -> None:
    """Simplify each element's difference, recording in `found.proved` which are 0."""
    for a, b in zip(found.theirs[len(found.proved):], found.mine[len(found.proved):]):
        budget.check()
        found.proved.append(is_zero(symbolic.exact(sp.sympify(a - b))))


def narrow_tolerance(values) -> tuple[float, float]:
    """The float32 (float16) rounding tolerance of `gradcheck.dtype_tolerance` when any argument
    holds such an array: srcdiff's gradient, run on sympy values for the differentiated inputs,
    computes with the other arguments' numbers in their own dtype (``area / 9.81`` of a float32
    `area` is rounded to float32 before it meets a symbol), sympy's derivative does not."""
    found = (0.0, 0.0)
    stack = [values]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack += list(value.values())
        elif isinstance(value, (list, tuple)):
            stack += list(value)
        elif isinstance(value, np.ndarray) and value.dtype.kind == "f" or isinstance(value, np.floating):
            found = max(found, dtype_tolerance(value))
    return found


def compare_input(name: str, theirs, symbol, got, found: Elements | None, samples: list[dict], budget: Budget,
                  tolerance: tuple[float, float] = (0.0, 0.0)):
    """The verdict on one input, and sympy's derivative at each sample point.

    Elements `prove` did not prove (or did not get to) are compared at the sample points, within
    `tolerance` (`narrow_tolerance`: rtol, atol as a share of the largest element) where wider
    than the 50-digit agreement.
    Returns ``(InputCheck, values)`` where ``values[k]`` lists sympy's derivative at sample
    point k, element by element in C order (None where it is not a finite real number), or
    ``values`` is None when the shapes differ.
    """
    scalar = not isinstance(symbol, np.ndarray)
    if found is None:
        what = "is a number" if scalar else str(symbol.shape)
        return InputCheck(name, theirs, got, MISMATCH,
                          f"srcdiff's gradient has shape {np.shape(got)}, the input {what}"), None
    values = values_at(found.theirs, samples, budget)
    scales = [max([abs(v) for v in row if v is not None] + [0.0]) for row in values]
    verdicts = []
    for k, (index, mine) in enumerate(zip(found.indices, found.mine)):
        if k >= len(found.proved) or not found.proved[k]:
            budget.check()
            mine_values = [row[0] for row in values_at([mine], samples, budget)]
            verdict, detail = _at_points([row[k] for row in values], mine_values, samples, scales, tolerance)
            verdicts.append((verdict, index, detail))
    if scalar:
        mine_out = found.mine[0]
    else:
        mine_out = np.empty(symbol.shape, dtype=object)
        for index, mine in zip(found.indices, found.mine):
            mine_out[index] = mine
    for verdict in (MISMATCH, INCONCLUSIVE, NUMERIC):
        hits = [(i, d) for v, i, d in verdicts if v == verdict]
        if hits:
            index, detail = hits[0]
            where = f"at element {list(index)}: " if verdict != NUMERIC and not scalar else ""
            return InputCheck(name, theirs, mine_out, verdict, where + detail), values
    return InputCheck(name, theirs, mine_out, PROVED), values


def _at_points(theirs: list, mine: list, samples: list[dict], scales: list, tolerance: tuple[float, float]) \
        -> tuple[str, str]:
    compared = 0
    rtol, share = max(REL_TOL, tolerance[0]), tolerance[1]
    for a, b, point, scale in zip(theirs, mine, samples, scales):
        if a is None or b is None:
            continue
        compared += 1
        if abs(a - b) > rtol * max(abs(a), abs(b)) + max(ABS_TOL, share * scale):
            return MISMATCH, f"at {show_point(point)}: sympy gives {number(a)}, srcdiff {number(b)}"
    if not compared:
        return INCONCLUSIVE, "neither side could be evaluated to a real number at the sample points"
    return NUMERIC, f"{compared} points, {DIGITS} digits"


def is_zero(difference) -> bool:
    """Whether sympy simplifies `difference` to 0."""
    if difference == 0:
        return True
    if not size_at_most(difference, 10 * MAX_SIMPLIFY_OPS) or sp.count_ops(difference) > MAX_SIMPLIFY_OPS:
        return False
    if sp.expand(difference) == 0:
        return True
    if difference.has(sp.Piecewise):
        difference = _generic(difference)
        if difference == 0 or sp.expand(difference) == 0 or (not difference.has(sp.Piecewise)
                                                             and sp.simplify(difference) == 0):
            return True
    if difference.has(sp.Piecewise):  # from comparisons: simplifying their logic takes minutes
        return False
    return sp.simplify(difference) == 0


def _generic(expr):
    """`expr` at a generic point: a ``Piecewise`` branch taken only where a non-constant
    expression equals another (``Eq(sqrt(x**2 + y**2), 0)``, the subgradient 0 of a norm
    at 0) holds on a set of measure zero, so it is dropped; sympy's simplify cannot see
    that.  The checks of those points are the numeric ones."""
    def fold(*pairs):
        kept = [(e, c) for e, c in pairs
                if not (isinstance(c, sp.Eq) and not (c.lhs - c.rhs).is_constant())]
        if not kept or kept[-1][1] is not sp.true:
            return sp.Piecewise(*pairs)
        return kept[0][0] if len(kept) == 1 else sp.Piecewise(*kept)
    return expr.replace(lambda e: isinstance(e, sp.Piecewise), lambda e: fold(*e.args))


def values_at(exprs: list, samples: list[dict], budget: Budget) -> list[list]:
    """``[point][element]``: each of `exprs` at each sample point in DIGITS digits (None
    where it is not a finite real number).

    Expressions from loops share subexpressions that a tree walk (evalf) visits once per
    path, exponentially often; compiled together with common subexpressions eliminated, they
    are evaluated once each in mpmath at the same precision.
    """
    exprs = [sp.sympify(e) for e in exprs]
    names = list(samples[0]) if samples else []
    try:
        compiled = sp.lambdify(names, exprs, modules="mpmath", cse=True)
    except Exception:  # a construct the mpmath printer lacks: the tree walk still works
        compiled = None
    out = []
    for point in samples:
        budget.check()
        row = None
        if compiled is not None:
            with mpmath.workdps(DIGITS):
                try:
                    row = compiled(*(mpmath.mpf(str(point[n])) for n in names))
                except Exception:  # e.g. a function mpmath lacks (DiracDelta): sympy's own walk
                    row = None
        values = []
        for i, expr in enumerate(exprs):
            value = None if row is None else row[i]
            if isinstance(value, mpmath.mpf) and mpmath.isfinite(value):
                values.append(sp.Float(value, DIGITS))
            else:  # let sympy decide what a non-real value means
                values.append(_evaluate(expr, point))
        out.append(values)
    return out


def _evaluate(expr, point):
    """`expr` at `point` in DIGITS digits, or None if it is not a finite real number there."""
    try:
        value = sp.sympify(expr).evalf(DIGITS, subs=point)
    except (TypeError, ValueError, ArithmeticError):
        return None
    if not value.is_number or value.is_real is not True or value.is_finite is not True:
        return None
    return sp.Float(value, DIGITS)


def sample_points(symbols: dict, values, position: dict, count: int, seed: int) -> list[dict]:
    """The arguments' own values, then random points near them (same signs, within ~20%)."""
    rng = np.random.default_rng(seed)
    base = {}
    for name, symbol in symbols.items():
        value = values[position[name]]
        if isinstance(symbol, np.ndarray):
            base.update({symbol[i]: float(value[i]) for i in np.ndindex(symbol.shape)})
        else:
            base[symbol] = float(value)
    kinds = {}  # a float32 input runs at float32 points: sympy is asked at the same ones
    for name, symbol in symbols.items():
        dtype = getattr(values[position[name]], "dtype", np.dtype(np.float64))
        kinds.update({s: dtype.type for s in np.ravel(symbol)} if dtype.kind == "f" else {})
    samples = [base]
    for _ in range(max(count, 1) - 1):
        u = rng.uniform(-1.0, 1.0, size=len(base))
        samples.append({s: float(kinds.get(s, float)(v * float(np.exp(0.2 * d)) if v else 0.5 * float(d)))
                        for (s, v), d in zip(base.items(), u)})
    return [{s: sp.Float(v, DIGITS) for s, v in point.items()} for point in samples]
