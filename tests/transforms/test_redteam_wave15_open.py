"""What the red team's fifteenth wave found that is still open and is not a wrong answer
(test_redteam_wave15_findings.py holds those): reasonable code refused at its line, and a NaN where the
derivative is 0 because an intermediate overflowed.  Each is a strict xfail naming its class; references
are float64 central differences of the function (or the closed form, written out)."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus
from . import redteam_wave15_points as points
from .corpus import Program
from .matrix import OK, REFUSED, run
from .redteam_wave15 import WAVE15

HERE = "test_redteam_wave15_open.py"
TABLE = {name: (func, make, wrt) for name, func, make, wrt in WAVE15}


def open_class(name: str, cases):
    """`cases` as pytest params, each a strict xfail naming the class."""
    return [pytest.param(*c, marks=pytest.mark.xfail(strict=True, reason=name)) for c in cases]


def _program(name: str) -> Program:
    """The wave's program `name`, with the arguments the matrix gives it (corpus.redteam's seed)."""
    func, make, wrt = TABLE[name]
    return Program(f"redteam:{name}", func, tuple(make(corpus._seed(f"redteam:{name}"))), wrt, HERE)


# ---- 1. reasonable code refused, each at the user's line (OPEN) ---------------------------------------------
# One program per class, from the wave; every transformation refuses the same way (numba too, where it ran).
# (Differentiated since: a loop over a module-level tuple of names and a generator over a tree's items kept
# by a condition on the key, tests/transforms/test_dict_comprehensions.py; reversed inside zip, a starred
# target never read, np.vander, cho_factor's pair kept whole, tests/transforms/test_spellings15.py; a list's
# item written by index, de Boor's ``d[j] = ...``, a list of callable layer objects given as data, and a
# lambda or a partial made in the function given to an integrator, a partial of constants as a default,
# tests/transforms/test_reach15.py, rows w15_bspline_fit, w15_callable_layer_list, w15_lambda_as_argument,
# w15_partial_made_in_the_function, w15_partial_default_argument and w15_reinforce's returns.insert(0, G);
# ``try: return a / b`` / ``except ZeroDivisionError: return 0.0`` in a helper, test_spellings16.py.)
#   dict comprehension  ``{i: np.sum((A @ x) ** 2) for i, A in enumerate(As)}``
#   memo dict         a recursion that fills ``memo[n] = v``: "memo holds a different tree on each side"

REFUSED_CODE = [
    ("dict_comprehension", "w15_comprehension_pairs"),
    ("memo_dict_recursion", "w15_memo_recursion"),
]


def _row(case):
    _, name = case
    return run(_program(name), ("grad",))


@pytest.mark.parametrize("case", open_class("reasonable code refused", [(c,) for c in REFUSED_CODE]),
                         ids=lambda c: c[0])
def test_reasonable_code_refused(case):
    cell = _row(case).cells["grad"]
    assert cell.outcome == OK, cell.message


@pytest.mark.parametrize("case", REFUSED_CODE, ids=lambda c: c[0])
def test_reasonable_code_refused_names_the_users_line(case):
    row = _row(case)
    assert not row.excluded, row.excluded
    cell = row.cells["grad"]
    assert cell.outcome == REFUSED and cell.located, cell.message


# ---- 2. NaN where the derivative is 0 (FIXED): an intermediate that overflows ------------------------------
# The sigmoid as users first write it, ``1 / (1 + np.exp(-x))``, at x = -800: NumPy gives 0 (exp overflows to
# inf, 1 / inf = 0) and the function is flat there (its derivative e^-800 underflows to 0; central
# differences give exactly 0).  The chain rule multiplied the inf of ``exp`` by the 0 of ``1 / (1 + e) ** 2``:
# NaN.  The gradient's optimizer now reads a sigmoid's adjoint from its value, ``g * s * (1 - s)``
# (backend/optimize/logistic.py): 0 there, the derivative's value.


def naive_sigmoid_loss(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return np.sum((p - y) ** 2)


NAIVE = [(points.naive_sigmoid_tail, (np.array([-800.0, 0.5, 3.0]),)),
         (naive_sigmoid_loss, (np.array([400.0, 0.0]), np.array([[-2.0, 1.0], [0.001, 0.3]]), np.array([0.0, 1.0])))]


@pytest.mark.parametrize("f, args", NAIVE, ids=[f.__name__ for f, _ in NAIVE])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_overflowed_sigmoid_tail(f, args):
    want = central_difference(f, args, 0)
    np.testing.assert_allclose(srcdiff.grad(f)(*args), want, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("f, args", NAIVE, ids=[f.__name__ for f, _ in NAIVE])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_overflowed_sigmoid_tail_is_nan_not_a_number(f, args):
    """Never a silent number: the overflowed element's gradient is NaN (or the truth), the rest exact."""
    got = srcdiff.grad(f)(*args)
    want = central_difference(f, args, 0)
    ok = np.isnan(got) | np.isclose(got, want, rtol=1e-6, atol=1e-12)
    assert ok.all(), (got, want)
