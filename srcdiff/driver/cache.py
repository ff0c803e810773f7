"""The driver's data: what a user function becomes at each stage, and the one `Cache`.

`Lowered` is a function parsed and lowered once (per value of its static arguments);
`Variant` is one compiled transformation of it, per argument signature; `Callee` holds a
called user function's adjoint.  Every piece of state srcdiff keeps between calls lives in
`CACHE`; `CACHE.clear()` forgets all of it, callees included.
"""

from __future__ import annotations

import functools
import threading
import types
import weakref
from dataclasses import dataclass, field

from ..ad.tangent import TangentProgram
from ..backend import origins
from ..frontend.naming import Namer
from ..frontend.parse import ParsedFunction
from ..ir import memo
from ..ir.nodes import Function, typed
from ..ir.program import GradProgram
from ..lower.facts import same_facts
from ..rules import TABLE


@dataclass(frozen=True)
class Options:
    """What to build: the transform (`mode`) and how its code is made."""

    mode: str = "reverse"  # "reverse": a gradient or pullback; "forward": a jvp (driver/forward.py);
    # "batched": the function over a leading batch axis of the `wrt` parameters (driver/batched.py)
    with_value: bool = False  # return (value, gradient)
    tuple_result: bool = False  # wrt was a tuple: return a tuple of gradients
    debug: bool = False  # finiteness checks after every assignment (backend/debug.py)
    pullback: bool = False  # a callee's adjoint: ``vjp(*args) -> (value, pullback)``; with `derivable`
    # ``vjp(seed, *args) -> gradient``; in forward mode its tangent function ``jvp(*tangents, *args)``
    jit: str | None = None  # "numba": compiled by numba (backend/jit.py)
    inline: bool = True  # small helpers copied into the caller (ad/inline.py); trace keeps calls
    derivable: bool = False  # code srcdiff can differentiate again (driver/higher.py): loops read stacks by position
    # derivable code vmap batches and never differentiates again: a first-order gradient's selects at points of
    # infinite slope kept (ad/zero_factors.py's `held_still`), so that it gives the numbers grad gives
    once: bool = False
    checkpoint: int | None = None  # loops keep their state every k iterations, recompute between (ad/checkpoint.py)
    directions: int = 1  # forward mode: tangents carried side by side in one sweep (ad/tangent_vector.py)
    #: forward mode with `directions` equal to the number of (scalar) parameters with tangents:
    #: direction d is the d-th unit vector, written into the code (backend/optimize/unit_seeds.py)
    unit_seeds: bool = False
    #: batched rows of identity seeds (a Hessian's): elementwise chains folded into row-sized
    #: factors (ad/batched_scales.py)
    scales: bool = False


@dataclass
class Variant:
    """One compiled transformation (a gradient, a pullback or a jvp), for one argument signature."""

    source: str
    function: object
    name: str
    program: GradProgram | TangentProgram = field(repr=False)
    #: the adjoints of the user functions it calls, by the name its code calls them
    callees: dict[str, Callee] = field(default_factory=dict, repr=False)
    fast: object = None  # the same code behind a signature guard, made on first use
    cells: dict = field(default_factory=dict, repr=False)  # what else its code reads (debug's checker)
    jitted: object = None  # the code compiled by numba (jit="numba"), made on first use
    derivable: object = None  # the code as a function srcdiff can parse (driver/higher.py)
    #: a callee's: the cell its callers' derivable code reads it from (made before it: recursion)
    derivable_cell: types.CellType | None = field(default=None, repr=False)
    #: forward mode: where the parameters with tangents are among the arguments
    positions: tuple[int, ...] = ()


@dataclass(eq=False)
class Callee:
    """A called user function's adjoint.  The cell exists before the code is compiled, so a
    recursive function's adjoint can call itself."""

    cell: types.CellType
    variant: Variant | None = None


@dataclass(eq=False)  # one lowering is one object: compared (and hashed) by identity
class Lowered:
    """A user function parsed and lowered once; compiled into one `Variant` per signature."""

    parsed: ParsedFunction
    wrt: tuple[str, ...]
    options: Options
    ir: Function
    namer: Namer
    statics: dict  # parameter -> the value this lowering is specialised on
    depends: tuple  # the globals and closure variables lowering read (frontend/depends.py)
    variants: dict = field(default_factory=dict)  # signature key -> Variant
    facts_key: tuple = ((), None)  # the None and bool arguments, and the signature if lowering read it
    constants: dict = field(default_factory=dict)  # parameter -> its None or bool argument (lower/facts.py)

    @property
    def params(self) -> list[str]:
        return [p.name for p in self.ir.params]

    def specialised_for(self, args: tuple, names: list[str]) -> bool:
        """Whether the static parameters' values in `args` (and the facts lowering read off
        them: lower/facts.py) are the ones this is lowered for."""
        return same_facts(self.facts_key, names, args) \
            and all(typed(args[names.index(n)]) == typed(v) for n, v in self.statics.items())


@dataclass
class CacheInfo:
    """How much work the cache saved: parsed+lowered functions and compiled variants."""

    transforms: int = 0
    variants: int = 0


class Cache:
    """Every piece of state srcdiff keeps between calls."""

    def __init__(self):
        self.stats = CacheInfo()
        #: user function -> {key: Lowered}; dies with the function
        self.lowered: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        #: user function -> {key without statics: the parameters used as static arguments}
        self.static_names: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.by_signature = weakref.WeakKeyDictionary()  # function -> constants whose lowering read shapes
        #: callee adjoints by what decides their code; callees lowered for their result shapes
        self.callees: dict[tuple, Callee] = {}
        self.callee_irs: dict[tuple, object] = {}
        #: what each generated function was generated from (its errors name the user's line)
        #: a derivable gradient's name (its errors' file name when lowered again) -> its `Origin`
        self.generated: dict[str, origins.Origin] = {}
        self.origins = origins.Origins(self.generated)
        self.listeners: list = []  # called on `clear` (gradient functions drop fast paths)
        #: changes whenever `lowered` may lose or replace an entry: a `Plan` that saw its lowerings
        #: current at this generation need not search `lowered` for them again (api/plans.py)
        self.generation = 0
        #: held while a function is lowered, a variant compiled or a fast path made: two threads
        #: calling a fresh gradient at once get one `Lowered` and one `Variant` per key (without it
        #: one thread's variant was replaced by the other's, and its fast path not found: StopIteration)
        self.lock = threading.RLock()

    def clear(self) -> None:
        self.generation += 1
        self.lowered.clear()
        self.static_names.clear()
        self.by_signature.clear()
        self.callees.clear()
        self.callee_irs.clear()
        self.origins.clear()
        self.generated.clear()
        memo.forget()  # what the front end, lowering and the API work out per function
        for listener in list(self.listeners):
            listener()


CACHE = Cache()


def serialized(function):
    """`function` run holding `CACHE.lock`: the compile path's caches are shared by threads, and
    a check-then-compile must not interleave with another thread's (reentrant: callees compile
    through the same path)."""
    @functools.wraps(function)
    def locked(*args, **kwargs):
        with CACHE.lock:
            return function(*args, **kwargs)
    return locked


TABLE.listeners.append(CACHE.clear)  # a new rule changes what lowering and adjoints produce

