"""Replaying a composite transform's work: what a call of `vmap`, `jacobian` or `hessian`
found (the batched code to run), kept for later calls with arguments of the same signature.

A first call binds the arguments, flattens trees, finds the gradient's generated code,
seeds it, batches it: a few hundred microseconds of Python, more than the batched code
itself takes on small problems.  A `Plan` remembers the result with everything it was
built on: the arguments' signatures (`shapes.signature`), the values of the arguments that
are not arrays or floats (a loop count, a flag, None; a call with any other kind of argument
gets no plan), the rule table's version, and every
`Lowered` involved, each still current (same code object, still in the cache, its globals
and closure variables unchanged).  When any of that differs, the caller takes its full
path, which finds or compiles what is right; nothing is reused on a guess.
"""

from __future__ import annotations

import numpy as np

from ..driver.cache import CACHE, Lowered
from ..driver.lowering import is_current
from ..ir import shapes
from ..ir.nodes import typed
from ..rules import TABLE

_SIMPLE = (int, bool, str, type(None), complex, np.float32, np.float64, np.int64, np.int32, np.bool_)


def _simple(value) -> bool:
    """Compared by value: numbers, strings, None, and tuples of them (never an array)."""
    if type(value) is tuple:
        return all(_simple(v) for v in value)
    return type(value) in _SIMPLE or type(value) is float


def _value_key(args: tuple, exact: bool) -> tuple:
    """The values a plan is specialised on: every argument that is not an array (with its
    type), floats too when `exact` (some lowering was specialised on an argument's value)."""
    return tuple(None if type(a) is np.ndarray or (not exact and type(a) is float) else typed(a) for a in args)


def lowered_of(func) -> Lowered | None:
    """The `Lowered` one of whose variants `func` (a generated function srcdiff differentiates
    again, driver/higher.py) is; None when it is not found."""
    for lowereds in CACHE.lowered.values():
        for found in lowereds.values():
            if any(v.derivable is func for v in found.variants.values()):
                return found
    return None


class Plan:
    """`run(*args)` for arguments like `args`, valid while the `Lowered`s it came from are current."""

    __slots__ = ("signature", "exact", "values", "version", "lowered", "run", "seen", "depends", "rewrites")

    def __init__(self, args: tuple, lowered: list, run, rewrites: tuple = ()):
        lowered = list({id(found): found for found in lowered}.values())  # each checked once per call
        self.lowered = tuple((found, found.parsed.func.__code__) for found in lowered)
        self.exact = any(found.statics or found.constants for found in lowered)
        self.signature = tuple(map(shapes.signature, args))
        self.values = _value_key(args, self.exact)
        self.version = TABLE.version
        self.run = run
        self.seen = -1  # the cache's generation at which every lowering was last found current
        self.depends = tuple(d for found in lowered for d in found.depends)
        #: what the rewrite of a function srcdiff rewrote read (a module object's attributes, the helpers it
        #: resolved: frontend/flatten.py), which its lowering's own dependencies do not hold
        self.rewrites = tuple(rewrites)

    def matches(self, args: tuple) -> bool:
        """Whether a call with `args` would find the code this plan runs."""
        if len(args) != len(self.signature) or self.version != TABLE.version:
            return False
        signature, values = shapes.signature, self.values
        for arg, expected, value in zip(args, self.signature, values):
            if signature(arg) != expected or (value is not None and _value_key((arg,), self.exact)[0] != value):
                return False
            if value is None and type(arg) is not np.ndarray and (self.exact or type(arg) is not float):
                return False  # (a value compared where the plan was made with an array or float)
        for found, code in self.lowered:  # (loops, not generators: a plan is checked on every call)
            if found.parsed.func.__code__ is not code:
                return False
        for d in self.rewrites:
            if not d.holds():
                return False
        if self.seen == CACHE.generation:  # each lowering still in the cache: its globals alone checked
            for d in self.depends:
                if not d.holds():
                    return False
            return True
        if all(is_current(found, found.parsed.func) for found, _ in self.lowered):
            self.seen = CACHE.generation
            return True
        return False


def plan_for(args: tuple, lowered: list, run, rewrites: tuple = ()) -> Plan | None:
    """A `Plan` for `run`, or None when one of the `Lowered`s it depends on is unknown; `rewrites`: the
    dependencies of the rewrite the code was made from (a `Flat`'s), checked on every call too."""
    if any(found is None for found in lowered) or not all(type(a) is np.ndarray or _simple(a) for a in args):
        return None  # an argument compared by identity or structure (a list, an object): the full path
    return Plan(args, lowered, run, rewrites)


__all__ = ["Plan", "lowered_of", "plan_for"]
