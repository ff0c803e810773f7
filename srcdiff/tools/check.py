"""`srcdiff.check`: srcdiff's gradients against sympy's derivatives, and its report.

`check` runs the user's function on sympy symbols, differentiates the result with
`sympy.diff`, and runs srcdiff's generated gradient on the same symbols.  The two are proved
equal when sympy simplifies their difference to zero; otherwise they are compared at several
points in 50-digit arithmetic, and the report says which of the two happened.

`srcdiff.gradcheck` (central differences) is in `srcdiff.tools.gradcheck`.
"""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field

import mpmath
import numpy as np
import sympy as sp

from ..api import GradFunction, grad
from ..frontend import parse
from ..ir.nodes import Node
from . import symbolic
from .check_common import GradientMismatch, example_arguments, unwrap
from .symbolic_status import node_status
from .sympy_comparisons import NotSymbolic

PROVED, NUMERIC, MISMATCH, INCONCLUSIVE = "proved", "agrees numerically", "MISMATCH", "inconclusive"
NOT_SYMBOLIC = "not symbolic"

DIGITS = 50  # precision of the numeric fallback
REL_TOL, ABS_TOL = 1e-9, 1e-15  # the fallback's agreement; float constants round differently
MAX_SIMPLIFY_OPS = 400  # beyond this, sympy.simplify is too slow to try
_SHOWN_ELEMENTS = 4  # array elements printed per input


# ---- reports ----

@dataclass
class InputCheck:
    """sympy's derivative and srcdiff's gradient with respect to one input, and the verdict."""

    name: str
    sympy: object  # an expression, or an object array of them shaped like the input
    srcdiff: object
    verdict: str  # PROVED, NUMERIC, MISMATCH or INCONCLUSIVE
    detail: str = ""


@dataclass
class CheckReport:
    """What `check` found: truthy when every gradient is proved or agrees numerically."""

    function: str
    wrt: tuple[str, ...]
    inputs: list[InputCheck] = field(default_factory=list)
    not_symbolic: str = ""  # why sympy could not evaluate the function or its gradient
    points: int = 0

    @property
    def status(self) -> str:
        if self.not_symbolic:
            return NOT_SYMBOLIC
        verdicts = {i.verdict for i in self.inputs}
        for verdict in (MISMATCH, INCONCLUSIVE, NUMERIC):
            if verdict in verdicts:
                return verdict
        return PROVED

    @property
    def mismatches(self) -> list[str]:
        """Names of the inputs whose gradient disagrees with sympy's derivative."""
        return [i.name for i in self.inputs if i.verdict == MISMATCH]

    def __bool__(self) -> bool:
        return self.status in (PROVED, NUMERIC)

    def raise_on_mismatch(self) -> CheckReport:
        """Raise `GradientMismatch` if any gradient disagrees; return self otherwise."""
        if self.mismatches:
            raise GradientMismatch(self)
        return self

    def __str__(self) -> str:
        wrt = ", ".join(self.wrt)
        if self.not_symbolic:
            return (f"srcdiff.check {self.function} wrt {wrt}: not symbolic, nothing was compared\n"
                    f"  {self.not_symbolic}\n  use srcdiff.gradcheck for a numeric check")
        status = {PROVED: "proved equal to sympy's derivative",
                  NUMERIC: f"agrees with sympy's derivative numerically ({self.points} points, "
                           f"{DIGITS} digits); not proved",
                  MISMATCH: f"MISMATCH with sympy's derivative in {', '.join(self.mismatches)}",
                  INCONCLUSIVE: "inconclusive"}[self.status]
        lines = [f"srcdiff.check {self.function} wrt {wrt}: {status}"]
        for item in self.inputs:
            lines.append(f"  {item.name}")
            lines.append(f"    sympy:   {_show(item.sympy)}")
            lines.append(f"    srcdiff: {_show(item.srcdiff)}")
            lines.append(f"    {_verdict_text(item)}")
        return "\n".join(lines)


def _verdict_text(item: InputCheck) -> str:
    if item.verdict == PROVED:
        return "proved: sympy simplifies the difference to 0"
    if item.verdict == NUMERIC:
        return f"agree numerically ({item.detail}); sympy could not simplify the difference to 0"
    if item.verdict == MISMATCH:
        return f"MISMATCH {item.detail}"
    return f"inconclusive: {item.detail}"


def _show_expr(expr, width: int = 100) -> str:
    if isinstance(expr, sp.Basic):  # 1.0*y reads as y: whole floats print as integers
        whole = {f: sp.Integer(int(f)) for f in expr.atoms(sp.Float) if float(f).is_integer()}
        text = sp.sstr(expr.xreplace(whole), full_prec=False)
    else:
        text = repr(expr)
    return text if len(text) <= width else text[: width - 3] + "..."


