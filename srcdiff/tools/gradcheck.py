"""`srcdiff.gradcheck`: srcdiff's gradient against float64 central differences, element by element."""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass

import numpy as np

from ..api.gradients import GradFunction, grad
from .check_common import GradientMismatch, error_text, example_arguments, unwrap


@dataclass
class InputGradcheck:
    """srcdiff's gradient and central differences for one input, and the worst element."""

    name: str
    srcdiff: object
    numeric: object
    worst_index: tuple | None  # None for a number
    abs_error: float
    rel_error: float
    failing: int  # elements outside the tolerance
    shape_error: str = ""

    @property
    def ok(self) -> bool:
        return not self.failing and not self.shape_error


@dataclass
class GradcheckReport:
    """What `gradcheck` found: truthy when every element is within tolerance."""

    function: str
    inputs: list[InputGradcheck]
    rtol: float
    atol: float
    wrt: tuple[str, ...] = ()
    error: str = ""  # srcdiff's gradient raised where the function did not

    @property
    def mismatches(self) -> list[str]:
        if self.error:
            return list(self.wrt)
        return [i.name for i in self.inputs if not i.ok]

    def __bool__(self) -> bool:
        return not self.mismatches

    def raise_on_mismatch(self) -> GradcheckReport:
        """Raise `GradientMismatch` if any gradient disagrees; return self otherwise."""
        if self.mismatches:
            raise GradientMismatch(self)
        return self

    def __str__(self) -> str:
        head = "agrees with" if self else f"MISMATCH in {', '.join(self.mismatches)} against"
        lines = [f"srcdiff.gradcheck {self.function}: {head} float64 central differences "
                 f"(rtol={self.rtol:g}, atol={self.atol:g})"]
        if self.error:
            lines.append(f"  {self.error}")
        for item in self.inputs:
            if item.shape_error:
                lines.append(f"  {item.name}: MISMATCH {item.shape_error}")
                continue
            where = "" if item.worst_index is None else f"[{', '.join(map(str, item.worst_index))}]"
            a = item.srcdiff if item.worst_index is None else item.srcdiff[item.worst_index]
            n = item.numeric if item.worst_index is None else item.numeric[item.worst_index]
            verdict = "ok" if item.ok else f"MISMATCH ({item.failing} element(s) outside tolerance)"
            label = f"worst element {item.name}{where}" if where else item.name
            lines.append(f"  {label}: srcdiff {float(a):.10g}, numeric {float(n):.10g}, "
                         f"relative error {item.rel_error:.2g}  {verdict}")
        return "\n".join(lines)


def gradcheck(f, *args, wrt=0, shapes: dict | None = None, eps: float = 6e-6, rtol: float = 1e-5,
              atol: float = 1e-7, seed: int = 0, raise_on_mismatch: bool = False) -> GradcheckReport:
    """Compare srcdiff's gradient of `f` with float64 central differences.

    Each element of each `wrt` input is moved by ``eps * max(1, |x|)`` both ways; an element
    agrees when ``|srcdiff - numeric| <= atol + rtol * |numeric|``.  The report gives, per
    input, the worst element, its index and its relative error.  A gradient that is NaN, or
    raises (``ZeroDivisionError``...) where the function does not, is a mismatch.  The
    arguments are not modified.
    """
    func = unwrap(f, args)
    names = GradFunction(func, wrt).wrt
    values = example_arguments(func, args, shapes, seed)
    params = list(inspect.signature(func).parameters)
    inputs = []
    gradient = grad(func, wrt=names)
    gradient.source_for(*values)  # what srcdiff cannot differentiate raises here, as grad would
    with np.errstate(all="ignore"), warnings.catch_warnings():  # the report says what went wrong
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            analytic = gradient(*values)
        except Exception as exc:  # (0.0 ** -1.0, math.log(0.0)...): wrong where the function is not
            value = float(np.asarray(func(*values)))  # the function's own error, if it has one
            report = GradcheckReport(func.__qualname__, [], rtol, atol, names,
                                     f"srcdiff's gradient raised {error_text(exc)}, "
                                     f"where {func.__name__} is {value:.10g}")
            return report.raise_on_mismatch() if raise_on_mismatch else report
        for name, got in zip(names, analytic):
            k = params.index(name)
            numeric = _central_difference(func, values, k, eps)
            inputs.append(_compare_numeric(name, got, numeric, rtol, atol))
    report = GradcheckReport(func.__qualname__, inputs, rtol, atol, names)
    if raise_on_mismatch:
        report.raise_on_mismatch()
    return report


def _central_difference(func, values: tuple, k: int, eps: float):
    args = list(values)
    x = values[k]

    def at(v):
        args[k] = v
        return float(np.asarray(func(*args)))

    if not isinstance(x, np.ndarray):
        h = eps * max(1.0, abs(float(x)))
        kind = type(x)
        out = (at(kind(x + h)) - at(kind(x - h))) / (2 * h)
    else:
        base = np.array(x, dtype=np.float64)  # a copy: the caller's array is never touched
        out = np.empty(base.shape)
        for index in np.ndindex(base.shape):
            h = eps * max(1.0, abs(base[index]))
            plus, minus = base.copy(), base.copy()
            plus[index] += h
            minus[index] -= h
            out[index] = (at(plus) - at(minus)) / (2 * h)
    return out


def _compare_numeric(name: str, got, numeric, rtol: float, atol: float) -> InputGradcheck:
    if np.shape(got) != np.shape(numeric):
        return InputGradcheck(name, got, numeric, None, np.inf, np.inf, 1,
                              f"srcdiff's gradient has shape {np.shape(got)}, the input {np.shape(numeric)}")
    a, n = np.asarray(got, dtype=np.float64), np.asarray(numeric, dtype=np.float64)
    error = np.abs(a - n)
    allowed = atol + rtol * np.abs(n)
    bad = ~(error <= allowed)  # NaN counts as outside
    if a.size == 0:  # nothing to compare: agreement, with no worst element
        return InputGradcheck(name, got, numeric, None, 0.0, 0.0, 0)
    score = np.where(np.isnan(error), np.inf, error / allowed)
    flat = int(np.argmax(score))
    index = np.unravel_index(flat, score.shape) if a.ndim else ()
    scale = max(abs(a[index]), abs(n[index]))
    rel = float(error[index] / scale) if scale else float(error[index])
    worst = tuple(int(i) for i in index) if np.ndim(got) or isinstance(got, np.ndarray) else None
    return InputGradcheck(name, got, numeric, worst, float(error[index]), rel, int(bad.sum()))
