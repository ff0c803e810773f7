"""numba's ``probe_decision(key, *args)``: a ``try``'s probe run by Python (try_probes.py),
through numba's object mode, on the compiled code's values."""

from __future__ import annotations

from numba import objmode

from .naming import overload
from .try_probes import probe_decision, run_probe


@overload(probe_decision)
def _probe_decision(key, *args):
    def decide(key, *args):
        with objmode(k="int64"):
            k = run_probe(key, args)
        return k
    return decide


HELPERS = ("probe_decision",)

__all__ = [*HELPERS]
