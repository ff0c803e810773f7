"""`srcdiff.check` of losses whose gradient selects by a comparison of symbols (piecewise_losses.py).

The pinball loss's gradient (np.maximum's adjoint: ``np.where(t2 <= t4, ...)``) run on symbols built
each element's ``Piecewise`` from a relation of two float-coefficient expressions (``0.3*r <=
-0.7*r``); sympy put it in canonical form again for every nested ``Piecewise`` it collapsed (12 s of
CPU; within check's default 5 s it gave up: "running the function and its gradient on symbols took
longer").  Truth.select now writes the relation as ``lhs - rhs`` against 0 first (the same condition
for real values): about 4 s, most of it the proof's budget.
"""

import numpy as np
import pytest

import srcdiff

from .piecewise_losses import hinge, pinball


@pytest.mark.slow  # (several seconds of sympy; its time is measured outside tests: speed lives in benchmarks)
@pytest.mark.parametrize("f", [pinball, hinge], ids=["pinball", "hinge"])
def test_a_piecewise_gradient_is_checked_on_symbols(f):
    rng = np.random.default_rng(0)
    X, w, y = rng.standard_normal((6, 3)), rng.standard_normal(3), rng.standard_normal(6)
    srcdiff.check(lambda v: np.sum(v * v), w, progress=False)  # (sympy's imports first)
    report = srcdiff.check(f, w, X, y, progress=False, timeout=60)
    assert report.status in ("proved", "agrees numerically"), str(report)
    assert "took longer" not in str(report)
