"""What `srcdiff.check` found, and how it reads: `CheckReport` and `InputCheck`."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from .check_common import GradientMismatch

PROVED, NUMERIC, MISMATCH, INCONCLUSIVE = "proved", "agrees numerically", "MISMATCH", "inconclusive"
NOT_SYMBOLIC, GAVE_UP = "not symbolic", "gave up symbolically"

DIGITS = 50  # precision of the numeric comparison with sympy's derivative
_SHOWN_ELEMENTS = 4  # array elements printed per input


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
    """What `check` found: truthy when every gradient is proved or agrees numerically.

    When sympy could not evaluate the function (`not_symbolic` says why) or gave up
    (`gave_up` names the stage that ran out of time), nothing is proved and the report is
    falsy; `numeric` then holds the central-difference verdict (a `GradcheckReport`), and a
    mismatch there is a mismatch of the report.
    """

    function: str
    wrt: tuple[str, ...]
    inputs: list[InputCheck] = field(default_factory=list)
    not_symbolic: str = ""  # why sympy could not evaluate the function or its gradient
    points: int = 0
    gave_up: str = ""  # the stage that ran out of time
    timeout: float | None = None  # seconds each stage may take
    numeric: object = None  # the central-difference check, when nothing was compared symbolically
    plain: object = None  # the call checked (`check_front.Plain`): rebuilds per-input results into trees

    @property
    def sympy_gradient(self):
        """sympy's derivatives, shaped like the `wrt` target(s) (a dict for a dict...)."""
        return self._rebuilt("sympy")

    @property
    def srcdiff_gradient(self):
        """srcdiff's gradient on symbols, shaped like the `wrt` target(s)."""
        return self._rebuilt("srcdiff")

    def _rebuilt(self, field: str):
        values = [getattr(i, field) for i in self.inputs]
        if self.plain is None or len(values) != len(self.plain.wrt):
            return tuple(values)
        return self.plain.rebuild(values)

    @property
    def status(self) -> str:
        if self.numeric is not None and not self.numeric:
            return MISMATCH
        if self.gave_up:
            return GAVE_UP
        if self.not_symbolic:
            return NOT_SYMBOLIC
        verdicts = {i.verdict for i in self.inputs}
        for verdict in (MISMATCH, INCONCLUSIVE, NUMERIC):
            if verdict in verdicts:
                return verdict
        return PROVED

    @property
    def mismatches(self) -> list[str]:
        """Names of the inputs whose gradient disagrees with sympy's derivative (or, when
        nothing was compared symbolically, with central differences)."""
        found = [i.name for i in self.inputs if i.verdict == MISMATCH]
        return found + ([] if self.numeric is None else list(self.numeric.mismatches))

    def __bool__(self) -> bool:
        return self.status in (PROVED, NUMERIC)

    def raise_on_mismatch(self) -> CheckReport:
        """Raise `GradientMismatch` if any gradient disagrees; return self otherwise."""
        if self.mismatches:
            raise GradientMismatch(self)
        return self

    def __str__(self) -> str:
        wrt = ", ".join(self.wrt)
        head = f"srcdiff.check {self.function} wrt {wrt}"
        if self.gave_up or self.not_symbolic:
            if self.gave_up:
                lines = [f"{head}: gave up symbolically after {self.timeout:g} s, checked numerically",
                         f"  {self.gave_up} took longer than timeout={self.timeout:g} s "
                         f"(pass a larger timeout to wait longer)"]
            else:
                lines = [f"{head}: not symbolic, checked numerically", f"  {self.not_symbolic}"]
            if self.numeric is not None:
                lines += [f"  {line}" for line in str(self.numeric).splitlines()]
            return "\n".join(lines)
        status = {PROVED: "proved equal to sympy's derivative",
                  NUMERIC: f"agrees with sympy's derivative numerically ({self.points} points, "
                           f"{DIGITS} digits); not proved",
                  MISMATCH: f"MISMATCH with sympy's derivative in {', '.join(self.mismatches)}",
                  INCONCLUSIVE: "inconclusive"}[self.status]
        lines = [f"{head}: {status}"]
        for item in self.inputs:
            lines.append(f"  {item.name}")
            lines.append(f"    sympy:   {show(item.sympy)}")
            lines.append(f"    srcdiff: {show(item.srcdiff)}")
            lines.append(f"    {_verdict_text(item)}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The report as Jupyter shows it: the verdict, coloured, then one row per input."""
        colour = "#1a7f37" if self else "#b42318" if self.status == MISMATCH else "#9a6700"
        lines = str(self).splitlines()
        head = (f'<p><b>{html.escape(lines[0])}</b> '
                f'<span style="color:{colour}">&#9679; {html.escape(self.status)}</span></p>')
        if self.gave_up or self.not_symbolic:
            return f'<div class="srcdiff-check">{head}<pre>{html.escape(chr(10).join(lines[1:]))}</pre></div>'
        cells = "".join(f"<tr><td><code>{html.escape(i.name)}</code></td><td><code>{html.escape(show(i.sympy))}</code>"
                        f"</td><td><code>{html.escape(show(i.srcdiff))}</code></td>"
                        f"<td>{html.escape(_verdict_text(i))}</td></tr>" for i in self.inputs)
        table = ("<table><thead><tr><th>input</th><th>sympy</th><th>srcdiff</th><th>verdict</th></tr></thead>"
                 f"<tbody>{cells}</tbody></table>")
        return f'<div class="srcdiff-check">{head}{table}</div>'


def _verdict_text(item: InputCheck) -> str:
    if item.verdict == PROVED:
        return "proved: sympy simplifies the difference to 0"
    if item.verdict == NUMERIC:
        return f"agree numerically ({item.detail}); sympy could not simplify the difference to 0"
    if item.verdict == MISMATCH:
        return f"MISMATCH {item.detail}"
    return f"inconclusive: {item.detail}"


def size_at_most(expr, limit: int) -> bool:
    """Whether `expr` has at most `limit` nodes, written out as a tree.  Loops build
    expressions that share subexpressions, whose trees grow exponentially: this stops
    counting at `limit`, where a full walk (printing, `count_ops`) might take hours."""
    if not isinstance(expr, sp.Basic):
        return True
    for count, _ in enumerate(sp.preorder_traversal(expr), 1):
        if count > limit:
            return False
    return True


_SHOWN_NODES = 2000  # larger expressions are not printed


def _show_expr(expr, width: int = 100) -> str:
    if isinstance(expr, sp.Basic) and not size_at_most(expr, _SHOWN_NODES):
        return f"(an expression of more than {_SHOWN_NODES} terms, not shown)"
    if isinstance(expr, sp.Basic):  # 1.0*y reads as y: whole floats print as integers
        whole = {f: sp.Integer(int(f)) for f in expr.atoms(sp.Float) if float(f).is_integer()}
        try:
            text = sp.sstr(expr.xreplace(whole), full_prec=False)
        except TypeError:  # ordering an Add's terms compares numbers, which a NaN refuses
            text = sp.sstr(expr, order="none")
    else:
        text = repr(expr)
    return text if len(text) <= width else text[: width - 3] + "..."


def show(value) -> str:
    """A derivative as the report prints it: an expression, or the first elements of an array."""
    if not isinstance(value, np.ndarray):
        return _show_expr(value)
    flat = [_show_expr(v, 60) for v in value.reshape(-1)[:_SHOWN_ELEMENTS]]
    more = value.size - len(flat)
    return f"shape {value.shape}: [{', '.join(flat)}{f', ... {more} more' if more > 0 else ''}]"


def number(value) -> str:
    """A number in 12 significant digits, as the report prints it."""
    return sp.sstr(sp.Float(value, 12), full_prec=False)


def show_point(point: dict) -> str:
    """A sample point ``{symbol: value}`` as ``x[0]=0.3, x[1]=1.1, ...``."""
    items = [f"{s}={number(v)}" for s, v in list(point.items())[:4]]
    return ", ".join(items) + (", ..." if len(point) > 4 else "")
