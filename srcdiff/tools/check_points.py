"""srcdiff's gradient in float64 at the points `check` compares at: your arguments and the
sample points near them.

A proof is about formulas; the gradient you run is float64 code.  The formula ``k * x ** (k
- 1)`` is right for ``x ** k``, yet at ``k = 0, x = 0`` it evaluates ``0 * inf``, which is
NaN.  So `check` also runs the generated gradient at each point, and counts as a mismatch,
whatever sympy proved: a gradient that raises, or that is NaN or infinite, where the
function is finite; and a value that differs from sympy's derivative at the same point by
more than rounding in the argument's dtype explains (`FLOAT_RTOL` for float64, the dtype's
`gradcheck.dtype_tolerance` for float32 and float16: a float32 gradient runs in float32).
"""

from __future__ import annotations

import warnings

import numpy as np

from .check_common import error_text, refusal
from .check_front import Plain
from .check_report import number, show_point
from .gradcheck import dtype_tolerance

#: float64 against sympy's 50 digits: relative to the element, and to the input's largest element
FLOAT_RTOL, FLOAT_ATOL = 1e-6, 1e-9


def arguments_at(values: tuple, symbols: dict, position: dict, point: dict) -> tuple:
    """The arguments with each differentiated input set to its value at the sample `point`
    (in the input's own dtype)."""
    out = list(values)
    for name, symbol in symbols.items():
        value = values[position[name]]
        if isinstance(symbol, np.ndarray):
            out[position[name]] = np.array([float(point[s]) for s in symbol.reshape(-1)],
                                           dtype=value.dtype).reshape(symbol.shape)
        else:
            kind = type(value) if isinstance(value, (float, np.floating)) else float
            out[position[name]] = kind(float(point[symbol]))
    return tuple(out)


def float_failures(plain: Plain, symbols: dict, position: dict, samples: list[dict],
                   sympy_values: dict) -> dict[str, str]:
    """For each input (by its label) whose float gradient fails at some point, what failed,
    where (the first point and element it fails at; your arguments are the first point).

    `sympy_values[label][k]` lists sympy's derivative at point k element by element (None
    where it is not a finite real number), or is None when the shapes differ.
    """
    failures: dict[str, str] = {}
    names = list(symbols)
    fname = plain.qualname.rsplit(".", 1)[-1]
    for k, point in enumerate(samples):
        args = plain.values if k == 0 else arguments_at(plain.values, symbols, position, point)
        where = f"{'at your arguments' if k == 0 else f'at sample point {k + 1}'} ({show_point(point)})"
        value = _quietly(plain.run, (args,))
        if not isinstance(value, float) or not np.isfinite(value):
            continue  # the function itself is not finite (or fails) there: nothing to expect
        try:
            grads = _quietly(plain.gradient_at, (args,), convert=False)
        except Exception as exc:  # ZeroDivisionError, math domain errors...
            if k == 0 and refusal(exc):  # refused at your arguments, as grad refuses
                raise
            for name in names:
                failures.setdefault(plain.label(name), f"{where}: srcdiff's float64 gradient raised "
                                                       f"{error_text(exc)}, where {fname} is finite")
            continue
        for name, got in zip(names, grads):
            label = plain.label(name)
            if label in failures or sympy_values.get(label) is None:
                continue
            element, detail = _first_bad(got, sympy_values[label][k], np.shape(symbols[name]), fname,
                                         args[position[name]])
            if detail:
                failures[label] = f"{element}, {where}: {detail}" if element else f"{where}: {detail}"
    return failures


def _quietly(func, args, convert: bool = True):
    """`func(*args)` without NumPy's warnings (the report says what went wrong); with
    `convert`, as a float, or None when the call fails or gives no single number."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not convert:
            return func(*args)
        try:
            return float(np.asarray(func(*args), dtype=np.float64))
        except Exception:
            return None


def _first_bad(got, sympy_row: list, shape: tuple, fname: str, argument=None) -> tuple[str, str]:
    """``("at element [i]", what is wrong)`` for the first element that fails, else ``("", "")``;
    a gradient in float32 (the `argument`'s dtype) is allowed float32's rounding."""
    try:
        flat = np.asarray(got, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        return "", f"srcdiff's float64 gradient is not an array of numbers ({type(got).__name__})"
    if flat.size != len(sympy_row):
        return "", ""  # a shape mismatch: the symbolic comparison reports it
    indices = list(np.ndindex(shape)) if shape else [()]
    scale = max([abs(float(b)) for b in sympy_row if b is not None] + [1.0])
    narrow_rtol, share = dtype_tolerance(argument)
    rtol, atol = max(FLOAT_RTOL, narrow_rtol), max(FLOAT_ATOL, share)
    for index, a, b in zip(indices, flat, sympy_row):
        element = f"at element {list(index)}" if index else ""
        theirs = "not a finite number either" if b is None else number(b)
        if not np.isfinite(a):
            return element, (f"srcdiff's float64 gradient is {a} where {fname} is finite "
                             f"(sympy's derivative there: {theirs})")
        if b is not None and abs(a - float(b)) > rtol * max(abs(a), abs(float(b))) + atol * scale:
            return element, f"srcdiff's float64 gradient is {number(a)}, sympy's derivative there {theirs}"
    return "", ""
