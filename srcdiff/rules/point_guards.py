"""The rule of `point_guard`: ``np.where(u == c, a, b)`` with `c` a number written in the code.

Where ``u == c`` holds the program's value is defined at one point, by its own branch; its
derivative there is the derivative of the continuation through the other branch, which the
program never evaluates there (the guard exists because it cannot: ``sin(x) / x`` at 0).  So
every transformation gives NaN there, for directions that move `u`: the guarded point's own
branch would give its constant's derivative, right for some programs (the sinc's 0) and
silently wrong for others (``expm1(x) / x``: 0 instead of 1/2).  Elsewhere it is the identity."""

from __future__ import annotations

from .guard_helpers import guard_nan, measure_guard, measure_nan, measure_nan_dot, point_guard
from .table import nograd, rule

RULES = [
    nograd(guard_nan, ("condition", "direction"), elementwise=True,
           not_symbolic="NaN or 0 by definition (the derivative at a guarded point): sympy has no counterpart"),
    rule(point_guard, ("value", "u", "c"), {"value": "g", "u": "guard_nan(u == c, g)"}, elementwise=True,
         derivable={"value": "g", "u": "point_guard(guard_nan(u == c, g), u, c)"},
         tangents={"value": "value_dot", "u": "measure_nan_dot(u == c, u_dot, value, False)"},  # value's shape
         note="np.where(u == c, a, b) for a number c: NaN at the guarded point for directions moving u "
              "(the derivative there is the unseen continuation's), the identity elsewhere",
         sympy="srcdiff.rules.guard_helpers.point_guard"),  # its value, symbolically too
    nograd(measure_nan, ("bad", "d", "every"), shape=lambda static, bad, d, every: d, batching="measure_nan",
           not_symbolic="NaN or 0 by definition (the derivative at a guarded point): sympy has no counterpart"),
    nograd(measure_nan_dot, ("bad", "direction", "like", "every"),
           shape=lambda static, bad, direction, like, every: like,
           not_symbolic="NaN or 0 by definition (the derivative at a guarded point): sympy has no counterpart"),
    rule(measure_guard, ("value", "bad", "d", "every"), {"value": "g", "d": "measure_nan(bad, d, every)"},
         shape=lambda static, value, *rest: value, batching="first",
         derivable={"value": "g", "d": "measure_guard(measure_nan(bad, d, every), bad, d, every)"},
         tangents={"value": "value_dot", "d": "measure_nan_dot(bad, d_dot, value, every)"},
         note="np.where(n > 0, a, b) for a measure n of several values d: NaN where the guard holds and its "
              "branch is not known to be the function, for directions moving d; the identity elsewhere",
         not_symbolic="the identity with a guard's NaN: sympy has no counterpart"),
]
