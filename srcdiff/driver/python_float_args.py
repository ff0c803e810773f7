"""Which arguments let a variant read float64 array elements as Python floats
(backend/optimize/python_floats.py): every argument a float64 or integer NumPy array or a
Python number, and the code compiled for NumPy (not for numba, not code srcdiff reads back)."""

from __future__ import annotations

import builtins
import types

import numpy as np

from ..backend import origins
from ..backend.optimize.liveness import COMMENT
from ..rules import TEMPLATE_GLOBALS
from .cache import Lowered

#: the dtype kinds of a signature (`shapes.signature`) whose elements are float64 or integers
_KINDS = {"f", "i", "u", "b"}


def python_float_arrays(found: Lowered, key) -> dict[str, int] | None:
    """{parameter: ndim} of the float64 array arguments, or None where the variant's code
    must keep NumPy numbers (another argument, another transformation)."""
    options = found.options
    if key is None or options.jit or options.derivable or options.debug or options.mode not in ("reverse", "forward"):
        return None
    arrays = {}
    for param, sig in zip(found.params, key):
        if isinstance(sig, tuple):
            if len(sig) != 3 or sig[2] not in _KINDS:
                return None
            if sig[2] == "f":
                arrays[param] = sig[0]
        elif sig not in (float, int, bool):
            return None
    return arrays or None


def plain_global(parsed, name: str, calls) -> bool:
    """Whether a name the generated code reads and does not bind holds a module, a function
    or a Python number (never a float32 value)."""
    if name in calls or name in (origins.ON_ERROR, COMMENT):
        return True
    value = TEMPLATE_GLOBALS[name] if name in TEMPLATE_GLOBALS else parsed.resolve(name)
    if value is getattr(builtins, name, None) and value is not None:
        return True
    if isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, np.ufunc, type)):
        return True
    return type(value) in (int, float, bool)


__all__ = ["plain_global", "python_float_arrays"]
