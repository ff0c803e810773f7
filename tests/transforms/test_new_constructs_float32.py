"""Objects built in the function, functions passed to helpers and read from tables, with float32
arguments: the gradient is float32 and close to the float64 one."""

import numpy as np
import pytest

import srcdiff

from . import corpus
from .built_object_programs import PROGRAMS as BUILT
from .function_argument_programs import PROGRAMS as PASSED

CASES = corpus.from_table(BUILT, "built_objects", "built_object_programs", 5) \
    + corpus.from_table(PASSED, "function_arguments", "function_argument_programs", 5)


def as32(value):
    return value.astype(np.float32) if isinstance(value, np.ndarray) and value.dtype == np.float64 else value


@pytest.mark.parametrize("program", CASES, ids=lambda p: p.name)
def test_float32_arguments_get_a_float32_gradient(program):
    if not isinstance(program.args[program.wrt], np.ndarray):
        pytest.skip("a Python float parameter: its gradient is a float64 number")
    g = srcdiff.grad(program.func, wrt=program.wrt)
    single = g(*map(as32, program.args))
    double = g(*[np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray) else a for a in map(as32, program.args)])
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, double, rtol=1e-3, atol=1e-4)
