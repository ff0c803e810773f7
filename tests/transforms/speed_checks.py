"""The two checks every speed wave's programs pass (test_speed21_masks.py, test_speed22_ties.py,
test_speed30_passes.py): the optimised gradient against central differences, and against the
debug gradient, which the optimizer does not rewrite."""

from __future__ import annotations

import numpy as np
from numeric import central_difference

import srcdiff

from .corpus import Program


def assert_near_central_differences(program: Program) -> None:
    """grad of `program` agrees with float64 central differences."""
    got = srcdiff.grad(program.func, wrt=program.wrt)(*program.args)
    np.testing.assert_allclose(got, central_difference(program.func, program.args, program.wrt), rtol=1e-6, atol=1e-8)


def assert_optimised_equals_debug(program: Program, rtol: float = 1e-13, atol: float = 1e-15) -> None:
    """value_and_grad of `program` gives f's value and the debug gradient, to rounding (`rtol`, `atol`)."""
    f, wrt, args = program.func, program.wrt, program.args
    value, got = srcdiff.value_and_grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(got, srcdiff.grad(f, wrt=wrt, debug=True)(*args), rtol=rtol, atol=atol)
    np.testing.assert_allclose(value, f(*args), rtol=rtol)
