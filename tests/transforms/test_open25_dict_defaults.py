"""A helper nested in the differentiated function whose default is a dict built there
(open25_dict_default_programs.py): ``def g(u, k=k)`` was refused with "name 'k' is not defined"
(the dict had been split into its entries' variables, so lowering found no ``k``).

Now the tree rewrite (frontend/local_defs.py) reads such a default where the ``def`` runs: a call it
writes out binds the dict's entries; a default reading one entry (``c=k["a"]``) reads its variable.
Python computes a default once, when the ``def`` runs, so a dict changed after the ``def`` (an item
written, the name rebound, a method called) is refused at that line; a call srcdiff cannot write out is
refused at the call, with "pass k here".  A helper returning early in an ``if`` (refused so until wave 26)
is written out once its returns are moved to its end (frontend/single_return.py).
"""

import inspect

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from . import open25_dict_default_programs as programs_module


def programs():
    return corpus.from_table(programs_module.PROGRAMS, "open25_dict_defaults", "test_open25_dict_defaults", 25)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=lambda p: p.name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_numba_compiles_each_program(program):
    matrix.assert_numba_agrees_or_refuses(program)


def _line_of(func, text: str) -> int:
    lines, first = inspect.getsourcelines(func)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("func, at, message", [
    (programs_module.item_written_after_def, 'k["a"] = x[1]',
     "k is changed after the `def g` whose default `k` reads it (Python computes the default once, when the "
     "`def` runs), which srcdiff does not follow for a dict or other tree"),
    (programs_module.rebound_after_def, 'k = {"a": x[2]',
     "k is changed after the `def g` whose default `k` reads it"),
], ids=["item_written_after_def", "rebound_after_def"])
def test_refused_at_the_line_that_breaks_it(func, at, message):
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(func)(np.array([0.5, -1.0, 2.0]))
    first = str(caught.value).splitlines()[0]
    assert f"open25_dict_default_programs.py:{_line_of(func, at)}: {message}" in first
    assert "not defined" not in str(caught.value)
    assert "hint: pass k to g" in str(caught.value)


def test_a_helper_returning_early_reads_its_dict_default():
    """``def g(u, k=k)`` returning early in an ``if`` (refused with "pass k to g" until wave 26)."""
    from numeric import central_difference

    x = np.array([0.5, -1.0, 2.0])
    for point in (x, -x):
        want = central_difference(programs_module.returns_early, (point,), 0)
        np.testing.assert_allclose(srcdiff.grad(programs_module.returns_early)(point), want, rtol=1e-6, atol=1e-8)
