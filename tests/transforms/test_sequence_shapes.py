"""A Python list or tuple has no elementwise shape: ``[0.0] * 3`` repeats, ``a + b`` joins.  The
same-shape classes (backend/optimize/shape_classes.py) must not take such a value to have its
operand's shape, or ``np.shape(vals)`` is read off the one-item list and the backward pass
writes out of range.  Every transformation, on lists and tuples built each way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from .corpus import Program
from .matrix import assert_every_transformation

HERE = Path(__file__).parent


def repeated_list(x):
    vals = [0.0] * 4
    vals[-1] = x * x
    vals[1] = np.sin(x)
    return vals[1] * 2.0 + vals[3] * 3.0 + sum(vals)


def repeated_on_the_left(x):
    vals = 3 * [1.0]
    vals[2] = np.exp(x)
    return vals[0] + vals[2] * x


def joined_lists(x):
    head = [x, 2.0 * x]
    vals = head + [np.cos(x)]
    vals[-1] = vals[-1] * x
    return vals[0] * vals[1] + vals[2]


def repeated_tuple(x):
    vals = (0.5,) * 3 + (2.0,)
    return sum(vals) * x ** 3 + vals[-1] * np.sin(x)


def copied_then_repeated(x):
    base = [x]
    vals = list(base) * 2
    vals[1] = vals[1] * 4.0
    return vals[0] * vals[1]


def list_of_arrays(w):
    rows = [np.zeros(2)] * 3
    rows[-1] = w * w
    rows[0] = np.tanh(w)
    return np.sum(rows[0] * 2.0 + rows[2]) + np.sum(np.stack(rows))


CASES = [(repeated_list, 0.7), (repeated_on_the_left, 0.3), (joined_lists, -0.6), (repeated_tuple, 1.1),
         (copied_then_repeated, 0.9), (list_of_arrays, np.array([0.4, -1.3]))]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_a_repeated_or_joined_sequence_is_not_an_array(f, x):
    assert_every_transformation(Program(f"sequences:{f.__name__}", f, (x,), 0, HERE))
