"""A Hessian of a few numbers is one forward sweep whose unit seeds are written into its code
(backend/optimize/unit_seeds.py), over a gradient whose lists of numbers the optimizer now
knows (backend/optimize/known_names.py).  Each program against central differences of the
function itself; at inf, NaN and zero inputs the folded sweep gives the true derivative."""

import ast
import math

import numpy as np
import pytest

import srcdiff
from srcdiff.backend.optimize.known_names import ITEM, TUPLES, grow
from srcdiff.backend.optimize.optimizer import is_scalar_expr

from . import corpus, matrix
from .speed9_programs import (
    PROGRAMS,
    coupled_products,
    decay_fit,
    decay_fit_tree,
    logistic_growth,
    logistic_map,
    ratio_decay,
    saturating,
    scalar_and_array_items,
    unused_accumulation,
)

OBSERVED = np.cos(np.arange(12) * 0.2) * 0.8
PAIRS = [  # (function, its two numbers, the other arguments)
    (decay_fit, (0.3, 2.0), (OBSERVED, 12)),
    (logistic_growth, (0.4, 3.0), (8,)),
    (coupled_products, (0.7, -1.3), (2.0, 4)),
    (unused_accumulation, (0.4, 1.5), (5,)),
    (logistic_map, (0.4, 3.0), (8,)),
    (ratio_decay, (0.4, 3.0), (8,)),
    (saturating, (0.7, 2.0), (6,)),
]


def programs():
    return corpus.from_table(PROGRAMS, "speed9", "speed9_programs", 5)


def _name(p):
    return p.name.partition(":")[2]


def second_differences(f, x, rest, h=1e-4):
    """d^2 f / dx_i dx_j of f(*x, *rest) by four-point central differences."""
    n = len(x)
    H = np.zeros((n, n))

    def at(i, j, di, dj):
        y = list(x)
        y[i] += di * h
        y[j] += dj * h
        return f(*y, *rest)
    for i in range(n):
        for j in range(n):
            H[i, j] = (at(i, j, 1, 1) - at(i, j, 1, -1) - at(i, j, -1, 1) + at(i, j, -1, -1)) / (4 * h * h)
    return H


def _folded(H) -> bool:
    """Whether the last call ran the sweep with its seeds in its code: no tangent parameters."""
    return "_dot" not in H.source.splitlines()[0]


#: kept in the default run (each program's matrix row takes seconds): the others are marked slow
DEFAULT = {"decay_fit_rate", "scalar_and_array_items", "logistic_map_capacity"}


@pytest.mark.parametrize("program", [pytest.param(p, marks=() if _name(p) in DEFAULT else pytest.mark.slow)
                                     for p in programs()], ids=_name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", [pytest.param(p, marks=() if i == 0 else pytest.mark.slow)
                                     for i, p in enumerate(programs())], ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("f, x, rest", PAIRS, ids=[p[0].__name__ for p in PAIRS])
def test_hessian_of_two_numbers_against_central_differences(f, x, rest):
    H = srcdiff.hessian(f, wrt=(0, 1))
    got = np.array(H(*x, *rest), dtype=float)
    assert _folded(H)
    want = second_differences(f, x, rest)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * max(1.0, np.abs(want).max()))
    np.testing.assert_allclose(got, got.T, rtol=1e-12)


def test_tree_wrapped_and_float32():
    want = np.array(srcdiff.hessian(decay_fit, wrt=(0, 1))(0.3, 2.0, OBSERVED, 12), dtype=float)
    H = srcdiff.hessian(decay_fit_tree)
    got = H({"rate": 0.3, "pull": 2.0}, OBSERVED, 12)
    assert _folded(H)
    np.testing.assert_allclose([[got["rate"]["rate"], got["rate"]["pull"]], [got["pull"]["rate"], got["pull"]["pull"]]],
                               want, rtol=1e-12)
    single = srcdiff.hessian(decay_fit, wrt=(0, 1))(np.float32(0.3), np.float32(2.0), OBSERVED, 12)
    assert all(np.asarray(h).dtype == np.float32 for row in single for h in row)
    np.testing.assert_allclose(np.array(single, dtype=float), want, rtol=2e-3, atol=2e-3 * np.abs(want).max())