def _show(value) -> str:
    if not isinstance(value, np.ndarray):
        return _show_expr(value)
    flat = [_show_expr(v, 60) for v in value.reshape(-1)[:_SHOWN_ELEMENTS]]
    more = value.size - len(flat)
    return f"shape {value.shape}: [{', '.join(flat)}{f', ... {more} more' if more > 0 else ''}]"


# ---- the sympy cross-check ----

def check(f, *args, wrt=0, shapes: dict | None = None, points: int = 5, seed: int = 0,
          max_elements: int = 64, raise_on_mismatch: bool = False) -> CheckReport:
    """Cross-check srcdiff's gradient of `f` against sympy's derivative.

    `args` are example arguments (parameters with defaults may be left out; ``shapes=
    {"w": (3,)}`` stands for a missing array argument).  Every `wrt` input becomes a sympy
    symbol, or an array of them shaped like its argument (at most `max_elements`); the other
    arguments keep their values.  Where the difference does not simplify to 0, the two are
    compared at the arguments' values and `points - 1` random points nearby, in 50 digits.

    Returns a `CheckReport`, truthy when all agree; with `raise_on_mismatch`, a mismatch raises
    `GradientMismatch`.  A function sympy cannot evaluate is reported "not symbolic" (falsy).
    """
    func = unwrap(f)
    names = GradFunction(func, wrt).wrt
    gradient = grad(func, wrt=names)
    values = example_arguments(func, args, shapes, seed)
    source = gradient.source_for(*values)  # raises SrcDiffError where grad would
    transform = gradient.lowered
    report = CheckReport(func.__qualname__, names, points=points)
    params = list(inspect.signature(func).parameters)
    position = {name: params.index(name) for name in names}

    report.not_symbolic = _unsupported(transform.ir) or _too_large(names, values, position, max_elements)
    if report.not_symbolic:
        return report
    symbols = {name: symbolic.symbols_like(name, values[position[name]]) for name in names}
    sym_args = [symbols.get(p, v) for p, v in zip(params, values)]
    try:
        primal = symbolic.symbolic_function(parse.unwrap(func))(*sym_args)
        theirs_fn = symbolic.symbolic_gradient(source, parse.unwrap(func), transform.parsed.closure,
                                               f"check:{func.__qualname__}")
        ours = theirs_fn(*sym_args)
        output = symbolic.as_expr(primal)
    except NotSymbolic as exc:
        report.not_symbolic = str(exc)
        return report
    except (TypeError, ValueError, AttributeError, ArithmeticError, LookupError, sp.SympifyError) as exc:
        if "truth value of Relational" in str(exc):  # ``if x > y:`` in the user's code
            report.not_symbolic = ("a branch or a selection depends on a comparison of the "
                                   f"differentiated inputs ({exc})")
        else:
            report.not_symbolic = f"sympy could not evaluate it: {type(exc).__name__}: {exc}"
        return report

    samples = _sample_points(symbols, values, position, points, seed)
    for name, got in zip(names, ours):
        report.inputs.append(_compare_input(name, output, symbols[name], got, samples))
    if raise_on_mismatch:
        report.raise_on_mismatch()
    return report


def _compare_input(name: str, output, symbol, got, samples) -> InputCheck:
    if not isinstance(symbol, np.ndarray):
        if np.ndim(got) != 0:
            return InputCheck(name, sp.diff(output, symbol), got, MISMATCH,
                              f"srcdiff's gradient has shape {np.shape(got)}, the input is a number")
        theirs, mine = sp.diff(output, symbol), symbolic.as_expr(got)
        verdict, detail = _agree(theirs, mine, samples)
        return InputCheck(name, theirs, mine, verdict, detail)
    theirs = np.empty(symbol.shape, dtype=object)
    for index in np.ndindex(symbol.shape):
        theirs[index] = sp.diff(output, symbol[index])
    if np.shape(got) != symbol.shape:
        return InputCheck(name, theirs, got, MISMATCH,
                          f"srcdiff's gradient has shape {np.shape(got)}, the input {symbol.shape}")
    mine = np.empty(symbol.shape, dtype=object)
    found = []
    for index in np.ndindex(symbol.shape):
        mine[index] = symbolic.as_expr(got[index])
        verdict, detail = _agree(theirs[index], mine[index], samples)
        found.append((verdict, index, detail))
    for verdict in (MISMATCH, INCONCLUSIVE, NUMERIC):
        hits = [(i, d) for v, i, d in found if v == verdict]
        if hits:
            index, detail = hits[0]
            where = f"at element {list(index)}: " if verdict != NUMERIC else ""
            return InputCheck(name, theirs, mine, verdict, where + detail)
    return InputCheck(name, theirs, mine, PROVED)


