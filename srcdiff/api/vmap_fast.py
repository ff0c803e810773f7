"""The short path of a `vmap` call like the last one batched (api/vmap.py): every argument a NumPy array
passed as it is, or a Python number, bool or None shared by every example (in_axes 0 or None, nothing bound
by a partial, no default added), the plan that ran it still matching (api/plans.py), every batched argument
as long as the others.  The full path binds the arguments, looks for trees, computes each argument's kind
and builds the call's arguments again: tens of microseconds a call, a tenth of a per-example gradient of a
small network."""

from __future__ import annotations

import numpy as np

from .plans import Plan

#: the kinds of argument besides arrays a call on the short path may pass, shared by every example (a learning
#: rate, a loop count, a flag): the plan compares them by value (api/plans.py), as the full path's kinds do
SHARED = (float, int, bool, type(None))


class Fast:
    """What a call must look like to take the short path: `count` arrays, those at `batched` mapped."""

    __slots__ = ("plan", "count", "batched")

    def __init__(self, plan: Plan, count: int, batched: tuple[int, ...]):
        self.plan, self.count, self.batched = plan, count, batched

    def ready(self, args: tuple, plan: Plan | None) -> bool:
        """Whether `args` take the short path of `plan` (the vmap's current plan, this one's)."""
        if plan is not self.plan or len(args) != self.count:
            return False
        for a in args:
            if type(a) is not np.ndarray and type(a) not in SHARED:
                return False
        size = None
        for k in self.batched:
            if type(args[k]) is not np.ndarray:
                return False
            shape = args[k].shape
            if not shape or shape[0] == 0 or (size is not None and shape[0] != size):
                return False  # (the full path says what is wrong)
            size = shape[0]
        return plan.matches(args)


def fast_for(plan: Plan | None, args: tuple, moved: list, axes: list) -> Fast | None:
    """A `Fast` for calls like this one, whose arguments `args` were run as `moved` by `plan` (None where
    the full path changed them: a partial's bound values, a default, an axis moved, a list made an array)."""
    if plan is None or len(moved) != len(args) or any(a is not m or type(a) is not np.ndarray and type(a) not in SHARED
                                                      for a, m in zip(args, moved)):
        return None
    if any(axis not in (0, None) for axis in axes) or any(type(args[k]) is not np.ndarray
                                                           for k, axis in enumerate(axes) if axis == 0):
        return None
    return Fast(plan, len(args), tuple(k for k, axis in enumerate(axes) if axis == 0))


__all__ = ["Fast", "fast_for"]
