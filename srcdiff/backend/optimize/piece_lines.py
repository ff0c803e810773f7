"""The expressions clip_cases.py writes for a function of one array `r` it has proved line by line: a clip
``k * np.clip(r, lo, hi) + j * (r - np.clip(r, lo, hi)) + b``, where the lines meet and have one outer
slope; else a chain of selections ``np.where(r < t0, L0, np.where(r <= t1, L1, L2))``, each line
``k * r + b`` of its piece, the comparison at each threshold the one that gives the tie's own value; and
of a mask `m` read only as a condition, ``np.where(m, P1, P0)``.

Pieces are cases.py's forms: ``{atom: {monomial: number}, "1": {...}}``, a monomial a tuple of names
(``/n`` dividing), each name a number or an array the pieces are multiplied by (not compared).  The
coefficient of a line is written with the names every monomial shares factored out, numbers first and
arrays last, so that a sum of shares of ``t8_bar`` costs one pass over the arrays it multiplies.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .cases import Form, added, scaled

Coefficient = dict  # monomial (a tuple of names) -> number


def as_clip(atom: str, breaks: list[Form], pieces: list, is_scalar: Callable[[str], bool]) -> tuple | None:
    """(the clip, the breakpoints where the ties' shares give another value than the line) where `pieces`
    are one line ``k r + b`` between the outer breakpoints and lines of one slope `j` outside meeting it
    there; else None."""
    count = len(breaks)
    if count < 2:
        return None
    line = pieces[2]
    inner, outer = line.get(atom, {}), pieces[0].get(atom, {})
    if any(pieces[w] != line for w in range(2, 2 * count - 1, 2)) or pieces[2 * count].get(atom, {}) != outer \
            or not (inner or outer):
        return None
    ties = []
    for i, point in enumerate(breaks):
        expected = at(line, atom, point)
        if at(pieces[0 if i == 0 else 2 * count], atom, point) != expected and i in (0, count - 1):
            return None  # (the outer lines do not meet the inner one)
        if at(pieces[2 * i + 1], atom, point) != expected:
            ties.append(point)
    terms = []
    clip = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "clip", ast.Load()),
                    [ast.Name(atom, ast.Load()), number(breaks[0]), number(breaks[-1])], [])
    if inner:
        terms.append(times(inner, clip, is_scalar))
    if outer:
        terms.append(times(outer, ast.BinOp(ast.Name(atom, ast.Load()), ast.Sub(), clip), is_scalar))
    if line.get("1"):
        terms.append(coefficient(line["1"], is_scalar))
    return summed(terms), ties


def as_weighted_clip(atom: str, breaks: list[Form], pieces: list, is_scalar: Callable[[str], bool]) -> tuple | None:
    """(``np.where(r < t, a, b) * np.clip(r, lo, hi)``, the outer breakpoints whose ties give another value)
    where `pieces` are a weight that jumps at an inner breakpoint t times a clip of the outer ones (a
    quantile Huber: 1 - tau below 0, tau above); else None."""
    count = len(breaks)
    if count < 3:
        return None
    for i in range(1, count - 1):
        low, high = pieces[2 * i].get(atom, {}), pieces[2 * i + 2].get(atom, {})
        if not low or not high or low == high:
            continue
        weights = [low if w < 2 * i + 1 else high for w in range(2 * count + 1)]
        clipped = [{"1": breaks[0].get("1", {})} if w == 0 else {"1": breaks[-1].get("1", {})}
                   if w == 2 * count else {atom: {(): 1.0}} for w in range(0, 2 * count + 1, 2)]
        if any(clean(scaled(q, weights[2 * k])) != clean(pieces[2 * k]) for k, q in enumerate(clipped)):
            continue
        tie = at(pieces[2 * i + 1], atom, breaks[i])
        inner = breaks[i]
        if tie not in (clean(scaled(inner, low)), clean(scaled(inner, high))):
            continue  # (a tie at the jump that takes neither weight: the code as it was)
        op: ast.cmpop = ast.Lt() if tie == clean(scaled(inner, high)) else ast.LtE()
        ties = [breaks[j] for j in (0, count - 1)
                if at(pieces[2 * j + 1], atom, breaks[j]) != clean(scaled(breaks[j], weights[2 * j + 1]))]
        if any(at(pieces[2 * j + 1], atom, breaks[j]) != clean(scaled(breaks[j], weights[2 * j + 1]))
               for j in range(1, count - 1) if j != i):
            continue  # (an inner tie off the line)
        weight = where(ast.Compare(ast.Name(atom, ast.Load()), [op], [number(inner)]),
                       coefficient(low, is_scalar), coefficient(high, is_scalar))
        clip = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "clip", ast.Load()),
                        [ast.Name(atom, ast.Load()), number(breaks[0]), number(breaks[-1])], [])
        return ast.BinOp(weight, ast.Mult(), clip), ties
    return None


def as_selections(atom: str, breaks: list[Form], pieces: list, is_scalar: Callable[[str], bool],
                  nan: int | None = None) -> tuple:
    """(``np.where(r < t0, L0, np.where(r <= t1, L1, L2))``, the breakpoints whose ties take neither
    neighbouring line's value there): at each threshold ``<`` where the tie has the line above's value,
    ``<=`` where it has the line below's.  The open piece `nan` (else the top one) is the chain's last,
    the one NaN takes as the code did: the thresholds above it are tested from the top, ``r > t1`` or
    ``r >= t1``, the complements of those tests for every other number."""
    count = len(breaks)
    last = count if nan is None else nan
    if all(p.get(atom) and not p.get("1") for p in pieces):  # (slopes alone: a chain of numbers times r)
        made, ties = as_selections(atom, breaks, [{"1": p[atom]} for p in pieces], is_scalar, nan)
        return ast.BinOp(made, ast.Mult(), ast.Name(atom, ast.Load())), ties
    made = line(pieces[2 * last], atom, is_scalar)
    ties = []
    for i in [*range(last, count), *reversed(range(last))]:  # (innermost first)
        point, tie = breaks[i], at(pieces[2 * i + 1], atom, breaks[i])
        below, above = at(pieces[2 * i], atom, point), at(pieces[2 * i + 2], atom, point)
        if clean(pieces[2 * i]) == clean(pieces[2 * i + 2]) and tie == below:
            continue  # (one line through the threshold and at it: nothing to select there)
        if tie not in (below, above):
            ties.append(point)
        if i < last:
            test = ast.Compare(ast.Name(atom, ast.Load()), [ast.Lt() if tie == above else ast.LtE()], [number(point)])
            made = where(test, line(pieces[2 * i], atom, is_scalar), made)
        else:
            test = ast.Compare(ast.Name(atom, ast.Load()), [ast.GtE() if tie == above else ast.Gt()], [number(point)])
            made = where(test, line(pieces[2 * i + 2], atom, is_scalar), made)
    return made, ties


def shared_arrays(pieces: list, is_scalar: Callable[[str], bool]) -> tuple[list, list[str]]:
    """(`pieces` with the arrays every monomial of every piece multiplies taken out, those arrays), where
    no piece is 0 (``0.0 * y`` is NaN where y is inf, the piece as it was 0): one pass where there were
    one for each piece."""
    monomials = [m for p in pieces for factor in p.values() for m in factor]
    if not all(pieces) or not monomials:
        return pieces, []
    shared = [n for n in _shared(dict.fromkeys(monomials, 1.0)) if not n.startswith("/") and not is_scalar(n)]
    if not shared:
        return pieces, []
    return [{atom: {tuple(_without(m, shared)): v for m, v in factor.items()} for atom, factor in p.items()}
            for p in pieces], shared


def where(test: ast.expr, yes: ast.expr, no: ast.expr) -> ast.expr:
    return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "where", ast.Load()), [test, yes, no], [])


def line(piece: Form, atom: str, is_scalar: Callable[[str], bool]) -> ast.expr:
    """``k * r + b``, a piece's line."""
    terms = [times(piece[atom], ast.Name(atom, ast.Load()), is_scalar)] if piece.get(atom) else []
    if piece.get("1") or not terms:
        terms.append(coefficient(piece.get("1", {}), is_scalar))
    return summed(terms)


def summed(terms: list[ast.expr]) -> ast.expr:
    made = terms[0]
    for term in terms[1:]:
        made = ast.BinOp(made, ast.Add(), term)
    return made


def times(factor: Coefficient, value: ast.expr, is_scalar: Callable[[str], bool]) -> ast.expr:
    """``factor * value``, a factor of ±1 a sign."""
    if factor in ({(): 1.0}, {(): -1.0}):
        return value if factor[()] > 0 else ast.UnaryOp(ast.USub(), value)
    return ast.BinOp(coefficient(factor, is_scalar), ast.Mult(), value)


def at(piece: Form, atom: str, point: Form) -> Form:
    """`piece`, a line in `atom`, at `point`."""
    return clean(added({k: v for k, v in piece.items() if k != atom}, scaled(point, piece.get(atom, {})), 1.0))


def clean(form: Form) -> Form:
    """`form` with empty coefficients dropped and each ``n`` cancelled against ``/n``."""
    out: Form = {}
    for atom, factor in form.items():
        kept: dict = {}
        for monomial, value in factor.items():
            names = list(monomial)
            for n in [n for n in names if n.startswith("/")]:
                if n[1:] in names and n in names:
                    names.remove(n[1:])
                    names.remove(n)
            key = tuple(sorted(names))
            kept[key] = kept.get(key, 0.0) + value
        kept = {m: v for m, v in kept.items() if v != 0.0}
        if kept:
            out[atom] = kept
    return out


def number(form: Form) -> ast.expr:
    """A threshold's expression (numbers and names of numbers only)."""
    return coefficient(form.get("1", {}), lambda name: True)


def coefficient(factor: Coefficient, is_scalar: Callable[[str], bool]) -> ast.expr:
    """A sum of monomials as an expression, the names all of them share factored out: ``(lo + hi - 2.0) *
    t10_bar`` (numbers before arrays, so that the numbers are combined first)."""
    shared = _shared(factor)
    if shared and len(factor) > 1:
        rest = {tuple(_without(m, shared)): v for m, v in factor.items()}
        made = _sum(rest)
        for name in sorted(shared, key=lambda n: not is_scalar(n.lstrip("/"))):
            op = ast.Div() if name.startswith("/") else ast.Mult()
            made = ast.BinOp(made, op, ast.Name(name.lstrip("/"), ast.Load()))
        return made
    return _sum(factor)


def _shared(factor: Coefficient) -> list[str]:
    monomials = list(factor)
    if not monomials:
        return []
    shared = list(monomials[0])
    for monomial in monomials[1:]:
        shared = _common(shared, list(monomial))
    return shared


def _common(one: list[str], other: list[str]) -> list[str]:
    out, rest = [], list(other)
    for name in one:
        if name in rest:
            rest.remove(name)
            out.append(name)
    return out


def _without(monomial: tuple, names: list[str]) -> list[str]:
    rest = list(monomial)
    for name in names:
        rest.remove(name)
    return rest


def _sum(factor: Coefficient) -> ast.expr:
    """``2.0 * a / n - b``: the monomials one by one."""
    out: ast.expr | None = None
    for monomial, value in sorted(factor.items()):
        names = list(monomial)
        term: ast.expr = ast.Constant(abs(value))
        if abs(value) == 1.0 and names and not names[0].startswith("/"):
            term = ast.Name(names.pop(0), ast.Load())
        for name in names:
            op = ast.Div() if name.startswith("/") else ast.Mult()
            term = ast.BinOp(term, op, ast.Name(name.lstrip("/"), ast.Load()))
        if out is None:
            out = ast.UnaryOp(ast.USub(), term) if value < 0 else term
        else:
            out = ast.BinOp(out, ast.Sub() if value < 0 else ast.Add(), term)
    return out if out is not None else ast.Constant(0.0)
