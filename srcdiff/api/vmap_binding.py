"""How `srcdiff.vmap` binds a call (api/vmap.py): one example's row of a batched argument, the defaults a
call leaves out, and the values a partial or a method binds, passed as arguments of their own."""

from __future__ import annotations

import inspect
from typing import Callable, cast

import numpy as np

from ..frontend.callables import resolve
from .gradients import GradFunction


def row_of(value):
    """One example of a batched argument: its first row (a Python float for a vector of floats)."""
    row = value[0]
    if isinstance(row, np.floating) and type(row) is np.float64:
        return float(row)
    return row


def with_defaults(func, args: list) -> list:
    """`args` followed by the defaults of the positional parameters after them: the batched code
    is made for every parameter, and one left to its default is the same for every example."""
    if isinstance(func, GradFunction):
        return list(func.front.binder.bind(tuple(args), {}))
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return list(args)
    out = list(args)
    for p in params[len(args):]:  # (keyword-only ones too: the batched code takes them after the positional)
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is p.empty:
            break
        out.append(p.default)
    return out


def bound_parts(f, args: list, axes: list):
    """A partial, a method or a callable instance (``vmap(partial(loss, power=3))``, ``vmap(model.loss)``)
    as its function, with what it binds passed as arguments of their own, the same for every example
    (in_axes None), as grad reads them (frontend/callables.py); anything else as it is."""
    if isinstance(f, GradFunction) or callable(getattr(type(f), "srcdiff_function", None)):
        return f, args, axes
    target = resolve(f)
    if not target.prefix and not target.keywords:
        return f, args, axes
    try:
        params = list(inspect.signature(cast(Callable, target.func)).parameters.values())
    except (TypeError, ValueError):
        return f, args, axes
    plain = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if set(target.keywords) - {p.name for p in plain}:
        return f, args, axes  # a keyword-only parameter: the call is refused as it was
    given = list(zip(args, axes))
    out, out_axes = list(target.prefix), [None] * len(target.prefix)
    for p in plain[len(target.prefix):]:
        if p.name in target.keywords:
            out.append(target.keywords[p.name])
            out_axes.append(None)
        elif given:
            value, axis = given.pop(0)
            out.append(value)
            out_axes.append(axis)
        elif p.default is not p.empty and any(q.name in target.keywords for q in plain[len(out):]):
            out.append(p.default)  # a default before a parameter the partial gives
            out_axes.append(None)
        else:
            break
    if given:
        return f, args, axes  # more arguments than the function takes: Python's own error, as before
    return target.func, out, out_axes


__all__ = ["bound_parts", "row_of", "with_defaults"]
