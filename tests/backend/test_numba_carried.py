"""State carried through loops under jit="numba" (numba_carried_programs.py).

1. A float32 tuple carried through a loop (``s = (a * 0.9 + np.sin(a), b * 0.5)``) was refused: NumPy
   computes ``a * 0.9`` of a float32 `a` in float32 (NEP 50), numba in float64, so the tuple's type
   changed in the loop ("Cannot unify Tuple(array(float32...)...)").  numba/float32_constants.py wrote
   only the constants float32 holds exactly as float32; a constant it does not hold, beside a name, is
   now ``weak_float(0.9, a)``: float32 beside a float32 value, as NumPy rounds it, the float itself
   beside anything else.
2. A list holding an array and a number, carried through a loop (``s = [x, 1.0]`` rebound in a ``while``
   or ``for``), made numba's type inference run for minutes without an answer.  It was refused before
   numba saw it (numba/mixed_lists.py), at the user's line, with "write it as a tuple"; since wave 29 a
   list only read is spelled as that tuple (numba/list_tuples.py), and compiles.
"""

import numpy as np
import pytest

import srcdiff

from .numba_carried_programs import CARRIED, MIXED_LISTS
from .numba_every import within


def _point(dtype):
    return (np.array([0.2, 0.7, -0.4, 1.1]).astype(dtype),)


def _assert_agrees(f, dtype):
    args = _point(dtype)
    got = srcdiff.grad(f, jit="numba")(*args)
    want = srcdiff.grad(f)(*args)
    assert got.dtype == want.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_a_float32_tuple_carried_through_a_loop_compiles():
    _assert_agrees(CARRIED[0], np.float32)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("f", CARRIED, ids=lambda f: f.__name__)
def test_carried_tuples_compile_and_agree(f, dtype):
    _assert_agrees(f, dtype)


def _central(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        out[k] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


@pytest.mark.parametrize("f", [MIXED_LISTS[0], *(pytest.param(f, marks=pytest.mark.slow) for f in MIXED_LISTS[1:])],
                         ids=lambda f: f.__name__)
def test_a_mixed_list_in_a_loop_compiles_as_a_tuple(f):
    """Refused at the list's line until wave 29; only read, the list is now spelled as a tuple
    (numba/list_tuples.py), and its gradient agrees with central differences."""
    (x,) = _point(np.float64)
    with within(600):
        got = srcdiff.grad(f, jit="numba")(x)
    np.testing.assert_allclose(got, _central(f, x), rtol=1e-6, atol=1e-8)
