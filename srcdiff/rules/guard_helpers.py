"""The helper a gradient calls where ``np.where`` singles out a point by an equality with a
number (``np.where(x == 0.0, 1.0, np.sin(s) / s)``); its rule is in point_guards.py."""

from __future__ import annotations


def point_guard(value, u, c):
    """`value` itself: the result of a ``np.where`` whose condition is ``u == c`` (or ``u != c``)
    for a number `c` written in the code.  Its rule makes the derivative NaN where ``u == c``
    and a direction moves `u`: there the program defines its value separately, at one point,
    and the derivative depends on the continuation srcdiff cannot see (``np.sin(x) / x`` and
    ``np.expm1(x) / x`` guarded at 0 have the derivatives 0 and 1/2, the guard's constant 0)."""
    return value


GUARD_HELPERS = {"point_guard": point_guard}
