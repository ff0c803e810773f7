"""A zero adjoint's hold (``held_still``, ad/still_adjoints.py) inside a selection on the same condition.

``np.sum(np.where(x > 0, np.sqrt(x), 0.0))``: the root's adjoint is ``np.where(x > 0, 1.0, 0.0)``,
held at 0 where it is 0, and the outer selection ``keep_where(x > 0, ...)`` reads only the elements
where it is 1.0: the hold holds nothing there.  The optimizer reads the inner selection as its taken
value and drops a hold whose direction is then a nonzero number (backend/optimize/wheres.py), so the
gradient is ``keep_where(x > 0, 1.0 / (2.0 * np.sqrt(x)))`` again.  Variants: the root in the other
branch, a mean's ``1.0 / x.size``, weights (a direction that may be 0: the hold stays), arcsin,
``x ** 0.5``, np.cbrt; every transformation against float64 central differences, float32, and the
exact 0 at a root's zero the selection leaves out.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from modules import import_source

import srcdiff

from . import corpus, matrix

SOURCE = '''
import numpy as np

W = np.array([0.0, 2.0, -1.5, 3.0])


def kept(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def other_branch(x):
    return np.sum(np.where(x <= 0, 0.0, np.sqrt(x)))


def mean_of(x):
    return np.mean(np.where(x > 0, np.sqrt(x), 0.0))


def weighted(x):
    return np.sum(W * np.where(x > 0, np.sqrt(x), 0.0))


def times_weights(x, w):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0) * w)


def arcsin_kept(x):
    return np.sum(np.where(np.abs(x) < 1, np.arcsin(x), 0.0))


def half_power(x):
    return np.sum(np.where(x > 0, x ** 0.5, 0.0))


def cube_root_times_x(x):
    return np.sum(np.where(x > 0, np.cbrt(x), 0.0) * x)


def squared(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0) ** 2)


def sliced(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0)[1:])
'''

NAMES = ("kept", "other_branch", "mean_of", "weighted", "times_weights", "arcsin_kept", "half_power",
         "cube_root_times_x", "squared", "sliced")
#: no hold left: the adjoint's direction is a nonzero number wherever the selection reads it
UNHELD = {"kept": "keep_where(x > 0, 1.0 / (2.0 * np.sqrt(x)))",
          "other_branch": "zero_where(x <= 0, 1.0 / (2.0 * np.sqrt(x)))",
          "mean_of": "keep_where(x > 0, 1.0 / x.size / (2.0 * np.sqrt(x)))",
          "arcsin_kept": "keep_where(np.abs(x) < 1, 1.0 / np.sqrt(1.0 - x * x))",
          "half_power": "keep_where(x > 0, 0.5 * x ** -0.5)"}
X = np.array([0.3, 0.7, -0.4, 0.5])
W = np.array([0.5, -1.0, 2.0, 1.5])


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("held_where30"), SOURCE, "held_where30")


def _program(m, name: str, x: np.ndarray) -> corpus.Program:
    args = (x, W) if name == "times_weights" else (x,)
    return corpus.Program(f"held_where30:{name}", getattr(m, name), args, 0, "test_held_where30")


@pytest.mark.parametrize("name", sorted(UNHELD))
def test_no_hold_where_the_selection_reads_a_nonzero_direction(m, name):
    for jit in (None, "numba"):
        source = srcdiff.grad(getattr(m, name), jit=jit).source_for(X)
        want = UNHELD[name] if jit is None else UNHELD[name].replace("keep_where(", "np.where(")
        if jit is not None and "zero_where" in want:
            want = "np.where(x <= 0, 0.0, 1.0 / (2.0 * np.sqrt(x)))"
        elif jit is not None:
            want = want[:-1] + ", 0.0)"
        assert "held_still" not in source and want in source, source


@pytest.mark.parametrize("name", NAMES)
def test_every_transformation(m, name):
    matrix.assert_ok_or_na(_program(m, name, X), matrix.TRANSFORMS)
    matrix.assert_float32_stays_float32(_program(m, name, X))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("jit", [None, "numba"])
def test_a_root_the_selection_leaves_out_is_an_exact_zero(m, name, jit):
    # element 0 at the edge of the branch's domain, element 3 past it (arcsin's edge is 1)
    x = np.array([1.0, 0.2, 0.9, -1.5]) if name == "arcsin_kept" else np.array([0.0, 0.2, 0.9, -0.1])
    f = getattr(m, name)
    args = (x, W) if name == "times_weights" else (x,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the forward sweep's own sqrt(-0.1)
        g = srcdiff.grad(f, jit=jit)(*args)
        h = srcdiff.hessian(f, jit=jit)(*args)
    assert g[0] == 0.0 and g[3] == 0.0 and np.all(np.isfinite(g)), g
    assert np.all(h[0] == 0.0) and np.all(h[:, 0] == 0.0) and np.all(np.isfinite(h)), h
    x32 = x.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        g32 = srcdiff.grad(f, jit=jit)(x32, *args[1:])
    assert g32.dtype == np.float32 and g32[0] == 0.0 and np.all(np.isfinite(g32)), g32
