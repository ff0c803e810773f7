"""`srcdiff.gradcheck`: srcdiff's gradient against float64 central differences, element by element.

The call is bound through the api's one front (tools/check_front.py), so trees, methods and
partials are checked as `grad` differentiates them, each leaf reported under its own name; a
gradient in float32 (or float16) is compared with tolerances of its dtype (`dtype_tolerance`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .check_common import GradientMismatch, error_text, refusal
from .check_front import Plain, plain_call

#: Per floating dtype narrower than float64: the relative tolerance, and the absolute one as a
#: share of the input's largest derivative: rounding of float32 arithmetic, not of the method.
DTYPE_TOLERANCE = {np.dtype(np.float32): (2e-3, 2e-4), np.dtype(np.float16): (5e-2, 5e-3)}


def dtype_tolerance(value) -> tuple[float, float]:
    """(rtol, atol as a share of the largest derivative) that rounding in `value`'s dtype
    explains; (0, 0) for float64 and Python floats."""
    dtype = getattr(value, "dtype", None)
    return DTYPE_TOLERANCE.get(np.dtype(dtype), (0.0, 0.0)) if dtype is not None else (0.0, 0.0)


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
    dtype: str = "float64"  # of the input: a narrower one is compared with its own tolerance

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
    plain: Plain | None = None  # the call checked (rebuilds per-leaf results into trees)

    @property
    def gradient(self):
        """srcdiff's gradient, shaped like the `wrt` target(s) (a dict for a dict...)."""
        return self._rebuilt("srcdiff")

    @property
    def numeric_gradient(self):
        """The central differences, shaped like the `wrt` target(s)."""
        return self._rebuilt("numeric")

    def _rebuilt(self, field: str):
        values = [getattr(i, field) for i in self.inputs]
        return self.plain.rebuild(values) if self.plain is not None else tuple(values)

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
            narrow = "" if item.dtype == "float64" else f" (in {item.dtype}, rtol={dtype_tolerance(a)[0]:g})"
            lines.append(f"  {label}: srcdiff {float(a):.10g}, numeric {float(n):.10g}, "
                         f"relative error {item.rel_error:.2g}{narrow}  {verdict}")
        return "\n".join(lines)


def gradcheck(f, *args, wrt=0, shapes: dict | None = None, eps: float = 6e-6, rtol: float = 1e-5,
              atol: float = 1e-7, seed: int = 0, raise_on_mismatch: bool = False) -> GradcheckReport:
    """Compare srcdiff's gradient of `f` with float64 central differences.

    `f` and `wrt` are taken as `srcdiff.grad` takes them: trees (dict, list, tuple,
    namedtuple, dataclass, object), paths into them, methods and partials; each leaf is
    compared on its own, and `report.gradient` / `report.numeric_gradient` are shaped like
    the `wrt` target(s).  Each element of each input is moved by ``eps * max(1, |x|)`` both
    ways, the function run in float64; an element agrees when ``|srcdiff - numeric| <= atol +
    rtol * |numeric|`` (for a float32 or float16 input, with its dtype's `dtype_tolerance`
    when larger).  The report gives, per input, the worst element, its index and its relative
    error.  A gradient that is NaN, or raises (``ZeroDivisionError``...) where the function
    does not, is a mismatch.  The arguments are not modified.
    """
    plain = plain_call(f, args, wrt, shapes, seed, "srcdiff.gradcheck")
    report = numeric_check(plain, eps, rtol, atol)
    if raise_on_mismatch:
        report.raise_on_mismatch()
    return report


