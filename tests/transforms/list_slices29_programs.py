"""Slices of lists of arrays a helper returns, read beside single items (the adjoint of a list's
slice, ``pts_bar[1:] += g``, appended `g` to the list where it should add item by item: the
pops of the helper's backward loop then took the wrong items, a silently wrong gradient)."""

from __future__ import annotations

import numpy as np


def _points(q):
    pts = [np.zeros(2)]
    for qi in q:
        pts.append(np.array([np.cos(qi), np.sin(qi)]) * qi)
    return pts


def _chain(q):
    pts = [np.zeros(2)]
    phi = 0.0
    for qi in q:
        phi = phi + qi
        pts.append(pts[-1] + 0.8 * np.array([np.cos(phi), np.sin(phi)]))
    return pts


def loop_over_head_and_items(q):
    pts = _points(q)
    tot = np.sum(pts[1] * pts[2])
    for p in pts[:-1]:
        tot = tot + np.sum(p ** 3)
    return tot


def loop_over_tail_then_items(q):
    pts = _points(q)
    tot = 0.0
    for p in pts[1:]:
        tot = tot + np.sum(p ** 3)
    return tot + np.sum(pts[2] * pts[1])


def stack_of_tail_beside_last(q):
    pts = _points(q)
    c = np.sum(pts[-1] * 3.0)
    return c + np.sum(np.stack(pts[1:]) ** 2 * q[:, None])


def array_of_tail_beside_a_head(q):
    pts = _points(q)
    head = pts[:2]
    return np.sum(head[1] * pts[2]) + np.sum(np.array(pts[1:]) ** 2)


def every_other_point(q):
    pts = _chain(q)
    return sum(np.sum((p - 0.3) ** 2) for p in pts[::2]) + np.sum(pts[-1])


def middle_of_a_chain(q):
    pts = _chain(q)
    inner = pts[1:-1]
    return np.sum(np.stack(inner) ** 2) + np.sum(pts[0] + pts[-1] * pts[1])


def _row(func, n=3):
    return (func.__name__, func, lambda r: (0.5 * r.standard_normal(n),), 0)


PROGRAMS = [_row(f) for f in (loop_over_head_and_items, loop_over_tail_then_items, stack_of_tail_beside_last,
                              array_of_tail_beside_a_head, every_other_point, middle_of_a_chain)]
