"""Issue 23 (reach8b): state in dicts and lists written in loops, partials and closures held in
lists, objects from factories, try/except alternatives: every transformation agrees with
central differences (matrix.py), numba agrees or refuses at the user's line, float32 stays
float32; what srcdiff cannot do is refused at the line."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from . import reach8b_programs as programs_module
from .reach8b_programs import PROGRAMS


def programs():
    return corpus.from_table(PROGRAMS, "reach8b", "reach8b_programs", 8)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


def as32(value):
    return value.astype(np.float32) if isinstance(value, np.ndarray) and value.dtype == np.float64 else value


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_float32_gradient_is_float32(program):
    if not isinstance(program.args[program.wrt], np.ndarray):
        pytest.skip("a Python float parameter: its gradient is a float64 number")
    g = srcdiff.grad(program.func, wrt=program.wrt)
    single = g(*map(as32, program.args))
    double = g(*[np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray) else a for a in map(as32, program.args)])
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, double, rtol=2e-3, atol=1e-4)


def test_a_dict_copied_before_the_loop_keeps_its_values():
    """``saved = dict(state)`` before a loop writing ``state["q"]``: the copy's items are variables of its
    own since reach15 (frontend/state_writes.py), so Python's shallow copy keeps the old array."""
    f = programs_module.dict_copy_then_write
    x = np.array([0.3, -0.2, 0.5])
    np.testing.assert_allclose(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-6)


def test_a_new_key_in_a_loop_of_a_count_given_agrees():
    """``for _ in range(steps): state["r"] = ...`` of an int argument: since wave 33a the count is a constant of
    the rewrite (each count its own gradient), so the loop is written out and the new key is there (steps=0
    leaves it out: refused at the read, as Python raises KeyError)."""
    f = programs_module.dict_new_key_in_loop
    x = np.array([0.3, -0.2, 0.5])
    for steps in (1, 2):
        np.testing.assert_allclose(srcdiff.grad(f)(x, steps), central_difference(f, (x, steps), 0),
                                   rtol=1e-6)
    with pytest.raises(srcdiff.SrcDiffError, match="without the key 'r'"):
        srcdiff.grad(f)(x, 0)


@pytest.mark.parametrize("name, words", [
    ("partials_read_a_rebound_name", "cs is assigned more than once"),
    ("try_handler_reads_half_done", "may leave z assigned by the try body"),
    ("try_with_finally", "it has a `finally`"),
])
def test_refused_at_the_line(name, words):
    with pytest.raises(srcdiff.SrcDiffError, match=words) as info:
        srcdiff.grad(getattr(programs_module, name))(np.ones(3))
    assert "reach8b_programs.py" in str(info.value)


@pytest.mark.parametrize("name", ["lambdas_read_the_comprehension_name_known", "lambdas_read_the_comprehension_name"])
def test_lambdas_reading_the_comprehension_name_see_its_last_value(name):
    """``[lambda z: k * np.sum(z) for k in (1, 2)]``: Python's closures read k after the list is made
    (k == 2 for both); srcdiff binds it so (idioms14), where it refused before; over a tuple of floats
    (``for s in (1.0, 2.0)``) too since reach15, whose unrolled loops take float items."""
    f = getattr(programs_module, name)
    x = np.array([0.3, -0.2, 0.5])
    np.testing.assert_allclose(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-6)
