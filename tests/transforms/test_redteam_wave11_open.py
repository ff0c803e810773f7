"""What the red team's eleventh wave found that is still open (test_redteam_wave11_findings.py holds the
classes fixed): a NaN gradient where the truth is finite (the entropy of a probability that is
exactly 0), and reasonable code still refused at its line.  Each is a strict xfail naming its class;
references are float64 central differences of the function."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special
from numeric import central_difference

import srcdiff

from . import redteam_wave11_idioms as idioms
from .corpus import Program
from .matrix import OK, REFUSED, run

HERE = "test_redteam_wave11_open.py"


def open_class(name: str, cases):
    """`cases` as pytest params, each a strict xfail naming the class."""
    return [pytest.param(*c, marks=pytest.mark.xfail(strict=True, reason=name)) for c in cases]


# ---- 1. the entropy of a probability that is exactly 0 (OPEN): NaN, truth finite ----------------------
# ``p = softmax(np.where(mask, logits, -np.inf)); -np.sum(scipy.special.entr(p))``: entr'(0) = -log 0 - 1
# is infinite, and the softmax's Jacobian at a zero probability is exactly 0, so the chain rule meets
# inf * 0 = NaN, and the softmax's adjoint spreads it to every logit.  The function is smooth in the
# unmasked logits (p log p -> 0).  A zero adjoint meeting an infinite slope is the gap docs/guarantees.md
# names ("Not covered"); zeroing the softmax's adjoint where p == 0 would turn the honest NaN of
# ``np.log(softmax(z))[k]`` at an underflowed p into a silent 0.  Write the entropy with the double
# where: ``p * np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), 0.0)`` (exact, tested below).


def masked_entr(logits, mask):
    p = scipy.special.softmax(np.where(mask, logits, -np.inf))
    return -np.sum(scipy.special.entr(p))


def masked_xlogy(logits, mask):
    p = scipy.special.softmax(np.where(mask, logits, -np.inf))
    return np.sum(scipy.special.xlogy(p, p))


def masked_double_where(logits, mask):
    p = scipy.special.softmax(np.where(mask, logits, -np.inf))
    return -np.sum(p * np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), 0.0))


def underflowed_entr(logits):
    p = scipy.special.softmax(logits)
    return -np.sum(scipy.special.entr(p))


LOGITS, MASK = np.array([0.3, -0.5, 1.0, 0.2]), np.array([True, False, True, True])
ZERO_P = [(masked_entr, (LOGITS, MASK)), (masked_xlogy, (LOGITS, MASK)),
          (underflowed_entr, (np.array([0.3, -800.0, 1.0]),)),
          (idioms.entropy_with_zeros, (LOGITS, MASK))]


def _gradient_is_right(f, args):
    want = central_difference(f, args, 0)
    np.testing.assert_allclose(srcdiff.grad(f)(*args), want, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("f, args", open_class("entropy of an exact-zero probability: NaN", ZERO_P),
                         ids=lambda v: getattr(v, "__name__", ""))
def test_entropy_of_an_exact_zero_probability(f, args):
    _gradient_is_right(f, args)


def test_entropy_with_the_double_where_is_exact():
    _gradient_is_right(masked_double_where, (LOGITS, MASK))


def test_entropy_of_an_exact_zero_probability_is_nan_not_a_number():
    # never a silent finite number: NaN where the chain rule meets inf * 0
    assert np.isnan(srcdiff.grad(masked_entr)(LOGITS, MASK)).any()


# ---- 2. reasonable code still refused, each at the user's line (OPEN) ---------------------------------
# Classes, one program each from the wave (several spellings in the corpus): recursion over a nested
# list.  (reach11a: list.pop/insert, Enum, nonlocal; numba11: numba-only refusals; differentiated since:
# reach12a, test_reach12a_spellings.py, a list joined with ``+``, appended to and read in one loop, a
# ``list.reverse()``, ``np.maximum.at``, a loop over ``str.split``, ``itertools.islice``, a computed
# ``minlength``; reach12b, test_reach12b_objects.py, a partial of a bound method, a user class's
# operators, memoisation in a dict, ``scipy.stats.gamma.mean``.)

R = np.random.default_rng(11)
REFUSED_CODE = [
    ("recursion_over_nested_list", idioms.recursive_nested_list, (0.6,)),
]


def _row(case):
    name, f, args, *wrt = case
    return run(Program(f"w11_open:{name}", f, args, wrt[0] if wrt else 0, HERE), ("grad",))


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
