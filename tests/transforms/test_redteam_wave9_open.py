"""What the red team's ninth wave found that is still open (test_redteam_wave9_findings.py holds the
classes fixed): reasonable code refused at the user's line, and new instances of classes other work
owns.  Each is a strict xfail naming its class; references are float64 central differences."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from .corpus import Program

HERE = "test_redteam_wave9_open.py"


def open_class(name: str, cases, failing):
    """`cases` as pytest params, the ones in `failing` a strict xfail naming the class."""
    return [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=name)) if c in failing else c for c in cases]


def _program(f, *args) -> Program:
    return Program(f"w9_open:{f.__name__}", f, args, 0, HERE)


# ---- 5. reasonable code refused: none left open.  math.hypot of three, itertools.pairwise/accumulate,
# `:=` in a condition, a nested def taking *terms, a functools.wraps decorator of the user's,
# np.put_along_axis and a dataclass state rebuilt in a loop are differentiated now, each written
# several ways through every transformation: reach10_programs.py, test_reach10_spellings.py.


# ---- 6. new instances of classes other helpers own (OPEN) -------------------------------------------


def kalman_slogdet_in_loop(log_q, ys):
    x, P = np.zeros(2), np.eye(2)
    F, H = np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([[1.0, 0.0]])
    ll = 0.0
    for y in ys:
        x, P = F @ x, F @ P @ F.T + np.diag(np.exp(log_q))
        S = H @ P @ H.T + 0.5
        sign, logdet = np.linalg.slogdet(S)
        v = y - H @ x
        ll = ll + logdet + v @ np.linalg.solve(S, v)
        K = P @ H.T @ np.linalg.inv(S)
        x, P = x + K @ v, (np.eye(2) - K @ H) @ P
    return ll


def test_hessian_of_a_kalman_filter_with_slogdet_in_its_loop():
    """Was open (a loop's tuple results at second order); fixed when lists of tuples became one list per field."""
    log_q, ys = np.array([-1.0, -2.0]), np.array([0.3, -0.1, 0.8])
    gradient = srcdiff.grad(kalman_slogdet_in_loop)
    want = np.stack([central_difference(lambda q, k=k: gradient(q, ys)[k], (log_q,), 0) for k in range(2)])
    np.testing.assert_allclose(srcdiff.hessian(kalman_slogdet_in_loop)(log_q, ys), want, rtol=1e-4, atol=1e-6)


def int_and_float_nested_lists(angles, points):
    c = angles[0]
    R = np.array([[1, 0, 0], [0, np.cos(c), -np.sin(c)], [0, np.sin(c), np.cos(c)]])
    return np.sum((points @ R.T) ** 2 * points)


def test_numba_array_of_int_and_float_lists():
    """Was open (numba's lists of lists hold one type); fixed: the rows are tuples for np.array
    (backend/numba/nested_lists.py)."""
    args = (np.array([0.3, -0.7]), np.random.default_rng(2).normal(size=(4, 3)))
    got = srcdiff.grad(int_and_float_nested_lists, jit="numba")(*args)
    np.testing.assert_allclose(got, central_difference(int_and_float_nested_lists, args, 0), rtol=1e-5, atol=1e-7)
