"""`register_adjoint`: a user's own primitive, with a rule validated like the built-in ones.

    srcdiff.register_adjoint(softplus, x="g / (1.0 + np.exp(-x))")

    @srcdiff.register_adjoint(x="g * ans * (1.0 - ans)")
    def sigmoid(x):
        return 1.0 / (1.0 + np.exp(-x))

Templates are Python expressions over ``g`` (the adjoint of the result), ``ans`` (the
result), the function's parameters, ``np``, ``math`` and srcdiff's run-time helpers.
Parameters without a default are operands; those with a default are static arguments,
constant at each call, unless a template names them (then they are operands too).
Registered functions are treated as primitives: srcdiff does not look inside them.  Their
rules declare the default facts (`Rule`): pure, and a value that may share memory with an
operand (not fresh).

Forward mode (`srcdiff.jvp`) derives an elementwise function's tangent from its adjoint; any
other function needs `tangents`, each parameter's contribution to the result's tangent over
its tangent ``x_dot``: ``tangents={"x": "x_dot[::-1]"}``.
"""

from __future__ import annotations

import inspect

from ..errors import SrcDiffError
from .builtin import TABLE
from .table import Rule, qualified_name, rule


def register_adjoint(func=None, templates: dict | None = None, *, elementwise: bool = False,
                     replace: bool = False, name: str | None = None, tangents: dict | None = None,
                     **param_templates):
    """Register the adjoint of `func`; as a decorator when `func` is left out.

    `templates` (or keyword arguments) map each differentiable parameter to its adjoint
    template.  `elementwise=True` declares that `func` broadcasts its operands like a ufunc,
    so each adjoint is summed back to its operand's shape.  `replace=True` overrides an
    existing rule.  `tangents` maps parameters to their forward-mode templates (see above).
    Returns the new `Rule` (the decorator form returns `func` unchanged).
    """
    texts = {**(templates or {}), **param_templates}
    if func is None:
        def decorate(f):
            register_adjoint(f, texts, elementwise=elementwise, replace=replace, name=name, tangents=tangents)
            return f
        return decorate
    new = make_rule(func, texts, elementwise=elementwise, name=name, tangents=tangents)
    TABLE.register(new, replace=replace)
    return new


def make_rule(func, templates: dict, *, elementwise: bool = False, name: str | None = None,
              tangents: dict | None = None) -> Rule:
    """The validated rule `register_adjoint` would add for `func` (the table is untouched)."""
    if not callable(func):
        raise SrcDiffError(f"register_adjoint needs a function, got {type(func).__name__}")
    label = name or qualified_name(func)
    if not templates:
        raise SrcDiffError(f"register_adjoint({label}): give at least one template, e.g. x='g * ...'")
    bad = [k for k, v in templates.items() if not isinstance(v, str)]
    if bad:
        raise SrcDiffError(f"register_adjoint({label}): the templates for {bad} are not strings",
                           hint="write each adjoint as a Python expression in a string")
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        raise SrcDiffError(f"register_adjoint({label}): cannot read the parameters of {func!r}") from None
    params, static, defaults = [], {}, {}
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise SrcDiffError(f"register_adjoint({label}): *{p.name} parameters are not supported",
                               hint="give the function named parameters")
        if p.default is p.empty or p.name in templates:
            if static:
                raise SrcDiffError(f"register_adjoint({label}): operand {p.name!r} follows a static "
                                   "parameter with a default", hint="put the differentiable parameters first")
            params.append(p.name)
            if p.default is not p.empty:
                defaults[p.name] = p.default
        else:
            static[p.name] = p.default
    unknown = set(templates) - set(params)
    if unknown:
        raise SrcDiffError(f"register_adjoint({label}): {sorted(unknown)} are not parameters of the function; "
                           f"its parameters are {list(sig.parameters)}")
    if tangents is not None and not (isinstance(tangents, dict) and all(isinstance(v, str) for v in tangents.values())):
        raise SrcDiffError(f"register_adjoint({label}): tangents must map parameters to template strings",
                           hint="write tangents={'x': 'x_dot * ...'}")
    return rule(func, params, dict(templates), static=static, defaults=defaults,
                elementwise=elementwise, name=label, tangents=dict(tangents) if tangents is not None else None)
