"""What lowering a called user function for one call site takes: its values and facts.

A call of a user function is differentiated through the function's own adjoint, built for
the call's `CallSpec` (driver/compile.py: callee): the static arguments and constants the call gives
(`ir.Specialised`), the defaults of the parameters it leaves out, and the shapes of its
arguments (lower/facts.py).  The analysis of the callee (lower/callee_facts.py) is keyed on
the same things.
"""

from __future__ import annotations

import inspect

from ..frontend import statics as static_args
from ..frontend.parse import ParsedFunction
from ..ir.nodes import Specialised
from ..ir.program import CallSpec
from ..lower.facts import ParamFacts, callee_facts, is_constant_argument


def called(spec: CallSpec) -> tuple:
    """(the function, its static values, the analysis's key: constants, passed names, known
    shapes) of the call `spec` describes."""
    func, statics = (spec.func.func, dict(spec.func.statics)) if isinstance(spec.func, Specialised) \
        else (spec.func, {})
    constants = tuple((n, v) for n, v in statics.items() if is_constant_argument(v))
    passed = tuple(dict(spec.shapes))
    known = tuple((n, s) for n, s in spec.shapes if s.known)
    return func, statics, (constants, passed, known)


def static_values(parsed: ParsedFunction, func, spec: CallSpec, statics: dict):
    """``static_value(name, node)`` for lowering the callee: the call's value, else the
    parameter's default; a parameter the caller did not expect to be static is refused."""
    defaults = {n: p.default for n, p in inspect.signature(func).parameters.items()
                if n not in dict(spec.shapes) and p.default is not inspect.Parameter.empty}

    def static_value(name, node):
        if name not in statics and name in defaults and name not in spec.wrt \
                and static_args.static_ok(defaults[name]):
            return defaults[name]  # not passed by the call: its default
        if name not in statics or name in spec.wrt:  # the caller checked: not expected
            raise parsed.error(node, f"{name} must be a constant here",
                               f"call {parsed.name} with a constant {name}")
        return statics[name]
    return static_value


def generated_defaults(func) -> tuple | None:
    """The defaults of `func`'s generated code, whose parameters are its positional ones and then its
    keyword-only ones (``def layer(h, *, act=np.tanh)``: ``layer_vjp(h, act)``, act left out by a call)."""
    if not func.__kwdefaults__:
        return func.__defaults__
    found = []
    for p in reversed(inspect.signature(func).parameters.values()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is inspect.Parameter.empty:
            break
        found.append(p.default)
    return tuple(reversed(found))


def call_facts(func, statics: dict, passed: tuple, param_shapes: dict) -> ParamFacts:
    """The facts the callee is lowered with: the call's constants and static values, and
    its arguments' shapes (part of the callee's key through the spec)."""
    facts = callee_facts(func, statics, passed)
    facts.param_shapes = param_shapes
    facts.given_statics = dict(statics)
    return facts


__all__ = ["call_facts", "called", "generated_defaults", "static_values"]
