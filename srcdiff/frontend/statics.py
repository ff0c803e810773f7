"""The values of the parameters a function uses as static arguments (``axis=axis``).

A gradient is specialised on them: lowering asks for each one's value (`static_values`),
and the cache key holds them with their types (`static_key`), so ``axis=1`` and
``axis=True`` are different variants.
"""

from __future__ import annotations

import functools
import inspect
import types

import numpy as np

from ..ir.nodes import typed
from .callables import is_gradient_object
from .depends import MISSING
from .depends import static_ok as depends_static_ok
from .parse import ParsedFunction


def static_values(parsed: ParsedFunction, wrt, value_of):
    """`static_value` for a gradient called with the values `value_of` gives."""
    def static_value(name: str, node) -> object:
        if name in wrt:
            raise parsed.error(node, f"{name} is differentiated, but is used here as a static "
                               "argument, whose value decides the code",
                               f"differentiate with respect to other parameters than {name}")
        value = value_of(name)
        if value is MISSING:
            raise parsed.error(node, f"the gradient depends on the value of {name} (a static "
                               "argument here), and it has none yet",
                               "call the gradient, or use .source_for(...) with example arguments")
        if isinstance(value, np.ndarray) and value.size > 1:  # data where a rule takes a setting
            raise parsed.error(node, f"{name} (an array of shape {value.shape}) is passed here where srcdiff's "
                               "rule takes a setting known when the gradient is built (an axis, a count, a "
                               "flag, np.cov's y), not an array it differentiates",
                               f"if {name} is data, write the computation out with operations srcdiff "
                               f"differentiates (a correlation of a and {name}: np.sum(ac * bc) / "
                               "np.sqrt(np.sum(ac ** 2) * np.sum(bc ** 2)), ac and bc centred); if it is a "
                               "setting, pass a Python int or tuple")
        if not static_ok(value):
            raise parsed.error(node, f"{name}={value!r} is used as a static argument here: srcdiff "
                               "specialises the gradient on its value, which must be None, a "
                               "number, a bool, a string, or a tuple or list of them",
                               f"pass {name} as a Python int or tuple, e.g. {name}=1")
        return value
    return static_value


def values_of(func, args):
    """``value_of(name)``: the argument bound to parameter `name` (or its default)."""
    parameters = inspect.signature(func).parameters
    names = list(parameters)

    def value_of(name):
        if args is not None and names.index(name) < len(args):
            return args[names.index(name)]  # (a parameter left out of `args` has its default)
        default = parameters[name].default
        return MISSING if default is inspect.Parameter.empty else default
    return value_of


def static_key(names: tuple, value_of) -> tuple | None:
    """The static parameters' values as part of a cache key; None for values srcdiff refuses."""
    values = [value_of(n) for n in names]
    if not all(static_ok(v) for v in values):
        return None
    return names, tuple(_typed(frozen(v)) for v in values)


def static_ok(value) -> bool:
    """None, numbers (not NaN), bools, strings and tuples or lists of them: compared and hashed
    by value (a list by its items, `frozen`); or a function the code calls (`is_static_function`),
    also in a tuple or list (lower/static_loops.py unrolls a loop over one)."""
    if isinstance(value, (tuple, list)) and value and any(is_static_function(v) for v in value):
        return all(static_ok(v) for v in value)  # acts=(np.tanh, np.sin): a loop over them is unrolled
    return value is not MISSING and (depends_static_ok(frozen(value)) or is_static_function(value))


def is_static_function(value) -> bool:
    """A function passed as an argument and called (``def f(x, act=np.tanh): act(x)``): the
    gradient is specialised on it, compared by identity, as a function named in the code is; also a
    ``functools.partial`` of one given constants (``loss_fn=partial(_huber, delta=0.5)``)."""
    if isinstance(value, functools.partial):
        return is_static_function(value.func) and all(depends_static_ok(v) and not isinstance(v, tuple)
                                                       for v in (*value.args, *value.keywords.values()))
    # (a gradient object too: def meta(w, X, y, step=dloss) calls its code, lower/called_gradients.py)
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)) or is_gradient_object(value)


def _typed(value):
    if isinstance(value, ListKey):  # a list is not the tuple of its items
        return (list, tuple(_typed(v) for v in value))
    if isinstance(value, tuple):
        return (tuple, tuple(_typed(v) for v in value))
    return typed(value)


class ListKey(tuple):
    """A static list's items as a cache key: a tuple of its own type, so ``[1, 2]`` and ``(1, 2)``
    (which mean different things as an index) are different variants."""


def frozen(value):
    """`value` with every list made a `ListKey` (hashable; the value lowering reads stays a list:
    ``x[[0, 1]]`` picks rows, ``x[(0, 1)]`` one element)."""
    if isinstance(value, (list, tuple)) and not isinstance(value, ListKey):
        items = tuple(frozen(v) for v in value)
        return ListKey(items) if isinstance(value, list) else items
    return value
