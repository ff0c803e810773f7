"""Pieces of an array's first axis that slices with constant bounds take, and whether pieces
joined end to end have the array's own length (`tiles`), for the same-shape classes
(shape_classes.py).

A piece is (kind, p): ``("slice", j + k)`` for ``x[j:-k]`` or ``x[j:]`` (j, k >= 0), of length
``max(n - j - k, 0)`` where x's first axis has length n; ``("head", k)`` for ``x[:k]`` or
``x[-k:]`` (k > 0), of length ``min(k, n)``; ``("whole", 0)`` for x itself.
"""

from __future__ import annotations

import ast

from ...ir.shapes import MANY, ONE, UNKNOWN_DIM
from .shape_calls import int_value


def piece_of_slice(s: ast.expr) -> tuple[str, int] | None:
    """The piece the slice `s` (a subscript's index, steps of one) takes of the first axis."""
    if not isinstance(s, ast.Slice) or s.step is not None:
        return None
    start = 0 if s.lower is None else int_value(s.lower)
    stop = None if s.upper is None else int_value(s.upper)
    if start is None or (s.upper is not None and stop is None):
        return None
    if start >= 0 and (stop is None or stop < 0):
        return ("slice", start - (stop or 0))
    if start == 0 and stop is not None and stop > 0:
        return ("head", stop)
    if start < 0 and stop is None:
        return ("head", -start)
    return None


def length(piece: tuple[str, int], n: int) -> int:
    kind, p = piece
    return n if kind == "whole" else min(p, n) if kind == "head" else max(n - p, 0)


def _sizes(first: str, top: int) -> list[int]:
    """The lengths up to `top` a first axis described as `first` may have."""
    return [1] if first == ONE else [n for n in range(top) if n != 1] if first == MANY else list(range(top))


def tiles(pieces: list[tuple[str, int]], first: str) -> bool:
    """Whether the pieces, joined, have the length n of the first axis for every n it may have
    (`first`: ONE, MANY (any length but one) or UNKNOWN_DIM).  Each length is linear in n from
    n = max(p) on, so checking every n up to two past that checks them all."""
    if not pieces or first not in (ONE, MANY, UNKNOWN_DIM):
        return False
    top = max(p for _, p in pieces) + 3
    return all(sum(length(piece, n) for piece in pieces) == n for n in _sizes(first, top))


def constant_bound(pieces: list[tuple[str, int]], extra: int, first: str) -> tuple[int | None] | None:
    """A constant slice bound (a 1-tuple: an int, negative from the end, or None for the end)
    that takes the same place as the bound ``sum of the pieces' lengths + extra`` for every
    length the first axis may have; None when there is none (``x[t6.shape[0]:]`` is ``x[1:]``
    where t6 is ``x[:1]``)."""
    if first not in (ONE, MANY, UNKNOWN_DIM) or extra < 0:
        return None
    top = max([p for _, p in pieces] + [extra]) + 3
    at = [sum(length(piece, n) for piece in pieces) + extra for n in (top, top + 1)]
    if at[1] - at[0] not in (0, 1):  # (past every piece's p, the bound is linear in n)
        return None
    candidate = at[0] if at[1] == at[0] else None if at[0] == top else at[0] - top
    if candidate is not None and candidate < 0 and at[1] == at[0]:
        return None
    for n in _sizes(first, top):
        wanted = min(sum(length(piece, n) for piece in pieces) + extra, n)
        placed = n if candidate is None else min(candidate, n) if candidate >= 0 else max(n + candidate, 0)
        if placed != wanted:
            return None
    return (candidate,)


def partition(slices: list[ast.expr], first: str) -> bool:
    """Whether the slices (constant bounds, steps of one) take every position of the first axis
    exactly once, for every length it may have (`first` as for `tiles`): past twice the
    largest bound, each slice's positions move with n alike, so the lengths checked decide."""
    bounds = _constant_slices(slices)
    if not bounds or first not in (ONE, MANY, UNKNOWN_DIM):
        return False
    for n in _sizes(first, _past(bounds)):
        taken = sorted(i for lower, upper in bounds for i in range(n)[lower:upper])
        if taken != list(range(n)):
            return False
    return True


def same_places(a: ast.Slice, b: ast.Slice, first: str) -> bool:
    """Whether two slices (constant bounds, steps of one) take the same positions of the first
    axis for every length it may have (`first` as for `tiles`)."""
    found = _constant_slices([a, b])
    if found is None or first not in (ONE, MANY, UNKNOWN_DIM):
        return False
    return all(range(n)[slice(*found[0])] == range(n)[slice(*found[1])] for n in _sizes(first, _past(found)))


def _constant_slices(slices: list[ast.expr]) -> list[list[int | None]] | None:
    """The [lower, upper] bounds of slices of constant bounds and steps of one, else None."""
    found = []
    for s in slices:
        if not isinstance(s, ast.Slice) or s.step is not None:
            return None
        bounds = [None if e is None else int_value(e) for e in (s.lower, s.upper)]
        if any(v is None and e is not None for v, e in zip(bounds, (s.lower, s.upper))):
            return None
        found.append(bounds)
    return found


def _past(bounds: list[list[int | None]]) -> int:
    """A length past twice the largest bound: from there on every slice's positions move alike."""
    return 2 * max([abs(v) for pair in bounds for v in pair if v is not None] + [0]) + 3


def index_read_as_subscript(base: ast.expr, index: ast.expr, value_of) -> ast.Subscript | None:
    """``base[a:b, ...]`` for ``index_read(base, t8)`` with ``t8 = (t7,)``, ``t7 = slice(a, b, None)``
    (numbers or None), else None; `value_of` gives a name's one value (the node itself otherwise)."""
    index = value_of(index)
    if not isinstance(index, ast.Tuple) or not index.elts:
        return None
    parts = []
    for part in map(value_of, index.elts):
        if not (isinstance(part, ast.Call) and isinstance(part.func, ast.Name) and part.func.id == "slice"
                and len(part.args) == 3 and not part.keywords
                and all(isinstance(a, ast.Constant) and (a.value is None or type(a.value) is int) for a in part.args)):
            return None
        parts.append(ast.Slice(*[None if a.value is None else ast.Constant(a.value) for a in part.args]))
    return ast.Subscript(base, ast.Tuple(parts, ast.Load()) if len(parts) > 1 else parts[0], ast.Load())