def numeric_check(plain: Plain, eps: float = 6e-6, rtol: float = 1e-5, atol: float = 1e-7) -> GradcheckReport:
    """`gradcheck` of a call already bound (`check` falls back to it where sympy cannot decide)."""
    labels = tuple(plain.label(n) for n in plain.wrt)
    inputs = []
    with np.errstate(all="ignore"), warnings.catch_warnings():  # the report says what went wrong
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            analytic = plain.gradient_at(plain.values)
        except Exception as exc:  # (0.0 ** -1.0, math.log(0.0)...): wrong where the function is not
            if refusal(exc):  # refused at the user's line, as grad refuses: nothing to compare
                raise
            value = float(np.asarray(plain.run(plain.values)))  # the function's own error, if it has one
            return GradcheckReport(plain.qualname, [], rtol, atol, labels,
                                   f"srcdiff's gradient raised {error_text(exc)}, "
                                   f"where {plain.qualname.rsplit('.', 1)[-1]} is {value:.10g}", plain)
        for name, label, got in zip(plain.wrt, labels, analytic):
            k = plain.position(name)
            numeric = _central_difference(plain, k, eps)
            item = _compare_numeric(label, got, numeric, rtol, atol, plain.values[k])
            if item.failing:  # the differences' own error may be what disagrees: halve the step
                item = _compare_refined(label, got, numeric, _central_difference(plain, k, eps / 2),
                                        rtol, atol, plain.values[k])
            inputs.append(item)
    return GradcheckReport(plain.qualname, inputs, rtol, atol, labels, plain=plain)


def _central_difference(plain: Plain, k: int, eps: float):
    """float64 central differences of the plain function in its argument `k`."""
    args = list(plain.values)
    x = plain.values[k]

    def at(v):
        args[k] = v
        return float(np.asarray(plain.run(args), dtype=np.float64))

    if not isinstance(x, np.ndarray):
        h = eps * max(1.0, abs(float(x)))
        kind = np.float64 if isinstance(x, np.floating) else type(x)  # the same kind of number, in float64
        out = (at(kind(float(x) + h)) - at(kind(float(x) - h))) / (2 * h)
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


#: The most the differences' estimated error may widen the tolerance, as a share of the largest
#: derivative: a gradient wrong by more than that is reported whatever the differences do.
MAX_SLACK = 1e-3


def _compare_refined(name: str, got, coarse, fine, rtol: float, atol: float, value=None) -> InputGradcheck:
    """Compare `got` with the differences of half the step, `fine`, allowing twice the change
    between the two steps (the estimated error of `fine`): the step is ``eps * max(1, |x|)``, whose
    truncation error at ``|x| = 1e3`` is over rtol where f curves (logits near 1e3), and O(h) where
    f's second derivative jumps (``x * |x|`` at 0).  A wrong gradient keeps its error whatever the step."""
    if np.shape(got) != np.shape(fine):
        return _compare_numeric(name, got, fine, rtol, atol, value)
    n = np.asarray(fine, dtype=np.float64)
    cap = MAX_SLACK * max(1.0, float(np.max(np.abs(n), initial=0.0)))
    slack = np.minimum(2 * np.abs(n - np.asarray(coarse, dtype=np.float64)), cap)
    return _compare_numeric(name, got, fine, rtol, atol, value, slack)


def _compare_numeric(name: str, got, numeric, rtol: float, atol: float, value=None, slack=0.0) -> InputGradcheck:
    dtype = str(getattr(value, "dtype", "float64"))
    if np.shape(got) != np.shape(numeric):
        return InputGradcheck(name, got, numeric, None, np.inf, np.inf, 1,
                              f"srcdiff's gradient has shape {np.shape(got)}, the input {np.shape(numeric)}", dtype)
    a, n = np.asarray(got, dtype=np.float64), np.asarray(numeric, dtype=np.float64)
    error = np.abs(a - n)
    narrow_rtol, share = dtype_tolerance(value)  # rounding in float32 (float16), not of the gradient
    if a.size and (narrow_rtol or share):
        rtol, atol = max(rtol, narrow_rtol), max(atol, share * float(np.max(np.abs(n), initial=1.0)))
    allowed = atol + rtol * np.abs(n) + slack
    bad = ~(error <= allowed)  # NaN counts as outside
    if a.size == 0:  # nothing to compare: agreement, with no worst element
        return InputGradcheck(name, got, numeric, None, 0.0, 0.0, 0, dtype=dtype)
    score = np.where(np.isnan(error), np.inf, error / allowed)
    flat = int(np.argmax(score))
    index = np.unravel_index(flat, score.shape) if a.ndim else ()
    scale = max(abs(a[index]), abs(n[index]))
    rel = float(error[index] / scale) if scale else float(error[index])
    worst = tuple(int(i) for i in index) if np.ndim(got) or isinstance(got, np.ndarray) else None
    return InputGradcheck(name, got, numeric, worst, float(error[index]), rel, int(bad.sum()), dtype=dtype)