def _agree(theirs, mine, samples) -> tuple[str, str]:
    """PROVED when the difference simplifies to 0; else the verdict at the sample points."""
    difference = symbolic.exact(sp.sympify(theirs - mine))
    if _is_zero(difference):
        return PROVED, ""
    compared = 0
    evaluate_theirs, evaluate_mine = _evaluator(theirs, samples), _evaluator(mine, samples)
    for point in samples:
        a, b = evaluate_theirs(point), evaluate_mine(point)
        if a is None or b is None:
            continue
        compared += 1
        if abs(a - b) > REL_TOL * max(abs(a), abs(b)) + ABS_TOL:
            return MISMATCH, f"at {_show_point(point)}: sympy gives {_number(a)}, srcdiff {_number(b)}"
    if not compared:
        return INCONCLUSIVE, "neither side could be evaluated to a real number at the sample points"
    return NUMERIC, f"{compared} points, {DIGITS} digits"


def _is_zero(difference) -> bool:
    if difference == 0:
        return True
    if sp.count_ops(difference) > MAX_SIMPLIFY_OPS:
        return False
    if sp.expand(difference) == 0:
        return True
    if difference.has(sp.Piecewise):  # from comparisons: simplifying their logic takes minutes
        return False
    return sp.simplify(difference) == 0


def _evaluator(expr, samples):
    """A function of a sample point giving `expr` there in DIGITS digits (None if not real).

    Expressions from loops share subexpressions that a tree walk (evalf) visits once per
    path, exponentially often; compiled with common subexpressions eliminated, they are
    evaluated once each in mpmath at the same precision.
    """
    expr = sp.sympify(expr)
    names = list(samples[0]) if samples else []
    try:
        compiled = sp.lambdify(names, expr, modules="mpmath", cse=True)
    except Exception:  # a construct the mpmath printer lacks: the tree walk still works
        return lambda point: _evaluate(expr, point)

    def evaluate(point):
        with mpmath.workdps(DIGITS):
            try:
                value = compiled(*(mpmath.mpf(str(point[n])) for n in names))
            except Exception:  # e.g. a function mpmath lacks (DiracDelta): sympy's own walk
                return _evaluate(expr, point)
            if not isinstance(value, mpmath.mpf) or not mpmath.isfinite(value):
                return _evaluate(expr, point)  # let sympy decide what a non-real value means
            return sp.Float(value, DIGITS)

    return evaluate


def _evaluate(expr, point):
    """`expr` at `point` in DIGITS digits, or None if it is not a finite real number there."""
    try:
        value = sp.sympify(expr).evalf(DIGITS, subs=point)
    except (TypeError, ValueError, ArithmeticError):
        return None
    if not value.is_number or value.is_real is not True or value.is_finite is not True:
        return None
    return sp.Float(value, DIGITS)


def _number(value) -> str:
    return sp.sstr(sp.Float(value, 12), full_prec=False)


def _show_point(point: dict) -> str:
    items = [f"{s}={_number(v)}" for s, v in list(point.items())[:4]]
    return ", ".join(items) + (", ..." if len(point) > 4 else "")


def _sample_points(symbols: dict, values, position: dict, count: int, seed: int) -> list[dict]:
    """The arguments' own values, then random points near them (same signs, within ~20%)."""
    rng = np.random.default_rng(seed)
    base = {}
    for name, symbol in symbols.items():
        value = values[position[name]]
        if isinstance(symbol, np.ndarray):
            base.update({symbol[i]: float(value[i]) for i in np.ndindex(symbol.shape)})
        else:
            base[symbol] = float(value)
    samples = [base]
    for _ in range(max(count, 1) - 1):
        u = rng.uniform(-1.0, 1.0, size=len(base))
        samples.append({s: v * float(np.exp(0.2 * d)) if v else 0.5 * float(d)
                        for (s, v), d in zip(base.items(), u)})
    return [{s: sp.Float(v, DIGITS) for s, v in point.items()} for point in samples]


def _unsupported(function) -> str:
    """Why the lowered function cannot be evaluated with sympy ('' when it can)."""
    reasons = {node_status(node) for node in lowered_nodes(function)}
    return "; ".join(sorted(why for status, why in reasons if status != "symbolic"))


def lowered_nodes(obj, seen=None) -> list[Node]:
    """Every node of a lowered function, whatever regions hold them."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, Node):
        return [obj] if getattr(obj, "rule", None) is not None else []
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        children = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    elif isinstance(obj, (list, tuple)):
        children = list(obj)
    elif isinstance(obj, dict):
        children = list(obj.values())
    else:
        return []
    return [node for child in children for node in lowered_nodes(child, seen)]


def _too_large(names, values, position, max_elements: int) -> str:
    for name in names:
        size = np.size(values[position[name]])
        if size > max_elements:
            return (f"{name} has {size} elements, more than max_elements={max_elements} symbols; "
                    f"check with a smaller example argument")
    return ""
