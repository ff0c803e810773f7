"""State carried through loops under jit="numba" (numba_carried_programs.py).

1. A float32 tuple carried through a loop (``s = (a * 0.9 + np.sin(a), b * 0.5)``) was refused: NumPy
   computes ``a * 0.9`` of a float32 `a` in float32 (NEP 50), numba in float64, so the tuple's type
   changed in the loop ("Cannot unify Tuple(array(float32...)...)").  numba/float32_constants.py wrote
   only the constants float32 holds exactly as float32; a constant it does not hold, beside a name, is
   now ``weak_float(0.9, a)``: float32 beside a float32 value, as NumPy rounds it, the float itself
   beside anything else.
2. A list holding an array and a number, carried through a loop (``s = [x, 1.0]`` rebound in a ``while``
   or ``for``), made numba's type inference run for minutes without an answer.  It is refused before
   numba sees it (numba/mixed_lists.py), at the user's line, with "write it as a tuple".
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


@pytest.mark.parametrize("f", [MIXED_LISTS[0], *(pytest.param(f, marks=pytest.mark.slow) for f in MIXED_LISTS[1:])],
                         ids=lambda f: f.__name__)
def test_a_mixed_list_in_a_loop_is_refused_quickly_at_its_line(f):
    with within(60), pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(f, jit="numba")(*_point(np.float64))
    first = str(caught.value).splitlines()[0]
    assert "numba_carried_programs.py:" in first
    assert "a list holding an array and a number is carried through a loop here" in first
    assert "write it as a tuple of the same items" in first
    # the Python gradient differentiates it
    assert np.all(np.isfinite(srcdiff.grad(f)(*_point(np.float64))))