def test_the_product_with_an_infinite_factor_is_the_true_partial_not_nan():
    # f = a * b * big * sum(1/(i+1)): linear in a and in b, so d2f/da2 = d2f/db2 = 0 for every big;
    # the unfolded sweep multiplied the other parameter's zero tangent by inf (NaN on the diagonal)
    H = srcdiff.hessian(coupled_products, wrt=(0, 1))
    got = H(0.7, -1.3, np.inf, 4)
    assert _folded(H)
    assert got[0][0] == 0.0 and got[1][1] == 0.0
    assert got[0][1] == np.inf and got[1][0] == np.inf


def test_zero_inputs_are_exact():
    H = srcdiff.hessian(coupled_products, wrt=(0, 1))
    got = np.array(H(0.0, 0.0, 2.0, 4), dtype=float)
    c = 2.0 * (1 + 1 / 2 + 1 / 3 + 1 / 4)
    np.testing.assert_array_equal(got, [[0.0, c], [c, 0.0]])


def test_nan_data_stays_nan_where_the_derivative_reads_it():
    observed = OBSERVED.copy()
    observed[3] = np.nan
    H = srcdiff.hessian(decay_fit, wrt=(0, 1))
    got = np.array(H(0.3, 2.0, observed, 12), dtype=float)
    assert _folded(H) and np.isnan(got).all()


def test_arrays_beside_numbers_keep_their_shapes():
    w = np.array([0.5, -1.0, 2.0])
    H = srcdiff.hessian(scalar_and_array_items, wrt=0)
    got = H(0.9, w, 3)
    assert np.shape(got) == () and _folded(H)
    want = second_differences(lambda a, w, s: scalar_and_array_items(a, w, s), (0.9,), (w, 3))[0, 0]
    assert math.isclose(float(got), want, rel_tol=2e-5)


def test_an_accumulation_nothing_reads_is_not_computed():
    H = srcdiff.hessian(decay_fit, wrt=(0, 1))
    H(0.3, 2.0, OBSERVED, 12)
    code = [line.strip() for line in H.source.splitlines() if not line.strip().startswith("#")]
    assert any(line.startswith("pull_bar_dot0 = ") for line in code)
    assert not any(line.startswith("pull_bar = ") for line in code)  # the gradient's own total: unused


def _known(text: str, seed=("a",)) -> set:
    func = ast.parse(text).body[0]
    return grow(func, set(seed), {"a"}, is_scalar_expr)


def test_lists_of_numbers_and_of_tuples_are_known():
    known = _known("def f(a):\n xs = []\n xs.append(a)\n ys = []\n ys.append((a, a * 2.0))\n"
                   " u = xs[0]\n v, w = ys[0]\n zs = zeros_list(xs)\n zs[0] = zs[0] + u\n return zs[-1]\n")
    assert {"u", "v", "w", "xs" + ITEM, "ys" + TUPLES, "zs" + ITEM} <= known


@pytest.mark.parametrize("text", [
    "def f(a):\n xs = []\n xs.append(np.ones(3))\n u = xs[0]\n",  # an array item
    "def f(a):\n xs = []\n xs.append(a)\n other = xs\n other.append(np.ones(3))\n u = xs[0]\n",  # an alias
    "def f(a):\n xs = []\n xs.append(a)\n g(xs)\n u = xs[0]\n",  # a call that may put anything in it
    "def f(a):\n xs = []\n xs.append(a)\n xs.extend(h)\n u = xs[0]\n",  # a method not known
    "def f(a):\n xs = []\n xs.append(a)\n u = xs[0:1]\n",  # a slice is a list
    "def f(a):\n u = table[0]\n",  # a list the function did not make
    "def f(a):\n xs = []\n xs.append((a, np.ones(2)))\n u, v = xs[0]\n",  # a tuple holding an array
])
def test_lists_that_may_hold_arrays_are_not_known(text):
    known = _known(text)
    assert "u" not in known and "xs" + ITEM not in known
